"""The cache's stores one by one: the entry format, the local SQLite store, the tiered cache (no sockets)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from pipeline.cache import TranslationCache
from pipeline.cache.entry import MAX_ENTRY_CHARS, SharedStoreError, decode, encode, namespace
from pipeline.cache.local import FILE_NAME, LEGACY_FILES, LocalStore, LocalStoreError
from pipeline.cache.shared import RedisStore
from pipeline.cache.tiered import FLUSH_AT
from pipeline.errors import redact_url as redact


def test_an_entry_round_trips_any_text() -> None:
    for text in ("Hallo", "", 'Öffne <x id="1"/> "jetzt"', "\x00\u2028\U0001f600", '{"v": 1}'):
        assert decode(encode(text)) == text
        assert decode(encode(text).encode("utf-8")) == text
        assert encode(text) == json.dumps({"v": 1, "translation": text}, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize(
    "stored",
    [
        None,
        3,
        "Hallo",
        "",
        "not json {",
        "[1, 2]",
        '"Hallo"',
        '{"v": 2, "translation": "x"}',
        '{"v": 1}',
        '{"v": 1, "translation": 5}',
        '{"v": 1, "translation": "x", "extra": 1}',
        '{"v": true, "translation": "x"}',
        b"\xff\xfe",
        "[" * 100_000,
        " " * (MAX_ENTRY_CHARS + 1),
        b"\x80\x04\x95\x1f\x00\x00\x00\x00\x00\x00\x00\x8c\x05posix\x94\x8c\x06system\x94\x93\x94.",
        # Lone surrogates: JSON escapes that are no character, which no catalog or store can hold.
        '{"v":1,"translation":"\\ud800"}',
        b'{"v":1,"translation":"Tag \\uDFFF"}',
        '{"v":1,"translation":"\\ude00\\ud83d"}',  # a pair in the wrong order is two lone halves
        '{"v":1,"translation":"\ud800"}',  # the surrogate itself in a str (what a buggy writer stores)
    ],
)
def test_anything_but_a_well_formed_entry_is_a_miss(stored: object) -> None:
    assert decode(stored) is None


def test_an_escaped_surrogate_pair_is_one_character_and_a_hit() -> None:
    assert decode('{"v":1,"translation":"\\ud83d\\ude00"}') == "\U0001f600"


def test_a_row_that_is_not_utf_8_is_a_miss_and_the_store_stays_in_use(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    store.set_many({"bad": "x", "good": "G"})
    store.close()
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        db.execute(
            "UPDATE translations SET value = CAST(? AS TEXT) WHERE key = 'bad'", (b'{"v":1,"translation":"\x80"}',)
        )
    db.close()
    said: list[str] = []
    cache = TranslationCache(tmp_path, log=said.append)
    assert cache.get_many(["bad", "good"]) == {"good": "G"}
    cache.set_many({"bad": "B"})
    cache.close()
    assert said == [] and LocalStore(tmp_path).get_many(["bad"]) == {"bad": "B"}  # kept on disk, not in memory


def test_the_local_store_persists_plain_json(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    store.set_many({"k1": "Hallo", "k2": 'Tür <x id="1"/>'})
    store.close()
    again = LocalStore(tmp_path)
    assert again.get_many(["k1", "k2", "missing"]) == {"k1": "Hallo", "k2": 'Tür <x id="1"/>'}
    assert again.stats()["entries"] == 2
    again.close()
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        rows = dict(db.execute("SELECT key, value FROM translations"))
    db.close()
    assert json.loads(rows["k1"]) == {"v": 1, "translation": "Hallo"}


def test_the_local_store_reads_more_keys_than_sqlite_binds_at_once(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    items = {f"k{n}": f"v{n}" for n in range(2_345)}
    store.set_many(items)
    assert store.get_many([*items, "nope"]) == items
    store.close()


def test_clearing_the_local_store_also_removes_the_old_diskcache_file(tmp_path: Path) -> None:
    with contextlib.closing(sqlite3.connect(tmp_path / LEGACY_FILES[0])) as db:  # diskcache's tables
        db.execute("CREATE TABLE Settings (key TEXT NOT NULL UNIQUE, value)")
        db.execute("CREATE TABLE Cache (rowid INTEGER PRIMARY KEY, key BLOB, value BLOB)")
        db.commit()
    (tmp_path / "state.json").write_text("{}")
    store = LocalStore(tmp_path)
    store.set_many({"a": "A", "b": "B"})
    assert store.stats()["legacy_bytes"] == (tmp_path / LEGACY_FILES[0]).stat().st_size
    assert store.clear() == 2 and store.get_many(["a", "b"]) == {}
    assert not (tmp_path / LEGACY_FILES[0]).exists() and (tmp_path / "state.json").exists()  # run state stays
    store.close()


@pytest.mark.parametrize("content", [b"this is not a database" * 100, b""])
def test_a_file_that_is_not_sqlite_is_set_aside_with_one_warning(tmp_path: Path, content: bytes) -> None:
    (tmp_path / FILE_NAME).write_bytes(content)
    said: list[str] = []
    cache = TranslationCache(tmp_path, log=said.append)
    cache.set_many({"k": "v"})
    assert cache.get_many(["k", "x"]) == {"k": "v"}
    cache.close()
    if content:  # moved away (pipeline.files.damaged), a new file made: the run keeps its cache
        assert len(said) == 1 and "was moved to translations.sqlite3.damaged-" in said[0], said
        assert len(list(tmp_path.glob(f"{FILE_NAME}.damaged-*"))) == 1
    else:  # an empty file is a new database
        assert said == []


def test_a_foreign_table_of_the_same_name_is_refused_not_read(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        db.execute("CREATE TABLE translations (k TEXT, payload BLOB)")
    db.close()
    with pytest.raises(LocalStoreError):
        LocalStore(tmp_path)


class FakeShared:
    """Stands in for RedisStore: a dict, round trips counted, failing on demand."""

    where = "redis://fake:6379/0"

    def __init__(self, fail: bool = False) -> None:
        self.data: dict[str, str] = {}
        self.round_trips = 0
        self.fail = fail
        self.closed = False

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        self.round_trips += 1
        if self.fail:
            raise SharedStoreError("ConnectionError: Error 111 connecting to fake:6379. Connection refused.")
        return {key: self.data[key] for key in keys if key in self.data}

    def set_many(self, items: Mapping[str, str]) -> None:
        self.round_trips += 1
        if self.fail:
            raise SharedStoreError("TimeoutError: Timeout reading from socket")
        self.data.update(items)

    def close(self) -> None:
        self.closed = True


def test_the_near_cache_answers_first_and_keeps_what_the_shared_store_answered(tmp_path: Path) -> None:
    shared = FakeShared()
    shared.data = {"far1": "F1", "far2": "F2"}
    cache = TranslationCache(tmp_path, shared, log=pytest.fail)
    cache.set_many({"near": "N"})
    trips = shared.round_trips
    assert cache.get_many(["near", "far1", "far2", "none"]) == {"near": "N", "far1": "F1", "far2": "F2"}
    assert shared.round_trips == trips + 1  # one round trip for the whole group
    assert cache.get_many(["near", "far1"]) == {"near": "N", "far1": "F1"}
    assert shared.round_trips == trips + 1  # all answered locally now
    cache.close()
    again = TranslationCache(tmp_path, FakeShared(), log=pytest.fail)
    assert again.get_many(["far1", "far2"]) == {"far1": "F1", "far2": "F2"}  # copied into the local folder
    again.close()


def test_shared_writes_are_batched_and_flushed_on_close(tmp_path: Path) -> None:
    shared = FakeShared()
    cache = TranslationCache(tmp_path, shared, log=pytest.fail)
    for n in range(FLUSH_AT * 2 + 10):
        cache.set(f"k{n}", "v")
    assert shared.round_trips == 2 and len(shared.data) == FLUSH_AT * 2
    cache.close()
    assert shared.round_trips == 3 and len(shared.data) == FLUSH_AT * 2 + 10 and shared.closed


def test_a_failing_shared_store_is_dropped_for_the_run_with_one_warning(tmp_path: Path) -> None:
    shared = FakeShared(fail=True)
    said: list[str] = []
    cache = TranslationCache(tmp_path, shared, log=said.append)
    cache.set_many({"k": "v"})
    for _ in range(3):
        assert cache.get_many(["k", "x"]) == {"k": "v"}
    cache.set_many({f"n{n}": "v" for n in range(FLUSH_AT + 1)})
    cache.close()
    assert shared.round_trips == 1 and len(said) == 1
    assert "redis://fake:6379/0" in said[0] and "local cache only" in said[0]


def test_a_url_is_printed_without_its_password_user_or_query() -> None:
    assert redact("redis://user:s3cret@cache.example:6380/2") == "redis://cache.example:6380/2"
    assert redact("rediss://:s3cret@cache.example/0?password=other") == "rediss://cache.example/0"
    assert redact("unix:///run/redis.sock?db=1&password=s3cret") == "unix:///run/redis.sock"
    assert redact("redis://[::1:6379/0") == "the configured URL"


def test_the_shared_store_scrubs_the_password_from_any_message() -> None:
    store = RedisStore("redis://admin:p%40ss-w0rd@127.0.0.1:1/0", namespace("svc"))  # no connection yet
    for secret in ("p%40ss-w0rd", "p@ss-w0rd", "admin"):
        message = store._scrub(ConnectionError(f"could not log in as admin with {secret}"))
        assert secret not in message and "***" in message
    assert "p@ss" not in repr(store.where) and store.where == "redis://127.0.0.1:1/0"
    store.close()


def test_a_url_the_client_cannot_parse_is_an_error_naming_no_secret() -> None:
    with pytest.raises(SharedStoreError) as caught:
        RedisStore("redis://:hunter22@127.0.0.1:notaport/0", namespace("svc"))
    assert "hunter22" not in str(caught.value)


def test_namespaces_differ_by_service_and_never_contain_its_url() -> None:
    first, second = namespace("https://api.example/v2"), namespace("embedded/0.1.0")
    assert first != second and first.startswith("pipeline:") and "example" not in first


def test_stats_and_clear_of_the_local_store_leave_the_run_state_alone(tmp_path: Path) -> None:
    from pipeline.cache.maintenance import cache_stats, clear_cache
    from pipeline.config import Settings

    settings = Settings(root=tmp_path, cache_dir=tmp_path / "cache")
    assert cache_stats(settings, "svc") == {
        "local": {"path": str(tmp_path / "cache" / FILE_NAME), "entries": 0, "bytes": 0, "legacy_bytes": 0},
        "shared": None,
    }
    assert not (tmp_path / "cache").exists()  # looking does not create it
    cache = TranslationCache(settings.cache_dir)
    cache.set_many({"a": "A", "b": "B"})
    cache.close()
    (tmp_path / "cache" / "state.json").write_text("{}")
    local = cache_stats(settings, "svc")["local"]
    assert local is not None and local["entries"] == 2 and isinstance(local["bytes"], int) and local["bytes"] > 0
    assert clear_cache(settings, "svc") == {"local": {"path": str(tmp_path / "cache" / FILE_NAME), "cleared": 2}}
    emptied = cache_stats(settings, "svc")["local"]
    assert emptied is not None and emptied["entries"] == 0
    assert (tmp_path / "cache" / "state.json").exists()
    assert cache_stats(Settings(root=tmp_path), "svc") == {"local": None, "shared": None}


def test_without_the_redis_package_the_run_warns_once_and_keeps_the_local_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.cache import open_cache
    from pipeline.config import Settings

    monkeypatch.setitem(sys.modules, "redis", None)  # what an install without dependencies looks like
    monkeypatch.delitem(sys.modules, "pipeline.cache.shared", raising=False)  # as in a fresh process
    said: list[str] = []
    cache = open_cache(
        Settings(root=tmp_path, cache_dir=tmp_path / "c", cache_url="redis://:pw-123@h:1/0"), "svc", said.append
    )
    cache.set_many({"k": "v"})
    assert cache.get("k") == "v"
    cache.close()
    assert (
        len(said) == 1
        and "-m pip install 'redis>=5.0' (the [redis] extra of pipeline-i18n)" in said[0]
        and "pw-123" not in said[0]
    )


def _rows(path: Path, table: str) -> list[tuple[str, str]]:
    with sqlite3.connect(path / FILE_NAME) as db:
        rows = [tuple(row) for row in db.execute(f"SELECT key, value FROM {table}")]
    db.close()
    return sorted((key, json.loads(value)["translation"]) for key, value in rows)


def test_entries_a_killed_run_left_unfolded_are_read_counted_and_folded_by_the_next_writer(tmp_path: Path) -> None:
    killed = LocalStore(tmp_path)
    killed.set_many({"a": "A", "b": "B"})  # committed, never closed: the process died here
    assert _rows(tmp_path, "recent") == [("a", "A"), ("b", "B")] and _rows(tmp_path, "translations") == []
    reader = LocalStore(tmp_path)
    assert reader.get_many(["a", "b", "c"]) == {"a": "A", "b": "B"}
    assert reader.stats()["entries"] == 2
    reader.close()  # wrote nothing: folds nothing
    assert _rows(tmp_path, "recent") == [("a", "A"), ("b", "B")]
    writer = LocalStore(tmp_path)
    writer.set_many({"c": "C"})
    writer.close()
    assert _rows(tmp_path, "recent") == []
    assert _rows(tmp_path, "translations") == [("a", "A"), ("b", "B"), ("c", "C")]


def test_the_later_entry_wins_before_and_after_folding(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    store.set_many({"k": "old", "j": "J"})
    store.close()
    store = LocalStore(tmp_path)
    store.set_many({"k": "newer"})
    store.set_many({"k": "newest"})
    assert store.get_many(["k", "j"]) == {"k": "newest", "j": "J"}
    assert store.stats()["entries"] == 2
    store.close()
    assert _rows(tmp_path, "translations") == [("j", "J"), ("k", "newest")]


def test_a_connection_folds_once_it_appended_enough(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pipeline.cache.local.FOLD_AT", 3)
    store = LocalStore(tmp_path)
    store.set_many({"a": "A", "b": "B"})
    assert _rows(tmp_path, "recent") == [("a", "A"), ("b", "B")]
    store.set_many({"c": "C"})  # the third: everything is folded in the same transaction
    assert _rows(tmp_path, "recent") == [] and [k for k, _ in _rows(tmp_path, "translations")] == ["a", "b", "c"]
    assert store.get_many(["a", "b", "c"]) == {"a": "A", "b": "B", "c": "C"}
    store.close()


def test_clearing_empties_both_tables(tmp_path: Path) -> None:
    killed = LocalStore(tmp_path)
    killed.set_many({"a": "A"})
    folded = LocalStore(tmp_path)
    folded.set_many({"b": "B"})
    folded.close()
    killed.set_many({"c": "C"})
    store = LocalStore(tmp_path)
    assert store.clear() == 3
    assert store.get_many(["a", "b", "c"]) == {} and store.stats()["entries"] == 0
    store.close()


def test_a_cache_file_that_can_take_no_more_entries_is_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A full disk under the cache folder: the first write failed and the run dropped the whole file, so every
    # later lookup (the next windows, the plural round) missed what earlier runs had paid for, and paid again.
    earlier = TranslationCache(tmp_path)
    earlier.set_many({"paid-before": "Vorher bezahlt"})
    earlier.close()

    def full(self: LocalStore, items: Mapping[str, str]) -> None:
        raise LocalStoreError("database or disk is full")

    monkeypatch.setattr(LocalStore, "set_many", full)
    said: list[str] = []
    cache = TranslationCache(tmp_path, log=said.append)
    cache.set_many({"paid-now": "Jetzt bezahlt"})
    assert cache.get_many(["paid-before", "paid-now"]) == {"paid-before": "Vorher bezahlt", "paid-now": "Jetzt bezahlt"}
    cache.set_many({"paid-later": "Später bezahlt"})
    assert cache.get("paid-later") == "Später bezahlt"
    assert len(said) == 1 and "database or disk is full" in said[0], said
    assert "still read" in said[0] and "in memory" in said[0], said
    cache.close()
    assert not cache.kept  # what this run paid for is not where the next run finds it


def test_a_write_that_fills_the_cache_file_says_so_not_that_nothing_was_there_to_roll_back(tmp_path: Path) -> None:
    # SQLite ends the transaction itself when the file cannot grow; the ROLLBACK after it then failed in turn and
    # its "cannot rollback - no transaction is active" was the reason shown for the cache (and the run state).
    store = LocalStore(tmp_path)
    store.set_many({"first": "Erste"})
    (pages,) = store._db.execute("PRAGMA page_count").fetchone()
    store._db.execute(f"PRAGMA max_page_count={pages}")  # a full disk, as SQLite meets it
    with pytest.raises(LocalStoreError, match="database or disk is full"):
        store.set_many({f"key {n}": "x" * 3000 for n in range(20)})
    assert store.get_many(["first", "key 1"]) == {"first": "Erste"}
    store.close()
