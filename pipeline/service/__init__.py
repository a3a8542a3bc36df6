"""The local implementation of the translation service (a Starlette ASGI app).

``create_app(ServiceConfig(...))`` builds the app; ``pipeline serve`` runs it under uvicorn and the
pipeline's embedded mode calls it in-process through ``httpx.ASGITransport``. ``create_app`` is
resolved lazily so that importing this package (and ``pipeline.service.cli``) stays light.

Modules: ``app`` (assembly), ``config`` (settings), ``state`` (live objects of one app);
``store`` / ``accounts`` / ``metering`` (SQLite state); ``auth``, ``params``, ``responses``
(request and answer plumbing); ``translate_request`` / ``translate`` (the endpoint) with
``lookups`` (the seam to glossaries, style rules, memories); ``engine`` / ``pseudo`` /
``markup`` / ``detect`` (translation); ``languages`` / ``discovery``; ``usage``; ``admin`` /
``analytics``; ``write`` / ``improve`` (Write); ``documents`` (package: document translation);
``resources`` (the stores behind ``lookups``) with ``glossaries`` / ``glossaries_v2`` /
``glossary_content`` / ``glossary_store`` / ``glossary_match``, ``style_rules`` / ``style_store``,
``memories`` / ``tm_match`` (translation memories), ``json_body`` (JSON-only bodies);
``faults`` / ``mangle`` (scripted failures); ``server`` / ``cli`` (``pipeline serve``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pipeline.service.config import AccountSpec, MemorySpec, ServiceConfig

if TYPE_CHECKING:
    from pipeline.service.app import create_app

__all__ = ["AccountSpec", "MemorySpec", "ServiceConfig", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from pipeline.service.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
