"""The asynchronous shell: the same methods as :class:`~pipeline.client.Client`, awaited."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import date
from typing import TYPE_CHECKING, Any, Literal, Self, TypeVar

import httpx

from pipeline.client.api_data import CustomTagUsage
from pipeline.client.base import AbsoluteURLs, Cookieless, open_http
from pipeline.client.reception import BoundedBody, finish, transport_errors
from pipeline.client.requests import Call, Flow, Sleep
from pipeline.client.retry import RetryPolicy
from pipeline.errors import RateLimitedError, ServiceError

if TYPE_CHECKING:  # the shared endpoint methods, as this shell returns them: coroutines (see stubgen.py)
    from pipeline.client.aio_endpoints import AsyncEndpoints as _Endpoints
else:
    from pipeline.client.base import ClientBase as _Endpoints

T = TypeVar("T")
#: How a caller paces a request refused with 429: waits as it decides, returns the seconds that took.
Pace = Callable[[RateLimitedError], Awaitable[float]]
_CLOSED = httpx.ByteStream(b"")  # what a read response's stream is replaced with


class _AsyncClientHTTP(Cookieless, httpx.AsyncClient):
    """httpx's client without cookies (see :class:`~pipeline.client.base.Cookieless`)."""


class AsyncClient(_Endpoints):
    """Talks to the service from asyncio; use ``async with`` or call :meth:`aclose`.

    Every endpoint method returns a coroutine. ``transport`` replaces the network: the embedded
    service is one (:class:`~pipeline.service.embedded.EmbeddedTransport`), as is any httpx
    transport a test brings. ``sleep`` and ``clock`` replace ``asyncio.sleep`` and ``time.monotonic`` for retries and
    document polling.
    """

    def __init__(
        self,
        base_url: str,
        auth_key: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        retry: RetryPolicy | None = None,
        reporting_tag: str | None = None,
        timeout: float = 30.0,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        headers = self._configure(base_url, auth_key, retry, reporting_tag, clock)
        self._sleep = sleep or asyncio.sleep
        self._pace: Pace | None = None
        self._paced = False  # whether ``_pace`` paces 429s (see :meth:`with_pacing`)
        self._http = open_http(
            _AsyncClientHTTP,
            httpx.AsyncHTTPTransport,
            self.base_url,
            transport,
            headers=headers,
            timeout=httpx.Timeout(timeout),
        )
        self._url = AbsoluteURLs(self._http.base_url)

    async def aclose(self) -> None:
        """Close pooled connections."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def with_pacing(self, pace: Pace) -> Self:
        """The same client (same connections, key, settings), a 429's wait decided by ``pace``; close only the original.

        ``pace(error)`` waits as the caller decides (its own limiter: how many requests are in flight
        after a refusal, and for how long) and returns the seconds that took. A paced 429 takes no
        attempt from ``max_attempts`` (:func:`pipeline.client.retry.retrying`): ``pace`` decides when
        to give up, and whatever it raises ends the call.
        """
        view = copy.copy(self)
        view._pace, view._paced = pace, True
        return view

    async def iter_custom_tag_usage(
        self, start_date: date | str, end_date: date | str, *, aggregate_by: Literal["period", "day"] = "period"
    ) -> AsyncIterator[CustomTagUsage]:
        """Every usage entry of the range, following ``next_page`` until it is null."""
        page: int | None = None
        while True:
            report = await self.custom_tag_usage(start_date, end_date, aggregate_by=aggregate_by, page=page)
            for entry in report.usage:
                yield entry
            if report.next_page is None:
                return
            page = report.next_page

    async def _run(self, flow: Flow[T]) -> T:
        """Drive ``flow``: send its calls, sleep its sleeps, and throw errors back so it can retry."""
        reply: Any = None
        error: ServiceError | None = None
        while True:
            try:
                step = flow.send(reply) if error is None else flow.throw(error)
            except StopIteration as stop:
                result: T = stop.value
                return result
            reply, error = None, None
            try:
                if isinstance(step, Sleep) and step.rate_limited is not None and self._pace is not None:
                    reply = await self._pace(step.rate_limited)
                elif isinstance(step, Sleep):
                    await self._sleep(step.seconds)
                else:
                    reply = await self._send_once(step)
            except ServiceError as exc:
                error = exc

    async def _send_once(self, call: Call[T]) -> T:
        # Streamed, so that reading stops at the call's bound instead of at the end of an endless answer.
        with transport_errors(self._secrets):
            async with self._http.stream(**self._arguments(call.request)) as response:
                body = BoundedBody(call, response.status_code, response.headers)
                async for chunk in response.aiter_bytes():
                    if not body.add(chunk):
                        break
        # httpx's response and its bound stream refer to each other (encode/httpx#3733): left so, each
        # request's response, request and bodies wait for the garbage collector, thousands in a large run.
        response.stream = _CLOSED
        return finish(call, response.status_code, response.headers, body.content, response.reason_phrase, self._secrets)
