"""``[cache] dir`` and ``[report] dir`` may point at any folder (a cloned repository's pipeline.toml chooses):
a run never replaces or removes a file there that the pipeline did not make.

Before a file of its own (state.json, synced.json, rejections.json, report.json, report.md, the SQLite
files, a lock's note) is replaced or written into, the file there must be ours: a regular file, not a
link, in our format (its first JSON key, or for state.json what it holds: test_our_json_files_by_what_they_hold.py;
the report's heading; only our SQLite tables). Otherwise that
write stops with an error naming the file and the setting, and the file is left as it was.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from pipeline.cache.local import LocalStore, LocalStoreError
from pipeline.cli import main
from pipeline.files.lockfile import state_lock, state_lock_path
from pipeline.files.own import NotOurs, check_ours, json_first
from pipeline.run.journal import STATE_NAME
from pipeline.run.provenance import PROVENANCE_FILE
from tests.run_fakes import FakeService, cache_dir, project, run
from tests.sample_project import copy_sample_project

OTHERS = b'{"window": [800, 600], "theme": "dark"}\n'  # another program's settings


def _sqlite_of_another_program(path: Path) -> bytes:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE users (name TEXT)")
    db.execute("INSERT INTO users VALUES ('ada')")
    db.commit()
    db.close()
    return path.read_bytes()


def test_a_report_folder_holding_another_programs_report_is_left_alone_with_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_sample_project(tmp_path, "embedded")
    (root / "report").mkdir()
    (root / "report" / "report.json").write_bytes(OTHERS)
    assert main(["translate", "--config", str(root / "pipeline.toml")]) == 1
    err = capsys.readouterr().err
    assert (root / "report" / "report.json").read_bytes() == OTHERS
    assert f"{root / 'report' / 'report.json'} is not a file pipeline wrote" in err
    assert "point [report] dir (--report-dir) at a folder of pipeline's own" in err
    assert not (root / "report" / "report.md").exists()  # nothing of the report is written beside it


def test_a_report_md_of_another_program_or_a_link_is_not_replaced(tmp_path: Path) -> None:
    root = copy_sample_project(tmp_path, "embedded")
    report = root / "report"
    report.mkdir()
    (report / "report.md").write_text("# Quarterly report\n")
    assert main(["translate", "--config", str(root / "pipeline.toml")]) == 1
    assert (report / "report.md").read_text() == "# Quarterly report\n"
    (report / "report.md").unlink()
    (tmp_path / "elsewhere.md").write_text("## Translation run\n")
    (report / "report.md").symlink_to(tmp_path / "elsewhere.md")
    assert main(["translate", "--config", str(root / "pipeline.toml")]) == 1
    assert (report / "report.md").is_symlink()


def test_our_own_report_and_an_empty_file_are_replaced(tmp_path: Path) -> None:
    root = copy_sample_project(tmp_path, "embedded")
    (root / "report").mkdir()
    (root / "report" / "report.json").write_bytes(b"")  # a power cut after an unflushed write
    assert main(["translate", "--config", str(root / "pipeline.toml")]) == 0
    first = json.loads((root / "report" / "report.json").read_text())
    assert first["schema"] == 1
    assert main(["translate", "--config", str(root / "pipeline.toml")]) == 0  # ours: replaced


def test_a_cache_folder_holding_another_programs_state_json_is_left_alone(tmp_path: Path) -> None:
    settings = project(tmp_path)
    folder = cache_dir(settings)
    folder.mkdir()
    (folder / STATE_NAME).write_bytes(OTHERS)
    report = run(settings, FakeService())
    assert (folder / STATE_NAME).read_bytes() == OTHERS
    [warning] = [i for i in report.issues if STATE_NAME in i.reason]
    assert "is not a file pipeline wrote" in warning.reason and "[cache] dir" in warning.reason


def test_sqlite_files_of_another_program_get_none_of_our_tables(tmp_path: Path) -> None:
    settings = project(tmp_path)
    folder = cache_dir(settings)
    folder.mkdir()
    before = {name: _sqlite_of_another_program(folder / name) for name in ("translations.sqlite3", PROVENANCE_FILE)}
    report = run(settings, FakeService())
    for name, data in before.items():
        assert (folder / name).read_bytes() == data, name  # no table added, not turned to WAL, not moved
        assert not list(folder.glob(f"{name}.damaged-*"))
    reasons = " ".join(i.reason for i in report.issues)
    assert "translations.sqlite3 is not a file pipeline wrote" in reasons
    with pytest.raises(LocalStoreError, match="not a file pipeline wrote"):
        LocalStore(folder)


def test_our_sqlite_file_analyzed_by_hand_is_still_ours(tmp_path: Path) -> None:
    # ANALYZE (sqlite3's CLI, a database browser) adds SQLite's own sqlite_stat1 table to a file of ours.
    store = LocalStore(tmp_path)
    store.set_many({"k": "v"})
    store.close()
    db = sqlite3.connect(tmp_path / "translations.sqlite3")
    db.execute("ANALYZE")
    db.commit()
    db.close()
    again = LocalStore(tmp_path)
    assert again.get_many(["k"]) == {"k": "v"}
    again.close()


def test_a_lock_file_of_another_program_keeps_its_content(tmp_path: Path) -> None:
    path = state_lock_path(tmp_path)
    path.write_bytes(b"1234\n")  # another program's pid file of that name
    with state_lock(path):
        pass
    assert path.read_bytes() == b"1234\n"


def test_not_ours_names_the_file_and_the_setting(tmp_path: Path) -> None:
    error = NotOurs(tmp_path / "state.json", "not in the format pipeline writes", "[cache] dir")
    assert str(tmp_path / "state.json") in str(error) and "[cache] dir" in str(error)
    assert isinstance(error, OSError) and error.strerror is not None and "[cache] dir" in error.strerror


def test_cache_clear_leaves_a_cache_db_that_is_not_diskcaches(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    LocalStore(folder).close()
    data = _sqlite_of_another_program(folder / "cache.db")
    config = tmp_path / "pipeline.toml"
    config.write_text('[cache]\ndir = "cache"\n')
    main(["cache", "clear", "--config", str(config)])
    assert (folder / "cache.db").read_bytes() == data
    os.unlink(folder / "cache.db")


def test_a_report_a_power_cut_left_as_nul_bytes_is_replaced(tmp_path: Path) -> None:
    # The reports are not flushed before their rename; some file systems (XFS) then keep the new file's size
    # but not its blocks, and it reads as NUL bytes: as empty, nothing to lose, not a reason to fail every run.
    root = copy_sample_project(tmp_path, "embedded")
    (root / "report").mkdir()
    (root / "report" / "report.json").write_bytes(b"\0" * 5000)
    (root / "report" / "report.md").write_bytes(b"\0" * 300)
    assert main(["translate", "--config", str(root / "pipeline.toml")]) == 0
    assert json.loads((root / "report" / "report.json").read_text())["schema"] == 1
    assert (root / "report" / "report.md").read_text().startswith("## Translation")


def test_a_file_that_only_begins_with_nul_bytes_is_not_ours(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(b"\0" * 300 + b"another program's data")  # a binary file of another program's
    with pytest.raises(NotOurs):
        check_ours(path, json_first("schema"), "[report] dir")
    assert path.read_bytes() == b"\0" * 300 + b"another program's data"


def test_a_lock_file_a_power_cut_left_as_nul_bytes_is_ours_again(tmp_path: Path) -> None:
    # A note is written without a flush: after a power cut the file may keep its size and read as NULs.
    # Taken for another program's file, it would never hold a note again (no clean-up after a killed run).
    path = state_lock_path(tmp_path)
    path.write_bytes(b"\0" * 120)
    with state_lock(path):
        note = json.loads(path.read_bytes()[1:])
        assert note["pid"] == os.getpid()
    assert path.read_bytes() == b""


def test_a_sparse_file_too_large_to_be_a_report_is_not_read_through(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    with path.open("wb") as sparse:
        sparse.truncate(1 << 40)  # a terabyte of NULs that takes no disk: never read to its end
    with pytest.raises(NotOurs):
        check_ours(path, json_first("schema"), "[report] dir")
