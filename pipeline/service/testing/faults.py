"""Scripted failures for tests, driven by the ``X-Test-Fault`` request header.

Off unless ``pipeline serve --test-faults`` or ``ServiceConfig(test_faults=True)``; when off the
header is ignored like any unknown header.

Grammar (items separated by ``;``, spaces around items ignored)::

    X-Test-Fault: item (";" item)*
    item = "drop" | key "=" value

    id=TEXT          counter identity; default: the whole header value. Use a fresh id per test
                     so concurrent tests do not share counters.
    times=N          act on the first N requests carrying this id, then let them through
                     (default: act on every request). Applies to status, delay, drop, mangle.
    status=CODE      answer CODE (400-599) with {"message": "test fault: ..."} instead of
                     handling the request.
    retry_after=S    with status: add "Retry-After: S" (whole seconds).
    delay=SECONDS    wait this long (at most 30 s) before handling or failing the request.
    drop             send the response head, then close the connection with the body missing
                     (in-process the caller gets httpx.RemoteProtocolError, as over a socket).
    quota_after=N    translate only: once the requests with this id were billed N characters,
                     a request that would go beyond N answers 456. Ignores times.
    mangle=MODE      translate only: damage the markup of every translated text that has tags:
                     move       an ignored element moved to the start of its sentence
                     drop       the first tag removed
                     duplicate  the first tag emitted twice
                     attribute  the first attribute value translated

Order within one request: delay, then drop or status, then (translate) quota_after and mangle.
Examples: ``status=429;times=2;retry_after=1;id=a``, ``status=503;times=1;id=b``, ``delay=0.2``,
``drop;times=1;id=c``, ``quota_after=100;id=d``, ``mangle=move;id=e``. A header that does not
follow the grammar answers 400.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import Any

import httpx
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pipeline.protocol import RETRY_AFTER_HEADER, TEST_FAULT_HEADER
from pipeline.service.http.responses import error_response

MANGLE_MODES = ("move", "drop", "duplicate", "attribute")
MAX_DELAY_SECONDS = 30.0
_HEADER = TEST_FAULT_HEADER.lower().encode("latin-1")
SCOPE_KEY = "test_fault"


class FaultSyntaxError(ValueError):
    """The header does not follow the grammar."""


class DroppedConnection(httpx.RemoteProtocolError):
    """Raised after the response head to make the server drop the connection."""

    #: Expected on purpose: error handlers and log filters stay quiet about it.
    silent = True


@dataclass(frozen=True)
class FaultSpec:
    """One parsed ``X-Test-Fault`` header."""

    id: str
    times: int | None = None
    status: int | None = None
    retry_after: int | None = None
    delay: float = 0.0
    drop: bool = False
    quota_after: int | None = None
    mangle: str | None = None


@dataclass(frozen=True)
class ActiveFault:
    """A request's fault and whether its ``times`` budget lets it act on this request."""

    spec: FaultSpec
    acting: bool


def _int(key: str, value: str, low: int, high: int | None = None) -> int:
    try:
        number = int(value)
    except ValueError:
        raise FaultSyntaxError(f"{key} must be an integer") from None
    if number < low or (high is not None and number > high):
        raise FaultSyntaxError(f"{key} must be between {low} and {high}" if high else f"{key} must be >= {low}")
    return number


def parse(header: str) -> FaultSpec:
    """The fault a header asks for; FaultSyntaxError when it breaks the grammar."""
    fields: dict[str, Any] = {"id": header.strip()}
    for item in (part.strip() for part in header.split(";")):
        if not item:
            continue
        key, sep, value = (s.strip() for s in item.partition("="))
        if key == "drop" and not sep:
            fields["drop"] = True
        elif not sep:
            raise FaultSyntaxError(f"item {item!r} must be 'key=value' or 'drop'")
        elif key == "id" and value:
            fields["id"] = value
        elif key == "times":
            fields["times"] = _int(key, value, 0)
        elif key == "status":
            fields["status"] = _int(key, value, 400, 599)
        elif key == "retry_after":
            fields["retry_after"] = _int(key, value, 0)
        elif key == "quota_after":
            fields["quota_after"] = _int(key, value, 0)
        elif key == "delay":
            try:
                delay = float(value)
            except ValueError:
                raise FaultSyntaxError("delay must be a number of seconds") from None
            if not 0 <= delay <= MAX_DELAY_SECONDS:
                raise FaultSyntaxError(f"delay must be between 0 and {MAX_DELAY_SECONDS:g} seconds")
            fields["delay"] = delay
        elif key == "mangle":
            if value not in MANGLE_MODES:
                raise FaultSyntaxError(f"mangle must be one of {', '.join(MANGLE_MODES)}")
            fields["mangle"] = value
        else:
            raise FaultSyntaxError(f"unknown item {key!r}")
    return FaultSpec(**fields)


class FaultBook:
    """Per-id counters: requests seen, and characters billed under ``quota_after``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._hits: dict[str, int] = {}
        self._characters: dict[str, int] = {}

    def hit(self, spec: FaultSpec) -> bool:
        """Count one request of ``spec.id``; True while it is within ``times``."""
        with self._lock:
            count = self._hits.get(spec.id, 0) + 1
            self._hits[spec.id] = count
        return spec.times is None or count <= spec.times

    def consume(self, spec: FaultSpec, characters: int) -> bool:
        """Bill characters against ``quota_after``; False (nothing billed) when that would exceed it."""
        assert spec.quota_after is not None
        with self._lock:
            used = self._characters.get(spec.id, 0)
            if used + characters > spec.quota_after:
                return False
            self._characters[spec.id] = used + characters
        return True


def active_fault(scope: Scope) -> ActiveFault | None:
    """The fault the middleware found on this request, if any."""
    state = scope.get("state")
    return None if state is None else state.get(SCOPE_KEY)


class FaultMiddleware:
    """Pure ASGI middleware acting out delay, drop and status faults before routing."""

    def __init__(self, app: ASGIApp, book: FaultBook) -> None:
        self.app, self.book = app, book

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI call."""
        raw = None
        if scope["type"] == "http":
            raw = next((v for k, v in scope["headers"] if k == _HEADER), None)
        if raw is None:
            await self.app(scope, receive, send)
            return
        try:
            spec = parse(raw.decode("latin-1"))
        except FaultSyntaxError as exc:
            await error_response(400, f"bad {TEST_FAULT_HEADER} header: {exc}")(scope, receive, send)
            return
        fault = ActiveFault(spec, self.book.hit(spec))
        scope.setdefault("state", {})[SCOPE_KEY] = fault
        if fault.acting:
            if spec.delay:
                await asyncio.sleep(spec.delay)
            if spec.drop or spec.status is not None:
                await _drain(receive)
            if spec.drop:
                await _drop(send)
            if spec.status is not None:
                headers = {RETRY_AFTER_HEADER: str(spec.retry_after)} if spec.retry_after is not None else None
                message = f"test fault: scripted status {spec.status}"
                await error_response(spec.status, message, headers)(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _drain(receive: Receive) -> None:
    # Read the whole body before answering or closing: unread bytes left in the socket turn
    # the server's close into a reset, and the client would see a different failure.
    while True:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            return


async def _drop(send: Send) -> None:
    start: Message = {
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"64")],
    }
    await send(start)
    raise DroppedConnection("test fault: connection dropped")
