"""A translation run, stage by stage: the only module that knows the stages and their order.

Every run goes

    settled (skip unchanged) -> scan -> plan (protect, dedupe, cache keys) -> cached -> send
    (budget, packing, concurrency) -> gate (verify, assemble plurals) -> write -> report

one module of :mod:`pipeline.run` each. Stages never import each other; they take the run's
:class:`~pipeline.run.context.RunContext` and the records of :mod:`pipeline.run.records`. A run
with nothing new (the pre-commit hook's usual case) stops after the first stage and imports
neither asyncio nor the catalog parsers nor the client: it costs little more than starting
Python (bench/noop.py). The later stages are imported only when some catalog is left (or for a
dry run). The catalogs are read in windows (:func:`pipeline.catalog_paths.catalog_windows`), each
scanned, translated, written and saved before the next is read.

Before the first translate request of a window the account's usage is read: a run that what is
left cannot cover stops before sending anything (exit 3). An edited glossary or style file (its
hash differs from the last sync's, :mod:`pipeline.resources.synced`) is synced even when every
catalog is settled, without reading them.

Per-segment problems become :class:`~pipeline.model.Issue` records and the run goes on. Only a few
things stop it early, each saving what was already translated: the service refusing the key or
being unreachable (exit 4), the quota running out (456) or the run's character budget
(``max_characters``) being reached (exit 3), SIGINT or SIGTERM (exit 130 or 143,
:class:`~pipeline.run.send.interruption.Interruption`), and anything unexpected while translating
(exit 1: what was verified before it is written all the same).

Two runs on the same catalogs take turns (:mod:`pipeline.run.locks`): the second waits for the
catalogs the first holds, then finds them done.

Order of safety: a translation is cached only after the gate verified it, and a catalog is
written (atomically) only with verified translations, so a run stopped at any moment leaves every
file whole and a re-run pays only for what was not yet cached. Every translation written is
recorded with its provenance (:mod:`pipeline.run.journal`).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.catalog_paths import catalog_windows, display_path, find_catalogs
from pipeline.config import Settings
from pipeline.connect import ClientFactory, check_service, service_identity
from pipeline.errors import UsageError
from pipeline.model import Issue
from pipeline.run.context import RunContext
from pipeline.run.journal import Journal, settings_hash
from pipeline.run.locks import CatalogLocks
from pipeline.run.records import CatalogReport, RunOptions, RunReport, Stop, StopReason, Window
from pipeline.run.report import finish
from pipeline.run.settled import skip_unchanged

if TYPE_CHECKING:
    from pipeline.formats import Unit
    from pipeline.resources.attach import Synced
    from pipeline.run.records import Pending
    from pipeline.run.report.progress import Progress
    from pipeline.run.send import Outcome

__all__ = ["CatalogReport", "RunOptions", "RunReport", "run_translate", "translate_catalogs"]


def run_translate(
    settings: Settings,
    options: RunOptions,
    log: Callable[[str], None] | None = None,
    client_factory: ClientFactory | None = None,
    progress: Progress | None = None,
) -> RunReport:
    """Run a whole translation job synchronously; see :func:`translate_catalogs`.

    SIGINT and SIGTERM stop it in order (:class:`~pipeline.run.send.interruption.Interruption`):
    what was done is written and saved, and the report says so (exit 130 or 143).
    """
    run = _start(settings, options, log or _stderr, client_factory, progress)
    try:
        if not run.has_work():  # no event loop, nothing parsed
            run.save_state()  # the mtimes of catalogs touched but not changed
            return finish(run)
        import asyncio  # only now: importing it costs more than starting Python

        return asyncio.run(_translate(run, handle_signals=True))
    finally:
        run.locks.release()


async def translate_catalogs(
    settings: Settings,
    options: RunOptions,
    log: Callable[[str], None],
    client_factory: ClientFactory | None = None,
    progress: Progress | None = None,
) -> RunReport:
    """Translate every catalog of the run and write the results back; never raises for per-segment trouble.

    ``client_factory`` replaces the client the settings describe (tests inject a transport this way).
    The caller's event loop keeps its own signal handling.
    """
    run = _start(settings, options, log, client_factory, progress)
    try:
        return await _translate(run)
    finally:
        run.locks.release()


def _start(
    settings: Settings,
    options: RunOptions,
    log: Callable[[str], None],
    client_factory: ClientFactory | None,
    progress: Progress | None,
) -> RunContext:
    """Check the service is configured, find the catalogs, skip those an earlier run settled, lock the rest.

    The catalogs left are locked before they are read: a run that had to wait for another one
    looks at them again, with the state that run saved, so it skips (or finds translated) what
    the other did and pays for none of it again.
    """
    if not options.dry_run:
        check_service(settings)
    report = RunReport(service=service_identity(settings), dry_run=options.dry_run, budget=settings.max_characters)
    found = find_catalogs(settings, options.paths)
    report.issues.extend(found.refused)
    run = RunContext(
        settings,
        options,
        log,
        report,
        Journal(settings.cache_dir),
        settings_hash(settings),
        CatalogLocks(settings.cache_dir),
        client_factory=client_factory,
        progress=progress,
    )
    if options.frozen and not settings.service.url:
        # A CI check names no service: the one the last run used is whose results the cache holds.
        report.service = run.journal.last_service() or report.service
    try:
        run.paths = _unsettled(run, found.paths)
        if not options.dry_run and run.locks.acquire(run.paths, lambda p: display_path(settings, p), log):
            run.journal = Journal(settings.cache_dir)  # another run went first: look again with what it saved
            run.paths = _unsettled(run, run.paths)
        if not options.dry_run:
            run.note_terminology()
    except BaseException:
        run.locks.release()
        raise
    return run


def _unsettled(run: RunContext, paths: list[Path]) -> list[Path]:
    """The catalogs of ``paths`` an earlier run did not settle (a refresh looks at every fuzzy unit: all)."""
    if run.options.retranslate_stale:
        return paths
    return skip_unchanged(run, paths)


def _stderr(message: str) -> None:
    print(f"pipeline: {message}", file=sys.stderr)


async def _translate(run: RunContext, handle_signals: bool = False) -> RunReport:
    """Read, translate and write the catalogs left, window by window; the report of the whole run."""
    if not run.has_work():
        run.save_state()
        return finish(run)
    from pipeline.run.send.interruption import Interruption

    run.interruption = interruption = Interruption()
    with interruption.handling(handle_signals):
        try:
            for number, paths in enumerate(_windows(run)):
                await _window(run, paths, run.started if number == 0 else time.monotonic())
        finally:
            await run.aclose()
    if interruption.signum is not None:  # whatever else stopped the run, the user asked it to stop
        run.report.stopped = interruption.stopped()
    return finish(run)


def _windows(run: RunContext) -> Iterator[list[Path]]:
    """The windows of catalogs to read in turn; none more once a signal asked the run to stop.

    A later window finds a text an earlier one paid for in the cache; without one (or in a dry
    run, which writes none) it would pay or count it again: one window then.
    """
    windowed = not run.options.dry_run and run.options.use_cache and run.settings.cache_dir is not None
    windows = (catalog_windows(run.paths) if windowed else [run.paths]) or [[]]  # none left: still sync, report
    assert run.interruption is not None
    for number, window in enumerate(windows):
        if number and run.interruption.signum is not None:
            for path in (path for later in windows[number:] for path in later):
                run.warn(
                    display_path(run.settings, path),
                    "not read: the run stopped before reaching this catalog; the next run translates it",
                )
            return
        yield window


async def _window(run: RunContext, paths: list[Path], clock: float) -> None:
    """Scan, plan, translate and write one window of catalogs; its stage timings count from ``clock``."""
    from pipeline.run import write

    window = Window(paths, {path: write.snapshot(path) for path in paths})  # taken before parsing: see settle
    _read(run, window)
    clock = run.timed("scan", clock)
    usage: UsageError | None = None
    try:
        await _translate_window(run, window)
    except UsageError as exc:  # no key for the service: said as a usage error (exit 2), once written
        usage = exc
    except Exception as exc:  # noqa: BLE001 - whatever fails, what was verified before it is written
        run.report.stopped = Stop(StopReason.FAILED, f"the run failed while translating: {type(exc).__name__}: {exc}")
    clock = run.timed("translate", clock)
    if not run.options.dry_run:
        _write(run, window)
    run.timed("write", clock)
    if usage is not None:
        raise usage


def _read(run: RunContext, window: Window) -> None:
    """Scan the window's catalogs and plan their segments: protect, copy, dedupe."""
    from pipeline.run import plan
    from pipeline.run.scan import scan

    inputs = plan.Inputs(run.settings, run.resources())
    journal = run.journal

    def stale(display: str, target: str, unit: Unit) -> bool:
        return journal.is_stale(display, unit, inputs.current(target, unit))

    window.scanned, issues = scan(
        run.settings, window.paths, run.options.target_langs, stale if run.options.retranslate_stale else None
    )
    run.report.issues.extend(issues)
    for s in window.scanned:
        run.per_catalog[s.display] = CatalogReport(s.display, s.target_lang)
        run.per_catalog[s.display].counters.segments_skipped += s.skipped
    window.pending, window.spare = plan.plan(
        run.settings, window.scanned, run.per_catalog, window.done, run.resources(), run.report.service
    )


