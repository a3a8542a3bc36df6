"""A translation run, stage by stage: the only package that knows the stages and their order.

Every run goes

    settled (skip unchanged) -> scan -> plan (protect, dedupe, cache keys) -> reuse (reviewed
    translations elsewhere) -> cached -> send (budget, packing, concurrency, length retries) -> gate
    (verify, assemble plurals) -> write -> report

one module of :mod:`pipeline.run` each. Stages never import each other; they take the run's
:class:`~pipeline.run.context.RunContext` and the records of :mod:`pipeline.run.records`. A run
with nothing new (the pre-commit hook's usual case) stops after the first stage and imports neither
asyncio nor the catalog parsers nor the client: it costs little more than starting Python (the
``nothing_new`` column of ``python -m bench.performance many_catalogs``). The later stages are
imported only when some catalog is left (or for a dry run). The catalogs are read in windows
(:func:`pipeline.catalog_paths.catalog_windows`), each scanned, translated, written and saved
before the next is read. A window's segments are planned and sent in parts
(:func:`pipeline.run.plan.parts`): a catalog larger than a window keeps only one part's protected
texts, keys and waiting segments at a time, and pays a text its parts share once.

What a window does with the service is :mod:`.service`'s. Before the first translate request of
a window (or part) the account's usage is read: a run that what is left cannot cover stops
before sending anything (exit 3). When the run's cache holds nothing yet, that read goes out
while the catalogs are scanned (a run the cache covers asks the service nothing); the read after
a window's requests goes out while its catalogs pass the gate and are written. An edited
glossary or style file (its hash differs from the last sync's, :mod:`pipeline.resources.synced`)
is synced even when every catalog is settled, without reading them.

Per-segment problems become :class:`~pipeline.model.Issue` records and the run goes on. Only a few
things stop it early, each saving what was already translated: the service refusing the key or
being unreachable (exit 4), the quota running out (456) or the run's character budget
(``max_characters``) being reached (exit 3), SIGINT or SIGTERM (exit 130 or 143,
:class:`~pipeline.run.send.interruption.Interruption`), and anything unexpected while translating
(exit 1: what was verified before it is written all the same).

Two runs on the same catalogs take turns (:mod:`pipeline.run.locks`): each window's catalogs are
locked while it is read, translated and written; a second run waits for the catalogs the first
holds (saying who holds them), then finds them done, or gives up after ``lock_wait`` (exit 6).

Order of safety: a translation is cached only after the gate verified it, and a catalog is
written (atomically) only with verified translations, so a run stopped at any moment leaves every
file whole and a re-run pays only for what was not yet cached. Every translation written is
recorded with its provenance (:mod:`pipeline.run.journal`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.catalog_paths import catalog_windows, display_path, find_catalogs
from pipeline.config import Settings
from pipeline.connect import ClientFactory, check_service, service_identity
from pipeline.errors import UsageError
from pipeline.model import Issue
from pipeline.run.context import RunContext
from pipeline.run.journal import Journal, settings_hash
from pipeline.run.locks import CatalogLocks, CatalogsBusy, WaitStopped, at_once
from pipeline.run.orchestrate.service import use_service
from pipeline.run.records import CatalogReport, Fingerprint, RunOptions, RunReport, Stop, StopReason
from pipeline.run.report import finish
from pipeline.run.settled import skip_unchanged

if TYPE_CHECKING:
    from pipeline.formats import Unit
    from pipeline.run.report.progress import Progress
    from pipeline.run.window import ScannedCatalog, Window

__all__ = ["CatalogReport", "RunOptions", "RunReport", "run_translate", "translate_catalogs"]


def run_translate(
    settings: Settings,
    options: RunOptions,
    log: Callable[[str], None] | None = None,
    client_factory: ClientFactory | None = None,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> RunReport:
    """Run a whole translation job synchronously; see :func:`translate_catalogs`.

    SIGINT and SIGTERM stop it in order (:class:`~pipeline.run.send.interruption.Interruption`):
    what was done is written and saved, and the report says so (exit 130 or 143).
    """
    run = _start(settings, options, log or _stderr, client_factory, progress, clock)
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
    clock: Callable[[], float] = time.monotonic,
) -> RunReport:
    """Translate every catalog of the run and write the results back; never raises for per-segment trouble.

    ``client_factory`` replaces the client the settings describe (tests inject a transport this way),
    ``clock`` the seconds the report's timings are read from. The caller's event loop keeps its own
    signal handling.
    """
    run = _start(settings, options, log, client_factory, progress, clock)
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
    clock: Callable[[], float],
) -> RunContext:
    """Check the service is configured, find the catalogs, skip those an earlier run settled.

    The catalogs left are locked window by window (:func:`_lock`), each before it is read.
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
        CatalogLocks(settings.cache_dir, settings.lock_wait),
        client_factory=client_factory,
        progress=progress,
        clock=clock,
    )
    if options.frozen and not settings.service.url:
        # A CI check names no service: the one the last run used is whose results the cache holds.
        report.service = run.journal.last_service() or report.service
    run.paths = _unsettled(run, found.paths)
    if not options.dry_run:
        run.note_terminology()
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
                await _window(run, paths, run.started if number == 0 else run.clock())
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
    if run.options.dry_run:
        windows = [run.paths]
    else:  # the run's one cache (memory without a folder) carries what a window paid for to the next
        most = at_once()  # a window's catalogs are locked together: as many descriptors
        windows = [w[i : i + most] for w in catalog_windows(run.paths) for i in range(0, len(w), most)] or [[]]
    assert run.interruption is not None
    for number, window in enumerate(windows):
        locked = run.report.stopped is not None and run.report.stopped.reason is StopReason.LOCKED
        if number and (run.interruption.signum is not None or locked):
            _not_read(run, (path for later in windows[number:] for path in later))
            return
        yield window


