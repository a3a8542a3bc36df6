"""The send stage under 429s, 5xx and transport errors: attempts bounded, tickets returned, segments accounted for.

The limiter, the client's retries and the fake services' latency run on one virtual clock
(tests/virtual_time.py), so these tests do not depend on how fast the machine is.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

import pipeline.run.send as send_module
from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.config import ServiceSettings
from pipeline.connect import ClientFactory
from pipeline.errors import ExitCode
from pipeline.run.records import StopReason
from pipeline.run.send.concurrency import PATIENCE, PATIENT_REFUSALS, Controller, Limiter
from tests.run_fakes import languages_answer, project, run
from tests.virtual_time import VirtualTime

BODY = "".join(f'msgid "Message number {i}"\nmsgstr ""\n\n' for i in range(120))


def languages() -> httpx.Response:
    return languages_answer(("de", "pl"))


def not_translate(request: httpx.Request) -> httpx.Response:
    """What the fake services answer besides /v2/translate: the languages, else 404."""
    if request.url.path == "/v3/languages":
        return languages()
    return httpx.Response(404, json={"message": "not found"})


def answer(service: Any, request: httpx.Request) -> httpx.Response:
    """A fake service's answer: each text marked, as a pseudo engine would, and billed to ``service``."""
    texts = json.loads(request.content)["text"]
    service.billed += sum(len(t) for t in texts)
    return httpx.Response(
        200, json={"translations": [{"text": f"[X] {t}", "detected_source_language": "EN"} for t in texts]}
    )


class Always429:
    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers
        self.translate_calls = 0

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path != "/v2/translate":
            return not_translate(request)
        self.translate_calls += 1
        return httpx.Response(429, headers=self.headers, json={"message": "slow down"})

    def factory(self, attempts: int = 2) -> ClientFactory:
        transport = httpx.MockTransport(self.handler)
        return lambda: AsyncClient(
            "http://fake.invalid", "k", transport=transport, retry=RetryPolicy(max_attempts=attempts)
        )


@pytest.fixture
def time_() -> VirtualTime:
    return VirtualTime()


@pytest.fixture
def limiters(monkeypatch: pytest.MonkeyPatch, time_: VirtualTime) -> list[Limiter]:
    """The run's limiters, each on the test's virtual clock."""
    made: list[Limiter] = []

    def on_virtual_time(service: ServiceSettings) -> Limiter:
        limiter = Limiter(Controller(service.concurrency), clock=time_.clock, sleep=time_.sleep)
        made.append(limiter)
        return limiter

    monkeypatch.setattr(send_module, "new_limiter", on_virtual_time)
    return made


def client(transport: httpx.MockTransport, time_: VirtualTime, **retry: Any) -> AsyncClient:
    """A client of a fake service whose retries wait on the virtual clock."""
    return AsyncClient(
        "http://fake.invalid",
        "k",
        transport=transport,
        retry=RetryPolicy(**retry),
        sleep=time_.sleep,
        clock=time_.clock,
    )


@pytest.mark.parametrize(
    ("headers", "concurrency"),
    [({"Retry-After": "0"}, 4), ({"Retry-After": "30"}, 1), ({"Retry-After": "garbage"}, 4)],
    ids=["zero-many-in-a-row", "thirty-for-two-minutes", "garbage-doubling"],
)
def test_a_service_that_never_stops_answering_429_stops_the_run_clearly_and_fails_nothing(
    tmp_path: Path, headers: dict[str, str], concurrency: int, limiters: list[Limiter], time_: VirtualTime
) -> None:
    # A 429 takes no attempt from max_attempts (2 here): the run waits while it could make
    # progress, and stops, saying why, once the service has answered nothing but 429 for
    # PATIENCE seconds or PATIENT_REFUSALS times in a row. What is left is the next run's work.
    settings = project(tmp_path, langs=("de",), body=BODY)
    settings = settings._replace(
        context="none", service=replace(settings.service, concurrency=concurrency, max_attempts=2)
    )
    service = Always429(headers)
    report = run(settings, Factory(lambda: client(httpx.MockTransport(service.handler), time_, max_attempts=2)))
    assert report.exit_code == ExitCode.UNAVAILABLE
    assert report.stopped is not None and report.stopped.reason is StopReason.SERVICE
    assert "answered every request with 429" in report.stopped.message
    assert report.totals.billed_characters == 0
    assert report.totals.segments_failed == 0
    assert report.remaining is not None and report.remaining.segments == 120
    assert service.translate_calls > 2  # well past max_attempts: a 429 is a reason to wait
    stalled_by_time = headers["Retry-After"] != "0"
    if stalled_by_time:
        assert time_.now >= PATIENCE
    else:
        assert service.translate_calls >= PATIENT_REFUSALS
    assert limiters and all(limiter.controller.in_flight == 0 for limiter in limiters)


