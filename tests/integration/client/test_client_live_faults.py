"""Retry paths against the local service's scripted faults (X-Test-Fault), with no real sleeping."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.client.retry import NO_RETRY, RetryPolicy
from pipeline.errors import QuotaExceededError, RateLimitedError, ServerError, TransportError
from tests.integration.client.client_live_support import FakeSleep, faulty_async_client, faulty_client, fresh_id

pytestmark = pytest.mark.integration


def test_429_with_retry_after_then_success(live_service: Any, fake_sleep: FakeSleep) -> None:
    fault = f"status=429;times=2;retry_after=1;id={fresh_id()}"
    with faulty_client(live_service, fault, fake_sleep) as c:
        result = c.translate(["Hello"], target_lang="DE")
    assert len(result.translations) == 1
    assert fake_sleep.sleeps == [1.0, 1.0]


def test_429_without_retries_carries_retry_after(live_service: Any, fake_sleep: FakeSleep) -> None:
    fault = f"status=429;times=1;retry_after=7;id={fresh_id()}"
    with faulty_client(live_service, fault, fake_sleep, NO_RETRY) as c, pytest.raises(RateLimitedError) as caught:
        c.translate(["Hello"], target_lang="DE")
    assert (caught.value.status_code, caught.value.retry_after, caught.value.should_retry) == (429, 7.0, True)
    assert fake_sleep.sleeps == []


def test_503_once_then_success(live_service: Any, fake_sleep: FakeSleep) -> None:
    with faulty_client(live_service, f"status=503;times=1;id={fresh_id()}", fake_sleep) as c:
        assert c.usage().character_count >= 0
    assert len(fake_sleep.sleeps) == 1 and 0 <= fake_sleep.sleeps[0] <= 0.5


def test_5xx_until_attempts_run_out(live_service: Any, fake_sleep: FakeSleep) -> None:
    retry = RetryPolicy(max_attempts=3)
    with (
        faulty_client(live_service, f"status=500;id={fresh_id()}", fake_sleep, retry) as c,
        pytest.raises(ServerError) as caught,
    ):
        c.languages()
    assert caught.value.status_code == 500 and "test fault" in caught.value.message
    assert len(fake_sleep.sleeps) == 2


def test_dropped_connection_is_a_transport_error_and_retried(live_service: Any, fake_sleep: FakeSleep) -> None:
    with faulty_client(live_service, f"drop;times=1;id={fresh_id()}", fake_sleep) as c:
        result = c.translate(["Hello"], target_lang="DE")
    assert len(result.translations) == 1 and len(fake_sleep.sleeps) == 1
    with (
        faulty_client(live_service, f"drop;id={fresh_id()}", fake_sleep, NO_RETRY) as c,
        pytest.raises(TransportError) as caught,
    ):
        c.translate(["Hello"], target_lang="DE")
    assert caught.value.status_code is None and caught.value.should_retry


def test_quota_fault_raises_456_at_once(live_service: Any, fake_sleep: FakeSleep) -> None:
    with faulty_client(live_service, f"quota_after=10;id={fresh_id()}", fake_sleep) as c:
        c.translate(["12345"], target_lang="DE")  # 5 of 10
        with pytest.raises(QuotaExceededError) as caught:
            c.translate(["123456"], target_lang="DE")  # would make 11
    assert caught.value.status_code == 456 and not caught.value.should_retry
    assert fake_sleep.sleeps == []


@pytest.mark.anyio
async def test_async_retry_paths(live_service: Any, fake_sleep: FakeSleep) -> None:
    async with faulty_async_client(live_service, f"status=429;times=1;retry_after=2;id={fresh_id()}", fake_sleep) as c:
        result = await c.translate(["Hello"], target_lang="DE")
    assert len(result.translations) == 1 and fake_sleep.sleeps == [2.0]
    async with faulty_async_client(live_service, f"drop;times=1;id={fresh_id()}", fake_sleep) as c:
        assert (await c.usage()).character_count >= 0
    async with faulty_async_client(live_service, f"quota_after=0;id={fresh_id()}", fake_sleep) as c:
        with pytest.raises(QuotaExceededError):
            await c.translate(["x"], target_lang="DE")
    assert len(fake_sleep.sleeps) == 2
