"""The synchronous shell: performs the calls and flows of :mod:`pipeline.client.endpoints` over httpx."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any, Literal, TypeVar

import httpx

from pipeline.client.api_data import CustomTagUsage
from pipeline.client.base import AbsoluteURLs, ClientBase, Cookieless, open_http
from pipeline.client.reception import BoundedBody, finish, transport_errors
from pipeline.client.requests import Call, Flow, Sleep
from pipeline.client.retry import RetryPolicy
from pipeline.errors import ServiceError

T = TypeVar("T")


class _ClientHTTP(Cookieless, httpx.Client):
    """httpx's client without cookies (see :class:`~pipeline.client.base.Cookieless`)."""


class Client(ClientBase):
    """Talks to the service synchronously; use as a context manager or call :meth:`close`.

    ``transport`` replaces the network (``httpx.MockTransport``, a WSGI app, ...); ``sleep`` and
    ``clock`` replace ``time.sleep`` and ``time.monotonic`` for retries and document polling.
    """

    def __init__(
        self,
        base_url: str,
        auth_key: str,
        *,
        transport: httpx.BaseTransport | None = None,
        retry: RetryPolicy | None = None,
        reporting_tag: str | None = None,
        timeout: float = 30.0,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        headers = self._configure(base_url, auth_key, retry, reporting_tag, clock)
        self._sleep = sleep or time.sleep
        self._http = open_http(
            _ClientHTTP, httpx.HTTPTransport, self.base_url, transport, headers=headers, timeout=httpx.Timeout(timeout)
        )
        self._url = AbsoluteURLs(self._http.base_url)

    def close(self) -> None:
        """Close pooled connections."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def iter_custom_tag_usage(
        self, start_date: date | str, end_date: date | str, *, aggregate_by: Literal["period", "day"] = "period"
    ) -> Iterator[CustomTagUsage]:
        """Every usage entry of the range, following ``next_page`` until it is null."""
        page: int | None = None
        while True:
            report = self.custom_tag_usage(start_date, end_date, aggregate_by=aggregate_by, page=page)
            yield from report.usage
            if report.next_page is None:
                return
            page = report.next_page

    def _run(self, flow: Flow[T]) -> T:
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
                if isinstance(step, Sleep):
                    self._sleep(step.seconds)
                else:
                    reply = self._send_once(step)
            except ServiceError as exc:
                error = exc

    def _send_once(self, call: Call[T]) -> T:
        # Streamed, so that reading stops at the call's bound instead of at the end of an endless answer.
        with transport_errors(self._secrets), self._http.stream(**self._arguments(call.request)) as response:
            body = BoundedBody(call, response.status_code, response.headers)
            for chunk in response.iter_bytes():
                if not body.add(chunk):
                    break
        return finish(call, response.status_code, response.headers, body.content, response.reason_phrase, self._secrets)
