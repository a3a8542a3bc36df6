"""The content-hash cache and the report files."""

from __future__ import annotations

import json

from pipeline.cache import TranslationCache, cache_key
from pipeline.model import Counters, Issue, TranslationOptions
from pipeline.report import to_json, to_markdown, write_reports
from pipeline.run import CatalogReport, RunReport

OPTS = TranslationOptions(source_lang="EN", target_lang="DE")


def test_every_output_changing_input_changes_the_key():
    base = cache_key("svc", OPTS, "Hello")
    variants = [
        cache_key("other", OPTS, "Hello"),
        cache_key("svc", OPTS, "Hello "),
        cache_key("svc", TranslationOptions("EN", "FR"), "Hello"),
        cache_key("svc", TranslationOptions("EN", "DE", context="verb"), "Hello"),
        cache_key("svc", TranslationOptions("EN", "DE", formality="prefer_more"), "Hello"),
        cache_key("svc", TranslationOptions("EN", "DE", glossary_id="g"), "Hello"),
    ]
    assert base == cache_key("svc", OPTS, "Hello") and len({base, *variants}) == 7


def test_disk_cache_persists(tmp_path):
    cache = TranslationCache(tmp_path / "c")
    cache.set("k", "Hallo")
    cache.close()
    again = TranslationCache(tmp_path / "c")
    assert again.get("k") == "Hallo" and again.get("missing") is None
    again.close()


def sample_report() -> RunReport:
    report = RunReport(service="embedded/0.1.0", dry_run=False)
    de = CatalogReport("po/de.po", "DE", Counters(billed_characters=10, requests=1, segments_translated=2), True)
    fr = CatalogReport("po/fr.po", "FR", Counters(segments_from_cache=3, characters_saved=30))
    report.catalogs = [de, fr]
    for c in report.catalogs:
        report.totals.add(c.counters)
    report.issues = [Issue("po/de.po", "placeholder '%s' missing | here", 12, "DE")]
    report.exit_code = 1
    return report


def test_report_json_has_the_documented_fields(tmp_path):
    json_path, md_path = write_reports(sample_report(), tmp_path / "out")
    data = json.loads(json_path.read_text())
    assert data["totals"]["billed_characters"] == 10 and data["totals"]["segments_from_cache"] == 3
    assert [c["path"] for c in data["catalogs"]] == ["po/de.po", "po/fr.po"]
    assert data["catalogs"][0]["target_lang"] == "DE" and data["catalogs"][0]["requests"] == 1
    assert data["languages"]["FR"]["characters_saved"] == 30
    assert data["issues"] == [{"catalog": "po/de.po", "line": 12, "target_lang": "DE", "severity": "error",
                               "reason": "placeholder '%s' missing | here"}]
    assert md_path.read_text() == to_markdown(sample_report())


def test_report_markdown_escapes_table_cells():
    md = to_markdown(sample_report())
    assert "| `po/de.po` | DE | 2 | 0 | 0 | 0 | 0 | 10 |" in md
    assert "`po/de.po:12` (error, DE): placeholder '%s' missing \\| here" in md
    assert to_json(sample_report())["exit_code"] == 1
