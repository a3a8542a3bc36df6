"""Budgets and quota against a real `pipeline serve`: stop, save, exit 3, and a rerun that pays only for the rest."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.config import load_settings
from pipeline.errors import ExitCode
from pipeline.protocol import TEST_FAULT_HEADER
from pipeline.run.orchestrate import RunOptions, run_translate
from tests.integration.conftest import LiveService
from tests.sample_project import SAMPLES, copy_sample_project

pytestmark = pytest.mark.integration


class FaultTransport(httpx.AsyncBaseTransport):
    """Adds an ``X-Test-Fault`` header to every translate request."""

    def __init__(self, fault: str) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._fault = fault

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/translate":
            request.headers[TEST_FAULT_HEADER] = self._fault
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def client_factory(live_service: LiveService, fault: str | None = None) -> Callable[[], AsyncClient]:
    def make() -> AsyncClient:
        transport = FaultTransport(fault) if fault else None
        return AsyncClient(
            live_service.url, live_service.auth_key, transport=transport, retry=RetryPolicy(max_attempts=1)
        )

    return make


def catalogs(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted((root / "sample_locales").glob("*/LC_MESSAGES/*.po"))}


def reference_billing(live_service: LiveService, tmp_path: Path) -> int:
    root = copy_sample_project(tmp_path / "reference", live_service.url)
    report = run_translate(
        load_settings(root / "pipeline.toml"),
        RunOptions(),
        log=lambda m: None,
        client_factory=client_factory(live_service),
    )
    assert report.exit_code == ExitCode.OK, report.issues
    return report.totals.billed_characters


def test_a_456_from_the_service_stops_saves_and_the_rerun_pays_only_for_the_rest(
    live_service: LiveService, tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    everything = reference_billing(live_service, tmp_path)
    root = copy_sample_project(tmp_path, live_service.url)
    settings = load_settings(root / "pipeline.toml")
    fault = f"quota_after={everything // 2};id=budget-{secrets.token_hex(4)}"
    first = run_translate(
        settings, RunOptions(), log=lambda m: None, client_factory=client_factory(live_service, fault)
    )
    assert first.stopped is not None
    assert first.exit_code == ExitCode.QUOTA and first.stopped.message.startswith("quota exceeded")
    assert 0 < first.totals.billed_characters <= everything // 2
    assert first.remaining is not None
    assert first.remaining.segments > 0
    for path in catalogs(root):
        msgfmt_check(path)
    second = run_translate(settings, RunOptions(), log=lambda m: None, client_factory=client_factory(live_service))
    assert second.exit_code == ExitCode.OK, second.issues
    assert first.totals.billed_characters + second.totals.billed_characters == everything


def test_cli_max_characters_stops_with_exit_3_and_a_rerun_finishes(
    live_service: LiveService, tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    everything = reference_billing(live_service, tmp_path)
    root = copy_sample_project(tmp_path, live_service.url)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    env["PIPELINE_AUTH_KEY"] = live_service.auth_key
    argv = [sys.executable, "-m", "pipeline", "translate", "--config", str(root / "pipeline.toml")]
    budget = everything // 3
    done = subprocess.run(
        [*argv, "--max-characters", str(budget)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 3, done.stderr
    assert "stopped early: budget of" in done.stderr and "left for the next run:" in done.stderr
    report = json.loads((root / "report" / "report.json").read_text())
    assert report["budget"] == budget and report["stopped"].startswith("budget of")
    assert 0 < report["totals"]["billed_characters"] <= budget and report["remaining"]["segments"] > 0
    assert "**Stopped early:** budget of" in (root / "report" / "report.md").read_text()
    for path in catalogs(root):
        msgfmt_check(path)
    again = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 0, again.stderr
    second = json.loads((root / "report" / "report.json").read_text())
    assert report["totals"]["billed_characters"] + second["totals"]["billed_characters"] == everything
    assert len(catalogs(root)) == len(list(SAMPLES.glob("*/LC_MESSAGES/*.po")))