def _not_read(run: RunContext, paths: Iterable[Path]) -> None:
    for path in paths:
        run.warn(
            display_path(run.settings, path),
            "not read: the run stopped before reaching this catalog; the next run translates it",
        )


async def _window(run: RunContext, paths: list[Path], clock: float) -> None:
    """Lock, scan, plan, translate and write one window of catalogs, then let them go; timings count from ``clock``."""
    try:
        paths = await _lock(run, paths)
    except CatalogsBusy as exc:
        run.report.stopped = Stop(StopReason.LOCKED, str(exc))
        _not_read(run, paths)
        return
    except WaitStopped:  # a signal: the report's stop says which (see _translate)
        _not_read(run, paths)
        return
    try:
        await _locked_window(run, paths, clock)
    finally:
        run.locks.release()  # after the state was saved: a run waiting for these finds them done


async def _lock(run: RunContext, paths: list[Path]) -> list[Path]:
    """Lock the window's catalogs; those another run settled while this one waited are skipped."""
    if run.options.dry_run:
        return paths
    interruption = run.interruption
    stopped = (lambda: interruption.signum is not None) if interruption is not None else (lambda: False)
    if not await run.locks.acquire(paths, lambda p: display_path(run.settings, p), run.log, stopped):
        return paths
    run.journal = Journal(run.settings.cache_dir)  # another run went first: look again with what it saved
    return _unsettled(run, paths)


async def _locked_window(run: RunContext, paths: list[Path], clock: float) -> None:
    from pipeline.run import write
    from pipeline.run.window import Window

    window = Window(paths, {path: write.snapshot(path) for path in paths})  # taken before parsing: see settle
    sent = run.report.totals.requests
    try:
        parts = await _read(run, window)
        clock = run.timed("scan", clock)
        usage: UsageError | None = None
        for part in parts:  # each made when taken: its segments go with its texts
            clock, usage = await _part(run, window, part, clock)
            if usage is not None:
                break
        after = (
            run.report.totals.requests > sent
            and run.report.usage is not None
            and run.report.usage.before is not None
            and not _leaving(run)
        )
        if after:  # the account's usage once this window's requests are billed, read while its catalogs are written
            run.read_usage_soon()
        if not run.options.dry_run and not _unusable(run, window, usage):
            await _write(run, window)
        clock = run.timed("write", clock)
        if after and run.report.usage is not None:
            run.report.usage.after, _ = await run.usage()
            run.timed("translate", clock)
    finally:
        run.forget_usage()
    if usage is not None:
        raise usage


def _unusable(run: RunContext, window: Window, usage: UsageError | None) -> bool:
    """Whether the window's catalogs stay as they were: the key is missing (exit 2), or the service refused
    it or could not be reached (exit 4) before it answered this run once. The reused and copied entries
    wait for a run that can translate the rest: a failed run changes no file (a pre-commit hook
    that fails does not also modify the files)."""
    stopped = run.report.stopped
    refused = stopped is not None and stopped.reason is StopReason.SERVICE and not run.answered
    if usage is None and not refused:
        return False
    unchanged = "; no catalog was changed"
    if refused and stopped is not None and not stopped.message.endswith(unchanged):
        run.report.stopped = Stop(stopped.reason, stopped.message + unchanged)
    for s in window.scanned:  # what would have been written from the cache, reused or copied is not
        _nothing_written(run.per_catalog[s.display])
    names = {s.display for s in window.scanned}
    run.report.reused[:] = [r for r in run.report.reused if r.catalog not in names]
    return True


