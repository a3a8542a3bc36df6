"""A cache folder's SQLite file that SQLite cannot read is set aside once, and runs start afresh.

Before, a ``translations.sqlite3`` or ``provenance.sqlite3`` overwritten with something else made
every run warn, keep its translations in memory only and fail to save its state, for ever.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

import pipeline.run.provenance as provenance_module
from pipeline.cache.local import LocalStore
from pipeline.cache.tiered import TranslationCache
from pipeline.catalogs import UnitState, read_catalog
from pipeline.config import Settings
from pipeline.files import damaged
from pipeline.files.damaged import is_damaged, set_aside
from pipeline.run.provenance import PROVENANCE_FILE, Provenance, Written, unit_identity
from tests.run_fakes import FakeService, cache_dir, project, run

NOT_A_DATABASE = b"these bytes were never SQLite's " * 200
APP = "locale/de/LC_MESSAGES/app.po"


def _aside(folder: Path, name: str) -> list[Path]:
    return sorted(p for p in folder.glob(f"{name}.damaged-*") if not p.name.endswith(("-wal", "-shm")))


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


def _damaged_past_its_schema(path: Path, end: int | None = None) -> None:
    """Every page of ``path`` but the first (the schema) overwritten, up to byte ``end``: SQLite opens it, and its
    tables are "malformed" only when read (a bad block, a copy cut and patched)."""
    data = bytearray(path.read_bytes())
    assert len(data) > 4096
    end = len(data) if end is None else end
    data[4096:end] = b"\x07" * (end - 4096)  # 7: no kind of b-tree page
    path.write_bytes(bytes(data))


def _cache_of_several_pages(folder: Path) -> Path:
    store = LocalStore(folder)
    store.set_many({f"k{i}": "v" * 100 for i in range(200)})
    store.close()
    return folder / "translations.sqlite3"


def test_a_translation_cache_malformed_past_its_schema_is_set_aside_at_its_first_failed_read(tmp_path: Path) -> None:
    _damaged_past_its_schema(_cache_of_several_pages(tmp_path))
    said: list[str] = []
    cache = TranslationCache(tmp_path, log=said.append)
    assert cache.get("k1") is None
    cache.set_many({"new": "v"})
    cache.close()
    (aside,) = _aside(tmp_path, "translations.sqlite3")
    assert len(said) == 1 and f"it was moved to {aside.name} and a new one started" in said[0]
    again: list[str] = []
    assert TranslationCache(tmp_path, log=again.append).get("new") == "v"  # written to the new file
    assert again == []


def test_a_provenance_file_malformed_past_its_schema_is_set_aside_when_the_run_saves(tmp_path: Path) -> None:
    settings = project(tmp_path)
    folder = cache_dir(settings)
    run(settings, FakeService())
    _damaged_past_its_schema(folder / PROVENANCE_FILE)
    (tmp_path / APP).write_text((tmp_path / APP).read_text(encoding="utf-8") + '\nmsgid "One more"\nmsgstr ""\n')
    warnings = [i.reason for i in run(settings, FakeService()).issues]
    (aside,) = _aside(folder, PROVENANCE_FILE)
    assert len(warnings) == 1 and f"it was moved to {aside.name} and a new one started" in warnings[0]
    assert [i.reason for i in run(settings, FakeService()).issues] == []


def test_a_link_or_a_fifo_in_a_cache_files_place_is_not_opened(tmp_path: Path) -> None:
    # A project may keep its cache folder in its own tree, so a clone can put a link where a cache
    # file goes: SQLite made its database wherever the link led (a missing file anywhere the user
    # may write, or another program's database turned to WAL with our tables in it).
    settings = project(tmp_path)
    folder, outside = cache_dir(settings), tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (outside / "empty").write_bytes(b"")
    (folder / "translations.sqlite3").symlink_to(outside / "made.sqlite3")
    (folder / PROVENANCE_FILE).symlink_to(outside / "empty")
    warnings = sorted(i.reason for i in run(settings, FakeService()).issues)
    assert sorted(p.name for p in outside.iterdir()) == ["empty"] and (outside / "empty").read_bytes() == b""
    assert len(warnings) == 2 and all("a link, not a regular file" in w for w in warnings), warnings
    settings = project(tmp_path / "fifo")
    cache_dir(settings).mkdir()
    for name in ("translations.sqlite3", PROVENANCE_FILE):  # a FIFO there: opening it waited for ever
        os.mkfifo(cache_dir(settings) / name)
    warnings = sorted(i.reason for i in run(settings, FakeService()).issues)
    assert len(warnings) == 2 and all("not a regular file" in w for w in warnings), warnings


def test_what_a_run_stored_before_its_file_was_found_damaged_is_in_the_new_file(tmp_path: Path) -> None:
    # The main table's page (the second: ``translations`` is made first) overwritten, the rest whole: a run
    # opens the file, appends to ``recent``, and fails only when a read reaches ``translations``.
    _damaged_past_its_schema(_cache_of_several_pages(tmp_path), end=8192)
    said: list[str] = []
    cache = TranslationCache(tmp_path, log=said.append)
    cache.set_many({"paid for": "before the damage showed"})  # appended: no read of the damaged table yet
    assert cache.get("k1") is None  # the read that finds the damage: the file is set aside
    cache.set_many({"after": "v"})
    cache.close()
    assert cache.kept
    (aside,) = _aside(tmp_path, "translations.sqlite3")
    assert len(said) == 1 and f"it was moved to {aside.name} and a new one started" in said[0]
    again = TranslationCache(tmp_path, log=said.append)
    assert again.get_many(["paid for", "after"]) == {"paid for": "before the damage showed", "after": "v"}
    assert len(said) == 1


def _set_aside_by_another_run(path: Path) -> None:
    """Move ``path`` as :func:`set_aside` does (with its log), as another run that found it damaged would."""
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{path}{suffix}").exists():
            os.replace(f"{path}{suffix}", f"{path}.damaged-20261129T000000Z{suffix}")


def test_a_run_whose_file_another_run_set_aside_goes_on_in_the_new_file(tmp_path: Path) -> None:
    said: list[str] = []
    first = TranslationCache(tmp_path, log=said.append)
    first.set_many({"first's": "v1"})
    # Another run found the file damaged and set it aside (moved, with its log), then started a new one.
    _set_aside_by_another_run(tmp_path / "translations.sqlite3")
    second = TranslationCache(tmp_path, log=said.append)
    second.set_many({"second's": "v2"})
    second.close()
    first.set_many({"first's later": "v3"})
    first.close()
    assert first.kept and said == []
    found = TranslationCache(tmp_path).get_many(["first's", "first's later", "second's"])
    assert found == {"first's": "v1", "first's later": "v3", "second's": "v2"}


def test_what_a_run_stores_after_another_run_set_its_file_aside_reaches_the_new_file_within_a_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run notices that another run set its file aside (found damaged) before a fold, and at close, and carries
    # what it stored meanwhile into the new file. Killed before either (SIGKILL, a power cut), up to FOLD_AT
    # entries it had paid for stayed in the file set aside: the next run paid for them again. It now looks every
    # FOLLOW_EVERY entries stored, not at each store (one request's entries, on the per-request path).
    from pipeline.cache import local

    monkeypatch.setattr(local, "FOLLOW_EVERY", 100, raising=False)
    looked: list[Path] = []
    identity = damaged.file_identity

    def looking(path: Path) -> tuple[int, int]:
        looked.append(path)
        return identity(path)

    monkeypatch.setattr(local, "file_identity", looking)
    first = TranslationCache(tmp_path)
    first.set_many({"before": "v"})
    _set_aside_by_another_run(tmp_path / "translations.sqlite3")
    TranslationCache(tmp_path).close()  # the other run's new file
    looked.clear()
    per_request = 20
    stored = {f"k{n}": f"v{n}" for n in range(local.FOLLOW_EVERY + per_request)}
    keys = list(stored)
    for start in range(0, local.FOLLOW_EVERY - per_request, per_request):  # not a look per request
        first.set_many({key: stored[key] for key in keys[start : start + per_request]})
    assert looked == []
    for start in range(local.FOLLOW_EVERY - per_request, len(keys), per_request):
        first.set_many({key: stored[key] for key in keys[start : start + per_request]})
    assert looked  # and the run is killed here, before its close: the new file holds what it stored
    assert TranslationCache(tmp_path).get_many(["before", *keys]) == {"before": "v", **stored}
    first.close()
    assert first.kept


def test_a_run_that_finds_its_file_damaged_and_already_set_aside_opens_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[str] = []
    first = TranslationCache(tmp_path, log=said.append)
    first.set_many({"first's": "v1"})
    _set_aside_by_another_run(tmp_path / "translations.sqlite3")
    TranslationCache(tmp_path).close()  # the other run's new file

    from pipeline.cache import local

    def damaged_once(self: local.LocalStore, keys: object) -> dict[str, str]:
        monkeypatch.undo()
        raise local.LocalStoreError("database disk image is malformed", damaged=True)

    monkeypatch.setattr(local.LocalStore, "get_many", damaged_once)
    assert first.get("anything") is None  # the query that finds the damage; another run set it aside already
    first.set_many({"first's later": "v3"})
    first.close()
    assert first.kept
    assert len(said) == 1 and "another run had set it aside and started a new one" in said[0], said
    found = TranslationCache(tmp_path).get_many(["first's", "first's later"])
    assert found == {"first's": "v1", "first's later": "v3"}


def test_what_a_run_folded_into_a_file_set_aside_is_said_to_be_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.cache import local

    monkeypatch.setattr(local, "FOLD_AT", 2)
    said: list[str] = []
    first = TranslationCache(tmp_path, log=said.append)
    first.set_many({"a": "1", "b": "2"})  # folded into the main table at once
    _set_aside_by_another_run(tmp_path / "translations.sqlite3")
    first.set_many({"c": "3", "d": "4"})
    first.close()
    assert not first.kept  # a and b are in the file set aside only
    assert len(said) == 1 and "some translations this run had stored in it are not in the new one" in said[0]
    assert TranslationCache(tmp_path).get_many(["a", "b", "c", "d"]) == {"c": "3", "d": "4"}


def test_a_provenance_file_malformed_where_a_read_goes_is_set_aside_when_read_and_what_was_read_is_carried(
    tmp_path: Path,
) -> None:
    # A run that only reads provenance (nothing new to write, a review) found it damaged and went on as without it,
    # saying nothing, for ever: machine translations then pass for a human's, and no save came to set it aside.
    settings = project(tmp_path)
    folder = cache_dir(settings)
    run(settings, FakeService())
    written = [u for u in read_catalog(tmp_path / APP).units if u.state is UnitState.FUZZY]
    other = "a/other.po"  # sorts first: its rows on the table's first page, the app's on its last
    db = sqlite3.connect(folder / PROVENANCE_FILE)
    db.execute("INSERT INTO written VALUES (?, ?, ?)", (other, "Save", '[["Save"],["Enregistrer"],"x"]'))
    db.executemany("INSERT INTO written VALUES (?, ?, ?)", ((f"b/{n:04}.po", "x", "y" * 200) for n in range(300)))
    db.commit()
    db.close()  # the last connection: its log is written into the file
    said: list[str] = []
    provenance = Provenance(folder, said.append)
    assert list(provenance.provenance(other)) == ["Save"]
    _damaged_past_its_schema(folder / PROVENANCE_FILE)  # where the app's rows are: pages not read yet
    assert provenance.machine_written(APP, written[0]) is None  # unreadable: as without provenance
    (aside,) = _aside(folder, PROVENANCE_FILE)
    assert len(said) == 1 and f"it was moved to {aside.name} and a new one started" in said[0]
    assert provenance.changed
    provenance.save()  # what was read from it before is carried into the new file
    provenance.close()
    assert list(Provenance(folder).provenance(other)) == ["Save"]


def test_a_review_that_finds_the_provenance_file_damaged_keeps_what_it_read_in_the_new_file(tmp_path: Path) -> None:
    # A review reads provenance and never records any: the rows it read from the file before it was found damaged
    # (and set aside) must reach the new file all the same, or the next run takes those machine translations for
    # a human's, which the set-aside was meant to prevent.
    from pipeline.review.session import Session

    settings = project(tmp_path, ("de", "fr"))
    folder = cache_dir(settings)
    run(settings, FakeService())
    de = "locale/de/LC_MESSAGES/app.po"
    _damage_the_last_page(folder)
    said: list[str] = []
    Session(settings, warn=said.append)
    (aside,) = _aside(folder, PROVENANCE_FILE)
    assert any(f"it was moved to {aside.name}" in line for line in said), said
    after = Provenance(folder)
    assert after.provenance(de), "the rows the review read before are in the new file"
    after.close()


@pytest.mark.parametrize("found_by", ["a read", "a save"])
def test_what_a_run_saved_before_the_provenance_file_was_found_damaged_is_in_the_new_file(
    tmp_path: Path, found_by: str
) -> None:
    # A run saves a window's provenance (its records then read again from the file, not held), and a later
    # window finds the file damaged, by a read or by its own save, and sets it aside: the records saved first must
    # reach the new file, or the machine translations the run wrote in its first window pass for a human's.
    settings = project(tmp_path, ("de", "fr"))
    folder = cache_dir(settings)
    run(settings, FakeService())
    de, fr = "locale/de/LC_MESSAGES/app.po", "locale/fr/LC_MESSAGES/app.po"
    _damage_the_last_page(folder)
    said: list[str] = []
    provenance = Provenance(folder, said.append)
    unit = next(u for u in read_catalog(tmp_path / de).units if u.state is UnitState.FUZZY)
    before = set(provenance.provenance(de))
    provenance.record(de, [(unit, ("Neu",), "inputs")])
    provenance.save()  # the first window's records, into the file not known to be damaged yet
    fr_unit = next(u for u in read_catalog(tmp_path / fr).units if u.state is UnitState.FUZZY)
    if found_by == "a read":
        assert provenance.machine_written(fr, fr_unit) is None  # the read that finds the damage
    else:
        provenance.record(fr, [(fr_unit, ("Nouveau",), "inputs")])  # its save meets fr's damaged page
    provenance.save()
    (aside,) = _aside(folder, PROVENANCE_FILE)
    assert any(aside.name in line for line in said), said
    provenance.close()
    after = Provenance(folder)
    found, found_fr = after.provenance(de), after.provenance(fr)
    after.close()
    assert set(found) == before and found[unit_identity(unit)].targets == ("Neu",), said
    if found_by == "a save":
        assert found_fr[unit_identity(fr_unit)].targets == ("Nouveau",)


def _damage_the_last_page(folder: Path) -> None:
    """300 rows put between de's and fr's (:func:`_rows_between`), and the table's last page overwritten: fr's rows
    damaged, de's (on the first leaf, read first) whole."""
    _rows_between(folder)
    path = folder / PROVENANCE_FILE
    data = bytearray(path.read_bytes())
    data[-4096:] = b"\x07" * 4096
    path.write_bytes(bytes(data))


