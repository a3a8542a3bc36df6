"""The records a run's stages share: what was asked (RunOptions), what is pending, and the report.

Stages never import each other (only :mod:`pipeline.run.orchestrate` does); what they pass
between them is defined here, next to nothing but :mod:`pipeline.model`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.errors import ExitCode
from pipeline.model import Counters, Issue, Protected, Segment, SegmentKey, TranslationOptions

if TYPE_CHECKING:  # not loaded on the no-op path: the plural planner loads the placeholder grammars
    from pipeline.formats import Catalog
    from pipeline.quota import UsageRecord
    from pipeline.run.plurals import UnitPlan

__all__ = [
    "CatalogReport",
    "CatalogWork",
    "DryRunEstimate",
    "Fingerprint",
    "Pending",
    "Recovery",
    "Remaining",
    "RunOptions",
    "Reused",
    "RunReport",
    "ScannedCatalog",
    "Stop",
    "StopReason",
    "Verdict",
    "Verify",
    "Window",
]


class StopReason(enum.Enum):
    """Why a run stopped before sending everything; each saves what was already translated."""

    BUDGET = "budget"  # the run's max_characters reached: exit 3
    QUOTA = "quota"  # the account's quota exceeded (456): exit 3
    SERVICE = "service"  # key refused or service unreachable: exit 4
    INTERRUPTED = "interrupted"  # SIGINT: exit 130
    TERMINATED = "terminated"  # SIGTERM: exit 143
    FAILED = "failed"  # something unexpected after translations were verified: exit 1, they are written
    LOCKED = "locked"  # another run held catalogs longer than lock_wait: exit 6


@dataclass(frozen=True, slots=True)
class Stop:
    """An early stop: its reason, and the message the reports show."""

    reason: StopReason
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True)
class Remaining:
    """What a stopped run left unsent, for the next run."""

    segments: int
    texts: int
    characters: int

    def __add__(self, other: Remaining) -> Remaining:
        """What two windows of a run left, together."""
        return Remaining(self.segments + other.segments, self.texts + other.texts, self.characters + other.characters)


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """What a settled catalog is recognised by: the size and SHA-256 of its bytes (kept instead of the bytes)."""

    size: int
    sha256: str

    @classmethod
    def of(cls, data: bytes) -> Fingerprint:
        """The fingerprint of ``data``."""
        import hashlib  # not on the no-op path, which compares fingerprints the journal saved

        return cls(len(data), hashlib.sha256(data).hexdigest())


@dataclass(frozen=True, slots=True)
class DryRunEstimate:
    """What a real run would send (``report.json``'s ``would_send``, field for field)."""

    requests: int = 0
    requests_lower_bound: int = 0
    context_requests: int = 0
    characters: int = 0  # billed: every character of the texts, tags included
    texts: int = 0
    segments: int = 0
    # Plural fallback texts not counted above: sent in a second round only for forms whose number fails.
    fallback_texts: int = 0


@dataclass(frozen=True, slots=True)
class CatalogWork:
    """What a real run would do to one catalog (dry run): segments it would write, characters it would bill.

    ``characters`` counts each unique text once per catalog that needs it (a text two catalogs
    share is billed once in the run's total, :class:`DryRunEstimate`).
    """

    path: str
    target_lang: str
    segments: int  # translated, taken from the cache, or copied as is: every one is a write
    characters: int


@dataclass(frozen=True)
class RunOptions:
    """What one ``pipeline translate`` invocation asks for, beyond the settings."""

    paths: tuple[Path, ...] = ()
    target_langs: tuple[str, ...] = ()
    dry_run: bool = False
    use_cache: bool = True
    # Also re-translate fuzzy units that still hold our untouched machine translation when their
    # source or the other inputs (glossary, style list, ...) changed since; never a human's text.
    retranslate_stale: bool = False
    # A dry run that is a check (CI): exit 5 when a real run would write anything (ExitCode.PENDING).
    frozen: bool = False


@dataclass(frozen=True)
class ScannedCatalog:
    """A readable catalog, its languages, and its segments to translate."""

    path: Path
    display: str  # path as shown in reports (relative to the project root when possible)
    catalog: Catalog
    locale: str
    target_lang: str
    segments: tuple[Segment, ...]
    source_forms: dict[int, tuple[int, ...]]  # unit index -> segment form (SegmentKey.form) of each target form
    skipped: int
    plural_plans: dict[int, UnitPlan] = field(default_factory=dict)  # plural units: how forms are made
    fallbacks: tuple[Segment, ...] = ()  # plural fallback texts: sent only for forms whose number failed


@dataclass(frozen=True, slots=True)
class Verdict:
    """The gate's answer for one returned text: restored for writing, or why it may not be written."""

    text: str | None  # the translation with the placeholders put back; None when rejected
    problem: str | None = None
    retryable: bool = False  # rejected for its placeholders: showing them another way could pass


#: The gate's check of a returned text (:func:`pipeline.run.gate.verify`); the orchestrator hands it
#: to the stages that receive texts (cache, send), which do not import the gate themselves.
Verify = Callable[[Protected, str, Segment], Verdict]


@dataclass(slots=True)
class Pending:
    """One unique text to send, and every segment waiting for it (one per text of a catalog: kept small)."""

    options: TranslationOptions
    protected: Protected
    key: str
    refs: list[Segment]
    # Segments whose placeholders differ from ``protected``'s although their protected text is the
    # same (``%(name)s`` and ``{}``): each gets its own placeholders back from the shared answer.
    # None for the usual text that has no such segment.
    own: dict[SegmentKey, Protected] | None = None

    def add(self, ref: Segment, protected: Protected) -> None:
        """``ref`` waits for this text too, with ``protected`` as its own form (kept when its placeholders differ)."""
        if protected != self.protected:  # same text sent, other placeholders behind the tags
            if self.own is None:
                self.own = {}
            self.own[ref.key] = protected
        self.refs.append(ref)

    def protected_for(self, ref: Segment) -> Protected:
        """``ref``'s own protected form."""
        return self.protected if self.own is None else self.own.get(ref.key, self.protected)

    def verdicts(self, answer: str, verify: Verify) -> list[tuple[Segment, Verdict]]:
        """Each segment through the gate with its own placeholders; alike segments are judged once."""
        if len(self.refs) == 1:  # the usual case: nothing to share
            return [(self.refs[0], verify(self.protected_for(self.refs[0]), answer, self.refs[0]))]
        seen: dict[tuple[Protected, str, tuple[str, ...]], Verdict] = {}
        out: list[tuple[Segment, Verdict]] = []
        for ref in self.refs:
            protected = self.protected_for(ref)
            alike = (protected, ref.text, ref.flags)
            if alike not in seen:
                seen[alike] = verify(protected, answer, ref)
            out.append((ref, seen[alike]))
        return out


@dataclass
class CatalogReport:
    """The outcome for one catalog."""

    path: str
    target_lang: str
    counters: Counters = field(default_factory=Counters)
    written: bool = False
    unchanged: bool = False  # settled by an earlier run and not modified since: not even read


@dataclass
class Recovery:
    """Per language: segments each recovery scheme got past the gate, and the characters retries cost."""

    segments: dict[str, int] = field(default_factory=dict)  # scheme name -> segments recovered
    characters: int = 0


@dataclass(frozen=True, slots=True)
class Reused:
    """A unit written with a reviewed translation found elsewhere, and where it was found."""

    catalog: str
    line: int
    target_lang: str
    origin: str  # "path:line" of the catalog or compendium entry it was copied from


@dataclass
class RunReport:
    """The outcome of a run: what the report files and the exit code are made from."""

    service: str
    dry_run: bool
    catalogs: list[CatalogReport] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    totals: Counters = field(default_factory=Counters)
    duration_seconds: float = 0.0
    stopped: Stop | None = None  # why the run stopped early, if it did
    would_send: DryRunEstimate | None = None  # dry run only
    would_write: list[CatalogWork] = field(default_factory=list)  # dry run only: catalogs a run would change
    usage: UsageRecord | None = None  # read before the first translate request
    exit_code: int = ExitCode.OK
    budget: int | None = None  # max billed characters of this run
    remaining: Remaining | None = None  # stopped early with something left unsent
    context_requests: int = 0  # requests beyond what the same texts would need without grouping by context
    unchanged_catalogs: int = 0
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage
    recovery: dict[str, Recovery] = field(default_factory=dict)  # target language -> what retries recovered
    service_languages: str | None = None  # hash of the target languages the service offered, when asked
    reused: list[Reused] = field(default_factory=list)  # units written from reviewed translations elsewhere

    def leave(self, left: Sequence[Pending]) -> None:
        """Count ``left`` (texts a stopped run did not send) in what remains for the next run."""
        if left:
            more = Remaining(
                segments=sum(len(p.refs) for p in left),
                texts=len(left),
                characters=sum(len(p.protected.text) for p in left),
            )
            self.remaining = more if self.remaining is None else self.remaining + more


@dataclass
class Window:
    """The catalogs a run reads, translates and writes together, and what the stages find out about them."""

    paths: list[Path]
    snapshots: dict[Path, bytes | None]  # each catalog's bytes before it was parsed: see write.write_catalogs
    scanned: list[ScannedCatalog] = field(default_factory=list)
    pending: dict[str, Pending] = field(default_factory=dict)  # round one: what the catalogs need
    spare: dict[str, Pending] = field(default_factory=dict)  # plural fallback texts, sent only if needed
    needed: dict[str, Pending] = field(default_factory=dict)  # the spare texts some form turned out to need
    done: dict[SegmentKey, str] = field(default_factory=dict)  # segment -> verified translation
    notes: dict[SegmentKey, str] = field(default_factory=dict)  # segment -> why it needs a reviewer's eye
    # Written marked for review whatever mark_fuzzy says, with a note in the file: catalog -> unit -> note.
    review: dict[str, dict[int, str]] = field(default_factory=dict)
    reused: dict[str, set[int]] = field(default_factory=dict)  # catalog -> units written from a reviewed translation
    retried: dict[SegmentKey, str] = field(default_factory=dict)  # sent again for its length limit -> first answer
