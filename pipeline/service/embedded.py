"""The service in-process: an httpx transport over the app, opened by the app's lifespan and closed with its client.

The pipeline's embedded mode is a transport like any other (``AsyncClient(transport=...)``): the
client, its requests and its answer handling are the same as against ``pipeline serve``.
``httpx.ASGITransport`` runs no ASGI lifespan, so :class:`EmbeddedTransport` drives it: the app's
lifespan (what ``pipeline serve`` runs too) opens its database and document worker before the
first request and closes them in :meth:`~EmbeddedTransport.aclose`, which
``httpx.AsyncClient.aclose`` calls: closing the client closes the service, with no extra call for
its owner to forget.
"""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

import httpx

from pipeline.service.app import ServiceApp, ServiceStartError, create_app
from pipeline.service.config import ServiceConfig

__all__ = ["EmbeddedTransport", "embedded_transport"]


class EmbeddedTransport(httpx.ASGITransport):
    """``httpx.ASGITransport`` over a :class:`ServiceApp` whose lifespan runs from the first request to ``aclose``."""

    def __init__(self, app: ServiceApp) -> None:
        super().__init__(app=app)
        self.service = app
        self._lifespan: asyncio.Task[_Lifespan] | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Start the app's lifespan (once, whoever asks first), then hand the request to the app."""
        if self._lifespan is None:
            self._lifespan = asyncio.ensure_future(_Lifespan.start(self.service))
        await asyncio.shield(self._lifespan)
        return await super().handle_async_request(request)

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