class Mixed:
    """429 (with and without Retry-After), 503 and transport errors in turn, then four answers; bills what it
    answers. Half the sends fail: within max_attempts=10 sends in all, every request gets through."""

    def __init__(self) -> None:
        self.calls = 0
        self.billed = 0

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path != "/v2/translate":
            return not_translate(request)
        self.calls += 1
        turn = self.calls % 8
        if turn == 1:
            return httpx.Response(429, headers={"Retry-After": "0"}, json={"message": "slow down"})
        if turn == 2:
            return httpx.Response(503, json={"message": "busy"})
        if turn == 3:
            raise httpx.ConnectError("reset", request=request)
        if turn == 4:
            return httpx.Response(429, json={"message": "slow down"})
        return answer(self, request)

    def factory(self, time_: VirtualTime) -> ClientFactory:
        transport = httpx.MockTransport(self.handler)
        return lambda: client(transport, time_, max_attempts=10)


def test_429_mixed_with_5xx_and_transport_errors_gets_every_request_through(
    tmp_path: Path, limiters: list[Limiter], time_: VirtualTime
) -> None:
    settings = project(tmp_path, langs=("de", "pl"), body=BODY)
    settings = settings._replace(context="none", service=replace(settings.service, concurrency=4, max_attempts=10))
    service = Mixed()
    report = run(settings, Factory(service.factory(time_)))
    assert report.exit_code == ExitCode.OK, [i.reason for i in report.issues][:3]
    assert report.totals.segments_translated == 240
    assert report.totals.billed_characters == service.billed
    assert all(limiter.controller.in_flight == 0 for limiter in limiters)


class Factory:
    """What ``run`` takes: something with a ``factory()`` of clients."""

    def __init__(self, make: Any) -> None:
        self.make = make

    def factory(self) -> Any:
        return self.make


class Dropping:
    """Takes 4 in flight for the first 10 answers, then only 1 (429 with Retry-After beyond it)."""

    def __init__(self, time_: VirtualTime) -> None:
        self.time = time_
        self.in_flight = self.answered = self.refusals = 0
        self.billed = 0
        self.over_after_drop = 0

    async def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path != "/v2/translate":
            return not_translate(request)
        limit = 4 if self.answered < 10 else 1
        if self.in_flight >= limit:
            self.refusals += 1
            return httpx.Response(429, headers={"Retry-After": "0.01"}, json={"message": "slow down"})
        self.in_flight += 1
        await self.time.sleep(0.005)
        self.in_flight -= 1
        self.answered += 1
        return answer(self, request)

    def factory(self) -> ClientFactory:
        transport = httpx.MockTransport(self.handler)
        return lambda: client(transport, self.time, max_attempts=8)


