"""``pipeline cache stats|clear`` on the local folder.

The shared store's side is in tests/integration/test_redis_cache.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cache import TranslationCache
from pipeline.cache.local import LocalStore
from pipeline.cli import main


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("PIPELINE_CACHE_URL", raising=False)
    path = tmp_path / "pipeline.toml"
    path.write_text('[service]\nurl = "embedded"\n[cache]\ndir = "cache"\n', encoding="utf-8")
    return str(path)


def test_stats_then_clear_then_stats_again(tmp_path: Path, config: str, capsys: pytest.CaptureFixture[str]) -> None:
    cache = TranslationCache(tmp_path / "cache")
    cache.set_many({"a": "A", "b": "B"})
    cache.close()
    assert main(["cache", "stats", "--config", config]) == 0
    out = capsys.readouterr().out
    assert "local (" in out and "translations.sqlite3): 2 entries" in out and "shared: not configured" in out
    assert main(["cache", "clear", "--config", config]) == 0
    assert "2 entries removed" in capsys.readouterr().out
    assert main(["cache", "stats", "--json", "--config", config]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["local"]["entries"] == 0 and figures["shared"] is None


def test_all_services_without_shared_is_a_usage_error(config: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cache", "clear", "--all-services", "--config", config]) == 2
    assert "--shared" in capsys.readouterr().err


def test_a_cache_file_that_cannot_be_opened_is_reported_not_a_traceback(
    tmp_path: Path, config: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cache" / "translations.sqlite3").mkdir(parents=True)  # a folder where the file goes
    assert main(["cache", "stats", "--config", config]) == 1
    out = capsys.readouterr().out
    assert "unavailable" in out and "Traceback" not in out


def test_a_damaged_cache_file_is_set_aside_and_said(
    tmp_path: Path, config: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "translations.sqlite3").write_bytes(b"garbage" * 1000)
    assert main(["cache", "stats", "--config", config]) == 0
    out = capsys.readouterr().out
    (aside,) = (tmp_path / "cache").glob("translations.sqlite3.damaged-*")
    assert ": 0 entries, " in out
    assert f"(the file was not a database SQLite can read: moved to {aside}, a new one made)\n" in out


def test_a_cache_file_malformed_past_its_schema_is_set_aside_by_clear(
    tmp_path: Path, config: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = LocalStore(tmp_path / "cache")
    store.set_many({f"k{i}": "v" * 100 for i in range(200)})
    store.close()
    path = tmp_path / "cache" / "translations.sqlite3"
    data = bytearray(path.read_bytes())
    data[4096:] = b"\x07" * (len(data) - 4096)  # every page but the schema's: "malformed" once read
    path.write_bytes(bytes(data))
    assert main(["cache", "clear", "--config", config]) == 0
    out = capsys.readouterr().out
    (aside,) = (tmp_path / "cache").glob("translations.sqlite3.damaged-*[0-9Z]")  # its -wal and -shm beside it
    assert f"(the file was not a database SQLite can read: moved to {aside}, a new one made)\n" in out
    assert main(["cache", "stats", "--config", config]) == 0
    assert ": 0 entries, " in capsys.readouterr().out
