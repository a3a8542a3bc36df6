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
                     swap       the first two different tags exchanged
                     attribute  the first attribute value translated
                     glue       the spaces after the first tag removed (a link glued to the next word)
                     any        whatever looks like a placeholder, with tag handling or without:
                                the first tag removed, else the first code-like word (a word
                                starting with a letter and holding a digit, such as XQ1Z) removed
                     inject     markup no source has (<script>alert(1)</script>) written as text
                                after the answer: escaped with tag handling, as it is without
                     inject-beside  the same markup as markup, right after the first placeholder
                                (a tag, a span or a token), with tag handling or without
    every=N          with mangle: damage only every Nth text of a request (the 2nd, 4th, ... for 2)

Order within one request: delay, then drop or status, then (translate) quota_after and mangle.
Delay, drop and status are acted out by :class:`FaultMiddleware` before routing; quota_after and
mangle by the meter and the engine an app with test faults gets (:class:`FaultMeter`,
:class:`MangledEngine`), which read the request's fault from a context variable the middleware
sets, so the endpoints themselves know nothing of faults.
Examples: ``status=429;times=2;retry_after=1;id=a``, ``status=503;times=1;id=b``, ``delay=0.2``,
``drop;times=1;id=c``, ``quota_after=100;id=d``, ``mangle=move;id=e``. A header that does not
follow the grammar answers 400.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple

import httpx
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pipeline.protocol import RETRY_AFTER_HEADER, TEST_FAULT_HEADER
from pipeline.service.echo import echo
from pipeline.service.engine.base import Engine, EngineRequest, Translation
from pipeline.service.engine.pseudo import mark_of
from pipeline.service.http.responses import error_response, quota_exceeded
from pipeline.service.store.database import Database
from pipeline.service.store.metering import Kind, Meter
from pipeline.service.testing import mangle

MANGLE_MODES = ("move", "drop", "duplicate", "swap", "attribute", "glue", "any", "inject", "inject-beside")
MAX_DELAY_SECONDS = 30.0
_HEADER = TEST_FAULT_HEADER.lower().encode("latin-1")


class FaultSyntaxError(ValueError):
    """The header does not follow the grammar."""


class DroppedConnection(httpx.RemoteProtocolError):
    """Raised after the response head to make the server drop the connection."""

    #: Expected on purpose: error handlers and log filters stay quiet about it.
    silent = True


class FaultSpec(NamedTuple):
    """One parsed ``X-Test-Fault`` header."""

    id: str
    times: int | None = None
    status: int | None = None
    retry_after: int | None = None
    delay: float = 0.0
    drop: bool = False
    quota_after: int | None = None
    mangle: str | None = None
    every: int = 1


class ActiveFault(NamedTuple):
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
            raise FaultSyntaxError(f"item {echo(item)} must be 'key=value' or 'drop'")
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
        elif key == "every":
            fields["every"] = _int(key, value, 1)
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
            raise FaultSyntaxError(f"unknown item {echo(key)}")
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

    def middleware(self) -> Middleware:
        """The app's middleware acting out this book's faults (:class:`FaultMiddleware`)."""
        return Middleware(FaultMiddleware, book=self)

    def meter(self, db: Database) -> Meter:
        """The app's meter, refusing past a fault's ``quota_after`` (:class:`FaultMeter`)."""
        return FaultMeter(db, self)

    def mangled(self, engine: Engine) -> Engine:
        """``engine``, its markup damaged where a fault asks for it (:class:`MangledEngine`)."""
        return MangledEngine(engine)


#: The fault of the request being handled; set by the middleware for the handling of one request.
_CURRENT: contextvars.ContextVar[ActiveFault | None] = contextvars.ContextVar("test_fault", default=None)


def active_fault() -> ActiveFault | None:
    """The fault the middleware found on the request being handled, if any."""
    return _CURRENT.get()


class FaultMiddleware:
    """Pure ASGI middleware acting out delay, drop and status faults before routing.

    ``sleep`` waits out a delay (tests give a virtual one).
    """

    def __init__(
        self, app: ASGIApp, book: FaultBook, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    ) -> None:
        self.app, self.book, self.sleep = app, book, sleep

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
        if fault.acting:
            if spec.delay:
                await self.sleep(spec.delay)
            if spec.drop or spec.status is not None:
                await _drain(receive)
            if spec.drop:
                await _drop(send)
            if spec.status is not None:
                headers = {RETRY_AFTER_HEADER: str(spec.retry_after)} if spec.retry_after is not None else None
                message = f"test fault: scripted status {spec.status}"
                await error_response(spec.status, message, headers)(scope, receive, send)
                return
        token = _CURRENT.set(fault)
        try:
            await self.app(scope, receive, send)
        finally:
            _CURRENT.reset(token)


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


class FaultMeter(Meter):
    """The meter of an app with test faults: ``quota_after`` refuses translation past its characters."""

    def __init__(self, db: Database, book: FaultBook) -> None:
        super().__init__(db)
        self._book = book

    def charge(self, key_id: str, account_id: str, period: str, kind: Kind, characters: int, limit: int | None) -> bool:
        """Charge as :class:`Meter` does, then 456 (charge taken back) when the request's quota fault is spent."""
        if not super().charge(key_id, account_id, period, kind, characters, limit):
            return False
        fault = active_fault()
        if kind != "translation" or fault is None or fault.spec.quota_after is None:
            return True
        if not self._book.consume(fault.spec, characters):
            self.refund(key_id, period, kind, characters)
            raise quota_exceeded(" (test fault quota_after)")
        return True


class MangledEngine:
    """The engine of an app with test faults: ``mangle`` damages the markup of the translated texts."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    async def translate(self, request: EngineRequest) -> Sequence[Translation]:
        """The wrapped engine's translations, damaged when the request's fault acts and asks for it."""
        translations = await self._engine.translate(request)
        fault = active_fault()
        if fault is None or not fault.acting or fault.spec.mangle is None:
            return translations
        mode, mark, every = fault.spec.mangle, mark_of(request.target_lang), fault.spec.every
        return [
            t._replace(text=mangle.apply(mode, t.text, request.markup, mark)) if (i + 1) % every == 0 else t
            for i, t in enumerate(translations)
        ]
