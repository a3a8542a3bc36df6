"""A translation run, stage by stage: the only module that knows the stages and their order.

Every run goes

    settled (skip unchanged) -> scan -> plan (protect, dedupe, cache keys) -> cached -> send
    (budget, packing, concurrency) -> gate (verify, assemble plurals) -> write -> report

one module of :mod:`pipeline.run` each. Stages never import each other; what they share is in
:mod:`pipeline.run.records`. A run with nothing new (the pre-commit hook's usual case) stops
after the first stage and imports neither asyncio nor the catalog parsers nor the client: it
costs little more than starting Python (bench/). The later stages are imported only when some
catalog is left (or for a dry run).

Before the first translate request the account's usage is read: a run that what is left cannot
cover stops before sending anything (exit 3). An edited glossary or style file (its hash differs
from the last sync's, :mod:`pipeline.resources.synced`) is synced even when every catalog is
settled, without reading them.

Per-segment problems become :class:`~pipeline.model.Issue` records and the run goes on. Only
a few things stop it early, each saving what was already translated: the service refusing the
key or being unreachable (exit 4), the quota running out (456) or the run's character budget
(``max_characters``) being reached (exit 3), and SIGINT or SIGTERM (exit 130 or 143,
:class:`~pipeline.run.send.interruption.Interruption`).

Two runs on the same catalogs and cache folder take turns (:class:`~pipeline.run.state.CatalogLocks`):
the second waits for the catalogs the first holds, then finds them done.

Order of safety: a translation is cached only after the gate verified it, and a catalog is
written (atomically) only with verified translations, so a run stopped at any moment leaves
every file whole and a re-run pays only for what was not yet cached. Every translation written
is recorded with its provenance (:mod:`pipeline.run.state`).
"""

from __future__ import annotations

import functools
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from pipeline.catalog_paths import catalog_windows, display_path, find_catalogs
from pipeline.config import ENV_SERVICE_URL, Settings
from pipeline.errors import UsageError
from pipeline.model import Issue, Severity
from pipeline.resources import synced
from pipeline.run.records import CatalogReport, Pending, Remaining, RunOptions, RunReport, StartedRun, Stop, StopReason
from pipeline.run.report import finish
from pipeline.run.request import service_identity
from pipeline.run.settled import skip_unchanged
from pipeline.run.state import CatalogLocks, RunState, settings_hash, state_dir

if TYPE_CHECKING:
    import asyncio
    from pathlib import Path

    from pipeline.cache import TranslationCache
    from pipeline.client import AsyncClient
    from pipeline.formats import Unit
    from pipeline.model import SegmentKey, TranslationOptions
    from pipeline.resources.attach import Synced
    from pipeline.resources.plan import ResourcePlan
    from pipeline.run.progress import Progress
    from pipeline.run.records import ScannedCatalog
    from pipeline.run.request import ClientFactory
    from pipeline.run.send import Budget
    from pipeline.run.send.concurrency import Limiter
    from pipeline.run.send.interruption import Interruption

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
    log = log or _stderr
    run = _start(settings, options, log)
    try:
        if not run.paths and not options.dry_run and run.terminology is None:  # no event loop, nothing parsed
            run.save_state()
            return finish(run)
        import asyncio  # only now: importing it costs more than starting Python

        from pipeline.run.collector import fewer_collections

        with fewer_collections():
            return asyncio.run(_translate(run, log, client_factory, progress, handle_signals=True))
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
    run = _start(settings, options, log)
    try:
        return await _translate(run, log, client_factory, progress)
    finally:
        run.locks.release()


async def _translate(
    run: StartedRun,
    log: Callable[[str], None],
    client_factory: ClientFactory | None,
    progress: Progress | None,
    handle_signals: bool = False,
) -> RunReport:
    if run.paths or run.options.dry_run or run.terminology is not None:  # a dry run reports even nothing
        from pipeline.run.send.interruption import Interruption

        interruption = Interruption()
        if handle_signals:
            interruption.install()
        try:
            await _work(run, log, client_factory, progress, interruption)
        finally:
            interruption.remove()
        if interruption.signum is not None:  # whatever else stopped the run, the user asked it to stop
            reason = StopReason.INTERRUPTED if interruption.signum == signal.SIGINT else StopReason.TERMINATED
            run.report.stopped = Stop(
                reason,
                f"interrupted by {signal.Signals(interruption.signum).name}: "
                f"stopped sending; what was translated is written and saved",
            )
    else:
        run.save_state()  # the mtimes of catalogs touched but not changed
    return finish(run)


