"""Whatever goes wrong after translations were verified, ``pipeline translate`` writes them, saves its state
and report, and ends with a clear error: never a traceback that throws away what was paid for.

Through the whole command (``main(["translate"])``), only the service replaced: 1,050 texts go out in
21 requests of 50, one at a time, and the 21st gets a hostile answer or fails in the transport.
Before, a 50,000-deep JSON answer or a billed figure of ``Infinity`` ended the run in a traceback
with 0 entries written, no report and no run state, although 1,000 were verified and cached.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline import connect
from pipeline.catalogs import read_catalog
from pipeline.cli import main
from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from tests.run_fakes import FakeService

TEXTS = 1050
HEADER = 'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'


class Failing(FakeService):
    """The fake service, its 21st translate request answered by ``hostile`` (bytes, or an exception raised)."""

    def __init__(self, hostile: bytes | Exception) -> None:
        super().__init__(languages=("de",))
        self.hostile = hostile
        self.translate_calls = 0

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/translate":
            self.translate_calls += 1
            if self.translate_calls == 21:
                if isinstance(self.hostile, Exception):
                    raise self.hostile
                return httpx.Response(200, content=self.hostile, headers={"Content-Type": "application/json"})
        return super().handler(request)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "locale").mkdir(parents=True)
    entries = "".join(f'\nmsgid "Sentence number {n}"\nmsgstr ""\n' for n in range(TEXTS))
    (root / "locale" / "de.po").write_text(HEADER + entries, encoding="utf-8")
    (root / "pipeline.toml").write_text(
        'catalogs = ["locale/*.po"]\n[service]\nurl = "http://fake.invalid"\nconcurrency = 1\nmax_attempts = 1\n'
        '[cache]\ndir = ".cache"\n[report]\ndir = "report"\n'
    )
    monkeypatch.chdir(root)
    monkeypatch.setenv("PIPELINE_AUTH_KEY", "secret-key")
    for name in ("PIPELINE_SERVICE_URL", "PIPELINE_CACHE_URL"):
        monkeypatch.delenv(name, raising=False)
    return root


def serve(monkeypatch: pytest.MonkeyPatch, service: FakeService) -> None:
    """The run's client talks to ``service`` (what open_client would build, with its transport)."""
    transport = httpx.MockTransport(service.handler)
    monkeypatch.setattr(
        connect,
        "open_client",
        lambda service, log: AsyncClient(
            "http://fake.invalid", "secret-key", transport=transport, retry=RetryPolicy(max_attempts=1)
        ),
    )


def translated(root: Path) -> int:
    return sum(1 for unit in read_catalog(root / "locale" / "de.po").units if unit.targets[0])


def report(root: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((root / "report" / "report.json").read_text(encoding="utf-8"))
    return result


@pytest.mark.parametrize(
    "hostile",
    [
        b"[" * 50_000 + b"]" * 50_000,
        b'{"translations": [], "billed_characters": 1e400}',  # fewer translations than texts, and no count
        b'{"translations": [{"text": "\\ud800"}], "billed_characters": Infinity}',
    ],
    ids=["50,000-deep array", "1e400 billed", "lone surrogate and Infinity"],
)
def test_a_hostile_answer_after_1000_verified_translations_keeps_them_and_is_reported(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], hostile: bytes
) -> None:
    service = Failing(hostile)
    serve(monkeypatch, service)
    assert main(["translate", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "unexpected answer to POST /v2/translate" in err
    assert translated(project) == 1000 == report(project)["totals"]["segments_translated"]
    assert report(project)["totals"]["segments_failed"] == 50
    assert (project / ".cache" / "state.json").exists()
    again = Failing(b"")
    again.hostile = RuntimeError("not reached")
    serve(monkeypatch, again)
    assert main(["translate", "--quiet"]) == 0  # only the 50 refused are asked again
    assert again.translate_calls == 1 and translated(project) == TEXTS


def test_an_unexpected_failure_after_1000_verified_translations_writes_them_and_saves_state_and_report(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    service = Failing(RuntimeError("the transport broke in a way nobody planned"))
    serve(monkeypatch, service)
    assert main(["translate", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "stopped early: the run failed while translating: RuntimeError: the transport broke" in err
    assert translated(project) == 1000 == report(project)["totals"]["segments_translated"]
    assert report(project)["stopped"].startswith("the run failed while translating: RuntimeError")
    assert (project / ".cache" / "state.json").exists()
    again = FakeService(languages=("de",))
    serve(monkeypatch, again)
    assert main(["translate", "--quiet"]) == 0
    assert [len(r["text"]) for r in again.requests] == [50] and translated(project) == TEXTS
