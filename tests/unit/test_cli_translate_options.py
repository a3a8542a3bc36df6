"""`pipeline translate` options of the run orchestrator: budget, progress output, quiet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.catalogs import read_catalog
from pipeline.cli import main
from pipeline.config import load_settings
from pipeline.errors import ConfigError
from pipeline.placeholders.protect import protect
from tests.sample_project import SAMPLES, copy_sample_project


def test_quiet_prints_nothing_and_pipes_get_plain_progress_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_sample_project(tmp_path / "quiet", "embedded")
    assert main(["translate", "--quiet", "--config", str(root / "pipeline.toml")]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    root = copy_sample_project(tmp_path / "loud", "embedded")
    assert main(["translate", "--config", str(root / "pipeline.toml")]) == 0
    err = capsys.readouterr().err
    assert "pipeline: DE " in err and "characters billed" in err and "\x1b[" not in err


def test_max_characters_zero_stops_before_sending_and_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_sample_project(tmp_path, "embedded")
    before = {p: p.read_bytes() for p in (root / "sample_locales").rglob("*.po")}
    assert main(["translate", "--quiet", "--max-characters", "0", "--config", str(root / "pipeline.toml")]) == 3
    err = capsys.readouterr().err
    assert "stopped early: budget of 0 billed characters reached" in err
    report = json.loads((root / "report" / "report.json").read_text())
    assert report["totals"]["requests"] == 0 and report["remaining"]["segments"] > 0
    for path in before:  # only what needed no service (placeholder-only entries, copied) was written
        for old, new in zip(
            read_catalog(SAMPLES / path.relative_to(root / "sample_locales")).units,
            read_catalog(path).units,
            strict=True,
        ):
            if new.targets != old.targets:
                assert not protect(old.sources[0], old.flags).needs_translation, new


@pytest.mark.parametrize("value", ["-1", "lots"])
def test_a_bad_budget_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["translate", "--max-characters", value])
    assert exc.value.code == 2 and "--max-characters" in capsys.readouterr().err


def test_the_budget_comes_from_the_config(tmp_path: Path) -> None:
    config = tmp_path / "pipeline.toml"
    config.write_text("[translate]\nmax_characters = 1200\n", encoding="utf-8")
    assert load_settings(config).max_characters == 1200
    config.write_text("[translate]\nmax_characters = -5\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="max_characters"):
        load_settings(config)