def _start(settings: Settings, options: RunOptions, log: Callable[[str], None]) -> StartedRun:
    """Check the service is configured, find and lock the catalogs, and skip those an earlier run settled.

    The locks come first: a run that waited for another one reads the state that run saved, so
    it skips (or finds translated) what the other did, and pays for none of it again.
    """
    started = time.monotonic()
    if not options.dry_run and not settings.service.url:
        raise UsageError(
            f"no translation service configured: pass --service-url URL (or 'embedded' for the "
            f"local in-process service), or set {ENV_SERVICE_URL}, or set [service] url in pipeline.toml"
        )
    report = RunReport(service=service_identity(settings), dry_run=options.dry_run, budget=settings.max_characters)
    found = find_catalogs(settings, options.paths)
    report.issues.extend(found.refused)
    paths = found.paths
    locks = CatalogLocks(state_dir(settings))
    if not options.dry_run:  # a dry run writes nothing: it need not wait for anyone
        locks.acquire(paths, functools.partial(display_path, settings), log)
    try:
        state = RunState(state_dir(settings))
        fingerprint = settings_hash(settings)
        per_catalog: dict[str, CatalogReport] = {}
        if not options.retranslate_stale:  # a refresh must look at every fuzzy unit, whatever the bytes
            paths = skip_unchanged(settings, state, fingerprint, paths, options.target_langs, report, per_catalog)
        run = StartedRun(settings, options, report, state, fingerprint, paths, per_catalog, started, locks)
        # The files' hashes decide, offline: an unchanged glossary costs no request. The embedded service
        # keeps nothing between runs, so there is nothing to keep in step there.
        if not options.dry_run and not settings.service.embedded:
            terms = synced.fingerprint(settings)
            if synced.SyncRecord(state.directory).needs_sync(report.service, terms):
                run.terminology = terms
    except BaseException:
        locks.release()
        raise
    return run


def _stderr(message: str) -> None:
    print(f"pipeline: {message}", file=sys.stderr)


async def _work(
    run: StartedRun,
    log: Callable[[str], None],
    client_factory: ClientFactory | None,
    progress: Progress | None,
    interruption: Interruption,
) -> None:
    """Scan the catalogs ``run`` has left, translate what they need and write the results back into them.

    Fills ``run.report`` (issues, per-catalog counters, timings); never raises for per-segment
    trouble. After ``interruption`` nothing more is sent, and the writing goes on as usual; the
    windows not yet begun are then left unread for the next run, each catalog with a warning.
    After any other stop (the budget, the quota, the service) the later windows are still read,
    served from the cache and written, and what they needed counts as left for the next run, as
    in a run of one window.
    """
    from pipeline.run import collector

    # A later window finds a text an earlier one paid for in the cache; without one (or in a dry
    # run, which writes none), it would pay or count it again: one window then.
    windowed = not run.options.dry_run and run.options.use_cache and run.settings.cache_dir is not None
    windows = (catalog_windows(run.paths) if windowed else [run.paths]) or [[]]  # none left: still sync, report
    try:
        for number, window in enumerate(windows):
            if number and interruption.signum is not None:  # the user asked it to stop: read no more
                for path in (path for later in windows[number:] for path in later):
                    run.report.issues.append(
                        Issue(
                            display_path(run.settings, path),
                            "not read: the run stopped before reaching this catalog; the next run translates it",
                            severity=Severity.WARNING,
                        )
                    )
                return
            with collector.window(collect=number > 0) as built:
                started = run.started if number == 0 else time.monotonic()  # a later window times only itself
                await _work_on(run, window, log, client_factory, progress, interruption, built, started)
    finally:
        if run.limiter is not None:
            run.limiter.close()