def _nothing_written(catalog: CatalogReport) -> None:
    c = catalog.counters
    c.segments_from_cache = c.segments_copied = c.segments_reused = c.characters_reused = 0


def _leaving(run: RunContext) -> bool:
    """Whether the run is ending for a signal or an unreachable service: no usage read after its requests
    then (the user asked it to stop; the service would make it wait out every retry to say nothing)."""
    assert run.interruption is not None
    stopped = run.report.stopped
    return run.interruption.signum is not None or (stopped is not None and stopped.reason is StopReason.SERVICE)


async def _part(
    run: RunContext, window: Window, part: list[ScannedCatalog], clock: float
) -> tuple[float, UsageError | None]:
    """Plan, reuse and translate one part of the window's segments; the clock, and a usage error to raise later."""
    from pipeline.run import plan

    window.pending, window.spare = plan.plan(
        run.settings, part, run.per_catalog, window.done, run.resources(), run.report.service
    )
    clock = run.timed("scan", clock)
    if run.settings.reuse and (window.pending or window.spare):
        from pipeline.run import gate
        from pipeline.run.reuse import reuse

        reuse(run, window, gate.first_error)
        clock = run.timed("reuse", clock)
    usage: UsageError | None = None
    try:
        await _translate_window(run, window)
    except UsageError as exc:  # no key for the service: said as a usage error (exit 2), once written
        usage = exc
    except Exception as exc:  # noqa: BLE001 - whatever fails, what was verified before it is written
        run.report.stopped = Stop(StopReason.FAILED, f"the run failed while translating: {type(exc).__name__}: {exc}")
    # Every text was answered, failed or counted as left: what is written is in window.done. The
    # texts, their keys and the segments that waited for them go before the next part's.
    window.pending, window.spare, window.needed = {}, {}, {}
    return run.timed("translate", clock), usage


async def _read(run: RunContext, window: Window) -> Iterator[list[ScannedCatalog]]:
    """Scan the window's catalogs; the parts of their segments, planned and sent in turn (a dry run: one).

    When the run's cache holds nothing yet (a first run, ``--no-cache``) and nothing was sent, a
    unit to translate is a text to send: the usage read starts with the first catalog that has
    one, and its round trip overlaps the rest of the scan (the loop gets a turn after each catalog).
    """
    import asyncio

    from pipeline.cache import holds_nothing
    from pipeline.run import plan
    from pipeline.run.scan import scan

    inputs = plan.Inputs(run.settings, run.resources())
    journal = run.journal
    offered = await _offered(run)

    def stale(display: str, target: str, unit: Unit) -> bool:
        return journal.is_stale(display, unit, inputs.current(target, unit))

    early = (
        not run.options.dry_run
        and run.report.stopped is None
        and run.interruption is not None
        and run.interruption.signum is None
        and not run.report.totals.requests
        and holds_nothing(run.settings, run.options.use_cache)
    )
    window.scanned = []
    for path in window.paths:
        scanned, issues = scan(
            run.settings,
            (path,),
            run.options.target_langs,
            stale if run.options.retranslate_stale else None,
            window.snapshots,  # parsed from the very bytes write-back compares the file with
            offered,
        )
        window.scanned.extend(scanned)
        run.report.issues.extend(issues)
        wanting = [s for s in scanned if s.source_forms]
        if early and wanting:
            for s in wanting:  # a glossary that cannot be used stops the run before any request
                run.resources().target(s.target_lang)
            run.read_usage_soon(languages_too=True)
            early = False
        await asyncio.sleep(0)
    from pipeline.run.write import awaiting_review

    for s in window.scanned:
        run.per_catalog[s.display] = CatalogReport(s.display, s.target_lang)
        run.per_catalog[s.display].counters.segments_skipped += s.skipped
        run.per_catalog[s.display].counters.awaiting_review = awaiting_review(s.catalog, (), False)
    # A dry run counts each text once in what it would send: all its segments in one part. The parts
    # are cut from the catalogs as scanned (reuse replaces the window's own with the units it wrote).
    return plan.parts(list(window.scanned), sys.maxsize if run.options.dry_run else plan.PART_SEGMENTS)


async def _offered(run: RunContext) -> frozenset[str] | None:
    """The target codes the service offers, when known before the scan: read by an earlier window, or
    (a dry run, init's preview) asked of the embedded service in-process, so that a catalog in a
    language it does not offer is said once, as a run would say it."""
    if run.offered is None and run.options.dry_run and run.settings.service.embedded:
        from pipeline.quota import offered_targets

        run.offered, run.report.service_languages = await offered_targets(run.client())
    return run.offered


