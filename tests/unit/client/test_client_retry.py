"""Retries: which errors, how long to wait (Retry-After, full jitter), and the bounds. No real sleeps."""

from __future__ import annotations

import httpx
import pytest
import respx

from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy, retry_delay
from pipeline.client.sync import Client
from pipeline.errors import (
    BadRequestError,
    QuotaExceededError,
    RateLimitedError,
    ServerError,
    ServiceError,
    TransportError,
)
from tests.unit.client.client_fakes import BASE_URL, KEY, FakeTime

OK = {"translations": [{"text": "Hallo", "detected_source_language": "EN"}]}


def make_client(router: respx.Router, fake_time: FakeTime, retry: RetryPolicy | None = None) -> Client:
    return Client(
        BASE_URL,
        KEY,
        transport=httpx.MockTransport(router.handler),
        retry=retry,
        sleep=fake_time.sleep,
        clock=fake_time.clock,
    )


# --- the pure delay function ----------------------------------------------------------------


def test_full_jitter_spans_zero_to_the_exponential_cap() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=3.0)
    assert [retry_delay(policy, n, None, 100, lambda: 1.0) for n in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert retry_delay(policy, 3, None, 100, lambda: 0.0) == 0.0
    assert retry_delay(policy, 3, None, 100, lambda: 0.25) == 0.5


def test_retry_after_wins_over_jitter_but_not_over_the_time_left() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=1.0)
    assert retry_delay(policy, 1, 7.0, 100, lambda: 1.0) == 7.0
    assert retry_delay(policy, 1, 7.0, 2.5, lambda: 1.0) == 2.5
    assert retry_delay(policy, 4, None, 0.1, lambda: 1.0) == 0.1


def test_policy_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(base_delay=-1)


# --- through the client ---------------------------------------------------------------------


def test_429_then_200_honours_retry_after(client: Client, router: respx.Router, fake_time: FakeTime) -> None:
    route = router.post("/v2/translate").mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "3"}, json={"message": "slow down"}),
            httpx.Response(200, json=OK),
        ]
    )
    result = client.translate(["Hello"], target_lang="DE")
    assert result.translations[0].text == "Hallo"
    assert route.call_count == 2
    assert fake_time.sleeps == [3.0]


def test_456_raises_quota_error_at_once(client: Client, router: respx.Router, fake_time: FakeTime) -> None:
    route = router.post("/v2/translate").respond(456, json={"message": "Quota exceeded"})
    with pytest.raises(QuotaExceededError) as caught:
        client.translate(["Hello"], target_lang="DE")
    assert route.call_count == 1
    assert fake_time.sleeps == []
    assert caught.value.status_code == 456
    assert caught.value.message == "Quota exceeded"
    assert caught.value.should_retry is False


@pytest.mark.parametrize("status", [400, 403, 404, 413])
def test_other_4xx_are_never_retried(status: int, client: Client, router: respx.Router, fake_time: FakeTime) -> None:
    route = router.get("/v2/usage").respond(status, json={"message": "no"})
    with pytest.raises(ServiceError) as caught:
        client.usage()
    assert route.call_count == 1 and fake_time.sleeps == []
    assert caught.value.status_code == status


def test_5xx_is_retried_with_jitter_within_bounds(router: respx.Router, fake_time: FakeTime) -> None:
    route = router.get("/v2/usage").mock(
        side_effect=[
            httpx.Response(503),
            httpx.Response(502),
            httpx.Response(500),
            httpx.Response(200, json={"character_count": 3}),
        ]
    )
    with make_client(router, fake_time, RetryPolicy(base_delay=1.0, max_delay=3.0)) as c:
        assert c.usage().character_count == 3
    assert route.call_count == 4
    assert len(fake_time.sleeps) == 3
    for delay, cap in zip(fake_time.sleeps, [1.0, 2.0, 3.0], strict=True):
        assert 0.0 <= delay <= cap


def test_transport_errors_are_retried(client: Client, router: respx.Router, fake_time: FakeTime) -> None:
    route = router.get("/v2/usage").mock(
        side_effect=[
            httpx.ConnectError("refused"),
            httpx.ReadTimeout("slow"),
            httpx.Response(200, json={"character_count": 1}),
        ]
    )
    assert client.usage().character_count == 1
    assert route.call_count == 3 and len(fake_time.sleeps) == 2


def test_attempts_are_bounded_and_the_last_error_raised(router: respx.Router, fake_time: FakeTime) -> None:
    route = router.get("/v2/usage").respond(503, json={"message": "down for maintenance"})
    with make_client(router, fake_time, RetryPolicy(max_attempts=3)) as c, pytest.raises(ServerError) as caught:
        c.usage()
    assert route.call_count == 3 and len(fake_time.sleeps) == 2
    assert caught.value.message == "down for maintenance" and caught.value.should_retry


def test_total_time_is_bounded(router: respx.Router, fake_time: FakeTime) -> None:
    route = router.get("/v2/usage").respond(429, headers={"Retry-After": "4"})
    policy = RetryPolicy(max_attempts=100, max_total=10.0)
    with make_client(router, fake_time, policy) as c, pytest.raises(RateLimitedError) as caught:
        c.usage()
    # 4 + 4 + 2 (capped by what is left of 10 s), then no time is left.
    assert fake_time.sleeps == [4.0, 4.0, 2.0]
    assert route.call_count == 4
    assert caught.value.retry_after == 4.0


