"""The send stage under a service that refuses requests beyond an in-flight limit it does not announce."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import httpx
from test_run import project, run

from pipeline.client import AsyncClient, RetryPolicy
from pipeline.errors import ExitCode

LIMIT, CEILING, RETRY_AFTER = 2, 8, 0.05
BODY = "".join(f'msgid "Message number {i}"\nmsgstr ""\n\n' for i in range(400))  # 8 requests per language


class Limited:
    """A fake service answering 429 (Retry-After) to a request that finds LIMIT others in flight."""

    def __init__(self) -> None:
        self.in_flight = self.peak = self.answered = 0
        self.refusals = 0

    async def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/languages":
            return httpx.Response(
                200,
                json=[
                    {
                        "lang": c,
                        "name": c,
                        "usable_as_source": True,
                        "usable_as_target": True,
                        "status": "stable",
                        "features": {},
                    }
                    for c in ("de", "pl")
                ],
            )
        if request.url.path != "/v2/translate":  # the usage check: a service without it goes on unchecked
            return httpx.Response(404, json={"message": "not found"})
        if self.in_flight >= LIMIT:
            await asyncio.sleep(0.01)
            self.refusals += 1
            return httpx.Response(429, headers={"Retry-After": str(RETRY_AFTER)}, json={"message": "slow down"})
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        self.answered += 1
        body = json.loads(request.content)
        return httpx.Response(
            200, json={"translations": [{"text": f"[X] {t}", "detected_source_language": "EN"} for t in body["text"]]}
        )

    def factory(self):
        transport = httpx.MockTransport(self.handler)
        return lambda: AsyncClient("http://fake.invalid", "k", transport=transport, retry=RetryPolicy(max_attempts=5))


def test_the_run_finds_the_limit_backs_off_and_translates_everything(tmp_path):
    settings = project(tmp_path, langs=("de", "pl"), body=BODY)
    settings = replace(settings, context="none", service=replace(settings.service, concurrency=CEILING))
    service = Limited()
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK, report.issues
    assert report.totals.segments_translated == 800 and report.totals.requests == 16 == service.answered
    assert service.peak <= LIMIT
    # One overshoot while it grows, then it keeps to what the service takes: no storm of 429s.
    assert 0 < service.refusals <= 6  # a fixed 8 in flight draws 20 or more


def test_requests_in_flight_never_exceed_the_ceiling(tmp_path):
    settings = project(tmp_path, langs=("de", "pl"), body=BODY)
    settings = replace(settings, context="none", service=replace(settings.service, concurrency=3))
    seen = 0
    in_flight = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal seen, in_flight
        if request.url.path != "/v2/translate":
            return await Limited().handler(request)
        in_flight += 1
        seen = max(seen, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        body = json.loads(request.content)
        return httpx.Response(
            200, json={"translations": [{"text": f"[X] {t}", "detected_source_language": "EN"} for t in body["text"]]}
        )

    class Unlimited:
        def factory(self):
            transport = httpx.MockTransport(handler)
            return lambda: AsyncClient("http://fake.invalid", "k", transport=transport)

    assert run(settings, Unlimited()).exit_code == ExitCode.OK
    assert seen == 3  # grew to the ceiling, never past it
