"""The service in-process: an httpx transport that opens the app and closes it with its client.

A run's client (:func:`pipeline.run.request.open_client`) also hands the app its calls directly
(``AsyncClient(app=...)``, :mod:`pipeline.client.inprocess`): the same app and answers without
httpx's request and response objects; the transport still closes the app.

``httpx.ASGITransport`` runs no ASGI lifespan, so nothing would close the app's database or stop
its document worker. :class:`EmbeddedTransport` opens the app before its first request and closes
it in :meth:`~EmbeddedTransport.aclose`, which ``httpx.AsyncClient.aclose`` calls: closing the
client closes the service, with no extra call for its owner to forget.
"""

from __future__ import annotations

import httpx

from pipeline.service.app import ServiceApp, create_app
from pipeline.service.config import ServiceConfig


class EmbeddedTransport(httpx.ASGITransport):
    """``httpx.ASGITransport`` over a :class:`ServiceApp` whose life ends with the transport's."""

    def __init__(self, app: ServiceApp) -> None:
        super().__init__(app=app)
        self.service = app

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Open the app (once), then hand the request to it."""
        await self.service.open()
        return await super().handle_async_request(request)

    async def aclose(self) -> None:
        """Close the app: stop its document worker and close its database."""
        await self.service.aclose()


def embedded_transport(config: ServiceConfig) -> EmbeddedTransport:
    """A transport to a new app for ``config``, opened on first use and closed with the client."""
    return EmbeddedTransport(create_app(config))
