"""Calls to an ASGI app in this process without the HTTP machinery: the embedded service's fast path.

Through ``httpx.ASGITransport`` every call becomes an httpx request (URL merging and parsing,
header models, a cookie jar), an ASGI exchange and an httpx response, which together cost the
embedded service more than translating the texts. :class:`AppCaller` hands the app the ASGI
request httpx would hand it (method, path, query string, the client's headers, the body bytes)
and returns the status, headers and body for the client's own answer handling
(:func:`~pipeline.client.responses.finish`). So the app (routing, authentication, validation,
billing, engine, error answers) and what the client makes of its answer are the same either way;
only the wrapping is skipped. Multipart uploads (documents), which httpx encodes, still go
through the transport.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote

import httpx

from pipeline.client.requests import Request

Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]
]

#: Methods for which httpx sends ``Content-Length: 0`` when there is no body.
_EMPTY_BODY_LENGTH = ("POST", "PUT", "PATCH")


class AppCaller:
    """Performs a client's calls on ``app`` directly; ``headers`` are the client's (auth, user agent, ...)."""

    def __init__(self, app: ASGIApp, base_url: str, headers: httpx.Headers) -> None:
        url = httpx.URL(base_url)
        self._app = app
        self._prefix = url.raw_path.rstrip(b"/")
        self._server = (url.host, url.port)
        self._scheme = url.scheme
        self._host = [(b"host", url.netloc)]
        self._headers = [(name.lower(), value) for name, value in headers.raw]

    def handles(self, request: Request) -> bool:
        """Whether this caller performs ``request``: all but multipart uploads and paths httpx would quote."""
        return not request.files and request.path.isascii() and " " not in request.path

    async def call(self, request: Request) -> tuple[int, httpx.Headers, bytes]:
        """Status, headers and body of the app's answer to ``request``; the app's own exceptions propagate."""
        own = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in request.headers]
        if request.content_type:
            own.append((b"content-type", request.content_type.encode("latin-1")))
        names = {name for name, _ in own}
        headers = [*self._host, *((n, v) for n, v in self._headers if n not in names), *own]
        body = request.content if request.content is not None else b""
        if request.content is not None or request.method in _EMPTY_BODY_LENGTH:
            headers.append((b"content-length", str(len(body)).encode("ascii")))
        raw_path = self._prefix + request.path.encode("ascii")
        query = str(httpx.QueryParams(list(request.query))).encode("ascii") if request.query else b""
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": request.method,
            "headers": headers,
            "scheme": self._scheme,
            "path": unquote(raw_path.decode("ascii")),
            "raw_path": raw_path,
            "query_string": query,
            "server": self._server,
            "client": ("127.0.0.1", 123),
            "root_path": "",
        }
        return await _exchange(self._app, scope, body, request.method != "HEAD")


async def _exchange(
    app: ASGIApp, scope: MutableMapping[str, Any], body: bytes, keep_body: bool
) -> tuple[int, httpx.Headers, bytes]:
    """One ASGI request/response cycle, as ``httpx.ASGITransport`` drives it."""
    status: int | None = None
    headers: list[tuple[bytes, bytes]] = []
    parts: list[bytes] = []
    sent = False
    complete: asyncio.Event | None = None  # made only if the app listens past the body (for a disconnect)
    finished = False

    async def receive() -> Message:
        nonlocal sent, complete
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        if not finished:
            complete = complete or asyncio.Event()
            await complete.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status, headers, finished
        if message["type"] == "http.response.start":
            status, headers = message["status"], list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            if message.get("body") and keep_body:
                parts.append(message["body"])
            if not message.get("more_body", False):
                finished = True
                if complete is not None:
                    complete.set()

    await app(scope, receive, send)
    if status is None or not finished:
        raise RuntimeError("the in-process app ended without a complete answer")
    return status, httpx.Headers(headers), b"".join(parts)
