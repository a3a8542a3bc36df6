"""One way to resolve a part's texts: round by round, cache -> attach -> send -> judge -> record.

The rounds are data (:data:`ROUNDS`), each saying which texts it asks for once the rounds before it
are recorded:

1. ``first``: the texts the part's catalogs need (the plan, less what reviewed translations cover);
2. ``fallbacks``: the plural fallback texts some form turned out to need, its representative number
   having not come back (:func:`pipeline.run.plan.needed`);
3. ``rejected``: the segments of units about to be written with exactly a text a reviewer rejected
   for them, asked for once more with the cache bypassed, their answers cached apart
   (:mod:`.rejected`); a unit still given a rejected text is left untranslated once the rounds are done;
4. ``length``: the segments whose translation came back (or was cached) over their length limit,
   asked for once more, shorter (:func:`pipeline.run.send.length.retries`).

Every round goes the same way (:meth:`Resolver.round`). The cache is looked up first
(:meth:`~pipeline.run.orchestrate.judge.Judge.from_cache`), under the key a text has, and again
under the key it gets once the service's features are known (a glossary or style list a language
pair lacks is left out of the request, and out of the key). A dry run stops there and counts what
is left. Before a part's first request the service is made ready, once: the account's usage read
and judged (a part the quota cannot cover sends nothing, exit 3), edited glossary and style files
synced, the service's target languages read. The texts get the ids of their glossary, style list
and memory; they are sent (:mod:`pipeline.run.send`), and what the gate refuses for its
placeholders is sent again under each recovery scheme in turn (:data:`LADDER`). Every answer is
judged and recorded by the round's :class:`~pipeline.run.orchestrate.judge.Judge`.

The rounds share the run's budget, limiter and ledger; a stop (budget, quota, service, a signal)
means no request after it, and what the rounds leave unsent is counted for the next run (a length
retry left unsent is no work left: its segments are written with their first answer).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from pipeline.errors import (
    AuthenticationError,
    NotFoundError,
    PipelineError,
    QuotaExceededError,
    ServiceError,
    TransportError,
)
from pipeline.model import Issue
from pipeline.placeholders.schemes import RECOVERY, Scheme, applicable
from pipeline.placeholders.schemes import request_params as scheme_params
from pipeline.resources.attach import Synced, attach_resources
from pipeline.run import plan, send
from pipeline.run.keys import cache_key, request_params, second_opinion_key
from pipeline.run.orchestrate import rejected
from pipeline.run.orchestrate.context import RunContext
from pipeline.run.orchestrate.judge import Judge, Outcome
from pipeline.run.quota import check_quota, unusable
from pipeline.run.records import StopReason
from pipeline.run.send import length
from pipeline.run.send.packing import context_requests, groups
from pipeline.run.window import Pending, ScannedCatalog

__all__ = ["LADDER", "ROUNDS", "Resolver", "Round"]

#: Parameters a recovery scheme sets (or leaves out) itself.
_SCHEME_PARAMS = frozenset({"tag_handling", "tag_handling_version", "ignore_tags"})


class Round(NamedTuple):
    """One round of a part's requests: which texts it asks for, and what becomes of those it leaves."""

    name: str
    texts: Callable[[Resolver], dict[str, Pending]]  # worked out when the round starts
    leaves_work: bool  # what it leaves unsent is work for the next run
    may_be_long: bool  # its answers may come back over their length limit (asked again in the length round)
    says: Callable[[dict[str, Pending]], str] | None = None  # what the run logs before sending them
    #: Where its texts are cached, from the key a text has (None: that key itself).
    keyed: Callable[[str], str] | None = None


def _first(resolver: Resolver) -> dict[str, Pending]:
    return resolver.pending


def _fallbacks(resolver: Resolver) -> dict[str, Pending]:
    return plan.needed(resolver.scanned, resolver.spare, resolver.run.ledger.done)


def _length(resolver: Resolver) -> dict[str, Pending]:
    run = resolver.run
    ledger = run.ledger
    texts, firsts = length.retries(
        run.inputs.service, run.connections.resources, ledger.done, ledger.window.retried, resolver.long
    )
    for key, first in firsts.items():
        ledger.retried(key, first)
    return texts


def _rejected(resolver: Resolver) -> dict[str, Pending]:
    run = resolver.run
    if not run.rejections:
        return {}
    ledger = run.ledger
    units = rejected.matches(run.rejections, resolver.scanned, ledger.done, ledger.window.notes, ledger.window.reused)
    if not units:
        return {}
    found = rejected.again(units, resolver.items(), ledger)
    if found.copies and not run.inputs.options.dry_run:
        Judge(ledger, run.connections.cache, run.progress, Outcome({})).keep_answers(found.copies)
    return found.texts