async def _work_on(
    run: StartedRun,
    paths: list[Path],
    log: Callable[[str], None],
    client_factory: ClientFactory | None,
    progress: Progress | None,
    interruption: Interruption,
    built: Callable[[], None],
    started: float,
) -> None:
    """:func:`_work` for one window of catalogs (``paths``); ``built`` is called once they are read and
    planned; its stage timings count from ``started``."""
    from pipeline.cache import open_cache
    from pipeline.resources.plan import ResourcePlan
    from pipeline.run import gate, plan, send, settled, write
    from pipeline.run.cached import serve_from_cache
    from pipeline.run.request import open_client
    from pipeline.run.scan import scan

    settings, options, report, state, per_catalog = run.settings, run.options, run.report, run.state, run.per_catalog
    clock = started
    resources = ResourcePlan(settings)  # glossary files are read and checked before any request
    snapshots = {path: write.snapshot(path) for path in paths}  # taken before parsing: see settled.settle
    options_of: dict[str, TranslationOptions] = {}  # target -> options of its segments (context aside)
    inputs: dict[str, str] = {}  # target -> inputs hash of its whole options, as older provenance has it

    def target_options(target: str) -> TranslationOptions:
        if target not in options_of:
            options_of[target] = plan.translation_options(settings, target, None, resources)
        return options_of[target]

    def unit_inputs(target: str, unit: Unit) -> str:
        """The unit's inputs hash, with only the glossary entries its source contains: a changed term
        makes stale the units that contain it, and no other."""
        return resources.key_options(target_options(target), "\n".join(unit.sources)).inputs_hash()

    def stale(display: str, target: str, unit: Unit) -> bool:
        if target not in inputs:
            inputs[target] = target_options(target).inputs_hash()
        return state.is_stale(display, unit, (unit_inputs(target, unit), inputs[target]))

    scanned, issues = scan(
        settings, paths, options.target_langs, **({"retranslate": stale} if options.retranslate_stale else {})
    )
    report.issues.extend(issues)
    for s in scanned:
        per_catalog[s.display] = CatalogReport(s.display, s.target_lang)
        per_catalog[s.display].counters.segments_skipped += s.skipped
    done: dict[SegmentKey, str] = {}  # segment -> verified translation
    notes: dict[SegmentKey, str] = {}  # segment -> why its translation needs a reviewer's eye
    pending, spare = plan.plan(settings, scanned, per_catalog, done, resources)
    built()
    needed: dict[str, Pending] = {}
    clock = _timed(report, "scan", clock)
    # A run with nothing to send opens no cache; a dry run reads an existing cache and creates none.
    cache_dir = settings.cache_dir if options.use_cache else None
    if options.dry_run and cache_dir is not None and not cache_dir.is_dir():
        cache_dir = None
    cache = (
        open_cache(
            replace(settings, cache_dir=cache_dir),
            report.service,
            functools.partial(_cache_trouble, report, cache_dir),
            enabled=options.use_cache,
        )
        if pending or spare
        else None
    )
    try:
        if cache is not None:
            pending = serve_from_cache(cache, pending, per_catalog, done, gate.verify, notes)
            # Number sentences the cache answered already tell which fallbacks are needed.
            needed = serve_from_cache(cache, plan.needed(scanned, spare, done), per_catalog, done, gate.verify, notes)
        if options.dry_run:
            cached = cache.get_many(key for key in spare if key not in needed) if cache is not None else {}
            estimate = replace(
                send.estimate({**pending, **needed}),
                fallback_texts=sum(1 for key in spare if key not in needed and cache is not None and key not in cached),
            )
            report.would_send = estimate  # a dry run reads one window
            report.would_write = send.would_write(per_catalog, {**pending, **needed})
        elif pending or needed or run.terminology is not None:
            if report.stopped is not None:  # an earlier window stopped the run: nothing more is sent
                left = [*pending.values(), *needed.values()]
            else:
                client = client_factory() if client_factory else open_client(settings, log)
                try:
                    left = await _use_service(
                        run,
                        client,
                        cache,
                        resources,
                        scanned,
                        pending,
                        needed,
                        spare,
                        done,
                        notes,
                        log,
                        progress,
                        interruption,
                    )
                finally:
                    await client.aclose()
            if left:
                more = Remaining(
                    segments=sum(len(p.refs) for p in left),
                    texts=len(left),
                    characters=sum(len(p.protected.text) for p in left),
                )
                report.remaining = more if report.remaining is None else report.remaining + more
            run.terminology = None  # synced (or tried): the next window does not sync again
    finally:
        if cache is not None:
            cache.close()
    clock = _timed(report, "translate", clock)
    if not options.dry_run:
        if report.service_languages is not None:
            state.note_languages(report.service, report.service_languages)
        gated: list[tuple[dict[int, tuple[str, ...]], list[Issue]]] = []  # per catalog: admitted, its issues
        for s in scanned:
            before = len(report.issues)
            gated.append((gate.admit(settings, s, done, report, per_catalog[s.display], notes), report.issues[before:]))
            del report.issues[before:]  # put back below, in catalog order, with those of the write
        outcomes = write.write_catalogs(
            settings, [(s, admitted, snapshots.get(s.path)) for s, (admitted, _) in zip(scanned, gated, strict=True)]
        )
        for s, (admitted, issues), (data, problem) in zip(scanned, gated, outcomes, strict=True):
            report.issues.extend(issues)
            if problem:
                report.issues.append(Issue(s.display, problem, None, s.target_lang))
            written = admitted if data is not None else {}
            if data is not None:
                per_catalog[s.display].written = True
            if written:
                state.record(
                    s.display,
                    (
                        (s.catalog.units[i], forms, unit_inputs(s.target_lang, s.catalog.units[i]))
                        for i, forms in written.items()
                    ),
                )
            settled.settle(state, s, run.fingerprint, data or snapshots.get(s.path), written, report)
        used = {s.path for s in scanned}
        for path in paths:  # unreadable, or of no known language: settled with that error
            if path not in used:
                settled.settle_unread(
                    state, display_path(settings, path), path, run.fingerprint, snapshots.get(path), report
                )
        run.save_state()
    _timed(report, "write", clock)


