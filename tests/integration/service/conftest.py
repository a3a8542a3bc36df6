"""Fixtures of the service conformance suite: an HTTP client and per-test developer keys."""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.integration.conftest import LiveService


def auth(key: str) -> dict[str, str]:
    """The Authorization header for ``key``."""
    return {"Authorization": f"Service-Auth-Key {key}"}


@dataclass(frozen=True)
class Keys:
    """Authorization headers of the session server's keys."""

    paid: dict[str, str]
    admin: dict[str, str]
    free: dict[str, str]
    #: The developer key of a second paid-tier account (isolation between two paid accounts).
    other_paid: dict[str, str]


@pytest.fixture(scope="session")
def http(live_service: LiveService) -> Iterator[httpx.Client]:
    """A plain HTTP client on the session server (no default headers)."""
    with httpx.Client(base_url=live_service.url, timeout=30) as client:
        yield client


@pytest.fixture(scope="session")
def keys(live_service: LiveService) -> Keys:
    """Headers for the paid developer key, the admin key, the free developer key and the second paid account's key."""
    return Keys(
        auth(live_service.auth_key),
        auth(live_service.admin_key),
        auth(live_service.free_auth_key),
        auth(live_service.other_paid_auth_key),
    )


@dataclass(frozen=True)
class DevKey:
    """A developer key created for one test."""

    key_id: str
    headers: dict[str, str]
    record: dict[str, Any]


@pytest.fixture
def new_key(http: httpx.Client, keys: Keys) -> Iterator[Callable[..., DevKey]]:
    """Create developer keys through the admin API; all are deactivated after the test."""
    created: list[str] = []

    def create(label: str | None = None) -> DevKey:
        body = {} if label is None else {"label": label}
        response = http.post("/v2/admin/developer-keys", json=body, headers=keys.admin)
        assert response.status_code == 200, response.text
        record = response.json()
        created.append(record["key_id"])
        return DevKey(record["key_id"], auth(record["api_key"]), record)

    yield create
    for key_id in created:
        http.put("/v2/admin/developer-keys/deactivate", json={"key_id": key_id}, headers=keys.admin)


@pytest.fixture
def post_form(http: httpx.Client) -> Callable[..., httpx.Response]:
    """POST a URL-encoded form whose fields may repeat: ``post_form(path, [(name, value), ...], headers)``."""

    def post(path: str, pairs: list[tuple[str, str]], headers: dict[str, str]) -> httpx.Response:
        content = urllib.parse.urlencode(pairs).encode()
        return http.post(
            path, content=content, headers={**headers, "Content-Type": "application/x-www-form-urlencoded"}
        )

    return post


def check_error(response: httpx.Response, status: int) -> str:
    """Assert an error answer in the service's shape (status, JSON ``{"message"}``, no trace); its message."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["message"]
    assert isinstance(body["message"], str) and body["message"]
    assert "Traceback" not in response.text
    return body["message"]


@pytest.fixture
def error() -> Callable[[httpx.Response, int], str]:
    """:func:`check_error` for tests: ``error(response, 400)`` returns the message."""
    return check_error