def _fallbacks_said(texts: dict[str, Pending]) -> str:
    entries = {(ref.key.catalog, ref.key.unit) for p in texts.values() for ref in p.refs}
    return f"{len(entries)} plural entries need a fallback text: a representative number did not come back"


def _rejected_said(texts: dict[str, Pending]) -> str:
    segments = sum(len(p.refs) for p in texts.values())
    return f"{segments} segments would be written with a translation a reviewer rejected: asking the service once more"


def _length_said(texts: dict[str, Pending]) -> str:
    return f"{sum(len(p.refs) for p in texts.values())} segments over their length limit: asking again"


#: A part's rounds, in order.
ROUNDS = (
    Round("first", _first, leaves_work=True, may_be_long=True),
    Round("fallbacks", _fallbacks, leaves_work=True, may_be_long=True, says=_fallbacks_said),
    Round("rejected", _rejected, leaves_work=True, may_be_long=False, says=_rejected_said, keyed=second_opinion_key),
    Round("length", _length, leaves_work=False, may_be_long=False, says=_length_said),
)

#: How a text is shown to the engine: as XML tags, then, for what the gate refused for its placeholders,
#: each recovery scheme in turn (:mod:`pipeline.placeholders.schemes`).
LADDER = (Scheme.XML, *RECOVERY)


