"""Which service a run talks to: the client the settings describe, and the name that identifies the service.

The pipeline talks to the embedded service, ``pipeline serve`` and a remote service through the
same :class:`~pipeline.client.aio.AsyncClient`; they differ only in the httpx transport (the embedded
service is :class:`~pipeline.service.embedded.EmbeddedTransport`) or the base URL.

:func:`open_client` is a front door: it loads the client (httpx) only when a request is about to
be sent, and the local service only when the settings name it. Everything else here is light: a
run with nothing to send (the pre-commit hook's usual case, a dry run, a run the cache covers)
names its service without loading either.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pipeline.config import ENV_AUTH_KEY, ENV_SERVICE_URL, ServiceSettings
from pipeline.distribution import __version__
from pipeline.errors import UsageError
from pipeline.protocol import key_problem

if TYPE_CHECKING:  # the client (httpx) is imported only when a request is really needed
    from pipeline.client.aio import AsyncClient

__all__ = ["EMBEDDED_BASE_URL", "ClientFactory", "check_service", "open_client", "prepare", "service_identity"]

ClientFactory = Callable[[], "AsyncClient"]
EMBEDDED_BASE_URL = "http://embedded.invalid"


def service_identity(service: ServiceSettings) -> str:
    """What names the service in cache keys and reports: results of one service are not reused for another."""
    if service.embedded:
        return f"embedded/{__version__}"
    return (service.url or "").rstrip("/")


def check_service(service: ServiceSettings) -> None:
    """Raise UsageError when the settings name no service (the key is looked for when a client is opened)."""
    if not service.url:
        raise UsageError(
            f"no translation service configured: pass --service-url URL (or 'embedded' for the "
            f"local in-process service), or set {ENV_SERVICE_URL}, or set [service] url in pipeline.toml"
        )


def prepare(service: ServiceSettings) -> None:
    """Start making, beside the run's work, what a client of ``service`` will need and costs CPU alone: an https
    service's TLS context (:func:`pipeline.client.tls.start`), whose roots load in a worker thread without the
    GIL. Called once the run has a unit to translate, and by :func:`open_client`; does nothing for the
    embedded service, a plain http one, or a run without a key (which stops before any request)."""
    if service.embedded or not service.url or not os.environ.get(ENV_AUTH_KEY):
        return
    if urlsplit(service.url).scheme == "https":
        from pipeline.client import tls  # the front door: the roots' loader, for an https service only

        tls.start()


def open_client(service: ServiceSettings, log: Callable[[str], None]) -> AsyncClient:
    """The async client the settings describe: the embedded service in-process, or the configured URL.

    Closing the client (``await client.aclose()``) closes the embedded service with it: its
    database and document worker.
    """
    import secrets

    prepare(service)  # unless the run did: the TLS roots load while the client's modules are imported
    from pipeline.client.aio import AsyncClient  # the front door: the client, once a request is needed
    from pipeline.client.retry import RetryPolicy

    common: dict[str, Any] = {
        "retry": RetryPolicy(max_attempts=service.max_attempts),
        "timeout": service.timeout,
        "reporting_tag": service.reporting_tag,
    }
    if service.embedded:  # the front door: the local service, only when it is the one named
        from pipeline.service.config import AccountSpec, ServiceConfig
        from pipeline.service.embedded import embedded_transport

        key = secrets.token_urlsafe(24)  # lives only in this process
        transport = embedded_transport(ServiceConfig(accounts=(AccountSpec("paid", (key,)),)))
        log("using the embedded local service (in-process pseudo-translation, no network, no account)")
        return AsyncClient(EMBEDDED_BASE_URL, key, transport=transport, **common)
    remote_key = os.environ.get(ENV_AUTH_KEY, "").strip()  # a key file's newline is no part of the key
    if not remote_key or not service.url:
        raise UsageError(f"the service at {service.url} needs a key: set {ENV_AUTH_KEY}")
    if problem := key_problem(remote_key):
        raise UsageError(f"{ENV_AUTH_KEY} {problem}")
    log(f"using the translation service at {service.url}")
    try:
        return AsyncClient(service.url, remote_key, **common)
    except ValueError as exc:  # the URL was checked with the settings: a proxy or TLS roots the environment names
        raise UsageError(str(exc)) from None
