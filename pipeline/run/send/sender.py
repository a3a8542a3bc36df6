"""Sending texts: every request within the run's budget, holding a ticket of its limiter, answers handed on.

A request holds a ticket of the run's limiter (:mod:`.concurrency`) while it is in flight. A 429
hands the ticket back: the limiter says how long this request waits (its ``Retry-After``), then it
queues for a ticket again (the client's pacing seam, :meth:`pipeline.client.AsyncClient.with_pacing`).
A 429 is a reason to wait, not a failure: it takes no attempt from ``max_attempts``, which bounds
5xx and transport errors (:func:`pipeline.client.retry.retrying`), as long as the run makes
progress; once the service has answered nothing but 429 for a while
(:meth:`~pipeline.run.send.concurrency.Limiter.stalled`), sending stops (exit 4) and the report
says why. Before each request the budget reserves what it will be billed. What comes back goes to
a :class:`Receiver`, which judges and records it; what stops the sending (quota, budget, a refused
key, a service that only refuses) too.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

from pipeline import protocol
from pipeline.errors import (
    AuthenticationError,
    PayloadTooLargeError,
    QuotaExceededError,
    RateLimitedError,
    ServiceError,
    TransportError,
)
from pipeline.placeholders.schemes import Scheme, encode
from pipeline.run.records import StopReason
from pipeline.run.send.budget import Budget
from pipeline.run.send.concurrency import PATIENCE, PATIENT_REFUSALS, Limiter, Ticket
from pipeline.run.window import Pending

if TYPE_CHECKING:
    from pipeline.client.aio import AsyncClient
    from pipeline.client.api_data import TranslateResult

__all__ = ["Receiver", "Sender", "recovery_batches"]


#: Loop turns an answered request yields before it is judged (:func:`_hand_over`).
_HAND_OVER_TURNS = 8


class Receiver(Protocol):
    """What a round does with what comes back: the judge of :mod:`pipeline.run.orchestrate.judge`."""

    def answered(
        self,
        items: list[Pending],
        result: TranslateResult,
        scheme: Scheme,
        sent: list[tuple[str, ...]],
        costs: list[int],
    ) -> int:
        """The service answered a request for ``items`` (``sent``: the texts of each; ``costs``: their
        characters); returns the characters billed."""

    def failed(self, item: Pending, reason: str) -> None:
        """Every segment of ``item`` failed for ``reason``."""

    def halted(self, reason: StopReason, message: str) -> None:
        """Sending stops for ``reason`` (nothing more is sent after the requests in flight)."""


class _Stopped(Exception):
    """The run stopped sending while a refused request waited for its turn again."""


class _Stalled(Exception):
    """A refused request gives up: the service has answered nothing but 429 for too long."""


class Sender:
    """Sends texts for one round: each request within the budget, with a ticket of the limiter."""

    def __init__(
        self, client: AsyncClient, limiter: Limiter, budget: Budget, stop: asyncio.Event, receiver: Receiver
    ) -> None:
        self.client, self.limiter, self.budget, self.stop = client, limiter, budget, stop
        self.receiver = receiver
        self.requests = 0  # answered

    def halt(self, reason: StopReason, message: str) -> None:
        """Stop sending for ``reason``: the receiver records it, nothing more is sent."""
        self.receiver.halted(reason, message)
        self.stop.set()

    async def send_all(self, batches: list[tuple[list[Pending], dict[str, Any]]], scheme: Scheme = Scheme.XML) -> None:
        """Send every batch (items and the parameters they share) at once, as far as the limiter lets them.

        Something unexpected in one request stops the sending, and is raised once the requests in
        flight have ended: what they bring back is judged and recorded first.
        """
        if not batches:
            return
        requests = [asyncio.ensure_future(self._guarded(items, params, scheme)) for items, params in batches]
        batches.clear()  # each request holds its texts until it is recorded, and no longer
        try:
            await asyncio.wait(requests)
        finally:
            for request in requests:  # cancelled itself (a second signal): the requests with it
                request.cancel()
        for request in requests:
            error = None if request.cancelled() else request.exception()
            if error is not None:
                raise error

    async def _guarded(self, items: list[Pending], params: dict[str, Any], scheme: Scheme) -> None:
        try:
            await self.send(items, params, scheme)
        except (AuthenticationError, TransportError) as exc:
            self.halt(StopReason.SERVICE, str(exc))
        except Exception:
            self.stop.set()  # nothing more is sent; the requests in flight are still judged
            raise

    async def send(self, items: list[Pending], params: dict[str, Any], scheme: Scheme = Scheme.XML) -> None:
        """One request for ``items`` under ``scheme``; split in two when the service finds it too large."""
        sent = [encode(scheme, i.protected) for i in items]  # one text per item, or its pieces
        costs = [sum(map(len, texts)) for texts in sent]
        target = str(params.get("target_lang", ""))
        while True:
            ticket = await self.ticket()
            if ticket is None:
                return
            fit = self.budget.fitting([self.budget.cost(target, c) for c in costs])
            if fit == len(items) or not self.budget.reserved:
                break
            # Requests in flight may be billed less than they hold: wait for them, without a ticket (one
            # refused with a 429 needs a ticket to finish).
            self.limiter.release(ticket)
            await self.budget.settled()
        if fit < len(items):  # send what still fits, then stop: the rest is left for a run with a new budget
            self.halt(StopReason.BUDGET, f"budget of {self.budget.limit} billed characters reached")
            items, costs, sent = items[:fit], costs[:fit], sent[:fit]
            if not items:
                self.limiter.release(ticket)
                return
        cost = self.budget.cost(target, sum(costs))
        self.budget.reserve(cost)
        billed = 0
        try:
            result = await self._request([t for texts in sent for t in texts], params, ticket)
            if result is not None:
                await _hand_over()
                billed = self.receiver.answered(items, result, scheme, sent, costs)
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
                self.receiver.failed(item, f"the service refused the request: {exc}")
            return
        finally:
            self.budget.settle(cost, billed, target)
        # A 413 despite the measured size (a service with a smaller limit): each half gets a ticket of its own.
        if len(items) == 1:
            self.receiver.failed(items[0], f"the service refused the text as too large: {too_large.message}")
            return
        half = len(items) // 2
        await asyncio.gather(self.send(items[:half], params, scheme), self.send(items[half:], params, scheme))

    async def ticket(self, again: bool = False) -> Ticket | None:
        """A ticket of the limiter (``again``: for a request refused once), or None once the run stopped sending."""
        if self.stop.is_set():
            return None
        ticket = await self.limiter.acquire(again)
        if self.stop.is_set():
            self.limiter.release(ticket)
            return None
        return ticket

    async def _request(self, texts: list[str], params: dict[str, Any], ticket: Ticket) -> TranslateResult | None:
        """One request, paced by the limiter after each 429 (None: the run stopped while it waited)."""
        held = _Held(self, ticket)
        try:
            result = await self.client.with_pacing(held.pace).translate(texts, **params)
        except _Stopped:
            return None
        except _Stalled:
            if not self.stop.is_set():  # said once, by the first request to give up
                self.halt(
                    StopReason.SERVICE,
                    f"the service answered every request with 429 (too many requests), for {PATIENCE:g} s "
                    f"or {PATIENT_REFUSALS} times in a row: stopped sending; what was translated is saved, "
                    f"run again later for the rest",
                )
            return None
        except RateLimitedError as exc:  # the last attempt: the limiter learns from it all the same
            if held.holding:
                self.limiter.refused(held.ticket, exc.retry_after)
            raise
        except BaseException:
            if held.holding:
                self.limiter.release(held.ticket)
            raise
        self.limiter.answered(held.ticket)
        self.requests += 1
        return result


class _Held:
    """The ticket a request holds, and how it waits after a 429: the limiter's pause, then a ticket again."""

    def __init__(self, sender: Sender, ticket: Ticket) -> None:
        self.sender = sender
        self.ticket = ticket  # the last one taken
        self.holding = True  # False while the request waits after a 429, its ticket handed back

    async def pace(self, error: RateLimitedError) -> float:
        """Hand the ticket back, wait as the limiter says (``Retry-After`` for this request), queue for one again;
        the seconds that took, on the limiter's clock."""
        limiter = self.sender.limiter
        self.holding = False
        started = limiter.now()
        await limiter.sleep(limiter.refused(self.ticket, error.retry_after))
        if limiter.stalled():
            raise _Stalled
        again = await self.sender.ticket(again=True)
        if again is None:
            raise _Stopped
        self.ticket, self.holding = again, True
        return limiter.now() - started


async def _hand_over() -> None:
    """Give the loop a few turns: the request this answer made room for is on its way before the answer is judged.

    Judging an answer (the gate over each of its segments) takes the loop for a while; taken
    first, it would hold back the next request, and with it a place in the service, every time.
    A request needs a few turns to be written (the limiter's grant, the connection pool, the write).
    """
    for _ in range(_HAND_OVER_TURNS):
        await asyncio.sleep(0)


def recovery_batches(scheme: Scheme, items: list[Pending]) -> list[list[Pending]]:
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