async def _translate_window(run: RunContext, window: Window) -> None:
    """Serve what the cache holds, then estimate (dry run) or send the rest; what is left counts as remaining."""
    from pipeline.run import gate, plan
    from pipeline.run.cached import serve_from_cache

    if window.pending or window.spare:
        window.pending = serve_from_cache(run, window, window.pending, gate.verify)
        # Number sentences the cache answered already tell which fallbacks are needed.
        window.needed = serve_from_cache(
            run, window, plan.needed(window.scanned, window.spare, window.done), gate.verify
        )
    if run.options.dry_run:
        unneeded = [key for key in window.spare if key not in window.needed]
        spare_cached = run.cache().get_many(unneeded) if unneeded else {}
        run.report.would_send, run.report.would_write = plan.estimate(window, run.per_catalog, spare_cached)
        return
    if not (window.pending or window.needed or run.terminology is not None):
        return
    left = [*window.pending.values(), *window.needed.values()]
    if run.report.stopped is None:  # an earlier window stopped the run: nothing more is sent
        left = await _use_service(run, window)
    run.report.leave(left)
    run.terminology = None  # synced (or tried): the next window does not sync again


async def _use_service(run: RunContext, window: Window) -> list[Pending]:
    """Check the quota, sync edited terminology, then send; returns what is left unsent.

    The usage is read before the first request: a window it cannot cover sends nothing at all,
    not even a glossary or a listing. The target languages the service offers are read (once per
    run) while the terminology is synced and attached: a round trip saved.
    """
    import asyncio

    from pipeline.errors import AuthenticationError, ServiceError, TransportError
    from pipeline.quota import check_quota, offered_targets, read_usage
    from pipeline.run.send.budget import Budget

    if not (window.pending or window.needed):
        if run.terminology:
            await run.sync_terminology(s.target_lang for s in window.scanned)
        return []
    left = [*window.pending.values(), *window.needed.values()]
    run.budget = run.budget or Budget(run.settings.max_characters)
    earlier = run.budget.spent  # by earlier windows
    needed = sum(len(p.protected.text) for p in left)
    usage, shortfall = await check_quota(run.client(), needed, run.budget.left, earlier)
    run.note_usage(usage, needed)
    if shortfall is not None:
        run.report.stopped = Stop(StopReason.QUOTA, shortfall)
        return left
    offered = None if run.offered is not None else asyncio.ensure_future(offered_targets(run.client()))
    try:
        synced_now = await run.sync_terminology(s.target_lang for s in window.scanned) if run.terminology else None
        if offered is not None:
            try:
                run.offered, run.report.service_languages = await offered
            except ServiceError as exc:
                reason = (
                    StopReason.SERVICE if isinstance(exc, (AuthenticationError, TransportError)) else StopReason.FAILED
                )
                run.report.stopped = Stop(reason, f"the service's target languages could not be read: {exc}")
                return left
        left = await _send_rounds(run, window, synced_now)
    finally:
        if offered is not None and not offered.done():
            offered.cancel()
        elif offered is not None and not offered.cancelled():
            offered.exception()  # read above, or unused: never "never retrieved"
    if run.report.usage is not None and run.report.usage.before is not None and run.report.totals.requests:
        run.report.usage.after, _ = await read_usage(run.client())
    return left


