"""Fixtures of the client's integration tests against ``pipeline serve`` on 127.0.0.1.

``live_service`` comes from ``tests/integration/conftest.py``; fault helpers are in
``client_live_support``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.client.sync import Client
from tests.integration.client.client_live_support import FakeSleep


@pytest.fixture
def fake_sleep() -> FakeSleep:
    return FakeSleep()


@pytest.fixture
def client(live_service: Any, fake_sleep: FakeSleep) -> Iterator[Client]:
    with Client(live_service.url, live_service.auth_key, sleep=fake_sleep, timeout=10.0) as c:
        yield c


@pytest.fixture
def admin(live_service: Any) -> Iterator[Client]:
    with Client(live_service.url, live_service.admin_key, timeout=10.0) as c:
        yield c


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
