"""The local implementation of the translation service (a Starlette ASGI app).

``create_app(ServiceConfig(...))`` builds the app; ``pipeline serve`` runs it under uvicorn and the
pipeline's embedded mode calls it in-process through ``embedded_transport(config)`` (an
``httpx.ASGITransport`` that opens the app and closes it when its client closes). ``create_app``
and ``embedded_transport`` are resolved lazily so that importing this package (and
``pipeline.service.cli``) stays light.

The tree is the map: ``app`` (assembly), ``config``, ``state`` (live objects of one app),
``languages`` (the language table), ``server`` / ``cli`` (``pipeline serve``), ``embedded``
(in-process transport); ``http/`` (request
and answer plumbing), ``api/`` (the endpoints, one module per route group), ``store/`` (SQLite
tables and translation memories), ``engine/`` (what produces text), ``documents/`` (document
formats and jobs), ``testing/`` (scripted failures).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pipeline.service.config import AccountSpec, MemorySpec, ServiceConfig

if TYPE_CHECKING:
    from pipeline.service.app import create_app
    from pipeline.service.embedded import embedded_transport

__all__ = ["AccountSpec", "MemorySpec", "ServiceConfig", "create_app", "embedded_transport"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from pipeline.service.app import create_app

        return create_app
    if name == "embedded_transport":
        from pipeline.service.embedded import embedded_transport

        return embedded_transport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