def _timed(report: RunReport, stage: str, since: float) -> float:
    """Add the seconds since ``since`` to the stage's timing (windows add up); returns now."""
    now = time.monotonic()
    report.timings[stage] = round(report.timings.get(stage, 0.0) + now - since, 3)
    return now


async def _use_service(
    run: StartedRun,
    client: AsyncClient,
    cache: TranslationCache | None,
    resources: ResourcePlan,
    scanned: list[ScannedCatalog],
    pending: dict[str, Pending],
    needed: dict[str, Pending],
    spare: dict[str, Pending],
    done: dict[SegmentKey, str],
    notes: dict[SegmentKey, str],
    log: Callable[[str], None],
    progress: Progress | None,
    interruption: Interruption,
) -> list[Pending]:
    """Check the quota, sync edited terminology, then send; returns what is left unsent.

    The usage is read before the first request: a run it cannot cover sends nothing at all, not
    even a glossary or a listing. The target languages the service offers are read next, while
    the terminology is synced and attached (a round trip saved).
    """
    import asyncio

    from pipeline.run import send

    settings, report = run.settings, run.report
    if not (pending or needed):
        if run.terminology:
            await _sync_terminology(run, client, resources, scanned, log)
        return []
    characters = sum(len(p.protected.text) for p in (*pending.values(), *needed.values()))
    earlier = sum(c.counters.billed_characters for c in run.per_catalog.values())  # by earlier windows
    budget = send.Budget(settings.max_characters, spent=earlier)  # one for the run: both rounds, every window
    usage, stop = await send.check_quota(client, characters, budget.left, log, earlier)
    report.usage = usage if report.usage is None else replace(report.usage, note=usage.note)  # before: the run's
    if stop is not None:
        report.stopped = stop
        return [*pending.values(), *needed.values()]
    offered = asyncio.ensure_future(send.offered_targets(client, report))
    try:
        synced_now = await _sync_terminology(run, client, resources, scanned, log) if run.terminology else None
        assert cache is not None
        if run.limiter is None:
            run.limiter = send.new_limiter(settings)
        left = await _send_rounds(
            settings,
            client,
            cache,
            resources,
            scanned,
            pending,
            spare,
            report,
            run.per_catalog,
            done,
            notes,
            log,
            progress,
            interruption,
            offered,
            run.limiter,
            budget,
            synced_now,
        )
    finally:
        if not offered.done():
            offered.cancel()
        elif not offered.cancelled():
            offered.exception()  # read by the sending stage, or unused: never "never retrieved"
    if report.usage is not None and report.usage.before is not None and report.totals.requests:
        report.usage.after, _ = await send.read_usage(client)
    return left


async def _sync_terminology(
    run: StartedRun,
    client: AsyncClient,
    resources: ResourcePlan,
    scanned: list[ScannedCatalog],
    log: Callable[[str], None],
) -> Synced | None:
    """Sync the glossary and style lists whose files changed, for every target the project's catalogs have.

    Those are the settled catalogs' (known unread) and the scanned ones', so they include every
    target of the run's texts: the run uses what this sync did (None when it failed). A target
    configured without a catalog is left to ``pipeline glossary sync`` / ``style sync``.
    """
    from pipeline.resources.attach import sync_terminology

    assert run.terminology is not None
    targets = {*run.state.settled_targets(), *(s.target_lang for s in scanned)}
    log("glossary or style files changed since the last sync: syncing them")
    outcome = await sync_terminology(client, resources, targets, run.report.issues, log)
    if outcome is not None:
        try:
            synced.SyncRecord(run.state.directory).save(run.report.service, run.terminology)
        except OSError as exc:  # the next run syncs again, which writes nothing: a warning
            run.report.issues.append(
                Issue(
                    str(run.state.directory), f"cannot save the sync record: {exc.strerror}", severity=Severity.WARNING
                )
            )
    return outcome


