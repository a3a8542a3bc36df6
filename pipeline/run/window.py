"""The records the stages of a run pass between them while a window of catalogs is translated.

Stages never import each other (only :mod:`pipeline.run.orchestrate` does): what one finds out for
the next is defined here, next to nothing but :mod:`pipeline.model` and
:mod:`pipeline.run.records`. Only a run with catalogs left to read imports this module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.model import Cause, Issue, Severity
from pipeline.segments import Protected, Segment, SegmentKey, TranslationOptions

if TYPE_CHECKING:  # the plural planner loads the placeholder grammars
    from pipeline.formats import Catalog, Unit
    from pipeline.run.plurals import UnitPlan

__all__ = [
    "CatalogWork",
    "DryRunEstimate",
    "Pending",
    "Recovery",
    "Reused",
    "ScannedCatalog",
    "Verdict",
    "Verify",
    "Window",
    "form_segments",
    "not_offered",
    "unit_context",
]


@dataclass(frozen=True)
class ScannedCatalog:
    """A readable catalog, its languages, and its units to translate.

    The units to translate are the keys of ``source_forms``, in file order. Their segments are
    made one part of the window at a time (:meth:`unit_segments`, :func:`pipeline.run.plan.parts`):
    ``segments`` holds a part's, and nothing as scanned.
    """

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
    context_policy: str = "all"  # what a segment's context is made of (Settings.context)
    formality: str | None = None  # the catalog's own form of address ("formal": de_DE_formal), else None

    def unit_segments(self, index: int) -> list[Segment]:
        """The segments unit ``index`` is translated from: its text, or a plural's number sentences."""
        unit = self.catalog.units[index]
        plan = self.plural_plans.get(index)
        texts = {0: unit.sources[0]} if plan is None else plan.texts
        return form_segments(self.display, unit, texts, unit_context(self.context_policy, unit), self.locale)

    def segment_count(self, index: int) -> int:
        """How many segments unit ``index`` is translated from."""
        plan = self.plural_plans.get(index)
        return 1 if plan is None else len(plan.texts)


def form_segments(
    display: str, unit: Unit, texts: Mapping[int, str], context: str | None, locale: str | None = None
) -> list[Segment]:
    """A segment of ``unit`` in catalog ``display`` for each text of ``texts`` (source form -> text), in form order.

    With the target ``locale``, a text whose ICU plurals lack the locale's categories is flagged to
    have them added (:mod:`pipeline.placeholders.icu_plurals`).
    """
    flags = unit.flags
    if locale is None or not any("{" in text for text in texts.values()):
        return [Segment(SegmentKey(display, unit.index, f), texts[f], unit.line, flags, context) for f in sorted(texts)]
    from pipeline.placeholders.icu_plurals import locale_flags

    return [
        Segment(SegmentKey(display, unit.index, f), text, unit.line, flags + locale_flags(text, locale), context)
        for f, text in sorted(texts.items())
    ]


def not_offered(
    display: str, reason: str, target: str | None, cause: Cause, skip: bool, segments: int | None = None
) -> Issue:
    """The one issue of a catalog whose language cannot be translated into (scan finds it, or the
    service's language list): an error, or skipped when ``unsupported_languages = "skip"`` (``skip``)."""
    reason += f": {segments} segments not translated" if segments is not None else ": not translated"
    if skip:
        return Issue(display, reason, target_lang=target, severity=Severity.SKIPPED, cause=cause)
    reason += ' (set [translate] unsupported_languages = "skip" to pass over such catalogs)'
    return Issue(display, reason, target_lang=target, cause=cause)


def unit_context(policy: str, unit: Unit) -> str | None:
    """What is sent as the request's ``context`` for a unit, per the configured policy."""
    if policy == "none":
        return None
    parts = [unit.context or ""]
    if policy == "all":
        parts.append(unit.notes)
    return "\n".join(p for p in parts if p) or None


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