async def _send_rounds(run: RunContext, window: Window, synced_now: Synced | None) -> list[Pending]:
    """Send round one, then the fallbacks of the plural forms whose number did not come back; returns what is left.

    Both rounds share the run's budget and limiter (round two, and the next window, start at the
    service's limit as found so far); a stop in round one (budget, quota, service, a signal)
    means no round two. ``synced_now`` is this run's terminology sync, when it made one: the
    resources are not synced twice.
    """
    from pipeline.run import gate, plan, send
    from pipeline.run.cached import serve_from_cache
    from pipeline.run.report.progress import Progress

    if not await _attach(run, window, synced_now):
        return list(window.pending.values())
    run.limiter = run.limiter or send.new_limiter(run.settings)
    run.progress = run.progress or Progress()
    assert run.interruption is not None
    left: list[Pending] = []
    pending = window.pending
    for first in (True, False):
        if not first:
            if run.report.stopped or run.interruption.stop.is_set():
                break
            pending = serve_from_cache(run, window, plan.needed(window.scanned, window.spare, window.done), gate.verify)
            if pending:
                entries = {(ref.key.catalog, ref.key.unit) for p in pending.values() for ref in p.refs}
                run.log(
                    f"{len(entries)} plural entries need a fallback text: a representative number did not come back"
                )
        if pending:
            outcome = await _round(run, window, pending)
            left.extend(p for p in pending.values() if p.key not in outcome.finished)
    return left