def _rows_between(folder: Path) -> None:
    """300 rows put between de's and fr's (locale/fr/... sorts after locale/e/...): fr's are on the table's last
    page, de's on its first leaf."""
    db = sqlite3.connect(folder / PROVENANCE_FILE)
    db.executemany(
        "INSERT INTO written VALUES (?, ?, ?)", ((f"locale/e/{n:04}.po", "x", "y" * 200) for n in range(300))
    )
    db.commit()
    db.close()


class _Contended:
    """A lock that says (``waiting``) when a thread finds it held and waits for it: how a test knows, without a
    sleep, that a thread is kept out of what another does."""

    def __init__(self, lock: Any, waiting: threading.Event) -> None:
        self._lock, self._waiting = lock, waiting

    def __enter__(self) -> None:
        if not self._lock.acquire(blocking=False):
            self._waiting.set()
            self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def _paused(pause: Callable[[], None], call: Callable[..., Any]) -> Callable[..., Any]:
    def paused(*args: Any, **kwargs: Any) -> Any:
        pause()
        return call(*args, **kwargs)

    return paused


@pytest.mark.parametrize("interleaving", ["a save before the move", "a save before the carry", "a read across it"])
def test_a_read_that_sets_the_provenance_file_aside_loses_no_row_whatever_runs_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, interleaving: str
) -> None:
    # A window's catalogs are scanned (their provenance read) in worker threads while the main thread saves the
    # window before's records, or another thread reads another catalog. A read that finds the file damaged sets it
    # aside and carries what was read and saved into the new file. One thread is stopped at a point of its work
    # and the other let go, until it is done or waits for the first: whatever the order, every row reaches the new
    # file, and the newest of each.
    settings = project(tmp_path, ("de", "fr"))
    folder = cache_dir(settings)
    run(settings, FakeService())
    de, fr = "locale/de/LC_MESSAGES/app.po", "locale/fr/LC_MESSAGES/app.po"
    _damage_the_last_page(folder)  # fr's rows damaged, de's whole
    expected = Provenance(folder)
    de_rows = dict(expected.provenance(de))
    expected.close()
    unit = next(u for u in read_catalog(tmp_path / de).units if u.state is UnitState.FUZZY)
    fr_unit = next(u for u in read_catalog(tmp_path / fr).units if u.state is UnitState.FUZZY)
    at_pause, go, other_done_or_waiting = threading.Event(), threading.Event(), threading.Event()

    def pause() -> None:
        if not at_pause.is_set():  # the first time only
            at_pause.set()
            assert go.wait(60)

    said: list[str] = []
    after_move = interleaving == "a save before the carry"

    def warn(message: str) -> None:
        said.append(message)
        if after_move:
            pause()

    provenance = Provenance(folder, warn)
    paused_work: Callable[[], object]
    other_work: Callable[[], object]
    if interleaving == "a read across it":  # de's read stopped once its rows are read, fr's read let go

        def damage_then_pause() -> None:  # de's rows can be read from nowhere else now: only a carry keeps them
            if not at_pause.is_set():
                _damaged_past_its_schema(folder / PROVENANCE_FILE)
            pause()

        monkeypatch.setattr(
            "pipeline.run.provenance._written_rows", _paused(damage_then_pause, provenance_module._written_rows)
        )
        paused_work, other_work = partial(provenance.provenance, de), partial(provenance.provenance, fr)
    else:  # fr's read, which finds the damage, stopped as it sets the file aside; the save of de's record let go
        if not after_move:
            monkeypatch.setattr("pipeline.run.provenance.set_aside", _paused(pause, set_aside))
        assert provenance.provenance(de) == de_rows
        provenance.record(de, [(unit, ("Neu",), "inputs")])
        de_rows[unit_identity(unit)] = provenance.provenance(de)[unit_identity(unit)]
        paused_work, other_work = partial(provenance.machine_written, fr, fr_unit), provenance.save
    provenance._lock = _Contended(provenance._lock, other_done_or_waiting)  # type: ignore[assignment]

    def other() -> None:
        other_work()
        other_done_or_waiting.set()

    first, second = threading.Thread(target=paused_work), threading.Thread(target=other)
    first.start()
    assert at_pause.wait(60)
    second.start()
    assert other_done_or_waiting.wait(60)
    go.set()
    first.join(60)
    second.join(60)
    assert not first.is_alive() and not second.is_alive()
    provenance.save()  # what a carry left for the next save, if any
    provenance.close()
    (aside,) = _aside(folder, PROVENANCE_FILE)
    assert sum(aside.name in line for line in said) == 1, said
    after = Provenance(folder)
    found = after.provenance(de)
    after.close()
    assert found == de_rows


