"""A full disk (faked with ENOSPC) under the report or the cache folder: a clear error, catalogs stay written."""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.files.atomic import atomic_write
from pipeline.run import report as run_report
from tests.sample_project import copy_sample_project

CATALOG = "sample_locales/de/LC_MESSAGES/messages.po"


def _full(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("command", ["translate", "refresh"])
def test_a_report_that_cannot_be_written_is_a_clear_error_and_the_catalogs_stay_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    root = copy_sample_project(tmp_path, "embedded")
    before = (root / CATALOG).read_bytes()
    monkeypatch.setattr(run_report, "write_reports", _full)
    argv = [command, "--config", str(root / "pipeline.toml")]
    if command == "refresh":
        argv += ["--template", str(root / "sample_locales" / "messages.pot")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "cannot write the report in" in err and "No space left on device" in err
    assert (root / CATALOG).read_bytes() != before  # translated and written before the report failed


def test_a_write_that_fills_the_disk_leaves_the_old_file_whole_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "de.po"
    path.write_bytes(b"old")
    monkeypatch.setattr(os, "fsync", _full)  # the os module atomic writes with
    with pytest.raises(OSError, match="No space left"):
        atomic_write(path, b"new")
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["de.po"]


def test_a_cache_on_a_full_disk_is_a_warning_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.cache import local
    from tests.run_fakes import FakeService, project, run

    def full(self: local.LocalStore, items: Mapping[str, str]) -> None:
        raise local.LocalStoreError("database or disk is full")

    monkeypatch.setattr(local.LocalStore, "set_many", full)
    settings = project(tmp_path)
    report = run(settings, FakeService())
    assert report.exit_code == 0, report.issues
    [warning] = [i for i in report.issues if "translation cache" in i.reason]
    assert warning.severity == "warning" and "database or disk is full" in warning.reason
    assert warning.catalog == str(settings.cache_dir)
    assert "[DE] Hello" in (tmp_path / "locale" / "de" / "LC_MESSAGES" / "app.po").read_text(encoding="utf-8")
