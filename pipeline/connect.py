"""Which service a run talks to: the client the settings describe, and the name that identifies the service.

The pipeline talks to the embedded service, ``pipeline serve`` and a remote service through the
same :class:`~pipeline.client.AsyncClient`; they differ only in the httpx transport (the embedded
service is :class:`~pipeline.service.embedded.EmbeddedTransport`) or the base URL.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pipeline.config import ENV_AUTH_KEY, ENV_SERVICE_URL, Settings
from pipeline.distribution import __version__
from pipeline.errors import UsageError

if TYPE_CHECKING:  # the client (httpx) is imported only when a request is really needed
    from pipeline.client import AsyncClient

__all__ = ["EMBEDDED_BASE_URL", "ClientFactory", "check_service", "open_client", "service_identity"]

ClientFactory = Callable[[], "AsyncClient"]
EMBEDDED_BASE_URL = "http://embedded.invalid"


def service_identity(settings: Settings) -> str:
    """What names the service in cache keys and reports: results of one service are not reused for another."""
    if settings.service.embedded:
        return f"embedded/{__version__}"
    return (settings.service.url or "").rstrip("/")


def check_service(settings: Settings) -> None:
    """Raise UsageError when the settings name no service (the key is looked for when a client is opened)."""
    if not settings.service.url:
        raise UsageError(
            f"no translation service configured: pass --service-url URL (or 'embedded' for the "
            f"local in-process service), or set {ENV_SERVICE_URL}, or set [service] url in pipeline.toml"
        )


def open_client(settings: Settings, log: Callable[[str], None]) -> AsyncClient:
    """The async client the settings describe: the embedded service in-process, or the configured URL.

    Closing the client (``await client.aclose()``) closes the embedded service with it: its
    database and document worker.
    """
    import secrets  # here, not at the top: the no-op run never opens a client

    from pipeline.client import AsyncClient, RetryPolicy

    common: dict[str, Any] = {
        "retry": RetryPolicy(max_attempts=settings.service.max_attempts),
        "timeout": settings.service.timeout,
        "reporting_tag": settings.service.reporting_tag,
    }
    if settings.service.embedded:
        from pipeline.service import AccountSpec, ServiceConfig, embedded_transport

        key = secrets.token_urlsafe(24)  # lives only in this process
        transport = embedded_transport(ServiceConfig(accounts=(AccountSpec("paid", (key,)),)))
        log("using the embedded local service (in-process pseudo-translation, no network, no account)")
        return AsyncClient(EMBEDDED_BASE_URL, key, transport=transport, **common)
    remote_key = os.environ.get(ENV_AUTH_KEY)
    if not remote_key or not settings.service.url:
        raise UsageError(f"the service at {settings.service.url} needs a key: set {ENV_AUTH_KEY}")
    log(f"using the translation service at {settings.service.url}")
    try:
        return AsyncClient(settings.service.url, remote_key, **common)
    except ValueError as exc:  # the URL was checked with the settings: a proxy the environment names
        raise UsageError(str(exc)) from None
