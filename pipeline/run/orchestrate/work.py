"""A run with work: window by window, the catalogs locked, scanned, planned and resolved part by part, written, settled.

Loaded by the run's front door (:mod:`pipeline.run.orchestrate`) once it knows there is work. The
:class:`~.context.RunContext` holds what the windows share, all made before the first one: the inputs, the ledger,
what runs remember, the locks, the connections, the interruption and the progress display.

The catalogs are read in windows (:func:`pipeline.catalog_paths.catalog_windows`), each scanned,
translated, written and saved in turn; a window's segments are planned and resolved in parts
(:func:`pipeline.run.plan.parts`): a catalog larger than a window keeps only one part's protected
texts, keys and waiting segments at a time, and pays a text its parts share once. What a part does
with the cache and the service is :mod:`.resolve`'s.

The service never waits for a window boundary: once a window's last part is cut, the next window
is locked, scanned and planned, and its requests queue behind the last ones of the window before
(:class:`~.turns.Turn`), while those are answered, judged and written. At most two windows are open at
once; windows are written and saved in order, each once the one before is; a window whose
predecessor failed writes nothing.

Two runs on the same catalogs take turns (:mod:`pipeline.run.locks`): each window's catalogs
are locked while it is read, translated and written; a second run waits for the catalogs the first
holds (saying who holds them), then finds them done, or gives up after ``lock_wait`` (exit 6). A
run waits only while it holds no catalog: the next window is locked early only if none of its
catalogs is held by another run, and otherwise once the window before has let its catalogs go.

The account's usage is read before the first translate request of a part. When the run's cache
holds nothing yet, that read goes out while the catalogs are scanned (a run the cache covers asks
the service nothing); the read after a window's requests goes out while its catalogs pass the gate
and are written (and after the last window, while the run closes its cache and provenance). Each
read is on its way before that work takes the loop (:meth:`~.context.Reads.written`). When no
later window has started meanwhile, the read after serves the next window's first part as well
(nothing is billed in between, unless the run waited for another run's catalogs: it then reads
again); when one has, that window's parts read for themselves, and the read after is left to the
last window.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path

from pipeline.cache import holds_nothing
from pipeline.catalog_paths import catalog_windows, display_path
from pipeline.catalogs import Unit
from pipeline.connect import ClientFactory
from pipeline.errors import UsageError
from pipeline.model import Issue, Severity
from pipeline.run import gate, plan, scan, write
from pipeline.run.journal import Journal
from pipeline.run.ledger import Ledger
from pipeline.run.locks import CatalogLocks, CatalogsBusy, WaitStopped, at_once
from pipeline.run.orchestrate.context import Connections, RunContext
from pipeline.run.orchestrate.resolve import Resolver
from pipeline.run.orchestrate.start import finish, unsettled
from pipeline.run.orchestrate.turns import Turn
from pipeline.run.orchestrate.writing import save_carried, write_window
from pipeline.run.provenance import Provenance, Rejections
from pipeline.run.records import RunInputs, RunReport, StopReason
from pipeline.run.report.progress import Progress
from pipeline.run.reuse import Index, reuse
from pipeline.run.send.interruption import Interruption
from pipeline.run.window import Pending, Refused, ScannedCatalog, WindowFiles

__all__ = ["run", "translate"]


def run(
    inputs: RunInputs, ledger: Ledger, journal: Journal, client_factory: ClientFactory | None, progress: Progress | None
) -> RunReport:
    """The run in an event loop of its own, handling SIGINT and SIGTERM."""
    return asyncio.run(translate(inputs, ledger, journal, client_factory, progress, handle_signals=True))


async def translate(
    inputs: RunInputs,
    ledger: Ledger,
    journal: Journal,
    client_factory: ClientFactory | None,
    progress: Progress | None,
    handle_signals: bool,
) -> RunReport:
    """Read, translate and write the catalogs left, window by window; the report of the whole run."""
    settings, options = inputs.settings, inputs.options
    interruption = Interruption()
    locks = CatalogLocks(settings.cache_dir, settings.lock_wait)
    provenance = Provenance(settings.cache_dir, lambda message: ledger.warn(settings.cache_dir, message))
    index = None
    if settings.reuse:  # --no-cache: the index is a cache too
        persist = options.use_cache and not options.dry_run
        index = Index(settings, journal, provenance, options.use_cache, persist, inputs.paths, inputs.project)
    try:
        with interruption.handling(handle_signals):
            rejections = Rejections(settings.cache_dir)
            ledger.keep_asked(bool(rejections))  # read only to honour a reviewer's rejection
            connections = Connections(inputs, ledger, journal, client_factory)
            work = RunContext(
                inputs,
                ledger,
                journal,
                provenance,
                locks,
                connections,
                interruption,
                progress or Progress(),
                index,
                rejections,
            )
            try:
                await _in_turn(work)
            finally:
                await connections.aclose()
    finally:
        locks.release()
        save_carried(settings.cache_dir, provenance, ledger)
        provenance.close()
    stop = interruption.stopped()
    if stop is not None:  # whatever else stopped the run, the user asked it to stop
        ledger.interrupted(stop)
    return finish(inputs, ledger)


async def _in_turn(run: RunContext) -> None:
    """Every window, each started once the one before has cut its last part; at most two open at once.

    A window that fails stops the sending (the requests in flight are still judged); the window
    after it writes nothing, and the failure is raised once both have ended.
    """
    open_: list[tuple[asyncio.Future[None], Turn]] = []
    try:
        for number, (paths, last) in enumerate(_windows(run)):
            if len(open_) == 2:
                await open_.pop(0)[0]
            turn = Turn(open_[-1][0] if open_ else None, last)
            if open_:
                open_[-1][1].next = turn
            clock = run.inputs.started if number == 0 else run.ledger.clock()
            window: asyncio.Future[None] = asyncio.ensure_future(_window(run, paths, clock, turn))
            window.add_done_callback(functools.partial(_ended, run))
            open_.append((window, turn))
            await turn.cut.wait()
            if window.done():
                window.result()  # raised: no later window
        while open_:
            await open_.pop(0)[0]
    except asyncio.CancelledError:
        for window, _ in open_:
            window.cancel()
        raise
    finally:
        if open_:  # a later window ends as its failed predecessor left it: it writes nothing
            await asyncio.wait([window for window, _ in open_])


def _ended(run: RunContext, window: asyncio.Future[None]) -> None:
    """A window that failed stops the sending of the one after it: the requests in flight are judged, no more go."""
    if not window.cancelled() and window.exception() is not None:
        run.interruption.stop.set()


def _windows(run: RunContext) -> Iterator[tuple[list[Path], bool]]:
    """The windows of catalogs to read in turn, each with whether it is the last; none more once a signal asked
    the run to stop.

    A later window finds a text an earlier one paid for in the cache; without one (or in a dry
    run, which writes none) it would pay or count it again: one window then.
    """
    paths = list(run.inputs.paths)
    if run.inputs.options.dry_run:
        windows = [paths]
    else:  # the run's one cache (memory without a folder) carries what a window paid for to the next
        most = at_once()  # a window's catalogs are locked together: as many descriptors
        windows = [w[i : i + most] for w in catalog_windows(paths) for i in range(0, len(w), most)] or [[]]
    for number, window in enumerate(windows):
        stop = run.ledger.stopped
        if number and (run.interruption.signum is not None or (stop is not None and stop.reason is StopReason.LOCKED)):
            _not_read(run, (path for later in windows[number:] for path in later))
            return
        yield window, number == len(windows) - 1


def _not_read(run: RunContext, paths: Iterable[Path]) -> None:
    for path in paths:
        run.ledger.warn(
            display_path(run.inputs.settings.root, path),
            "not read: the run stopped before reaching this catalog; the next run translates it",
        )


async def _window(run: RunContext, paths: list[Path], clock: float, turn: Turn) -> None:
    """Lock, scan, plan, translate and write one window of catalogs, then let them go; timings count from ``clock``."""
    try:
        try:
            paths = await _lock(run, paths, turn)
        except CatalogsBusy as exc:
            run.ledger.stop(StopReason.LOCKED, str(exc))
            _not_read(run, paths)
            return
        except WaitStopped:  # a signal: the report's stop says which (see translate)
            _not_read(run, paths)
            return
        try:
            await _locked_window(run, paths, clock, turn)
        finally:
            run.locks.release(paths)  # after the state was saved: a run waiting for these finds them done
    finally:
        turn.cut.set()


async def _lock(run: RunContext, paths: list[Path], turn: Turn) -> list[Path]:
    """Lock the window's catalogs; those another run settled while this one waited are skipped.

    While the window before holds its catalogs, these are taken only if no other run holds one;
    otherwise the window waits for the one before to let its go, then for the other run's.
    """
    inputs = run.inputs
    if inputs.options.dry_run:
        return paths
    root, interruption = inputs.settings.root, run.interruption
    if turn.open_before():
        if run.locks.take_free(paths, lambda p: display_path(root, p), run.ledger.log):
            return paths
        await turn.written_before()
    if not await run.locks.acquire(
        paths, lambda p: display_path(root, p), run.ledger.log, lambda: interruption.signum is not None
    ):
        return paths
    run.journal.reload()  # another run went first: look again with what it saved
    run.connections.reads.drop()  # and may have billed the account meanwhile
    run.provenance.reload()
    return unsettled(inputs.settings, inputs.options, run.journal, (inputs.skips, inputs.service), paths, run.ledger)


async def _locked_window(run: RunContext, paths: list[Path], clock: float, turn: Turn) -> None:
    ledger, reads = run.ledger, run.connections.reads
    files, linked = write.window_files(paths, functools.partial(display_path, run.inputs.settings.root))
    ledger.add_issues(linked)
    sent = ledger.report.totals.requests
    scanned: list[ScannedCatalog] = []
    try:
        scanned, usage, clock = await _translate(run, files, clock, turn)
        if not await turn.written_before():  # the window before failed: the run ends with its error
            ledger.not_written(s.display for s in scanned)
            return
        # The account's usage once this window's requests are billed, read while its catalogs are written. A
        # later window sending meanwhile reads before its own parts, and owes the read after.
        if turn.owed is not None:
            sent = min(sent, turn.owed)
        after = ledger.report.totals.requests > sent and ledger.usage_read and not _leaving(run)
        if after and turn.next is not None:
            turn.next.owed, after = sent, False
        if after:
            reads.start_usage()
            await reads.written()  # on its way before the writes hold the loop
        if not run.inputs.options.dry_run and not _unusable(run, scanned, usage):
            await write_window(run, files, scanned)
        clock = ledger.timed("write", clock, turn.counts())
        if after:
            if turn.last:  # the run uses its cache and provenance no more: closed while the read is on its way
                run.connections.close_cache()
                run.provenance.close()
            read = await reads.usage()
            ledger.usage_after(read[0])
            reads.keep(read)  # nothing is billed before the next window's first part: its check needs no read
            ledger.timed("translate", clock, turn.counts())
    finally:
        ledger.close_window([s.display for s in scanned])
        if not turn.followed:
            reads.forget()
    if usage is not None:
        raise usage


async def _translate(
    run: RunContext, files: WindowFiles, clock: float, turn: Turn
) -> tuple[list[ScannedCatalog], UsageError | None, float]:
    """Scan the window's catalogs and resolve each part as it is cut; the catalogs as the gate reads them, a
    usage error to raise once written, the clock.

    A part is resolved while the next is scanned and planned (:func:`_read` cuts the first catalog
    with work into a part of its own, so the first request leaves early), and the next part's
    requests go out while the last ones of the part before are in flight: at most two parts at
    once, each keeping its texts only while it resolves. A part planned while another resolves,
    or while requests are in flight (the account's reads over the network included), is
    planned in a worker thread. Once the last part is cut, the next window may start (``turn.cut``).
    """
    ledger = run.ledger
    window: list[ScannedCatalog] = []  # the catalogs scanned so far, as the gate reads them
    resolving: list[asyncio.Future[UsageError | None]] = []
    usage: UsageError | None = None
    try:
        async for part in _read(run, files, window, turn):
            clock = ledger.timed("scan", clock, turn.counts())
            connections = run.connections
            # The account's reads over the network need the loop's turns to leave; the embedded service
            # answers them on the loop itself, with no thread to start and join.
            remote_reads = connections.reads.reading and not run.inputs.settings.service.embedded
            threaded = bool(resolving) or not connections.limiter.idle() or remote_reads
            pending, spare, clock = await _planned(run, window, part, clock, turn.counts(), threaded)
            resolver = Resolver(run, list(window), pending, spare)
            resolving.append(asyncio.ensure_future(_resolve(run, resolver)))
            if len(resolving) > 1:
                usage = await resolving.pop(0)
                if usage is not None:
                    break
        turn.cut.set()
        for task in resolving:
            usage = await task or usage
        resolving.clear()
    finally:
        for task in resolving:  # the window stopped early (an error, a cancel): no part left running
            task.cancel()
    return window, usage, ledger.timed("translate", clock, turn.counts())


async def _planned(
    run: RunContext,
    window: list[ScannedCatalog],
    part: list[ScannedCatalog],
    clock: float,
    counts: bool,
    threaded: bool,
) -> tuple[dict[str, Pending], dict[str, Pending], float]:
    """Plan one part and reuse what reviewed translations cover; its texts to send, its spare ones, the clock
    (``counts``: whether the seconds count, see :meth:`~.turns.Turn.counts`). Reuse makes some units of the
    window's catalogs of their reviewed forms: ``window`` is updated. Planned in a worker thread when
    ``threaded`` (requests in flight: the event loop keeps its turns, to send and receive meanwhile)."""
    inputs, ledger = run.inputs, run.ledger
    args = (inputs.settings.source_lang, part, run.connections.resources, inputs.service)
    planned = await asyncio.to_thread(plan.plan, *args) if threaded else plan.plan(*args)
    for key, text in planned.copied.items():
        ledger.copied(key, text, counted=key in planned.counted)
    clock = ledger.timed("scan", clock, counts)
    pending, spare = planned.pending, planned.spare
    if run.reuse is not None and (pending or spare):
        found = reuse(run.reuse, window, pending, spare, ledger.done, gate.first_error)
        for where, why in found.warnings:
            ledger.warn(where, why)
        for unit in found.units:
            ledger.reused(unit)
        for segments, billed_to, characters in found.saved:
            ledger.reuse_saved(segments, billed_to, characters)
        window[:] = found.scanned
        pending, spare = found.pending, found.spare
        clock = ledger.timed("reuse", clock, counts)
    return pending, spare, clock


async def _resolve(run: RunContext, resolver: Resolver) -> UsageError | None:
    """Resolve one part's texts; a usage error (no key) to raise once the window is written."""
    try:
        await resolver.resolve()
    except UsageError as exc:  # no key for the service: said as a usage error (exit 2), once written
        return exc
    except Exception as exc:  # noqa: BLE001 - whatever fails, what was verified before it is written
        run.ledger.stop(StopReason.FAILED, f"the run failed while translating: {type(exc).__name__}: {exc}")
    return None


def _unusable(run: RunContext, scanned: list[ScannedCatalog], usage: UsageError | None) -> bool:
    """Whether the window's catalogs stay as they were: the key is missing (exit 2), or the service refused
    it or could not be reached (exit 4) before it answered this run once. The reused and copied entries
    wait for a run that can translate the rest: a failed run changes no file (a pre-commit hook
    that fails does not also modify the files)."""
    stop = run.ledger.stopped
    refused = stop is not None and stop.reason is StopReason.SERVICE and not run.ledger.service_answered
    if usage is None and not refused:
        return False
    if refused:
        run.ledger.nothing_changed()
    run.ledger.not_written((s.display for s in scanned), reused_too=True)
    return True


def _leaving(run: RunContext) -> bool:
    """Whether the run is ending for a signal or an unreachable service: no usage read after its requests
    then (the user asked it to stop; the service would make it wait out every retry to say nothing)."""
    stop = run.ledger.stopped
    return run.interruption.signum is not None or (stop is not None and stop.reason is StopReason.SERVICE)


async def _read(
    run: RunContext, files: WindowFiles, window: list[ScannedCatalog], turn: Turn
) -> AsyncIterator[list[ScannedCatalog]]:
    """Scan the window's catalogs into ``window``, one by one, and cut them into parts to plan and send in turn.

    The first catalog with units to translate is a part of its own: its requests go out while the
    other catalogs are scanned, each still to parse in a worker thread so that the event loop keeps
    sending and receiving meanwhile (every such catalog, while the window before is still open). The
    rest are cut into parts of about :data:`pipeline.run.plan.PART_SEGMENTS` segments once all are
    scanned. A dry run (which counts each text once) has one part, and a run that first syncs
    changed glossary or style files reads the window whole (the sync covers every target language
    of the window at once).

    The first catalog with a unit to translate makes a request likely: what the client will need and
    costs CPU alone starts then, beside the rest (:meth:`~.context.Connections.prepare_client`).

    When the run's cache holds nothing yet (a first run, ``--no-cache``) and nothing was sent, a
    unit to translate is a text to send: the reads of the usage and the languages start with the
    first catalog that has one (not before: a run with nothing to send asks the service nothing),
    and are on their way before the next catalog's scan competes with the loop: their round trips
    overlap the other scans and the first part's plan.
    """
    inputs, ledger, connections = run.inputs, run.ledger, run.connections
    settings, options = inputs.settings, inputs.options
    offered = await _offered(run)
    retranslate = _retranslate(run) if options.retranslate_stale else None
    first = not options.dry_run and ledger.stopped is None and run.interruption.signum is None
    early = first and not ledger.report.totals.requests and holds_nothing(settings, options.use_cache)
    overlapping = turn.open_before()  # its requests are in flight: the loop keeps its turns
    most = sys.maxsize if options.dry_run else plan.PART_SEGMENTS
    rest: list[ScannedCatalog] = []  # scanned, not yet in a part
    # Glossary or style files to sync: the sync covers every target of the window at once, so it is read whole first.
    may_cut = first and not connections.terminology_due
    cut = prepared = False
    for path in files.paths:
        found, issues, refused = await _scan(run, files, path, retranslate, offered, threaded=cut or overlapping)
        window.extend(found)
        rest.extend(found)
        _noted(ledger, found, issues, refused)
        wanting = [s for s in found if s.source_forms]
        if first and wanting and not prepared:  # a request is likely: its TLS context loads beside the scans and plans
            connections.prepare_client()
            prepared = True
        if early and wanting:
            for s in wanting:  # a glossary that cannot be used stops the run before any request
                connections.resources.target(s.target_lang)
            connections.reads.start_usage(languages_too=True)
            await connections.reads.written()  # on their way before a worker thread's scan competes with the loop
            early = False
        if may_cut and wanting and not cut:
            cut, part, rest = True, rest, []
            for piece in plan.parts(part, most):
                yield piece
    if rest or not cut:
        for piece in plan.parts(rest, most):
            yield piece


def _retranslate(run: RunContext) -> scan.Retranslate:
    """``--retranslate-stale``: whether a unit the pipeline wrote was written from inputs that changed since."""
    inputs_of = plan.Inputs(run.inputs.settings.source_lang, run.connections.resources)

    def stale(display: str, target: str, unit: Unit) -> bool:
        return run.provenance.is_stale(display, unit, inputs_of.current(target, unit))

    return stale


def _noted(ledger: Ledger, found: list[ScannedCatalog], issues: list[Issue], refused: list[Refused]) -> None:
    """What the scan of a catalog found, in the report."""
    ledger.add_issues(issues)
    for r in refused:
        ledger.not_offered(r.display, r.segments, r.issue.severity is Severity.SKIPPED, r.issue, r.target_lang)
    for s in found:
        ledger.scanned(s.display, s.target_lang, s.skipped, write.awaiting_review(s.catalog, (), False))


async def _scan(
    run: RunContext,
    files: WindowFiles,
    path: Path,
    retranslate: scan.Retranslate | None,
    offered: frozenset[str] | None,
    threaded: bool,
) -> tuple[list[ScannedCatalog], list[Issue], list[Refused]]:
    """Scan one catalog, in a worker thread when ``threaded`` (requests in flight keep the loop's turns) and
    it is still to be parsed: one the reuse index parsed already takes a fraction of a millisecond, less
    than the hop to a worker thread and back."""
    inputs = run.inputs
    ahead = run.reuse.parsed(path, files.snapshots.get(path)) if run.reuse is not None else None  # the index's own
    threaded = threaded and ahead is None
    args = (
        inputs.settings,
        (path,),
        inputs.options.target_langs,
        retranslate,
        files.snapshots,  # parsed from the very bytes write-back compares the file with
        offered,
        {path: ahead} if ahead is not None else None,  # parsed from those bytes by the reuse index
    )
    return await asyncio.to_thread(scan.scan, *args) if threaded else scan.scan(*args)


async def _offered(run: RunContext) -> frozenset[str] | None:
    """The target codes the service offers, when known before the scan: read by an earlier window, or
    (a dry run, init's preview) asked of the embedded service in-process, so that a catalog in a
    language it does not offer is said once, as a run would say it."""
    reads, inputs = run.connections.reads, run.inputs
    if reads.offered is None and inputs.options.dry_run and inputs.settings.service.embedded:
        run.ledger.service_languages((await run.connections.languages()).hash)
    return reads.offered
