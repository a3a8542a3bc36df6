"""``pipeline review`` on the command line, up to where it would start serving."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.cli import main
from tests.review_project import review_project


def test_nothing_awaiting_review_says_so_and_serves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pipeline.toml").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["review", "--no-open"]) == 0
    assert capsys.readouterr().out == "pipeline review: nothing awaits review in 0 catalog(s)\n"


def test_a_port_out_of_range_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    review_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["review", "--no-open", "--port", "70000"]) == 2
    assert "--port must be between 0 and 65535" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["review", "translate"])
def test_parsing_a_command_loads_neither_the_review_app_nor_its_server(command: str) -> None:
    probe = (
        f"import sys; from pipeline.cli import build_parser; build_parser({command!r}); "
        "print(sorted(m for m in sys.modules if m.startswith(('pipeline.review', 'starlette', 'uvicorn'))))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