async def _round(run: RunContext, window: Window, pending: dict[str, Pending]) -> Outcome:
    """One round of requests, which a second signal (or the grace period's end) may cancel: what came back is kept."""
    import asyncio

    from pipeline.run import gate, send

    assert run.interruption is not None and run.progress is not None
    run.progress.start(_per_language(pending))
    outcome = send.Outcome()
    sending = asyncio.ensure_future(send.send_round(run, window, pending, gate.verify, outcome))
    run.interruption.watch(sending)
    try:
        await sending
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise  # this task itself is cancelled, not just its requests
    run.report.totals.requests += outcome.requests
    return outcome


async def _attach(run: RunContext, window: Window, synced_now: Synced | None) -> bool:
    """Fill in the glossary, style list and memory ids; False when the run stopped doing it.

    A feature the service left out changes a text's key: those texts are looked up in the cache
    again (the ones looked up already and missed are not).
    """
    import functools

    from pipeline.errors import AuthenticationError, QuotaExceededError, TransportError
    from pipeline.resources.attach import attach_resources
    from pipeline.run import gate, plan
    from pipeline.run.cached import serve_from_cache
    from pipeline.run.keys import cache_key

    try:
        attached = await attach_resources(
            run.client(),
            run.resources(),
            {**window.pending, **window.spare},
            functools.partial(cache_key, run.report.service),
            run.report.issues,
            run.log,
            synced_now,
        )
    except QuotaExceededError as exc:  # what the cache served is still written
        run.report.stopped = Stop(StopReason.QUOTA, f"quota exceeded: {exc.message}")
        return False
    except (AuthenticationError, TransportError) as exc:
        run.report.stopped = Stop(StopReason.SERVICE, str(exc))
        return False
    fallback_keys = {seg.key for s in window.scanned for seg in s.fallbacks}
    missed = set(window.pending)  # looked up already, and not in the cache
    pending, window.spare = plan.split(attached, fallback_keys)
    changed = {key: item for key, item in pending.items() if key not in missed}  # keys of features left out
    if changed:
        still = serve_from_cache(run, window, changed, gate.verify)
        pending = {key: item for key, item in pending.items() if key in missed or key in still}
    window.pending = pending
    return True


def _write(run: RunContext, window: Window) -> None:
    """Admit each catalog's translations through the gate, write them, record their provenance, settle."""
    from pipeline.run import gate, plan, settled, write

    if run.report.service_languages is not None:
        run.journal.note_languages(run.report.service, run.report.service_languages)
    gated: list[tuple[dict[int, tuple[str, ...]], list[Issue]]] = []  # per catalog: admitted, its issues
    for s in window.scanned:
        before = len(run.report.issues)
        admitted = gate.admit(run.settings, s, window.done, run.report, run.per_catalog[s.display], window.notes)
        gated.append((admitted, run.report.issues[before:]))
        del run.report.issues[before:]  # put back below, in catalog order, with those of the write
    jobs = [(s, admitted, window.snapshots.get(s.path)) for s, (admitted, _) in zip(window.scanned, gated, strict=True)]
    outcomes = write.write_catalogs(run.settings, jobs)
    inputs = plan.Inputs(run.settings, run.resources())
    for s, (admitted, issues), (data, problem) in zip(window.scanned, gated, outcomes, strict=True):
        run.report.issues.extend(issues)
        if problem:
            run.report.issues.append(Issue(s.display, problem, None, s.target_lang))
        written = admitted if data is not None else {}
        if data is not None:
            run.per_catalog[s.display].written = True
        if written:
            units = s.catalog.units
            run.journal.record(
                s.display, ((units[i], forms, inputs.of_unit(s.target_lang, units[i])) for i, forms in written.items())
            )
        settled.settle(run, s, data or window.snapshots.get(s.path), written)
    used = {s.path for s in window.scanned}
    for path in window.paths:  # unreadable, or of no known language: settled with that error
        if path not in used:
            settled.settle_unread(run, path, window.snapshots.get(path))
    run.save_state()


def _per_language(pending: dict[str, Pending]) -> Counter[str]:
    totals: Counter[str] = Counter()
    for item in pending.values():
        totals[item.options.target_lang] += len(item.refs)
    return totals
