"""In-process access to the service app for unit tests (``httpx.ASGITransport``, no sockets)."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from pipeline.service.app import create_app
from pipeline.service.config import AccountSpec, ServiceConfig
from pipeline.service.embedded import EmbeddedTransport
from tests.unit.service.documents_support import JobsEnded

PAID, ADMIN, FREE = "unit-paid-key", "unit-admin-key", "unit-free-key"


def auth(key: str) -> dict[str, str]:
    """The Authorization header for ``key``."""
    return {"Authorization": f"Service-Auth-Key {key}"}


class Clock:
    """A settable UTC clock for ``ServiceConfig.clock``."""

    def __init__(self, now: dt.datetime) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now


class InProcess:
    """A synchronous facade over ``httpx.AsyncClient`` + the embedded transport on a private event loop.

    The app is opened at once (tests look at ``app.state``); :meth:`close` closes it with the client.
    """

    def __init__(self, app: Any, jobs_ended: JobsEnded | None = None) -> None:
        self.app = app
        self.jobs_ended = jobs_ended  # told by the app's document worker (ServiceConfig.on_document_ended)
        self._loop = asyncio.new_event_loop()
        self._client = httpx.AsyncClient(transport=EmbeddedTransport(app), base_url="http://embedded.invalid")
        self._loop.run_until_complete(app.open())

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        return self._loop.run_until_complete(self._client.request(method, url, **kwargs))

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", url, **kwargs)

    def put(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("PUT", url, **kwargs)

    def close(self) -> None:
        """Close the client and with it the app (a second call does nothing)."""
        if self._loop.is_closed():
            return
        self._loop.run_until_complete(self._client.aclose())
        self._loop.close()


def default_accounts() -> tuple[AccountSpec, ...]:
    """A paid account with a developer and an admin key, and a free account."""
    return (AccountSpec("paid", (PAID,), (ADMIN,)), AccountSpec("free", (FREE,)))


@pytest.fixture
def make_client() -> Iterator[Callable[..., InProcess]]:
    """Build in-process clients: ``make_client(**ServiceConfig fields)``; closed after the test."""
    clients: list[InProcess] = []

    def make(**fields: Any) -> InProcess:
        fields.setdefault("accounts", default_accounts())
        ended = fields.setdefault("on_document_ended", JobsEnded())
        client = InProcess(create_app(ServiceConfig(**fields)), ended)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def client(make_client: Callable[..., InProcess]) -> InProcess:
    """An in-process client on a fresh in-memory app with test faults enabled."""
    return make_client(test_faults=True)


class Headers:
    """Authorization headers of the default accounts' keys."""

    paid = auth(PAID)
    admin = auth(ADMIN)
    free = auth(FREE)


@pytest.fixture
def headers() -> type[Headers]:
    """Authorization headers: ``headers.paid``, ``headers.admin``, ``headers.free``."""
    return Headers


@pytest.fixture
def clock() -> Clock:
    """A settable clock, starting one hour before the end of May 2026 (UTC)."""
    return Clock(dt.datetime(2026, 5, 31, 23, 0, tzinfo=dt.UTC))
