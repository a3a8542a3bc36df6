"""The part of a window that talks to the service: the quota, terminology, and the rounds of requests.

Each round sends what is left of the window's texts (:mod:`pipeline.run.send`): round one, then
the plural fallback texts some form turned out to need, then the texts that came back over their
length limit (:mod:`pipeline.run.send.length`). The glossary, style list and memory ids are put
into the requests' options (:mod:`pipeline.resources.attach`) before the first. Only
:mod:`pipeline.run.orchestrate` uses this module; like it, it imports the stages it runs.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from pipeline.run.context import RunContext, drop
from pipeline.run.records import Stop, StopReason

if TYPE_CHECKING:
    from pipeline.resources.attach import Synced
    from pipeline.run.send import Outcome
    from pipeline.run.window import Pending, Window

__all__ = ["use_service"]


async def use_service(run: RunContext, window: Window) -> list[Pending]:
    """Check the quota, sync edited terminology, then send; returns what is left unsent.

    The usage is read before the first request (the read the scan started, :meth:`RunContext.usage`):
    a window it cannot cover sends nothing at all, not even a glossary or a listing. The target
    languages the service offers are read (once per run) while the terminology is synced and
    attached: a round trip saved. When the usage read during the scan found no limit, no check
    can stop the run, and the languages were read right after it.
    """
    from pipeline.errors import AuthenticationError, NotFoundError, ServiceError, TransportError
    from pipeline.quota import check_quota, unusable
    from pipeline.run.send.budget import Budget

    if not (window.pending or window.needed):
        if run.terminology:
            await run.sync_terminology(s.target_lang for s in window.scanned)
        return []
    run.budget = run.budget or Budget(run.settings.max_characters)
    earlier = run.budget.spent  # by earlier windows
    needed = sum(len(p.protected.text) for p in (*window.pending.values(), *window.needed.values()))
    try:
        read = await run.usage()
    except (AuthenticationError, TransportError) as exc:  # nothing can be sent: said once, as is
        run.report.stopped = Stop(StopReason.SERVICE, unusable(exc, run.settings.service.url))
        return [*window.pending.values(), *window.needed.values()]
    if read[0] is not None:
        run.answered = True
    usage, shortfall = check_quota(read, needed, run.budget.left, earlier)
    run.note_usage(usage, needed)
    if shortfall is not None:
        run.report.stopped = Stop(StopReason.QUOTA, shortfall)
        return [*window.pending.values(), *window.needed.values()]
    offered = None if run.offered is not None else run.languages()
    try:
        synced_now = await run.sync_terminology(s.target_lang for s in window.scanned) if run.terminology else None
        if offered is not None:
            try:
                run.offered, run.report.service_languages = await offered
                run.answered = True
            except ServiceError as exc:
                # No such endpoint: the URL is not the service's (one ending in /v2, say).
                unreached = (AuthenticationError, TransportError, NotFoundError)
                reason = StopReason.SERVICE if isinstance(exc, unreached) else StopReason.FAILED
                why = unusable(exc, run.settings.service.url)
                run.report.stopped = Stop(reason, f"the service's target languages could not be read: {why}")
                return [*window.pending.values(), *window.needed.values()]
        left = await _send_rounds(run, window, synced_now)
    finally:
        drop(offered)  # read above, or unused
    return left


async def _send_rounds(run: RunContext, window: Window, synced_now: Synced | None) -> list[Pending]:
    """Send round one, then the fallbacks of the plural forms whose number did not come back, then the
    length retries (:mod:`pipeline.run.send.length`); returns what is left.

    The rounds share the run's budget and limiter (round two, and the next window, start at the
    service's limit as found so far); a stop in a round (budget, quota, service, a signal)
    means no round after it. ``synced_now`` is this run's terminology sync, when it made one: the
    resources are not synced twice.
    """
    from pipeline.run import gate, plan, send
    from pipeline.run.cached import serve_from_cache
    from pipeline.run.report.progress import Progress
    from pipeline.run.send import length

    if not await _attach(run, window, synced_now):
        return list(window.pending.values())
    run.limiter = run.limiter or send.new_limiter(run.settings)
    run.progress = run.progress or Progress()
    assert run.interruption is not None
    left: list[Pending] = []
    sent: list[Pending] = []  # the texts a length retry may follow
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
            sent.extend(p for p in pending.values() if length.limited(p))  # the others are never retried
            outcome = await _round(run, window, pending)
            left.extend(p for p in pending.values() if p.key not in outcome.finished)
    if not (run.report.stopped or run.interruption.stop.is_set()):  # then what came back over its length limit
        pending = serve_from_cache(run, window, length.retries(run, window, sent), gate.verify)
        if pending:  # what this round leaves unsent keeps its first answer: no work left for the next run
            run.log(f"{sum(len(p.refs) for p in pending.values())} segments over their length limit: asking again")
            await _round(run, window, pending)
    return left


async def _round(run: RunContext, window: Window, pending: dict[str, Pending]) -> Outcome:
    """One round of requests, which a second signal (or the grace period's end) may cancel: what came back is kept."""
    import asyncio

    from pipeline.run import gate, send

    assert run.interruption is not None and run.progress is not None
    run.progress.start(_per_language(pending))
    outcome = send.Outcome(waiting=pending)
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


def _per_language(pending: dict[str, Pending]) -> Counter[str]:
    totals: Counter[str] = Counter()
    for item in pending.values():
        totals[item.options.target_lang] += len(item.refs)
    return totals
