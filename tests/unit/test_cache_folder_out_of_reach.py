"""A cache folder this user may not look into: a run goes on without it, never a traceback.

``sudo -u deploy pipeline translate`` keeps ``HOME=/root`` on many systems, and a CI job may run as a
user the cache volume does not belong to: then asking whether a file exists under the cache folder
fails with EACCES, which ``Path.exists()`` and ``Path.is_dir()`` raise (they answer False only for a
missing path). Root may look everywhere, so the tests make ``os.stat`` refuse as the kernel would.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from pipeline.cache.local import created
from pipeline.cli import main
from pipeline.run.provenance import Provenance

CATALOG = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\n'
    'msgid "Open the file"\nmsgstr ""\n'
)


def out_of_reach(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Every ``stat`` of a path inside ``folder`` fails as in a folder whose parent this user cannot search."""
    real = os.stat

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if isinstance(path, str | bytes | os.PathLike):
            inside = Path(os.fsdecode(path)).absolute()
            if inside != folder and inside.is_relative_to(folder):
                raise PermissionError(errno.EACCES, "Permission denied", os.fsdecode(path))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", stat)


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "de").mkdir(parents=True)
    (root / "de" / "app.po").write_text(CATALOG, encoding="utf-8")
    (root / "pipeline.toml").write_text('source_lang = "en"\n[service]\nurl = "embedded"\n', encoding="utf-8")
    return root


def test_a_run_whose_cache_folder_cannot_be_looked_into_translates_without_a_traceback(
    tmp_path: Path, user_cache_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    out_of_reach(monkeypatch, user_cache_home)
    code = main(["translate", "--config", str(root / "pipeline.toml")])
    output = capsys.readouterr()
    assert code == 1, output.err  # the report, kept in the cache folder, could not be written: said once
    assert "error: cannot write the report in" in output.err
    assert '#, fuzzy\nmsgid "Open the file"\nmsgstr "Öpen' in (root / "de" / "app.po").read_text(encoding="utf-8")


def test_a_dry_run_whose_cache_folder_cannot_be_looked_into_says_what_it_would_send(
    tmp_path: Path, user_cache_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    out_of_reach(monkeypatch, user_cache_home)
    code = main(["translate", "--dry-run", "--config", str(root / "pipeline.toml")])
    output = capsys.readouterr()
    assert "failed while translating" not in output.err
    assert "would send 1 segments" in output.out
    assert code == 1, output.err  # as a run: its report could not be written


def test_a_cache_folder_that_cannot_be_looked_into_may_hold_a_cache_and_no_earlier_run_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    out_of_reach(monkeypatch, tmp_path)
    assert created(folder)  # opening it says why it cannot be used (`pipeline cache stats`: exit 1, not "0 entries")
    assert not Provenance(folder)._legacy


def test_a_cache_folder_that_cannot_be_made_is_said_once_with_what_moves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # $XDG_CACHE_HOME under a file: the locks, the translation cache and the run state each warned about
    # the same folder, and none said how to use another one.
    root = project(tmp_path)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))
    code = main(["translate", "--config", str(root / "pipeline.toml"), "--report-dir", str(tmp_path / "report")])
    err = capsys.readouterr().err
    assert code == 0, err
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1, err
    [warning] = warnings
    assert str(blocker / "cache" / "pipeline") in warning and "Not a directory" in warning
    assert "[cache] dir" in warning and "--cache-dir" in warning and "XDG_CACHE_HOME" in warning
    assert '#, fuzzy\nmsgid "Open the file"\nmsgstr "Öpen' in (root / "de" / "app.po").read_text(encoding="utf-8")


def test_a_refresh_says_an_unusable_cache_folder_once_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The merge locks catalogs and saves its state there as well: it warned about the locks and the state.
    root = project(tmp_path)
    (root / "messages.pot").write_text('msgid "Open the file"\nmsgstr ""\n\nmsgid "New"\nmsgstr ""\n', encoding="utf-8")
    config = root / "pipeline.toml"
    config.write_text(config.read_text(encoding="utf-8") + '[refresh]\ntemplate = "messages.pot"\n', encoding="utf-8")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))
    code = main(["refresh", "--config", str(config), "--report-dir", str(tmp_path / "report")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert [line for line in err.splitlines() if "warning" in line] == [
        line for line in err.splitlines() if "cannot use the cache folder" in line
    ]
    assert err.count("warning") == 1, err
