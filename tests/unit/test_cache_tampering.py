"""Every store a run reads is plain data: a tampered cache, run state or provenance is a miss, never code or a crash."""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.cache.local import FILE_NAME
from pipeline.config import Settings
from pipeline.errors import ExitCode
from pipeline.resources.synced import RECORD_NAME, SyncRecord
from pipeline.run.journal import STATE_NAME
from pipeline.run.provenance import PROVENANCE_FILE
from tests.run_fakes import FakeService, cache_dir, project, run


class Payload:
    """Unpickling this runs a shell command that creates ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple[Callable[[str], int], tuple[str]]:
        return os.system, (f"touch '{self.marker}'",)


def first_run(tmp_path: Path) -> Settings:
    settings = project(tmp_path)
    original = (tmp_path / "locale/de/LC_MESSAGES/app.po").read_bytes()
    report = run(settings, FakeService())
    assert report.totals.segments_translated == 4 and report.totals.requests == 2  # one per context
    (tmp_path / "locale/de/LC_MESSAGES/app.po").write_bytes(original)  # translate it all again
    return settings


@pytest.mark.parametrize("as_text", [False, True])
def test_a_pickle_written_into_the_cache_file_is_a_miss_and_never_runs(tmp_path: Path, as_text: bool) -> None:
    settings = first_run(tmp_path)
    marker = tmp_path / "owned"
    payload = pickle.dumps(Payload(marker))
    pickle.loads(payload)  # the payload works: unpickling it would create the marker
    assert marker.exists()
    marker.unlink()
    value = payload.decode("latin-1") if as_text else payload
    with sqlite3.connect(cache_dir(settings) / FILE_NAME) as db:
        assert db.execute("UPDATE translations SET value = ?", (value,)).rowcount == 4
    db.close()
    service = FakeService()
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK and not marker.exists()
    assert report.totals.segments_from_cache == 0 and report.totals.segments_translated == 4
    assert report.totals.requests == 2  # asked again, and stored again as plain JSON
    with sqlite3.connect(cache_dir(settings) / FILE_NAME) as db:
        values = [value for (value,) in db.execute("SELECT value FROM translations")]
    db.close()
    assert len(values) == 4 and all(json.loads(v)["v"] == 1 for v in values)


def test_a_lone_surrogate_in_the_cache_file_is_a_miss_asked_again_and_replaced(tmp_path: Path) -> None:
    settings = first_run(tmp_path)
    catalog = tmp_path / "locale/de/LC_MESSAGES/app.po"
    original = catalog.read_bytes()
    with sqlite3.connect(cache_dir(settings) / FILE_NAME) as db:
        assert db.execute("UPDATE translations SET value = ?", ('{"v":1,"translation":"\\ud800"}',)).rowcount == 4
    db.close()
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.OK and report.issues == []
    assert report.totals.segments_from_cache == 0 and report.totals.segments_translated == 4
    catalog.write_bytes(original)
    again = run(settings, FakeService())
    assert again.totals.segments_from_cache == 4 and again.totals.requests == 0  # good entries replaced them


def test_the_old_diskcache_file_is_never_opened_even_with_pickle_rows(tmp_path: Path) -> None:
    settings = first_run(tmp_path)
    marker = tmp_path / "owned"
    with sqlite3.connect(cache_dir(settings) / FILE_NAME) as db:
        keys = [key for (key,) in db.execute("SELECT key FROM translations")]
    db.close()
    (cache_dir(settings) / FILE_NAME).unlink()
    # diskcache's table layout; mode 4 is MODE_PICKLE, which diskcache unpickles on every read.
    with sqlite3.connect(cache_dir(settings) / "cache.db") as db:
        db.execute(
            "CREATE TABLE Cache (rowid INTEGER PRIMARY KEY, key BLOB, raw INTEGER, store_time REAL, "
            "expire_time REAL, access_time REAL, access_count INTEGER DEFAULT 0, tag BLOB, size INTEGER "
            "DEFAULT 0, mode INTEGER DEFAULT 0, filename TEXT, value BLOB)"
        )
        db.executemany(
            "INSERT INTO Cache (key, raw, mode, value) VALUES (?, 1, 4, ?)",
            [(key, pickle.dumps(Payload(marker))) for key in keys],
        )
    db.close()
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.OK and not marker.exists()
    assert report.totals.segments_from_cache == 0 and report.totals.segments_translated == 4


@pytest.mark.parametrize(
    "state",
    [
        "[]",
        '{"version": 1, "catalogs": []}',
        '{"version": 1, "catalogs": "x"}',
        '{"version": 1, "catalogs": {"locale/de/LC_MESSAGES/app.po": []}}',
        '{"version": 1, "catalogs": {"locale/de/LC_MESSAGES/app.po": {"size": "big"}}}',
        "[" * 50_000,
        '{"version": 1, "catalogs": {"locale/de/LC_MESSAGES/app.po": {"size": 1, "mtime_ns": 1, '
        '"sha256": "x", "settings": "x", "locale": "de", "target_lang": "DE", "skipped": 0, '
        '"notices": [[{"line": 1}, ["reason"], "error"]]}}}',
    ],
)
def test_run_state_of_the_wrong_shape_is_ignored_without_a_traceback(tmp_path: Path, state: str) -> None:
    settings = project(tmp_path)
    assert settings.cache_dir is not None
    settings.cache_dir.mkdir(parents=True)
    (cache_dir(settings) / STATE_NAME).write_text(state, encoding="utf-8")
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.OK and report.unchanged_catalogs == 0
    assert report.totals.segments_translated == 4
    if state.lstrip().startswith('{"version"'):
        assert run(settings, FakeService()).unchanged_catalogs == 1  # and replaced by a good one
    else:  # not a state.json of ours (no "version" and "catalogs"): left as it is, said
        assert (cache_dir(settings) / STATE_NAME).read_text(encoding="utf-8") == state
        assert any("is not a file pipeline wrote" in i.reason for i in report.issues)


def test_a_settled_record_with_forged_types_is_dropped_not_replayed(tmp_path: Path) -> None:
    settings = project(tmp_path)
    run(settings, FakeService())
    state_path = cache_dir(settings) / STATE_NAME
    data = json.loads(state_path.read_text())
    (record,) = data["catalogs"].values()
    for forged in (
        {"skipped": True},
        {"skipped": "3"},
        {"notices": [[1, "reason", "fatal"]]},
        {"notices": [[1, "reason"]]},
        {"extra": 1},
    ):
        state_path.write_text(json.dumps({**data, "catalogs": {k: {**record, **forged} for k in data["catalogs"]}}))
        report = run(settings, FakeService())
        assert report.exit_code == ExitCode.OK and report.unchanged_catalogs == 0, forged


@pytest.mark.parametrize(
    "record",
    [
        "[]",
        '"x"',
        "not json",
        b"\xff\xfe",
        '[["Hello"], ["Hallo"]]',
        '["Hello", ["Hallo"], "x"]',
        '[["a"], [1], "x"]',
        '[["a"], ["b"], 5]',
        "[" * 100_000,
    ],
)
def test_provenance_of_the_wrong_shape_is_ignored_without_a_traceback(tmp_path: Path, record: str | bytes) -> None:
    settings = project(tmp_path)
    run(settings, FakeService())
    with sqlite3.connect(cache_dir(settings) / PROVENANCE_FILE) as db:
        assert db.execute("UPDATE written SET record = ?", (record,)).rowcount > 0
    db.close()
    (cache_dir(settings) / STATE_NAME).unlink()  # parse the catalog again, reading its provenance
    report = run(settings, FakeService(), retranslate_stale=True)
    assert report.exit_code == ExitCode.OK and report.unchanged_catalogs == 0


def test_a_provenance_file_that_is_no_database_is_set_aside_said_and_the_run_goes_on(tmp_path: Path) -> None:
    settings = project(tmp_path)
    cache_dir(settings).mkdir(parents=True)
    (cache_dir(settings) / PROVENANCE_FILE).write_bytes(b"not a database at all" * 100)
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.OK and report.totals.segments_translated == 4
    (aside,) = cache_dir(settings).glob(PROVENANCE_FILE + ".damaged-*")
    assert [i.reason for i in report.issues if PROVENANCE_FILE in i.reason] == [
        f"{cache_dir(settings) / PROVENANCE_FILE} was not a database SQLite can read (file is not a database); "
        f"it was moved to {aside.name} and a new one started"
    ]


def test_a_provenance_file_that_cannot_be_opened_is_said_and_the_run_goes_on(tmp_path: Path) -> None:
    settings = project(tmp_path)
    (cache_dir(settings) / PROVENANCE_FILE).mkdir(parents=True)  # a folder where the file goes
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.OK and report.totals.segments_translated == 4
    assert any("cannot save the run state" in issue.reason for issue in report.issues)


@pytest.mark.parametrize(
    "record", ["[" * 100_000, '{"version": 1, "synced": []}', '{"version": 1, "synced": {"svc": ["h"]}}', "not json"]
)
def test_a_tampered_sync_record_means_syncing_again_not_a_traceback(tmp_path: Path, record: str) -> None:
    (tmp_path / RECORD_NAME).write_text(record, encoding="utf-8")
    assert SyncRecord(tmp_path).needs_sync("svc", "h")