def test_a_limit_that_drops_mid_run_across_windows_costs_few_refusals(
    tmp_path: Path, limiters: list[Limiter], time_: VirtualTime, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pipeline.catalog_paths

    monkeypatch.setattr(pipeline.catalog_paths, "WINDOW_BYTES", 1)
    body = "".join(f'msgid "Message number {i}"\nmsgstr ""\n\n' for i in range(300))
    settings = project(tmp_path, langs=("de", "pl"), body=body)
    settings = settings._replace(context="none", service=replace(settings.service, concurrency=8, max_attempts=8))
    service = Dropping(time_)
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK, [i.reason for i in report.issues][:3]
    assert report.totals.segments_translated == 600
    assert report.totals.billed_characters == service.billed
    assert len(limiters) == 1 and limiters[0].controller.in_flight == 0
    assert service.refusals < 40, service.refusals


def test_sigint_during_a_long_retry_after_stops_sending_and_saves(
    tmp_path: Path, limiters: list[Limiter], time_: VirtualTime, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import signal

    import pipeline.catalog_paths

    monkeypatch.setattr(pipeline.catalog_paths, "WINDOW_BYTES", 1)
    settings = project(tmp_path, langs=("de", "pl"), body=BODY)
    # One request at a time: the second is refused, the signal comes while it waits its Retry-After.
    settings = settings._replace(context="none", service=replace(settings.service, concurrency=1, max_attempts=5))
    calls: list[str] = []
    answered: list[str] = []
    refused: list[list[str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path != "/v2/translate":
            return not_translate(request)
        body = json.loads(request.content)
        if not calls:
            calls.append("answered")
            answered.extend(body["text"])
            return httpx.Response(
                200,
                json={"translations": [{"text": f"[X] {t}", "detected_source_language": "EN"} for t in body["text"]]},
            )
        calls.append("refused" if len(calls) == 1 else "sent after the signal")
        refused.append(body["text"])
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)  # while this request's 30 s Retry-After is ahead of it
        return httpx.Response(429, headers={"Retry-After": "30"}, json={"message": "slow down"})

    transport = httpx.MockTransport(handler)
    report = run(settings, Factory(lambda: client(transport, time_, max_attempts=5)))
    assert report.exit_code == ExitCode.INTERRUPTED and report.stopped is not None
    # A lone 429 is no limit: it pauses no other request, and the one let go as the signal came may
    # still go (its ticket was handed over in the same turn of the event loop); none after it, and
    # the refused request is not sent again.
    assert calls[:2] == ["answered", "refused"] and len(calls) <= 3
    assert refused[0] not in refused[1:]
    assert report.totals.segments_translated == len(answered) > 0  # what was answered is written
    assert all(limiter.controller.in_flight == 0 for limiter in limiters)
    # pl, the second window (read while the first one's requests were answered), is left for the next run.
    (pl,) = [c for c in report.catalogs if c.target_lang == "PL"]
    assert not pl.written and pl.counters.segments_translated == 0
    assert report.remaining is not None and report.remaining.segments > 0


def test_max_attempts_bounds_5xx_and_transport_errors_and_a_paced_429_takes_none(
    tmp_path: Path, limiters: list[Limiter], time_: VirtualTime
) -> None:
    # [service] max_attempts: "per request, for 5xx / transport errors"; the run paces 429s itself.
    settings = project(tmp_path, langs=("de",), body='msgid "One text"\nmsgstr ""\n')
    settings = settings._replace(context="none", service=replace(settings.service, concurrency=1, max_attempts=3))
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        if request.url.path != "/v2/translate":
            return not_translate(request)
        calls += 1
        if calls % 3 == 0:
            return httpx.Response(429, headers={"Retry-After": "0"}, json={"message": "slow down"})
        return httpx.Response(503, headers={"Retry-After": "0"}, json={"message": "busy"})

    transport = httpx.MockTransport(handler)
    report = run(settings, Factory(lambda: client(transport, time_, max_attempts=3)))
    assert report.exit_code == ExitCode.PARTIAL
    assert calls == 4  # 503, 503, 429 (waited out, no attempt taken), 503: the third failed attempt
    assert report.totals.segments_failed == 1


class Storm:
    """Refuses every request its first ``refusals`` sends (429, Retry-After 1), and a seeded share of the
    others at random; answers and bills the rest."""

    def __init__(self, time_: VirtualTime, refusals: int, share: float, seed: int) -> None:
        self.time, self.refusals, self.share = time_, refusals, share
        self.chance = random.Random(seed)
        self.sends: Counter[bytes] = Counter()
        self.billed = self.refused = 0

    async def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path != "/v2/translate":
            return not_translate(request)
        await self.time.sleep(0.1)
        self.sends[request.content] += 1
        if self.sends[request.content] <= self.refusals or self.chance.random() < self.share:
            self.refused += 1
            return httpx.Response(429, headers={"Retry-After": "1"}, json={"message": "slow down"})
        return answer(self, request)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_storm_of_429s_ends_with_no_segment_failed_and_nothing_billed_twice(
    tmp_path: Path, limiters: list[Limiter], time_: VirtualTime, seed: int
) -> None:
    # Each request is refused more often than max_attempts allows sends, and 30 % of the others at
    # random: while answers keep coming, every refused request waits its Retry-After and goes again.
    settings = project(tmp_path, langs=("de", "pl"), body=BODY)
    settings = settings._replace(context="none", service=replace(settings.service, concurrency=4, max_attempts=3))
    service = Storm(time_, refusals=4, share=0.3, seed=seed)
    report = run(settings, Factory(lambda: client(httpx.MockTransport(service.handler), time_, max_attempts=3)))
    assert report.exit_code == ExitCode.OK, report.stopped
    assert report.totals.segments_failed == 0
    assert report.totals.segments_translated == 240
    assert service.refused > 4 * report.totals.requests
    assert report.totals.billed_characters == service.billed  # each answered request billed once, counted once
    assert all(limiter.controller.in_flight == 0 for limiter in limiters)
