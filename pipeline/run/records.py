"""The records of a run as a whole: what was asked (RunOptions, RunInputs), how it stopped, and the report.

The report (:class:`RunReport`) is written by the run's :class:`~pipeline.run.ledger.Ledger` alone
and read by everyone after. A run with nothing new (the pre-commit hook's usual case) reads no
catalog and needs only these (each record class costs a fresh process its creation); what the
stages pass between them while a window is translated, and the report's records only such a run
makes, are :mod:`pipeline.run.window`'s.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pipeline.config import Settings
from pipeline.errors import ExitCode
from pipeline.model import Counters, Issue

if TYPE_CHECKING:  # made by a run with work: a run with nothing new loads none of them
    from pipeline.run.quota import UsageRecord
    from pipeline.run.window import CatalogWork, DryRunEstimate, Recovery, Reused

__all__ = ["CatalogReport", "Fingerprint", "Remaining", "RunInputs", "RunOptions", "RunReport", "Stop", "StopReason"]


class StopReason(enum.Enum):
    """Why a run stopped before sending everything; each saves what was already translated."""

    BUDGET = "budget"  # the run's max_characters reached: exit 3
    QUOTA = "quota"  # the account's quota exceeded (456): exit 3
    SERVICE = "service"  # key refused or service unreachable: exit 4
    INTERRUPTED = "interrupted"  # SIGINT: exit 130
    TERMINATED = "terminated"  # SIGTERM: exit 143
    FAILED = "failed"  # something unexpected after translations were verified: exit 1, they are written
    LOCKED = "locked"  # another run held catalogs longer than lock_wait: exit 6


class Stop(NamedTuple):
    """An early stop: its reason, and the message the reports show."""

    reason: StopReason
    message: str

    def __str__(self) -> str:
        return self.message


class Remaining(NamedTuple):
    """What a stopped run left unsent, for the next run."""

    segments: int
    texts: int
    characters: int

    def plus(self, other: Remaining) -> Remaining:
        """What two windows of a run left, together (``+`` would join the two tuples)."""
        return Remaining(self.segments + other.segments, self.texts + other.texts, self.characters + other.characters)


class Fingerprint(NamedTuple):
    """What a settled catalog is recognised by: the size and SHA-256 of its bytes (kept instead of the bytes)."""

    size: int
    sha256: str

    @classmethod
    def of(cls, data: bytes) -> Fingerprint:
        """The fingerprint of ``data``."""
        return cls(len(data), hashlib.sha256(data).hexdigest())


class RunOptions(NamedTuple):
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


class RunInputs(NamedTuple):
    """A run's inputs, none of which changes while it runs."""

    settings: Settings
    options: RunOptions
    service: str  # the service's identity (pipeline.connect.service_identity): in cache keys and the report
    fingerprint: str  # settings_hash of the settings (a refresh's: stale_hash): recorded with every catalog settled
    # The fingerprints of the records whose catalogs it skips: its own; a translation's also a refresh's,
    # which settles only what has nothing untranslated and nothing stale left.
    skips: tuple[str, ...]
    paths: tuple[Path, ...]  # the catalogs found that an earlier run did not settle, in order
    terminology: str | None  # fingerprint of glossary and style files not synced to this service yet
    started: float  # time.monotonic() when the run began
    #: Every catalog the configuration finds, settled and read-only ones included (what reuse draws on),
    #: as found when the run began; None when the run was given paths of its own (reuse then looks itself).
    project: tuple[Path, ...] | None = None

    @property
    def has_work(self) -> bool:
        """Whether there is anything to read, estimate or sync; otherwise the run ends after skipping."""
        return bool(self.paths) or self.options.dry_run or self.terminology is not None


@dataclass
class CatalogReport:
    """The outcome for one catalog."""

    path: str
    target_lang: str
    counters: Counters = field(default_factory=Counters)
    written: bool = False
    unchanged: bool = False  # settled by an earlier run and not modified since: not even read


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
    #: Whether every translation the service gave this run is in a cache a later run reads (False: some were
    #: kept in memory only, as with ``--no-cache``): what a run again pays for those not written.
    translations_cached: bool = True
    service_languages: str | None = None  # hash of the target languages the service offered, when asked
    reused: list[Reused] = field(default_factory=list)  # units written from reviewed translations elsewhere
