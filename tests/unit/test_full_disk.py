"""A full disk (faked with ENOSPC) under the report or the cache folder: a clear error, catalogs stay written."""

from __future__ import annotations

import errno
import json
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


def _written_on_a_full_disk(path: Path, data: object, expected: bytes | None = None) -> OSError:
    """What the catalog writer's worker gives back when every write meets a full disk."""
    return OSError(errno.ENOSPC, "No space left on device")


def test_catalogs_not_written_on_a_full_disk_are_not_counted_as_translated_and_a_rerun_pays_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.files import writer

    root = copy_sample_project(tmp_path, "embedded")
    before = (root / CATALOG).read_bytes()
    config = ["translate", "--config", str(root / "pipeline.toml")]
    with monkeypatch.context() as patch:
        patch.setattr(writer, "_written", _written_on_a_full_disk)
        assert main(config) == 1
    out = capsys.readouterr().out
    assert (root / CATALOG).read_bytes() == before
    report = json.loads((root / "report" / "report.json").read_text(encoding="utf-8"))
    totals = report["totals"]
    assert totals["segments_translated"] == 0 and totals["billed_characters"] > 0
    assert totals["segments_not_written"] > 0 and report["translations_cached"] is True
    assert out.startswith("0 translated, 0 from cache, 0 copied,")
    assert f"; {totals['segments_not_written']} translated but not written (cached: a run again pays nothing" in out
    md = (root / "report" / "report.md").read_text(encoding="utf-8")
    assert f"{totals['segments_not_written']} segments were translated but not written" in md

    assert main(config) == 0  # the disk has room again
    again = json.loads((root / "report" / "report.json").read_text(encoding="utf-8"))["totals"]
    assert again["billed_characters"] == 0 and again["segments_not_written"] == 0
    assert again["segments_from_cache"] == totals["segments_not_written"]
    assert (root / CATALOG).read_bytes() != before


def test_translations_neither_written_nor_cached_are_said_to_cost_a_run_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.files import writer

    root = copy_sample_project(tmp_path, "embedded")
    monkeypatch.setattr(writer, "_written", _written_on_a_full_disk)
    assert main(["translate", "--no-cache", "--config", str(root / "pipeline.toml")]) == 1
    out = capsys.readouterr().out
    report = json.loads((root / "report" / "report.json").read_text(encoding="utf-8"))
    assert report["translations_cached"] is False
    n = report["totals"]["segments_not_written"]
    assert n > 0 and f"; {n} translated but not written (not cached either: a run again pays for them)" in out