async def _translate_window(run: RunContext, window: Window) -> None:
    """Serve what the cache holds, then estimate (dry run) or send the rest; what is left counts as remaining."""
    from pipeline.run import gate, plan
    from pipeline.run.cached import serve_from_cache
    from pipeline.run.send import length

    if window.pending or window.spare:
        planned = [p for p in window.pending.values() if length.limited(p)]
        window.pending = serve_from_cache(run, window, window.pending, gate.verify)
        # Number sentences the cache answered already tell which fallbacks are needed.
        window.needed = serve_from_cache(
            run, window, plan.needed(window.scanned, window.spare, window.done), gate.verify
        )
        # What the cache holds over its length limit is asked for again, shorter, with the rest.
        window.pending.update(serve_from_cache(run, window, length.retries(run, window, planned), gate.verify))
    if run.options.dry_run:
        unneeded = [key for key in window.spare if key not in window.needed]
        spare_cached = run.cache().get_many(unneeded) if unneeded else {}
        run.report.would_send, run.report.would_write = plan.estimate(window, run.per_catalog, spare_cached)
        return
    if not (window.pending or window.needed or run.terminology is not None):
        return
    assert run.interruption is not None
    if run.report.stopped is None and run.interruption.signum is None:  # else an earlier part or window stopped it
        left = await use_service(run, window)
    else:
        left = [*window.pending.values(), *window.needed.values()]
    # A length retry left unsent is no work left: its segments are written with their first answer.
    run.report.leave([p for p in left if not all(ref.key in window.retried for ref in p.refs)])
    run.terminology = None  # synced (or tried): the next window does not sync again


async def _write(run: RunContext, window: Window) -> None:
    """Admit each catalog's translations through the gate, write them, record their provenance, settle.

    The loop gets a turn after each catalog's admission, before anything is written: the usage
    read after the window's requests goes out meanwhile, and its round trip overlaps the rest.
    """
    import asyncio

    from pipeline.run import gate, plan, settled, write
    from pipeline.run.send import length

    length.settle(run, window)
    if run.report.service_languages is not None:
        run.journal.note_languages(run.report.service, run.report.service_languages)
    gated: list[tuple[dict[int, tuple[str, ...]], list[Issue]]] = []  # per catalog: admitted, its issues
    for s in window.scanned:
        before = len(run.report.issues)
        admitted = gate.admit(run.settings, s, window.done, run.report, run.per_catalog[s.display], window.notes)
        gated.append((admitted, run.report.issues[before:]))
        del run.report.issues[before:]  # put back below, in catalog order, with those of the write
        await asyncio.sleep(0)
    # What is written is in ``gated`` now: the segments' keys (and their dict) make room for the rendering.
    window.done, window.notes = {}, {}
    jobs = [(s, admitted, window.snapshots.get(s.path)) for s, (admitted, _) in zip(window.scanned, gated, strict=True)]
    outcomes = write.write_catalogs(run.settings, jobs, window.review)
    inputs = plan.Inputs(run.settings, run.resources())
    for s, (admitted, issues), (written_as, problem) in zip(window.scanned, gated, outcomes, strict=True):
        run.report.issues.extend(issues)
        if problem:
            run.report.issues.append(Issue(s.display, problem, None, s.target_lang))
        written = admitted if written_as is not None else {}
        if written_as is not None:
            run.per_catalog[s.display].written = True
            run.per_catalog[s.display].counters.awaiting_review = write.awaiting_review(
                s.catalog, written, run.settings.mark_fuzzy, window.review.get(s.display, {})
            )
        else:  # taken from the cache, reused or copied, and then not written: the report does not say otherwise
            _nothing_written(run.per_catalog[s.display])
        reused = window.reused.get(s.display, set())  # a human's text: never recorded as the pipeline's
        if written:
            units = s.catalog.units
            run.journal.record(
                s.display,
                (
                    (units[i], forms, inputs.of_unit(s.target_lang, units[i]))
                    for i, forms in written.items()
                    if i not in reused
                ),
            )
        settled.settle(run, s, written_as or _fingerprint(window.snapshots.get(s.path)), written)
    used = {s.path for s in window.scanned}
    for path in window.paths:  # unreadable, or of no known language: settled with that error
        if path not in used:
            settled.settle_unread(run, path, _fingerprint(window.snapshots.get(path)))
    run.save_state()


def _fingerprint(data: bytes | None) -> Fingerprint | None:
    return None if data is None else Fingerprint.of(data)
