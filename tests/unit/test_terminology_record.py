"""The offline record that tells a run whether glossary and style files changed since the last sync."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.config import Settings, load_settings
from pipeline.resources.synced import RECORD_NAME, SyncRecord, fingerprint
from tests.run_fakes import cache_dir

CONFIG = """source_lang = "en"
[service]
url = "embedded"
[cache]
dir = "cache"
[locales.de]
glossaries = ["de.tsv"]
[locales.fr.style]
name = "French"
rules = { punctuation = { quotation_mark = "use_guillemets" } }
"""


def project(tmp_path: Path, config: str = CONFIG) -> Settings:
    (tmp_path / "pipeline.toml").write_text(config, encoding="utf-8")
    (tmp_path / "de.tsv").write_text("file\tDatei\n", encoding="utf-8")
    return load_settings(None, cwd=tmp_path)


def test_the_files_bytes_and_the_style_tables_decide(tmp_path: Path) -> None:
    settings = project(tmp_path)
    first = fingerprint(settings)
    assert first is not None and fingerprint(settings) == first
    (tmp_path / "de.tsv").write_text("file\tAkte\n", encoding="utf-8")
    edited = fingerprint(settings)
    assert edited != first
    styled = project(tmp_path, CONFIG.replace("use_guillemets", "use_double_quotes"))
    assert fingerprint(styled) not in (first, edited)
    bare = tmp_path / "bare"
    bare.mkdir()
    assert fingerprint(project(bare, '[service]\nurl = "embedded"\n')) is None  # no resources: nothing to sync


def test_a_sync_is_needed_until_recorded_per_service_and_never_without_a_state_folder(tmp_path: Path) -> None:
    settings = project(tmp_path)
    current = fingerprint(settings)
    assert current is not None
    record = SyncRecord(settings.cache_dir)
    assert record.needs_sync("embedded/1", current)
    record.save("embedded/1", current)
    again = SyncRecord(settings.cache_dir)  # the next run
    assert not again.needs_sync("embedded/1", current)
    assert again.needs_sync("http://other.example", current)  # another service has its own copy
    again.save("http://other.example", current)
    assert set(json.loads((cache_dir(settings) / RECORD_NAME).read_text())["synced"]) == {
        "embedded/1",
        "http://other.example",
    }
    assert not SyncRecord(None).needs_sync("embedded/1", current)
    assert not record.needs_sync("embedded/1", None)


def test_a_damaged_record_means_sync_again(tmp_path: Path) -> None:
    settings = project(tmp_path)
    cache_dir(settings).mkdir(parents=True)
    (cache_dir(settings) / RECORD_NAME).write_text("{ not json")
    assert SyncRecord(settings.cache_dir).needs_sync("embedded/1", fingerprint(settings))
