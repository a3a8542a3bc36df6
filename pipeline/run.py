"""A translation run: its options and report, and its first, light steps.

Every run goes discover -> skip unchanged -> scan -> protect -> cache -> batch -> translate ->
restore -> write -> report. This module starts it: it finds the catalogs and skips those an
earlier run left with nothing to do and nobody changed since (:mod:`pipeline.state`); the work
on the others is in :mod:`pipeline.translating`, imported only when some catalog is left. So a
run with nothing new (the pre-commit hook's usual case) imports neither asyncio nor the
catalog parsers nor the client: it costs little more than starting Python (bench/).

Per-segment problems become :class:`~pipeline.model.Issue` records and the run goes on. Only
four things stop it early, each saving what was already translated: the service refusing the
key or being unreachable (exit 4), the quota running out (456) or the run's character budget
(``max_characters``) being reached (exit 3).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline import __version__, locales
from pipeline.catalog_paths import discover, display_path
from pipeline.config import ENV_SERVICE_URL, Settings
from pipeline.errors import ExitCode, UsageError
from pipeline.model import Counters, Issue
from pipeline.state import RunState, settings_hash, state_dir

if TYPE_CHECKING:
    from pipeline.progress import Progress
    from pipeline.sending import ClientFactory

__all__ = ["EMBEDDED_BASE_URL", "CatalogReport", "RunOptions", "RunReport", "run_translate", "service_identity",
           "translate_catalogs"]

EMBEDDED_BASE_URL = "http://embedded.invalid"
BUDGET_STOP = "budget"  # RunReport.stopped starts with one of these when the run ran out of characters
QUOTA_STOP = "quota exceeded"


def service_identity(settings: Settings) -> str:
    """What names the service in cache keys and reports: results of one service are not reused for another."""
    if settings.service.embedded:
        return f"embedded/{__version__}"
    return (settings.service.url or "").rstrip("/")


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
    stopped: str | None = None  # why the run stopped early, if it did
    would_send: dict[str, int] = field(default_factory=dict)  # dry run: requests, characters, segments
    exit_code: int = ExitCode.OK
    budget: int | None = None  # max billed characters of this run
    remaining: dict[str, int] = field(default_factory=dict)  # stopped early: segments, texts, characters unsent
    context_requests: int = 0  # requests beyond what the same texts would need without grouping by context
    unchanged_catalogs: int = 0
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage


@dataclass
class StartedRun:
    """A run past its first steps: the catalogs left to read, and what the rest of the run fills in."""

    settings: Settings
    options: RunOptions
    report: RunReport
    state: RunState
    fingerprint: str  # settings_hash of the settings: recorded with every catalog settled
    paths: list[Path]  # catalogs not skipped as unchanged
    per_catalog: dict[str, CatalogReport]
    started: float  # time.monotonic() at the start

    def save_state(self) -> None:
        """Save what the run remembers; a failure is a warning (the next run just parses more)."""
        try:
            self.state.save()
        except OSError as exc:
            self.report.issues.append(Issue(str(self.state.directory), f"cannot save the run state: {exc.strerror}",
                                            severity="warning"))


def run_translate(settings: Settings, options: RunOptions, log: Callable[[str], None] | None = None,
                  client_factory: ClientFactory | None = None, progress: Progress | None = None) -> RunReport:
    """Run a whole translation job synchronously; see :func:`translate_catalogs`."""
    run = _start(settings, options)
    if not run.paths and not options.dry_run:  # everything settled: no event loop, nothing parsed
        run.save_state()
        return _finish(run)
    import asyncio  # only now: importing it costs more than starting Python

    return asyncio.run(_translate(run, log or _stderr, client_factory, progress))


async def translate_catalogs(settings: Settings, options: RunOptions, log: Callable[[str], None],
                             client_factory: ClientFactory | None = None,
                             progress: Progress | None = None) -> RunReport:
    """Translate every catalog of the run and write the results back; never raises for per-segment trouble.

    ``client_factory`` replaces the client the settings describe (tests inject a transport this way).
    """
    return await _translate(_start(settings, options), log, client_factory, progress)


async def _translate(run: StartedRun, log: Callable[[str], None], client_factory: ClientFactory | None,
                     progress: Progress | None) -> RunReport:
    if run.paths or run.options.dry_run:  # a dry run reports what would be sent, even nothing
        from pipeline.translating import translate

        await translate(run, log, client_factory, progress)
    else:
        run.save_state()  # the mtimes of catalogs touched but not changed
    return _finish(run)


def _start(settings: Settings, options: RunOptions) -> StartedRun:
    """Check the service is configured, find the catalogs and skip those an earlier run settled."""
    started = time.monotonic()
    if not options.dry_run and not settings.service.url:
        raise UsageError(f"no translation service configured: pass --service-url URL (or 'embedded' for the "
                         f"local in-process service), or set {ENV_SERVICE_URL}, or set [service] url in pipeline.toml")
    report = RunReport(service=service_identity(settings), dry_run=options.dry_run, budget=settings.max_characters)
    state = RunState(state_dir(settings))
    fingerprint = settings_hash(settings)
    per_catalog: dict[str, CatalogReport] = {}
    paths = discover(settings, options.paths)
    if not options.retranslate_stale:  # a refresh must look at every fuzzy unit, whatever the bytes
        paths = _skip_unchanged(settings, state, fingerprint, paths, options.target_langs, report, per_catalog)
    return StartedRun(settings, options, report, state, fingerprint, paths, per_catalog, started)


def _stderr(message: str) -> None:
    print(f"pipeline: {message}", file=sys.stderr)


def _skip_unchanged(settings: Settings, state: RunState, fingerprint: str, paths: list[Path],
                    target_filter: Sequence[str], report: RunReport, per_catalog: dict[str, CatalogReport]) -> list[Path]:
    """Drop the catalogs an earlier run settled and nobody changed since; replay their notices into the report."""
    wanted = locales.selection((*settings.target_langs, *target_filter))
    left: list[Path] = []
    for path in paths:
        display = display_path(settings, path)
        record = state.unchanged(display, path, fingerprint)
        if record is None:
            left.append(path)
            continue
        if not locales.selected(wanted, record.locale, record.target_lang):
            continue  # as scan does: not part of this run at all
        cat = per_catalog[display] = CatalogReport(display, record.target_lang, unchanged=True)
        cat.counters.segments_skipped = record.skipped
        report.issues.extend(Issue(display, reason, line, record.target_lang, severity)
                             for line, reason, severity in record.notices)
        report.unchanged_catalogs += 1
    return left



def _finish(run: StartedRun) -> RunReport:
    """Sum the counters, time the run and set its exit code."""
    report = run.report
    for stage in ("scan", "translate", "write"):  # a run that skipped everything did none of them
        report.timings.setdefault(stage, 0.0)
    report.catalogs = list(run.per_catalog.values())
    requests = report.totals.requests  # a request can serve several catalogs: count it once
    for cat in report.catalogs:
        report.totals.add(cat.counters)
    report.totals.requests = requests
    report.duration_seconds = round(time.monotonic() - run.started, 3)
    report.exit_code = _exit_code(report)
    return report


def _exit_code(report: RunReport) -> int:
    if report.stopped and report.stopped.startswith((QUOTA_STOP, BUDGET_STOP)):
        return ExitCode.QUOTA
    if report.stopped:
        return ExitCode.UNAVAILABLE
    if any(i.severity == "error" for i in report.issues):
        return ExitCode.PARTIAL
    return ExitCode.OK