class Resolver:
    """Resolves one part of a window: its rounds in turn, each through the cache, then the service."""

    def __init__(
        self, run: RunContext, scanned: list[ScannedCatalog], pending: dict[str, Pending], spare: dict[str, Pending]
    ) -> None:
        self.run, self.scanned, self.pending, self.spare = run, scanned, pending, spare
        self.long: list[Pending] = []  # texts with a length limit, answered by the rounds so far
        self.ready: bool | None = None  # whether the service was made ready for this part (None: not yet tried)
        self.synced: Synced | None = None  # what syncing the part's targets found, once attached
        self.dry: dict[str, Pending] = {}  # a dry run: what its rounds would send

    async def resolve(self) -> None:
        """Every round in turn; what is left unsent is counted for the next run (a dry run: estimated)."""
        ledger, connections = self.run.ledger, self.run.connections
        left: list[Pending] = []
        needed: set[str] = set()
        for rnd in ROUNDS:
            if self._stopped() and (self.ready or not rnd.leaves_work):
                break  # a stop while sending ends the part; one before it leaves the later rounds' texts too
            texts = rnd.texts(self)
            if rnd.may_be_long:
                self.long.extend(p for p in texts.values() if length.limited(p))  # the others are never retried
            unsent = await self.round(rnd, texts)
            if rnd.name == "fallbacks":
                needed = set(unsent)
            if rnd.leaves_work:
                left.extend(unsent.values())
        if self.run.rejections:  # whatever was sent or not: a rejected text is never written
            rejected.withhold(self.run.rejections, self.scanned, self.items(), ledger)
        if self.run.inputs.options.dry_run:
            await self._estimate(needed)
            return
        ledger.leave(left)
        if connections.terminology_due and not self._stopped():  # nothing sent, the files changed: sync all the same
            await connections.sync_terminology(s.target_lang for s in self.scanned)

    async def round(self, rnd: Round, texts: dict[str, Pending]) -> dict[str, Pending]:
        """cache -> attach -> send -> judge -> record, for one round's texts; returns those left unsent."""
        judge = Judge(self.run.ledger, self.run.connections.cache, self.run.progress, Outcome({}))
        texts = judge.from_cache(texts)
        if not texts:
            return {}
        if self.run.inputs.options.dry_run:
            self.dry.update(texts)
            return texts
        # One part at a time makes the service ready and attaches its resources: a quota check that stops the
        # run, or a glossary synced, is what the next part finds (parts overlap only in their requests).
        async with self.run.connections.preparing:
            if self._stopped() or not await self._ready(texts):
                return texts
            attached = await self._attach(texts, rnd.keyed)
        if attached is None:
            return texts
        # A feature the service left out changes a text's key: those are looked up under it (the others missed).
        rekeyed = {key: item for key, item in attached.items() if key not in texts}
        still = judge.from_cache(rekeyed) if rekeyed else {}
        texts = {key: item for key, item in attached.items() if key in texts or key in still}
        if not texts:
            return {}
        if rnd.says is not None:
            self.run.ledger.log(rnd.says(texts))
        return await self._claimed(texts)

    async def _claimed(self, texts: dict[str, Pending]) -> dict[str, Pending]:
        """Send the texts no other part is sending; the others once that part is done with them, from the cache
        when it holds them now (:mod:`pipeline.run.send.claims`). Returns the texts left unsent."""
        claims = self.run.connections.claims
        mine, theirs = claims.take(texts)

        async def send_mine() -> dict[str, Pending]:
            try:
                return await self._send(mine) if mine else {}
            finally:
                claims.release(mine)

        async def after_theirs() -> dict[str, Pending]:
            await claims.wait(theirs)
            judge = Judge(self.run.ledger, self.run.connections.cache, self.run.progress, Outcome({}))
            missed = judge.from_cache(theirs)
            return await self._claimed(missed) if missed and not self._stopped() else missed

        if not theirs:
            return await send_mine()
        left: dict[str, Pending] = {}
        for unsent in await asyncio.gather(send_mine(), after_theirs()):
            left.update(unsent)
        return left

    def items(self) -> Iterator[Pending]:
        """Every text of the part: the plan's and its plural fallbacks."""
        return itertools.chain(self.pending.values(), self.spare.values())

    def _stopped(self) -> bool:
        return self.run.ledger.stopped is not None or self.run.interruption.stop.is_set()

    async def _ready(self, texts: dict[str, Pending]) -> bool:
        """Before the part's first request: the quota, the edited terminology, the service's languages. False: stopped.

        The usage read is the one the scan started (:class:`~pipeline.run.orchestrate.context.Reads`),
        or one made now: a part it cannot cover sends no translate request and syncs no glossary or
        style list. The target languages (read once per run; a listing bills nothing) are read beside
        it, so a run its cache mostly serves waits for one round trip before its first request, not two.
        """
        if self.ready is None:
            self.ready = await self._make_ready(texts)
        return self.ready

    async def _make_ready(self, texts: dict[str, Pending]) -> bool:
        run = self.run
        ledger, connections, settings = run.ledger, run.connections, run.inputs.settings
        url = settings.service.url
        connections.reads.start_languages()
        try:
            read = await connections.reads.usage()
        except (AuthenticationError, TransportError) as exc:  # nothing can be sent: said once, as is
            ledger.stop(StopReason.SERVICE, unusable(exc, url))
            return False
        if read[0] is not None:
            ledger.answered()
        # The languages say which targets are billed nothing (beta), so they are read before the quota is
        # judged; when the usage could not be read, the service must answer this at all (a URL ending in /v2
        # answers neither read) before the run says it goes on without a quota check, or it stops, said once.
        if not await self._offered(url):
            return False
        budget = connections.budget  # what the requests still in flight (of a part or window before) are billed counts
        needed = sum(budget.cost(p.options.target_lang, len(p.protected.text)) for p in texts.values())
        usage, shortfall = check_quota(read, needed, budget.left, budget.spent + budget.reserved)
        if not settings.service.embedded:  # the embedded service bills no one: its usage is neither said nor reported
            ledger.usage_before(usage, needed)
        if shortfall is not None:
            ledger.stop(StopReason.QUOTA, shortfall)
            return False
        if connections.terminology_due:
            self.synced = await connections.sync_terminology(s.target_lang for s in self.scanned)
        return True

    async def _offered(self, url: str | None) -> bool:
        """Read the target languages the service offers (once per run); False: the run stopped, and says why."""
        ledger = self.run.ledger
        try:
            targets = await self.run.connections.languages()
        except ServiceError as exc:
            # No such endpoint: the URL is not the service's (one ending in /v2, say).
            unreached = (AuthenticationError, TransportError, NotFoundError)
            reason = StopReason.SERVICE if isinstance(exc, unreached) else StopReason.FAILED
            ledger.stop(reason, f"the service's target languages could not be read: {unusable(exc, url)}")
            return False
        ledger.service_languages(targets.hash)
        ledger.answered()
        return True

    async def _attach(self, texts: dict[str, Pending], keyed: Callable[[str], str] | None) -> dict[str, Pending] | None:
        """``texts`` with the ids of their glossary, style list and memory, re-keyed where a feature was left out;
        None when the run stopped doing it (what the cache served is still written)."""
        run = self.run
        issues: list[Issue] = []
        key = functools.partial(cache_key, run.inputs.service)
        named = key if keyed is None else lambda options, text: keyed(key(options, text))
        try:
            attached, self.synced = await attach_resources(
                run.connections.client,
                run.connections.resources,
                texts,
                named,
                issues,
                run.ledger.log,
                self.synced,
            )
        except QuotaExceededError as exc:
            run.ledger.stop(StopReason.QUOTA, f"quota exceeded: {exc.message}")
            return None
        except (AuthenticationError, TransportError) as exc:
            run.ledger.stop(StopReason.SERVICE, str(exc))
            return None
        finally:
            run.ledger.add_issues(issues)
        return attached

    async def _send(self, texts: dict[str, Pending]) -> dict[str, Pending]:
        """One round of requests, which a second signal (or the grace period's end) may cancel: what came back is kept.

        Returns the texts neither answered nor failed (left unsent by a stop).
        """
        run = self.run
        outcome = Outcome(waiting=dict(texts))
        judge = Judge(run.ledger, run.connections.cache, run.progress, outcome)
        run.progress.start(_per_language(texts))
        sending = asyncio.ensure_future(self._ladder(texts, judge))
        run.interruption.watch(sending)
        try:
            await sending
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # this task itself is cancelled, not just its requests
        return {key: item for key, item in outcome.waiting.items() if key not in outcome.finished}

    async def _ladder(self, texts: dict[str, Pending], judge: Judge) -> None:
        """Send every text; then what the gate refused for its placeholders, each recovery scheme in turn."""
        run = self.run
        connections, ledger = run.connections, run.ledger
        offered = connections.reads.offered or frozenset()  # read before the part's first request
        sender = send.Sender(connections.client, connections.limiter, connections.budget, run.interruption.stop, judge)
        try:
            judge.refuse_targets(texts, offered, run.inputs.settings.unsupported_languages == "skip")
            batches = send.batches(texts, offered, judge.failed)
            ledger.requests(0, context_requests(texts, len(batches)))
            sending = [item for items, _ in batches for item in items]  # the refused ones are errors, said apart
            if sending:
                segments = sum(len(p.refs) for p in sending)
                requests = f"{len(batches)} request{'s' if len(batches) > 1 else ''}"
                ledger.log(f"sending {segments} segments ({len(sending)} unique texts) in about {requests}")
            await sender.send_all(batches)
            if judge.outcome.retry:
                segments = sum(len(p.refs) for p in judge.outcome.retry.values())
                ledger.log(
                    f"{segments} segments came back with damaged placeholders: sending them again, "
                    f"showing the placeholders another way"
                )
                await self._recover(sender, judge)
        except (AuthenticationError, TransportError) as exc:
            sender.halt(StopReason.SERVICE, str(exc))
        finally:
            ledger.requests(sender.requests)
            run.progress.finish()

    async def _recover(self, sender: send.Sender, judge: Judge) -> None:
        """Send the segments refused for their placeholders again, each scheme of the ladder in turn, till they pass."""
        outcome = judge.outcome
        for scheme in LADDER[1:]:
            if sender.stop.is_set() or not outcome.retry:
                break
            round_items, outcome.retry = outcome.retry, {}
            batches: list[tuple[list[Pending], dict[str, Any]]] = []
            for opts, items in groups(round_items).items():
                usable = [i for i in items if applicable(scheme, i.protected, opts.model_type)]
                outcome.retry.update((i.key, i) for i in items if i not in usable)  # left for the next scheme
                params = {
                    **{k: v for k, v in request_params(opts).items() if k not in _SCHEME_PARAMS},
                    **scheme_params(scheme),
                }
                batches.extend((batch, params) for batch in send.recovery_batches(scheme, usable))
            await sender.send_all(batches, scheme)
        for key, item in outcome.retry.items():  # no scheme got these past the gate (or the run stopped)
            if not sender.stop.is_set():
                judge.failed(
                    item,
                    f"translation not written: {outcome.first_problem.get(key)} (and damaged again "
                    f"however the placeholders were shown)",
                )
        if sender.stop.is_set():  # left unsent, for the next run: it pays only for these
            outcome.finished.difference_update(outcome.retry)
        outcome.retry.clear()

    async def _estimate(self, needed: set[str]) -> None:
        """A dry run: what a real run would send (every round's texts the cache does not hold) and write."""
        run = self.run
        judge = Judge(run.ledger, run.connections.cache, run.progress, Outcome({}))
        unneeded = [key for key in self.spare if key not in needed]
        maybe = len(unneeded) - judge.holds(unneeded)  # fallbacks a second round may add, if numbers fail
        if self.dry and run.connections.reads.offered is None:
            await self._free_targets()
        cost = run.connections.budget.cost  # a beta target's texts cost nothing, once the languages were read
        would_send, would_write = plan.estimate(self.dry, maybe, run.ledger.catalogs(), cost)
        run.ledger.estimate(would_send, would_write)

    async def _free_targets(self) -> None:
        """A dry run with texts to estimate reads the service's language list (it bills nothing), which says the
        beta targets the service bills nothing for; without it, they count as billed (an upper bound)."""
        run = self.run
        try:
            await run.connections.languages()
        except PipelineError as exc:  # no key, no network: a dry run still says what it would send
            run.ledger.log(
                f"the service's target languages could not be read ({unusable(exc, run.inputs.settings.service.url)}); "
                "the estimate counts beta targets as billed, an upper bound"
            )


def _per_language(pending: dict[str, Pending]) -> Counter[str]:
    totals: Counter[str] = Counter()
    for item in pending.values():
        totals[item.options.target_lang] += len(item.refs)
    return totals
