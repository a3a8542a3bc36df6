"""SIGINT/SIGTERM in the middle of a run (sent to this process by the fake service): stop, write, save, 130/143."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import httpx
import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.errors import ExitCode
from pipeline.run.records import StopReason
from tests.unit.test_run import FakeService, project, run

LANGS = ("de", "pl", "ru")


class SignallingService(FakeService):
    """Sends this process ``signals`` while the first translate request is in flight, then answers it."""

    def __init__(self, signals: tuple[int, ...], hang: bool = False) -> None:
        super().__init__()
        self.signals, self.hang = signals, hang

    async def async_handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/translate" and not self.requests:
            for signum in self.signals:
                os.kill(os.getpid(), signum)
                await asyncio.sleep(0.05)  # the loop turns the signal into its handler's call
            if self.hang:
                await asyncio.sleep(60)  # in flight until cancelled
        return self.handler(request)

    def factory(self):
        transport = httpx.MockTransport(self.async_handler)
        return lambda: AsyncClient(
            "http://fake.invalid", "secret-key", transport=transport, retry=RetryPolicy(max_attempts=1)
        )


def _translated(path) -> int:
    return sum(1 for u in read_catalog(path).units if u.state is UnitState.FUZZY and u.targets[0].startswith("["))


@pytest.mark.parametrize(
    ("signum", "code", "reason"),
    [
        (signal.SIGINT, ExitCode.INTERRUPTED, StopReason.INTERRUPTED),
        (signal.SIGTERM, ExitCode.TERMINATED, StopReason.TERMINATED),
    ],
)
def test_a_signal_stops_sending_lets_the_request_in_flight_finish_and_writes_it(tmp_path, signum, code, reason):
    settings = project(tmp_path, langs=LANGS)
    service = SignallingService((signum,))
    report = run(settings, service)
    assert report.exit_code == code and report.stopped.reason is reason
    assert "interrupted by" in str(report.stopped)
    assert len(service.requests) == 1  # nothing sent after the signal
    first = service.requests[0]["target_lang"].lower()
    paths = {lang: tmp_path / "locale" / lang / "LC_MESSAGES" / "app.po" for lang in LANGS}
    assert _translated(paths[first]) > 0  # the answer in flight was kept and written
    assert all(_translated(paths[lang]) == 0 for lang in LANGS if lang != first)
    assert report.remaining is not None and report.remaining.texts > 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handlers given back
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL

    rerun = FakeService()
    again = run(settings, rerun)
    assert again.exit_code == ExitCode.OK, again.issues
    paid = {(first.upper(), text) for text in service.requests[0]["text"]}
    assert paid.isdisjoint((r["target_lang"], t) for r in rerun.requests for t in r["text"])  # not paid again
    assert all(_translated(path) > 0 for path in paths.values())


def test_a_second_signal_cancels_the_request_in_flight(tmp_path):
    settings = project(tmp_path, langs=LANGS)
    service = SignallingService((signal.SIGINT, signal.SIGINT), hang=True)
    started = time.monotonic()
    report = run(settings, service)
    assert time.monotonic() - started < 30  # not the 60 s the request would have taken
    assert report.exit_code == ExitCode.INTERRUPTED
    assert report.remaining is not None and report.totals.segments_translated == 0
    for lang in LANGS:  # only what needed no translation ("%(name)s") was written
        assert _translated(tmp_path / "locale" / lang / "LC_MESSAGES" / "app.po") == 0
    assert str(report.stopped).startswith("interrupted by SIGINT")
