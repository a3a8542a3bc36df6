"""SIGINT/SIGTERM in the middle of a run (sent to this process by the fake service): stop, write, save, 130/143."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import httpx
import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.connect import ClientFactory
from pipeline.errors import ExitCode
from pipeline.run.records import StopReason
from pipeline.run.send import interruption
from pipeline.run.send.interruption import Interruption
from tests.run_fakes import FakeService, project, run

LANGS = ("de", "pl", "ru")


#: Seconds a fake waits for what the run must do: a safety net, the run takes milliseconds.
SAFETY_SECONDS = 60.0


class Handled:
    """The signals the run's handler took (``Interruption._signalled``), for a fake to wait on."""

    def __init__(self) -> None:
        self.count = 0
        self._waiting: list[tuple[int, asyncio.Future[None]]] = []

    def took(self) -> None:
        self.count += 1
        for number, waiter in self._waiting:
            if self.count >= number and not waiter.done():
                waiter.set_result(None)

    async def wait(self, number: int) -> None:
        """Until the handler has taken ``number`` signals."""
        if self.count < number:
            waiter = asyncio.get_running_loop().create_future()
            self._waiting.append((number, waiter))
            await asyncio.wait_for(waiter, SAFETY_SECONDS)


@pytest.fixture
def handled(monkeypatch: pytest.MonkeyPatch) -> Handled:
    """What the run's signal handler took; the grace period outlasts any test, so only a signal cancels."""
    record = Handled()
    real = Interruption._signalled

    def signalled(self: Interruption, signum: int) -> None:
        real(self, signum)
        record.took()

    monkeypatch.setattr(Interruption, "_signalled", signalled)
    monkeypatch.setattr(interruption, "GRACE_SECONDS", 3600.0)
    return record


class SignallingService(FakeService):
    """Sends this process ``signals`` while the first translate request is in flight, then answers it."""

    def __init__(self, signals: tuple[int, ...], handled: Handled, hang: bool = False) -> None:
        super().__init__()
        self.signals, self.handled, self.hang = signals, handled, hang
        self.cancelled = False

    async def async_handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/translate" and not self.requests:
            for number, signum in enumerate(self.signals, 1):
                os.kill(os.getpid(), signum)
                await self.handled.wait(number)  # the loop turned it into its handler's call
            if self.hang:
                try:
                    await asyncio.wait_for(asyncio.Event().wait(), SAFETY_SECONDS)  # in flight until cancelled
                except asyncio.CancelledError:
                    self.cancelled = True
                    raise
        return self.handler(request)

    def factory(self) -> ClientFactory:
        transport = httpx.MockTransport(self.async_handler)
        return lambda: AsyncClient(
            "http://fake.invalid", "secret-key", transport=transport, retry=RetryPolicy(max_attempts=1)
        )


def _translated(path: Path) -> int:
    return sum(1 for u in read_catalog(path).units if u.state is UnitState.FUZZY and u.targets[0].startswith("["))


@pytest.mark.parametrize(
    ("signum", "code", "reason"),
    [
        (signal.SIGINT, ExitCode.INTERRUPTED, StopReason.INTERRUPTED),
        (signal.SIGTERM, ExitCode.TERMINATED, StopReason.TERMINATED),
    ],
)
def test_a_signal_stops_sending_lets_the_request_in_flight_finish_and_writes_it(
    tmp_path: Path, handled: Handled, signum: signal.Signals, code: int, reason: StopReason
) -> None:
    settings = project(tmp_path, langs=LANGS)
    service = SignallingService((signum,), handled)
    report = run(settings, service)
    assert report.stopped is not None
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


def test_a_second_signal_cancels_the_request_in_flight(tmp_path: Path, handled: Handled) -> None:
    settings = project(tmp_path, langs=LANGS)
    service = SignallingService((signal.SIGINT, signal.SIGINT), handled, hang=True)
    report = run(settings, service)
    assert service.cancelled  # by the second signal: the grace period is an hour here
    assert report.exit_code == ExitCode.INTERRUPTED
    assert report.remaining is not None and report.totals.segments_translated == 0
    for lang in LANGS:  # only what needed no translation ("%(name)s") was written
        assert _translated(tmp_path / "locale" / lang / "LC_MESSAGES" / "app.po") == 0
    assert str(report.stopped).startswith("interrupted by SIGINT")


class _InterruptedImport:
    """An import finder that raises what a Ctrl-C raises when ``name`` is imported."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        if fullname == self.name:
            raise KeyboardInterrupt


def test_a_ctrl_c_while_the_command_line_loads_ends_quietly_with_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # K1 saw a traceback for a Ctrl-C in the first ~60 ms: the console script imported pipeline.cli
    # (and its settings modules) before any of our code could catch it.
    from pipeline.__main__ import main

    monkeypatch.delitem(sys.modules, "pipeline.cli", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_InterruptedImport("pipeline.cli"), *sys.meta_path])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 130
    assert capsys.readouterr().err == "pipeline: interrupted\n"


def test_the_console_script_starts_from_the_entry_point_that_catches_it() -> None:
    import tomllib

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    assert tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["scripts"] == {
        "pipeline": "pipeline.__main__:main"
    }
