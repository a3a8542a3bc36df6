"""`pipeline translate` as a subprocess against `pipeline serve` on 127.0.0.1 (ephemeral port)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.catalogs import read_catalog
from pipeline.placeholders.protect import protect
from tests.integration.conftest import LiveService
from tests.sample_project import SAMPLES, assert_translated_faithfully, copy_sample_project, expected_segments

pytestmark = pytest.mark.integration


def translate(root: Path, env_key: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    if env_key is not None:
        env["PIPELINE_AUTH_KEY"] = env_key
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "translate", "--config", str(root / "pipeline.toml"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_cli_translates_the_sample_project_against_pipeline_serve(
    live_service: LiveService, tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    root = copy_sample_project(tmp_path, live_service.url)
    done = translate(root, live_service.auth_key)
    assert done.returncode == 0, done.stderr
    assert f"using the translation service at {live_service.url}" in done.stderr
    assert live_service.auth_key not in done.stdout + done.stderr
    assert_translated_faithfully(root, msgfmt_check)
    report_text = (root / "report" / "report.json").read_text()
    assert live_service.auth_key not in report_text
    report = json.loads(report_text)
    totals = report["totals"]
    assert totals["segments_translated"] + totals["segments_copied"] == expected_segments(SAMPLES)
    assert totals["segments_failed"] == 0 and totals["requests"] > 0
    assert totals["billed_characters"] == sum(c["billed_characters"] for c in report["catalogs"]) > 0
    de = next(c for c in report["catalogs"] if c["target_lang"] == "DE")
    assert de["path"] == "sample_locales/de/LC_MESSAGES/messages.po" and de["segments_translated"] > 0

    again = translate(root, live_service.auth_key)
    assert again.returncode == 0, again.stderr
    assert json.loads((root / "report" / "report.json").read_text())["totals"]["requests"] == 0


def test_cli_with_a_wrong_key_exits_4_and_writes_no_service_translation(
    live_service: LiveService, tmp_path: Path
) -> None:
    root = copy_sample_project(tmp_path, live_service.url)
    done = translate(root, "not-a-key")
    assert done.returncode == 4, done.stderr
    assert "403" in done.stderr and "not-a-key" not in done.stderr
    for path in SAMPLES.glob("*/LC_MESSAGES/*.po"):
        before = read_catalog(path).units
        after = read_catalog(root / "sample_locales" / path.relative_to(SAMPLES)).units
        for old, new in zip(before, after, strict=True):
            if new.targets != old.targets:  # only what needed no service: placeholder-only entries, copied
                assert not protect(old.sources[0], old.flags).needs_translation, new


def test_cli_without_a_key_for_a_remote_service_exits_2(live_service: LiveService, tmp_path: Path) -> None:
    root = copy_sample_project(tmp_path, live_service.url)
    done = translate(root, None)
    assert done.returncode == 2 and "PIPELINE_AUTH_KEY" in done.stderr
