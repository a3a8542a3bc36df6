"""When the reader of the command's output leaves (``pipeline usage --json | head -c 30``), the process ends
with status 141 (128 + SIGPIPE, as a shell reports a tool SIGPIPE ended) and writes no traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sample_project import SAMPLES, expected_segments


def _with_reader_gone(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the command writes a byte
    try:
        return subprocess.run(
            [sys.executable, "-m", "pipeline", *args], cwd=cwd, stdout=write_end, stderr=subprocess.PIPE, text=True
        )
    finally:
        os.close(write_end)


# --help and --version are argparse's: it ignores a failed write of its messages, and exits 0.
@pytest.mark.parametrize("args", [["translate", "--dry-run", "--service-url", "embedded"], ["cache", "stats"]])
def test_output_whose_reader_left_ends_the_command_with_141_and_no_traceback(tmp_path: Path, args: list[str]) -> None:
    shutil.copytree(SAMPLES, tmp_path / "sample_locales")
    (tmp_path / "pipeline.toml").write_text('catalogs = ["sample_locales/*/LC_MESSAGES/*.po"]\n', encoding="utf-8")
    done = _with_reader_gone(args, tmp_path)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr


def test_a_run_whose_stderr_reader_left_translates_everything_once_and_ends_with_141(tmp_path: Path) -> None:
    shutil.copytree(SAMPLES, tmp_path / "sample_locales")
    (tmp_path / "pipeline.toml").write_text('catalogs = ["sample_locales/*/LC_MESSAGES/*.po"]\n', encoding="utf-8")
    args = ["translate", "--service-url", "embedded", "--cache-dir", "cache", "--report-dir", "report"]
    env = {**os.environ, "PIPELINE_AUTH_KEY": "reader-gone-key:fx"}
    read_end, write_end = os.pipe()
    os.close(read_end)  # ``2>&1 | head -c 1``: every progress line fails to be written
    try:
        first = subprocess.run(
            [sys.executable, "-m", "pipeline", *args], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=write_end
        )
    finally:
        os.close(write_end)
    totals = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))["totals"]
    assert totals["segments_translated"] + totals["segments_copied"] == expected_segments(SAMPLES)  # all of it
    again = subprocess.run(
        [sys.executable, "-m", "pipeline", *args], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert first.returncode == 141
    assert again.returncode == 0, again.stderr
    assert "0 translated, 0 from cache" in again.stdout and "0 characters billed" in again.stdout, again.stdout


def _run_closed(closed: int, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command started with ``closed`` (1 or 2) closed, ``pipeline translate >&-`` (a cron line, a daemon's
    child); the other of stdout and stderr is read."""

    def close() -> None:
        os.close(closed)

    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args],
        cwd=cwd,
        stdout=subprocess.PIPE if closed == 2 else None,
        stderr=subprocess.PIPE if closed == 1 else None,
        text=True,
        preexec_fn=close,
    )


def test_a_run_started_without_stdout_translates_and_exits_0_without_a_traceback(tmp_path: Path) -> None:
    shutil.copytree(SAMPLES, tmp_path / "sample_locales")
    (tmp_path / "pipeline.toml").write_text('catalogs = ["sample_locales/*/LC_MESSAGES/*.po"]\n', encoding="utf-8")
    done = _run_closed(
        1, ["translate", "--service-url", "embedded", "--cache-dir", "cache", "--report-dir", "report"], tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    totals = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))["totals"]
    assert totals["segments_translated"] + totals["segments_copied"] == expected_segments(SAMPLES)


def test_a_table_printed_without_stdout_is_dropped_without_a_traceback(tmp_path: Path) -> None:
    done = _run_closed(1, ["usage", "--service-url", "embedded"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_messages_of_a_command_started_without_stderr_stay_out_of_its_output(tmp_path: Path) -> None:
    shutil.copytree(SAMPLES, tmp_path / "sample_locales")
    (tmp_path / "pipeline.toml").write_text('catalogs = ["sample_locales/*/LC_MESSAGES/*.po"]\n', encoding="utf-8")
    done = _run_closed(2, ["translate", "--dry-run", "--service-url", "embedded"], tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith("found 8 catalog(s):\n"), (
        done.stdout
    )  # "pipeline: using the embedded ..." went nowhere