async def _send_rounds(
    settings: Settings,
    client: AsyncClient,
    cache: TranslationCache,
    resources: ResourcePlan,
    scanned: list[ScannedCatalog],
    pending: dict[str, Pending],
    spare: dict[str, Pending],
    report: RunReport,
    per_catalog: dict[str, CatalogReport],
    done: dict[SegmentKey, str],
    notes: dict[SegmentKey, str],
    log: Callable[[str], None],
    progress: Progress | None,
    interruption: Interruption,
    offered: asyncio.Future[set[str]],
    limiter: Limiter,
    budget: Budget,
    synced_now: Synced | None = None,
) -> list[Pending]:
    """Send round one, then the fallbacks of the plural forms whose number did not come back; returns what is left.

    Both rounds share the run's ``budget`` and ``limiter`` (round two, and the next window, start
    at the service's limit as found so far); a stop in round one (budget, quota, service, a
    signal) means no round two. ``offered`` gives the target codes the service offers.
    ``synced_now`` is this run's terminology sync, when it made one: the resources are not synced
    twice.
    """
    import asyncio

    from pipeline.errors import AuthenticationError, QuotaExceededError, TransportError
    from pipeline.resources.attach import attach_resources
    from pipeline.run import gate, plan, send
    from pipeline.run.cached import serve_from_cache
    from pipeline.run.progress import Progress
    from pipeline.run.request import cache_key

    try:
        attached = await attach_resources(
            client,
            resources,
            {**pending, **spare},
            functools.partial(cache_key, report.service),
            report.issues,
            log,
            synced_now,
        )
    except QuotaExceededError as exc:  # what the cache served is still written
        report.stopped = Stop(StopReason.QUOTA, f"quota exceeded: {exc.message}")
        return list(pending.values())
    except (AuthenticationError, TransportError) as exc:
        report.stopped = Stop(StopReason.SERVICE, str(exc))
        return list(pending.values())
    fallback_keys = {seg.key for s in scanned for seg in s.fallbacks}
    missed = set(pending)  # looked up already, and not in the cache
    pending, spare = plan.split(attached, fallback_keys)
    changed = {key: item for key, item in pending.items() if key not in missed}  # keys of features left out
    if changed:
        still = serve_from_cache(cache, changed, per_catalog, done, gate.verify, notes)
        pending = {key: item for key, item in pending.items() if key in missed or key in still}
    progress = progress or Progress()
    left: list[Pending] = []
    for first in (True, False):
        if not first:
            if report.stopped or interruption.stop.is_set():
                break
            pending = serve_from_cache(cache, plan.needed(scanned, spare, done), per_catalog, done, gate.verify, notes)
            if pending:
                entries = {(ref.key.catalog, ref.key.unit) for p in pending.values() for ref in p.refs}
                log(f"{len(entries)} plural entries need a fallback text: a representative number did not come back")
        if not pending:
            continue
        progress.start(_per_language(pending))
        outcome = send.Outcome()  # kept when the requests are cancelled: what came back is written
        sending = asyncio.ensure_future(
            send.send_all(
                settings,
                client,
                pending,
                cache,
                report,
                per_catalog,
                done,
                log,
                progress,
                budget,
                gate.verify,
                notes,
                stop=interruption.stop,
                outcome=outcome,
                limiter=limiter,
                offered=offered,
            )
        )
        interruption.watch(sending)
        try:
            await sending
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # this task itself is cancelled, not just its requests
        report.totals.requests += outcome.requests
        left.extend(p for p in pending.values() if p.key not in outcome.finished)
    return left


def _cache_trouble(report: RunReport, where: object, message: str) -> None:
    """What the cache says (a folder it cannot use, a full disk, Redis away): a warning of the report.

    Said once: the command prints the report's warnings when the run ends, and CI reads them there.
    """
    report.issues.append(Issue(str(where), message.removeprefix("warning: "), severity=Severity.WARNING))


def _per_language(pending: dict[str, Pending]) -> Counter[str]:
    totals: Counter[str] = Counter()
    for item in pending.values():
        totals[item.options.target_lang] += len(item.refs)
    return totals