def test_what_a_run_saves_after_another_run_set_the_provenance_file_aside_is_in_the_new_file(tmp_path: Path) -> None:
    # Two runs on one cache folder: the other one's read finds the provenance file damaged and sets it aside. This
    # run's connection still led to that file, so the records it had saved there (read back by nobody) and every
    # save after, silently, stayed in it, and the new file never had them: its machine translations passed for a
    # human's.
    settings = project(tmp_path, ("de", "fr"))
    folder = cache_dir(settings)
    run(settings, FakeService())
    de, fr = "locale/de/LC_MESSAGES/app.po", "locale/fr/LC_MESSAGES/app.po"
    _damage_the_last_page(folder)  # fr's rows damaged, de's whole
    first, second, *_ = (u for u in read_catalog(tmp_path / de).units if u.state is UnitState.FUZZY)
    this = Provenance(folder)
    expected = dict(this.provenance(de))
    this.record(de, [(first, ("Neu",), "inputs")])
    this.save()  # into the file not known to be damaged yet
    said: list[str] = []
    other = Provenance(folder, said.append)
    fr_unit = next(u for u in read_catalog(tmp_path / fr).units if u.state is UnitState.FUZZY)
    assert other.machine_written(fr, fr_unit) is None  # the other run's read that finds the damage
    other.close()
    (aside,) = _aside(folder, PROVENANCE_FILE)
    assert len(said) == 1 and aside.name in said[0]
    this.record(de, [(second, ("Zweite",), "inputs")])  # a later window's, where the file set aside is whole
    this.save()
    this.close()
    after = Provenance(folder)
    found = after.provenance(de)
    after.close()
    assert {key: record.targets for key, record in found.items()} == {
        **{key: record.targets for key, record in expected.items()},
        unit_identity(first): ("Neu",),
        unit_identity(second): ("Zweite",),
    }