def test_transport_error_after_retries_is_ours_not_httpx(router: respx.Router, fake_time: FakeTime) -> None:
    router.get("/v2/usage").mock(
        side_effect=httpx.RemoteProtocolError("Server disconnected without sending a response.")
    )
    with make_client(router, fake_time, RetryPolicy(max_attempts=2)) as c, pytest.raises(TransportError) as caught:
        c.usage()
    assert caught.value.status_code is None
    assert "RemoteProtocolError: Server disconnected" in str(caught.value)
    assert isinstance(caught.value.__cause__, httpx.RemoteProtocolError)


def test_client_limit_errors_send_nothing(client: Client, router: respx.Router) -> None:
    route = router.post("/v2/translate").respond(json=OK)
    with pytest.raises(Exception) as caught:
        client.translate(["x"] * 51, target_lang="DE")
    assert "51 texts" in str(caught.value) and "limit is 50" in str(caught.value)
    assert route.call_count == 0


def test_bad_request_message_comes_from_the_service(client: Client, router: respx.Router) -> None:
    router.post("/v2/translate").respond(400, json={"message": "Value for 'target_lang' not supported."})
    with pytest.raises(BadRequestError, match="target_lang' not supported") as caught:
        client.translate(["x"], target_lang="XX")
    assert caught.value.status_code == 400


@pytest.mark.anyio
async def test_async_429_then_200_honours_retry_after(router: respx.Router, fake_time: FakeTime) -> None:
    route = router.post("/v2/translate").mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "1.5"}), httpx.Response(200, json=OK)]
    )
    async with AsyncClient(
        BASE_URL,
        KEY,
        transport=httpx.MockTransport(router.async_handler),
        sleep=fake_time.asleep,
        clock=fake_time.clock,
    ) as c:
        result = await c.translate(["Hello"], target_lang="DE")
    assert result.translations[0].text == "Hallo"
    assert route.call_count == 2 and fake_time.sleeps == [1.5]


@pytest.mark.anyio
async def test_async_456_is_not_retried(aclient: AsyncClient, router: respx.Router, fake_time: FakeTime) -> None:
    route = router.post("/v2/translate").respond(456, json={"message": "Quota exceeded"})
    with pytest.raises(QuotaExceededError):
        await aclient.translate(["Hello"], target_lang="DE")
    await aclient.aclose()
    assert route.call_count == 1 and fake_time.sleeps == []


@pytest.mark.anyio
async def test_async_transport_error_retried(aclient: AsyncClient, router: respx.Router, fake_time: FakeTime) -> None:
    route = router.get("/v2/usage").mock(
        side_effect=[httpx.ReadError("reset"), httpx.Response(200, json={"character_count": 2})]
    )
    assert (await aclient.usage()).character_count == 2
    await aclient.aclose()
    assert route.call_count == 2 and len(fake_time.sleeps) == 1


@pytest.mark.anyio
async def test_a_caller_that_paces_itself_decides_each_429s_wait_and_a_paced_429_takes_no_attempt(
    router: respx.Router, fake_time: FakeTime
) -> None:
    """5xx and transport errors take attempts; the pace decides a 429's wait and when to give up, not
    max_attempts, and its wait is not the request's own time."""
    paced: list[float | None] = []

    async def pace(error: RateLimitedError) -> float:
        paced.append(error.retry_after)
        fake_time.now += 500.0  # far past max_total: a paced wait is not the request's own time
        return 500.0

    route = router.post("/v2/translate").mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "3"}, json={"message": "slow down"}),
            httpx.Response(503),
            httpx.ReadError("reset"),
            httpx.Response(200, json=OK),
            *[httpx.Response(429, json={"message": "slow down"})] * 6,
            httpx.Response(200, json=OK),
            httpx.Response(503),
            httpx.Response(429, json={"message": "slow down"}),
            *[httpx.Response(503)] * 3,
        ]
    )
    async with AsyncClient(
        BASE_URL,
        KEY,
        transport=httpx.MockTransport(router.async_handler),
        retry=RetryPolicy(max_attempts=4, max_total=100.0),
        sleep=fake_time.asleep,
        clock=fake_time.clock,
    ) as client:
        own = client.with_pacing(pace)
        assert (await own.translate(["Hello"], target_lang="DE")).translations[0].text == "Hallo"
        assert paced == [3.0] and len(fake_time.sleeps) == 2  # the 503 and the reset waited their back-off
        # Six 429s in a row, more than max_attempts sends: each waited as the pace said, none failed the call.
        assert (await own.translate(["Hello"], target_lang="DE")).translations[0].text == "Hallo"
        assert route.call_count == 11 and paced == [3.0, *[None] * 6]
        with pytest.raises(ServerError) as caught:  # 503, 429, 503, 503, 503: the fourth failed attempt
            await own.translate(["Hello"], target_lang="DE")
    assert route.call_count == 16 and caught.value.attempts == 4 and caught.value.status_code == 503
    assert client._pace is None  # the original is unchanged
