"""The service in-process: an httpx transport over the app, opened by the app's lifespan and closed with its client.

The pipeline's embedded mode is a transport like any other (``AsyncClient(transport=...)``): the
client, its requests and its answer handling are the same as against ``pipeline serve``.
``httpx.ASGITransport`` runs no ASGI lifespan, so :class:`EmbeddedTransport` drives it: the app's
lifespan (what ``pipeline serve`` runs too) opens its database and document worker before the
first request and closes them in :meth:`~EmbeddedTransport.aclose`, which
``httpx.AsyncClient.aclose`` calls: closing the client closes the service, with no extra call for
its owner to forget.

The requests themselves are handed to the app here rather than by ``httpx.ASGITransport``, which
looks for trio on every request (a failed import, each time, where trio is not installed): the
embedded service runs under asyncio only.
"""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

import httpx

from pipeline.service.app import ServiceApp, ServiceStartError, create_app
from pipeline.service.config import ServiceConfig

__all__ = ["EmbeddedTransport", "embedded_transport"]


class EmbeddedTransport(httpx.AsyncBaseTransport):
    """An ASGI transport over a :class:`ServiceApp` whose lifespan runs from the first request to ``aclose``."""

    def __init__(self, app: ServiceApp) -> None:
        self.app = self.service = app
        self._lifespan: asyncio.Task[_Lifespan] | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Start the app's lifespan (once, whoever asks first), then hand the request to the app."""
        if self._lifespan is None:
            self._lifespan = asyncio.ensure_future(_Lifespan.start(self.service))
        if self._lifespan.done():  # every request after the first: no shield (a future and callbacks) to wait on
            self._lifespan.result()  # its ServiceStartError again, as awaiting it would raise
        else:
            await asyncio.shield(self._lifespan)
        exchange = _Exchange(await request.aread())
        url = request.url
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": request.method,
            "headers": [(k.lower(), v) for k, v in request.headers.raw],
            "scheme": url.scheme,
            "path": url.path,
            "raw_path": url.raw_path.split(b"?")[0],
            "query_string": url.query,
            "server": (url.host, url.port),
            "client": ("127.0.0.1", 123),
            "root_path": "",
        }
        await self.app(scope, exchange.receive, exchange.send)
        if exchange.status is None or not exchange.complete.is_set():
            raise RuntimeError("the embedded service app ended without a complete response")
        body = b"".join(exchange.body) if request.method != "HEAD" else b""
        return httpx.Response(exchange.status, headers=exchange.headers, stream=httpx.ByteStream(body))

    async def aclose(self) -> None:
        """End the app's lifespan: stop its document worker and close its database."""
        started, self._lifespan = self._lifespan, None
        if started is None:
            return
        try:
            lifespan = await started
        except ServiceStartError:
            return  # it never opened: nothing to close
        await lifespan.stop()


class _Exchange:
    """One request's ASGI conversation: the body sent in one message, the answer collected."""

    def __init__(self, body: bytes) -> None:
        self._body: bytes | None = body
        self.status: int | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []
        self.complete = asyncio.Event()

    async def receive(self) -> dict[str, Any]:
        if self._body is not None:
            body, self._body = self._body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self.complete.wait()  # what a server says once the answer is out: the client is gone
        return {"type": "http.disconnect"}

    async def send(self, message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status, self.headers = message["status"], list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            self.body.append(message.get("body", b""))
            if not message.get("more_body", False):
                self.complete.set()


class _Lifespan:
    """The ASGI lifespan protocol driven for one app: started by :meth:`start`, ended by :meth:`stop`."""

    def __init__(self, app: ServiceApp) -> None:
        loop = asyncio.get_running_loop()
        self._events: asyncio.Queue[MutableMapping[str, Any]] = asyncio.Queue()
        self._started: asyncio.Future[None] = loop.create_future()
        self._stopped: asyncio.Future[None] = loop.create_future()
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}
        self._task = asyncio.ensure_future(app(scope, self._events.get, self._send))

    @classmethod
    async def start(cls, app: ServiceApp) -> _Lifespan:
        """The app's lifespan, once its startup completed (ServiceStartError when it failed)."""
        lifespan = cls(app)
        await lifespan._events.put({"type": "lifespan.startup"})
        await asyncio.wait([lifespan._started, lifespan._task], return_when=asyncio.FIRST_COMPLETED)
        if lifespan._started.done() and lifespan._started.exception() is None:
            return lifespan
        try:  # the startup failed: the app's own error says why (the message holds a traceback's text)
            await lifespan._task
        except ServiceStartError:
            raise
        except Exception as exc:
            raise ServiceStartError(str(exc)) from exc
        raise ServiceStartError("the service app ended its lifespan before starting")

    async def stop(self) -> None:
        """Ask the app to shut down and wait until it has."""
        await self._events.put({"type": "lifespan.shutdown"})
        await asyncio.wait([self._stopped, self._task], return_when=asyncio.FIRST_COMPLETED)
        if self._stopped.done():
            self._stopped.result()
        await self._task

    async def _send(self, message: MutableMapping[str, Any]) -> None:
        kind, why = message["type"], message.get("message", "")
        if kind == "lifespan.startup.complete":
            self._started.set_result(None)
        elif kind == "lifespan.startup.failed":
            self._started.set_exception(ServiceStartError(why or "the service app could not start"))
        elif kind == "lifespan.shutdown.complete":
            self._stopped.set_result(None)
        elif kind == "lifespan.shutdown.failed":
            self._stopped.set_exception(RuntimeError(why or "the service app could not shut down"))


def embedded_transport(config: ServiceConfig) -> EmbeddedTransport:
    """A transport to a new app for ``config``, started on first use and closed with the client."""
    return EmbeddedTransport(create_app(config))