DE, FR = "locale/de/LC_MESSAGES/app.po", "locale/fr/LC_MESSAGES/app.po"


def _translated_then_damaged(tmp_path: Path) -> tuple[Settings, dict[str, Written]]:
    """A project in German and French translated once, then its provenance file damaged where fr's rows are
    (:func:`_damage_the_last_page`); its settings, and de's records as they were (whole, and still readable)."""
    settings = project(tmp_path, ("de", "fr"))
    run(settings, FakeService())
    before = Provenance(cache_dir(settings))
    expected = dict(before.provenance(DE))
    before.close()
    _damage_the_last_page(cache_dir(settings))
    return settings, expected


@pytest.mark.parametrize("options", [{"dry_run": True}, {"dry_run": True, "frozen": True}], ids=["dry run", "frozen"])
def test_a_run_that_writes_no_catalog_keeps_what_it_carried_from_a_provenance_file_it_set_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, bool]
) -> None:
    # A run that reads provenance and then writes no catalog (--dry-run, --frozen) saves none: what it carried from
    # a file it found damaged and set aside (what it had read before the damage, which cannot be read from the file
    # any more) was dropped at its end, and the machine translations of that catalog passed for a human's.
    settings = project(tmp_path, ("de", "fr"))
    folder = cache_dir(settings)
    run(settings, FakeService())
    _rows_between(folder)  # de's rows and fr's on pages of their own: fr's read reaches the disk
    pristine = Provenance(folder)
    expected = {display: dict(pristine.provenance(display)) for display in (DE, FR)}
    pristine.close()
    for catalog in (DE, FR):  # changed since: read again, their provenance with them
        path = tmp_path / catalog
        path.write_text(path.read_text(encoding="utf-8") + '\nmsgid "One more"\nmsgstr ""\n', encoding="utf-8")
    load, read_first = Provenance._load, list[str]()

    def load_then_damage(self: Provenance, display: str) -> dict[str, Written]:
        rows = load(self, display)
        if rows and not read_first:  # the file damaged whole once the first catalog's rows are read
            read_first.append(display)
            _damaged_past_its_schema(folder / PROVENANCE_FILE)
        return rows

    monkeypatch.setattr(Provenance, "_load", load_then_damage)
    report = run(settings, FakeService(), **options)
    monkeypatch.undo()
    (aside,) = _aside(folder, PROVENANCE_FILE)
    assert any(aside.name in issue.reason for issue in report.issues), report.issues
    after = Provenance(folder)
    found = after.provenance(read_first[0])
    after.close()
    assert found == expected[read_first[0]]


@pytest.mark.parametrize("found_by", ["a read", "a save"])
def test_a_provenance_set_aside_keeps_the_rows_it_can_still_read_of_catalogs_the_run_did_not_read(
    tmp_path: Path, found_by: str
) -> None:
    # A run carried only what it had read or saved: a pre-commit run that touched one catalog, found the file damaged
    # where that catalog's rows are and set it aside, left every other catalog's rows, whole, in the file set aside,
    # and their machine translations passed for a human's from then on.
    settings, expected = _translated_then_damaged(tmp_path)
    folder = cache_dir(settings)
    provenance = Provenance(folder)
    fr_unit = next(u for u in read_catalog(tmp_path / FR).units if u.state is UnitState.FUZZY)
    if found_by == "a read":
        assert provenance.machine_written(FR, fr_unit) is None
    provenance.record(FR, [(fr_unit, ("Nouveau",), "inputs")])
    provenance.save()
    provenance.close()
    assert len(_aside(folder, PROVENANCE_FILE)) == 1
    after = Provenance(folder)
    found, found_fr = after.provenance(DE), after.provenance(FR)
    after.close()
    assert found == expected
    assert found_fr[unit_identity(fr_unit)].targets == ("Nouveau",)
