"""Fixtures of the client's unit tests: a client whose transport is a respx router (no sockets)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import respx

from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.client.sync import Client
from tests.unit.client.client_fakes import BASE_URL, KEY, FakeTime


@pytest.fixture
def router() -> respx.Router:
    return respx.Router(base_url=BASE_URL, assert_all_called=False)


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def client(router: respx.Router, fake_time: FakeTime) -> Iterator[Client]:
    with Client(
        BASE_URL,
        KEY,
        transport=httpx.MockTransport(router.handler),
        retry=RetryPolicy(),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
    ) as c:
        yield c


@pytest.fixture
def aclient(router: respx.Router, fake_time: FakeTime) -> AsyncClient:
    return AsyncClient(
        BASE_URL,
        KEY,
        transport=httpx.MockTransport(router.async_handler),
        sleep=fake_time.asleep,
        clock=fake_time.clock,
    )


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
