"""The send stage under a service that refuses requests beyond an in-flight limit it does not announce.

The fake service's latency and the limiter run on one virtual clock (tests/virtual_time.py): the
counts below do not depend on how fast or busy the machine is.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

import pipeline.run.send as send_module
from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.config import ServiceSettings
from pipeline.connect import ClientFactory
from pipeline.errors import ExitCode
from pipeline.run.send.concurrency import Controller, Limiter
from tests.run_fakes import languages_answer, project, run
from tests.virtual_time import VirtualTime

LIMIT, CEILING, RETRY_AFTER = 2, 8, 0.05
BODY = "".join(f'msgid "Message number {i}"\nmsgstr ""\n\n' for i in range(400))  # 8 requests per language


class LimitedTime(VirtualTime):
    """Virtual time, and the limiters the run made on it."""

    def __init__(self) -> None:
        super().__init__()
        self.limiters: list[Limiter] = []


@pytest.fixture
def time_(monkeypatch: pytest.MonkeyPatch) -> LimitedTime:
    """A virtual clock for the run's limiter (and the fake services' latency)."""
    time_ = LimitedTime()

    def on_virtual_time(service: ServiceSettings) -> Limiter:
        time_.limiters.append(Limiter(Controller(service.concurrency), clock=time_.clock, sleep=time_.sleep))
        return time_.limiters[-1]

    monkeypatch.setattr(send_module, "new_limiter", on_virtual_time)
    return time_


class Limited:
    """A fake service answering 429 (Retry-After) to a request that finds LIMIT others in flight."""

    def __init__(self, time_: VirtualTime) -> None:
        self.time = time_
        self.in_flight = self.answered = 0
        self.refusals = 0

    async def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/languages":
            return languages_answer(("de", "pl"))
        if request.url.path != "/v2/translate":  # the usage check: a service without it goes on unchecked
            return httpx.Response(404, json={"message": "not found"})
        if self.in_flight >= LIMIT:
            await self.time.sleep(0.01)
            self.refusals += 1
            return httpx.Response(429, headers={"Retry-After": str(RETRY_AFTER)}, json={"message": "slow down"})
        self.in_flight += 1
        await self.time.sleep(0.01)
        self.in_flight -= 1
        self.answered += 1
        body = json.loads(request.content)
        return httpx.Response(
            200, json={"translations": [{"text": f"[X] {t}", "detected_source_language": "EN"} for t in body["text"]]}
        )

    def factory(self) -> ClientFactory:
        transport = httpx.MockTransport(self.handler)
        return lambda: AsyncClient("http://fake.invalid", "k", transport=transport, retry=RetryPolicy(max_attempts=5))


def test_the_run_finds_the_limit_backs_off_and_translates_everything(tmp_path: Path, time_: LimitedTime) -> None:
    settings = project(tmp_path, langs=("de", "pl"), body=BODY)
    settings = settings._replace(context="none", service=replace(settings.service, concurrency=CEILING))
    service = Limited(time_)
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK, report.issues
    assert report.totals.segments_translated == 800 and report.totals.requests == 16 == service.answered
    (limiter,) = time_.limiters
    assert limiter.controller.floor == LIMIT  # what the service takes, found without being told
    # One overshoot while it grows (its first refusals weighed as possible noise), then it keeps to
    # what the service takes: no storm of 429s.
    assert 0 < service.refusals <= 10  # a fixed 8 in flight draws 20 or more


def test_requests_in_flight_never_exceed_the_ceiling(tmp_path: Path, time_: LimitedTime) -> None:
    settings = project(tmp_path, langs=("de", "pl"), body=BODY)
    settings = settings._replace(context="none", service=replace(settings.service, concurrency=3))
    seen = 0
    in_flight = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal seen, in_flight
        if request.url.path != "/v2/translate":
            return await Limited(time_).handler(request)
        in_flight += 1
        seen = max(seen, in_flight)
        await time_.sleep(0.01)
        in_flight -= 1
        body = json.loads(request.content)
        return httpx.Response(
            200, json={"translations": [{"text": f"[X] {t}", "detected_source_language": "EN"} for t in body["text"]]}
        )

    class Unlimited:
        def factory(self) -> ClientFactory:
            transport = httpx.MockTransport(handler)
            return lambda: AsyncClient("http://fake.invalid", "k", transport=transport)

    assert run(settings, Unlimited()).exit_code == ExitCode.OK
    assert seen == 3  # grew to the ceiling, never past it


class Noisy(Limited):
    """A fake service with no in-flight limit that answers 429 to a share of translate requests at random."""

    def __init__(self, time_: VirtualTime, share: float, retry_after: float) -> None:
        super().__init__(time_)
        self.share, self.retry_after, self.chance = share, retry_after, random.Random(7)

    async def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/translate" and self.chance.random() < self.share:
            await self.time.sleep(0.01)
            self.refusals += 1
            return httpx.Response(429, headers={"Retry-After": str(self.retry_after)}, json={"message": "busy"})
        if request.url.path == "/v2/translate":
            self.in_flight = 0  # no limit: only the share refused at random
        return await super().handler(request)


NOISY_BODY = "".join(f'msgid "Message number {i}"\nmsgstr ""\n\n' for i in range(2000))  # 40 requests a language


def test_random_429s_cost_the_refused_requests_their_wait_not_the_run_its_speed(
    tmp_path: Path, time_: LimitedTime
) -> None:
    retry_after = 0.1  # ten times the service's latency, as 1 s is to 100 ms
    took = {}
    for share in (0.0, 0.2):
        settings = project(tmp_path / str(share), langs=("de", "pl"), body=NOISY_BODY)
        settings = settings._replace(context="none", service=replace(settings.service, concurrency=16))
        service, started = Noisy(time_, share, retry_after), time_.now
        report = run(settings, service)
        assert report.exit_code == ExitCode.OK, report.issues
        assert report.totals.segments_translated == 4000 and report.totals.requests == 80
        took[share] = time_.now - started
    limiter = time_.limiters[-1]
    assert service.refusals >= 10 and limiter.controller.noise >= service.refusals - 3  # taken for noise
    assert took[0.2] <= took[0.0] + 3 * retry_after  # the issue's bound: clean + 3 x Retry-After
