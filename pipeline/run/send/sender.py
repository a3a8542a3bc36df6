"""One round of requests: every pending text sent concurrently, within the budget, and what comes back recorded.

A request holds a ticket of the run's limiter (:mod:`.concurrency`) while it is in flight. A 429
hands the ticket back: the limiter says how long this request waits (its ``Retry-After``), then it
queues for a ticket again; ``max_attempts`` bounds every send of one request, 429s and the
client's own retries (5xx, transport) together. Before each request the budget reserves what
it will be billed. A text the gate refuses for its placeholders is sent again under each
recovery scheme in turn (:mod:`pipeline.placeholders.schemes`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pipeline import protocol
from pipeline.errors import (
    AuthenticationError,
    PayloadTooLargeError,
    QuotaExceededError,
    RateLimitedError,
    ServiceError,
    TransportError,
)
from pipeline.placeholders.schemes import RECOVERY, Scheme, applicable, encode
from pipeline.placeholders.schemes import request_params as scheme_params
from pipeline.run.keys import request_params
from pipeline.run.records import Stop, StopReason
from pipeline.run.send.answers import Answers, Outcome
from pipeline.run.send.packing import groups
from pipeline.run.window import Pending, Verify, Window

if TYPE_CHECKING:
    from pipeline.client import TranslateResult
    from pipeline.run.context import RunContext
    from pipeline.run.send.concurrency import Ticket

__all__ = ["Sender"]

#: Parameters a recovery scheme sets (or leaves out) itself.
_SCHEME_PARAMS = frozenset({"tag_handling", "tag_handling_version", "ignore_tags"})


class Sender:
    """Sends one round's texts for a run and records the answers into its window."""

    def __init__(self, run: RunContext, window: Window, verify: Verify, outcome: Outcome) -> None:
        assert run.limiter is not None and run.budget is not None and run.interruption is not None
        self.run = run
        self.limiter, self.budget, self.stop = run.limiter, run.budget, run.interruption.stop
        self.outcome = outcome
        self.answers = Answers(run, window, verify, outcome)
        client = run.client()
        # 429s come back here, where the limiter decides who waits; the client still retries 5xx and
        # transport errors itself.
        self.client = client.with_retry(replace(client.retry, retry_rate_limited=False))

    def halt(self, reason: StopReason, message: str) -> None:
        """Stop the run's sending for ``reason`` (the first reason is the one reported)."""
        if self.run.report.stopped is None:
            self.run.report.stopped = Stop(reason, message)
        self.stop.set()

    async def send_all(self, batches: list[tuple[list[Pending], dict[str, Any]]]) -> None:
        """Send every batch (items and the parameters they share), then recover what the gate refused."""
        try:
            requests = [self.send(items, params) for items, params in batches]
            batches.clear()  # each request holds its texts until it is recorded, and no longer
            await asyncio.gather(*requests)
            if self.outcome.retry:
                segments = sum(len(p.refs) for p in self.outcome.retry.values())
                self.run.log(
                    f"{segments} segments came back with damaged placeholders: sending them again, "
                    f"showing the placeholders another way"
                )
                await self.recover()
        except (AuthenticationError, TransportError) as exc:
            self.halt(StopReason.SERVICE, str(exc))

    async def send(self, items: list[Pending], params: dict[str, Any], scheme: Scheme = Scheme.XML) -> None:
        """One request for ``items`` under ``scheme``; split in two when the service finds it too large."""
        ticket = await self._ticket()
        if ticket is None:
            return
        sent = [encode(scheme, i.protected) for i in items]  # one text per item, or its pieces
        costs = [sum(map(len, texts)) for texts in sent]
        fit = self.budget.fitting(costs)
        if fit < len(items):  # send what still fits, then stop: the rest is left for a run with a new budget
            self.halt(StopReason.BUDGET, f"budget of {self.budget.limit} billed characters reached")
            items, costs, sent = items[:fit], costs[:fit], sent[:fit]
            if not items:
                self.limiter.release(ticket)
                return
        cost = sum(costs)
        self.budget.reserve(cost)
        billed = 0
        try:
            result = await self._request([t for texts in sent for t in texts], params, ticket)
            if result is not None:
                billed = self.answers.record(items, result, scheme, sent, costs)
            return
        except PayloadTooLargeError as exc:
            too_large = exc
        except QuotaExceededError as exc:
            self.halt(StopReason.QUOTA, f"quota exceeded: {exc.message}")
            return
        except (AuthenticationError, TransportError) as exc:
            self.halt(StopReason.SERVICE, str(exc))
            return
        except ServiceError as exc:
            for item in items:
                self.answers.fail(item, f"the service refused the request: {exc}")
            return
        finally:
            self.budget.settle(cost, billed)
        # A 413 despite the measured size (a service with a smaller limit): each half gets a ticket of its own.
        if len(items) == 1:
            self.answers.fail(items[0], f"the service refused the text as too large: {too_large.message}")
            return
        half = len(items) // 2
        await asyncio.gather(self.send(items[:half], params, scheme), self.send(items[half:], params, scheme))

    async def recover(self) -> None:
        """Send the segments refused for their placeholders again, each scheme in turn, until they pass."""
        outcome = self.outcome
        for scheme in RECOVERY:
            if self.stop.is_set() or not outcome.retry:
                break
            round_items, outcome.retry = outcome.retry, {}
            batches: list[Coroutine[Any, Any, None]] = []
            for opts, items in groups(round_items).items():
                usable = [i for i in items if applicable(scheme, i.protected, opts.model_type)]
                outcome.retry.update((i.key, i) for i in items if i not in usable)  # left for the next scheme
                params = {
                    **{k: v for k, v in request_params(opts).items() if k not in _SCHEME_PARAMS},
                    **scheme_params(scheme),
                }
                batches.extend(self.send(batch, params, scheme) for batch in _recovery_batches(scheme, usable))
            await asyncio.gather(*batches)
        for key, item in outcome.retry.items():  # no scheme got these past the gate (or the run stopped)
            if not self.stop.is_set():
                self.answers.fail(
                    item,
                    f"translation not written: {outcome.first_problem.get(key)} (and damaged again "
                    f"however the placeholders were shown)",
                )
        if self.stop.is_set():  # left unsent, for the next run: it pays only for these
            outcome.finished.difference_update(outcome.retry)
        outcome.retry.clear()

    async def _ticket(self, again: bool = False) -> Ticket | None:
        """A ticket of the limiter (``again``: for a request refused once), or None once the run stopped sending."""
        if self.stop.is_set():
            return None
        ticket = await self.limiter.acquire(again)
        if self.stop.is_set():
            self.limiter.release(ticket)
            return None
        return ticket

    async def _request(self, texts: list[str], params: dict[str, Any], ticket: Ticket) -> TranslateResult | None:
        """One request, sent again after each 429 once the limiter lets it (None: the run stopped meanwhile)."""
        used = 0
        allowed = self.client.retry.max_attempts
        while True:
            sender = (
                self.client
                if not used
                else self.client.with_retry(replace(self.client.retry, max_attempts=allowed - used))
            )
            try:
                result = await sender.translate(texts, **params)
            except RateLimitedError as exc:
                pause = self.limiter.refused(ticket, exc.retry_after)
                used += exc.attempts
                if used >= allowed:
                    raise
                await self.limiter.sleep(pause)  # Retry-After, for this request whatever the others do
                next_ticket = await self._ticket(again=True)
                if next_ticket is None:
                    return None
                ticket = next_ticket
                continue
            except BaseException:
                self.limiter.release(ticket)
                raise
            self.limiter.answered(ticket)
            self.outcome.requests += 1
            return result


def _recovery_batches(scheme: Scheme, items: list[Pending]) -> list[list[Pending]]:
    """Recovery rounds are small: fill requests greedily, well inside the text and size limits."""
    batches: list[list[Pending]] = []
    count = size = 0
    for item in items:
        texts = encode(scheme, item.protected)
        weight = sum(protocol.encoded_text_size(t) + 1 for t in texts)
        if (
            batches
            and count + len(texts) <= protocol.MAX_TEXTS_PER_REQUEST
            and size + weight <= protocol.MAX_TRANSLATE_BODY_BYTES // 2
        ):
            batches[-1].append(item)
            count, size = count + len(texts), size + weight
        else:
            batches.append([item])
            count, size = len(texts), weight
    return batches
