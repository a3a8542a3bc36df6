"""Retries and polling as I/O-free flows: exponential back-off with full jitter, ``Retry-After``
honoured, attempts and total time bounded.

Only errors whose ``should_retry`` is true are retried (429, 5xx, transport failures); every other
error, 456 included, goes straight back to the caller. :func:`retrying` is the one count of a
request's attempts: ``max_attempts`` bounds 5xx and transport errors, and 429s too unless the
caller paces them. A caller that paces its own requests (the run's send stage, through
:meth:`pipeline.client.AsyncClient.with_pacing`) decides how long a 429 waits, for how many
requests at once, and when to give up (the run stops once the service has answered nothing but
429 for a while): a paced 429 is a reason to wait, not a failed attempt, and the time it paces
does not count against ``max_total``, which bounds the request's own time.
"""

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from pipeline.client.api_data import DocumentStatus
from pipeline.client.requests import Call, Flow, Sleep
from pipeline.errors import DocumentTranslationError, RateLimitedError, ServiceError

T = TypeVar("T")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry; ``max_attempts`` counts the first try."""

    max_attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_total: float = 120.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if min(self.base_delay, self.max_delay, self.max_total) < 0:
            raise ValueError("delays must not be negative")


#: A policy that never retries.
NO_RETRY = RetryPolicy(max_attempts=1)


def retry_delay(
    policy: RetryPolicy, attempt: int, retry_after: float | None, remaining: float, rand: Callable[[], float]
) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1-based).

    ``Retry-After`` wins when the service sent it; otherwise full jitter: uniform in
    ``[0, min(max_delay, base_delay * 2 ** (attempt - 1))]``. Never more than ``remaining``.
    """
    if retry_after is not None:
        delay = retry_after
    else:
        delay = rand() * min(policy.max_delay, policy.base_delay * 2 ** (attempt - 1))
    return max(0.0, min(delay, remaining))


def retrying(
    call: Call[T],
    policy: RetryPolicy,
    clock: Callable[[], float],
    rand: Callable[[], float] = random.random,
    paced: bool = False,
) -> Flow[T]:
    """A flow that performs ``call`` until it succeeds, fails for good, or the policy is spent.

    ``paced``: the driver paces 429s itself (it answers their :class:`Sleep` with the seconds it
    waited, and raises when it gives up); they then take no attempt from ``max_attempts``.
    """
    started = clock()
    attempt = 0
    while True:
        attempt += 1
        try:
            answer: T = yield call
            return answer
        except ServiceError as error:
            remaining = policy.max_total - (clock() - started)
            waits = paced and isinstance(error, RateLimitedError)  # the driver's pacing bounds these
            if not error.should_retry or (attempt >= policy.max_attempts and not waits) or remaining <= 0:
                error.attempts = attempt
                raise
            delay = retry_delay(policy, attempt, error.retry_after, remaining, rand)
            log.info(
                "%s %s failed (%s), attempt %d of %d; retrying in %.2fs",
                call.request.method,
                call.request.path,
                error,
                attempt,
                policy.max_attempts,
                delay,
            )
            waited = yield Sleep(delay, error if isinstance(error, RateLimitedError) else None)
            if waited:  # the caller's own pacing of a 429: not this request's time
                started += waited
            if waits:
                attempt -= 1


class PollPolicy(NamedTuple):
    """How a document job is polled: exponential back-off from ``initial`` up to ``maximum`` seconds,
    giving up after ``max_wait`` seconds.
    """

    initial: float = 1.0
    maximum: float = 10.0
    max_wait: float = 600.0


#: The polling of ``translate_document`` unless the caller passes its own.
DEFAULT_POLL = PollPolicy()


def polling(
    status_call: Call[DocumentStatus], policy: PollPolicy, retry: RetryPolicy, clock: Callable[[], float]
) -> Flow[DocumentStatus]:
    """A flow that polls a document job until it is ``done``; raises if it fails or takes too long."""
    started = clock()
    delay = policy.initial
    while True:
        status = yield from retrying(status_call, retry, clock)
        if status.done:
            return status
        if status.failed:
            raise DocumentTranslationError(
                status.document_id, f"translation failed: {status.message or 'no reason given'}"
            )
        waited = clock() - started
        if waited + delay > policy.max_wait:
            raise DocumentTranslationError(
                status.document_id, f"still {status.status} after {waited:.0f}s (max_wait={policy.max_wait:g}s)"
            )
        yield Sleep(delay)
        delay = min(delay * 2, policy.maximum)
