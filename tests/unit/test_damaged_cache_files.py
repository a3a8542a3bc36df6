"""A cache folder's SQLite file that SQLite cannot read is set aside once, and runs start afresh.

Before, a ``translations.sqlite3`` or ``provenance.sqlite3`` overwritten with something else made
every run warn, keep its translations in memory only and fail to save its state, for ever.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pipeline.cache.local import LocalStore
from pipeline.cache.tiered import TranslationCache
from pipeline.catalogs import UnitState, read_catalog
from pipeline.files.damaged import is_damaged, set_aside
from pipeline.run.provenance import PROVENANCE_FILE, Provenance
from tests.run_fakes import FakeService, cache_dir, project, run

NOT_A_DATABASE = b"these bytes were never SQLite's " * 200
APP = "locale/de/LC_MESSAGES/app.po"


def _aside(folder: Path, name: str) -> list[Path]:
    return sorted(folder.glob(f"{name}.damaged-*"))


def test_a_translation_cache_that_is_not_a_database_is_set_aside_once(tmp_path: Path) -> None:
    (tmp_path / "translations.sqlite3").write_bytes(NOT_A_DATABASE)
    said: list[str] = []
    cache = TranslationCache(tmp_path, log=said.append)
    cache.set_many({"k": "v"})
    cache.close()
    aside = _aside(tmp_path, "translations.sqlite3")
    assert len(aside) == 1
    assert aside[0].read_bytes() == NOT_A_DATABASE  # kept, for whoever wants to look
    assert said == [
        f"warning: the translation cache {tmp_path / 'translations.sqlite3'} was not a database SQLite can read "
        f"(file is not a database); it was moved to {aside[0].name} and a new one started"
    ]
    again: list[str] = []
    assert TranslationCache(tmp_path, log=again.append).get("k") == "v"  # the new file keeps what it got
    assert again == []


def test_a_busy_or_readable_file_is_never_set_aside(tmp_path: Path) -> None:
    assert not is_damaged(sqlite3.OperationalError("database is locked"))
    store = LocalStore(tmp_path)  # a good file: another run set the damaged one aside and made this
    store.set_many({"k": "v"})
    store.close()
    assert set_aside(tmp_path / "translations.sqlite3") is None
    assert LocalStore(tmp_path).get_many(["k"]) == {"k": "v"}
    assert set_aside(tmp_path / "missing.sqlite3") is None


def test_a_provenance_file_that_is_not_a_database_is_set_aside_when_the_run_saves(tmp_path: Path) -> None:
    settings = project(tmp_path)
    folder = cache_dir(settings)
    folder.mkdir()
    (folder / PROVENANCE_FILE).write_bytes(NOT_A_DATABASE)
    (folder / "translations.sqlite3").write_bytes(NOT_A_DATABASE)
    report = run(settings, FakeService())
    warnings = sorted(i.reason for i in report.issues)
    assert len(warnings) == 2
    assert f"{PROVENANCE_FILE} was not a database SQLite can read (file is not a database)" in warnings[0]
    assert "the translation cache" in warnings[1] and "was not a database SQLite can read" in warnings[1]
    assert len(_aside(folder, PROVENANCE_FILE)) == 1 and len(_aside(folder, "translations.sqlite3")) == 1
    written = [u for u in read_catalog(tmp_path / APP).units if u.state is UnitState.FUZZY and u.line < 30]
    assert written and all(Provenance(folder).machine_written(APP, u) is not None for u in written)  # saved
    assert "warning" not in " ".join(i.reason for i in run(settings, FakeService(), retranslate_stale=True).issues)
    assert [i.reason for i in run(settings, FakeService()).issues] == []
