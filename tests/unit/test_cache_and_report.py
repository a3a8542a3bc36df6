"""The content-hash cache and the report files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.cache import TranslationCache
from pipeline.model import Counters, Issue, Severity
from pipeline.run.keys import cache_key
from pipeline.run.records import CatalogReport, Remaining, RunReport, Stop, StopReason
from pipeline.run.report import to_json, to_markdown, write_reports
from pipeline.segments import TranslationOptions

OPTS = TranslationOptions(source_lang="EN", target_lang="DE")


def test_every_output_changing_input_changes_the_key() -> None:
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


def test_the_key_covers_every_translation_option() -> None:
    """Content hashes, not just ids: a glossary replaced under the same id must miss the cache."""
    changed: dict[str, Any] = {
        "source_lang": "FR",
        "target_lang": "FR",
        "context": "c",
        "formality": "more",
        "glossary_id": "g",
        "style_id": "s",
        "model_type": "quality_optimized",
        "glossary_hash": "h1",
        "style_version": "v2",
        "custom_instructions": ("be brief",),
        "translation_memory_id": "tm",
        "translation_memory_threshold": 80,
        "tag_handling_version": "v2",
    }
    # A new field must be tested here (the memory's version below: it counts only with a memory).
    assert {*changed, "translation_memory_version"} == set(TranslationOptions._fields)
    keys = {cache_key("svc", OPTS._replace(**{name: value}), "Hello") for name, value in changed.items()}
    assert len(keys) == len(changed) and cache_key("svc", OPTS, "Hello") not in keys
    memory = OPTS._replace(translation_memory_id="tm")
    versions = {cache_key("svc", memory._replace(translation_memory_version=v), "Hello") for v in (None, "a", "b")}
    assert len(versions) == 3  # an edited memory misses; not yet known is a key of its own
    assert cache_key("svc", OPTS._replace(translation_memory_version="a"), "Hello") == cache_key("svc", OPTS, "Hello")
    assert OPTS._replace(glossary_hash="a").inputs_hash() != OPTS._replace(glossary_hash="b").inputs_hash()
    assert OPTS._replace(context="x").inputs_hash() == OPTS.inputs_hash()  # context is per unit, not an input


def test_the_key_covers_the_protection_scheme(monkeypatch: pytest.MonkeyPatch) -> None:
    import pipeline.run.keys as cache_module

    before = cache_key("svc", OPTS, "Hello")
    monkeypatch.setattr(cache_module, "SCHEME_VERSION", "another")
    assert cache_key("svc", OPTS, "Hello") != before


def test_disk_cache_persists(tmp_path: Path) -> None:
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


def test_report_json_has_the_documented_fields(tmp_path: Path) -> None:
    json_path, md_path = write_reports(sample_report(), tmp_path / "out")
    data = json.loads(json_path.read_text())
    assert data["totals"]["billed_characters"] == 10 and data["totals"]["segments_from_cache"] == 3
    assert [c["path"] for c in data["catalogs"]] == ["po/de.po", "po/fr.po"]
    assert data["catalogs"][0]["target_lang"] == "DE" and data["catalogs"][0]["requests"] == 1
    assert data["languages"]["FR"]["characters_saved"] == 30
    assert data["issues"] == [
        {
            "catalog": "po/de.po",
            "line": 12,
            "target_lang": "DE",
            "severity": "error",
            "reason": "placeholder '%s' missing | here",
        }
    ]
    assert md_path.read_text() == to_markdown(sample_report())


def test_report_markdown_escapes_table_cells() -> None:
    md = to_markdown(sample_report())
    assert "| `po/de.po` | DE | 2 | 0 | 0 | 0 | 0 | 10 |" in md
    assert "| `po/de.po:12` | DE | error | placeholder '%s' missing \\| here |" in md
    assert to_json(sample_report())["exit_code"] == 1


def test_report_markdown_is_a_job_summary_with_per_language_totals() -> None:
    report = sample_report()
    report.context_requests, report.budget, report.stopped = (
        2,
        100,
        Stop(StopReason.BUDGET, "budget of 100 billed characters reached"),
    )
    report.remaining = Remaining(segments=5, texts=4, characters=60)
    md = to_markdown(report)
    assert md.startswith("## Translation run\n\n**Stopped early:** budget of 100")
    assert "Left for the next run: 5 segments (4 unique texts, 60 characters)." in md
    assert "10 characters billed of a budget of 100, 30 saved by the cache" in md
    assert "(2 of them because requests are grouped by context)" in md
    assert "| DE | 1 | 2 | 0 | 0 | 0 | 0 | 10 | 0 |" in md and "| FR | 1 | 0 | 3 | 0 | 0 | 0 | 0 | 30 |" in md
    assert "| **total** | 2 | 2 | 3 | 0 | 0 | 0 | 10 | 30 |" in md
    tables: list[list[int]] = []  # per table, the number of cell borders of each row
    for line, before in zip(md.splitlines(), ["", *md.splitlines()], strict=False):
        if line.startswith("|"):
            if not before.startswith("|"):
                tables.append([])
            tables[-1].append(line.replace("\\|", "").count("|"))
    # languages (9 columns), catalogs (8), issues (4): every row as wide as its own table's header
    assert [rows[0] for rows in tables] == [10, 9, 5]
    assert all(set(rows) == {rows[0]} for rows in tables), tables


def test_report_markdown_caps_issues_and_folds_many_catalogs() -> None:
    report = sample_report()
    report.catalogs = [CatalogReport(f"po/{n}.po", "DE") for n in range(30)]
    report.issues = [Issue("po/a.po", f"reason {n}", n + 1, "DE", Severity.SKIPPED) for n in range(150)]
    md = to_markdown(report)
    assert "<details><summary>Catalogs (30)</summary>" in md
    assert "### Failed and skipped segments (150)" in md and "... and 50 more in report.json." in md
    assert len(to_json(report)["issues"]) == 150


def test_report_json_has_the_run_extras() -> None:
    report = sample_report()
    report.budget, report.remaining, report.context_requests = 50, Remaining(segments=1, texts=1, characters=9), 3
    report.unchanged_catalogs = 4
    report.catalogs.append(CatalogReport("po/pl.po", "PL", unchanged=True))
    data = to_json(report)
    assert data["budget"] == 50 and data["remaining"]["characters"] == 9 and data["context_requests"] == 3
    assert data["unchanged_catalogs"] == 4 and data["languages"]["DE"]["catalogs"] == 1
    assert next(c for c in data["catalogs"] if c["path"] == "po/pl.po")["unchanged"] is True


def test_a_text_two_unsent_parts_share_remains_once_with_every_segment_that_waits_for_it() -> None:
    from pipeline.run.ledger import Ledger
    from pipeline.run.window import Pending
    from pipeline.segments import Protected, Segment, SegmentKey, TranslationOptions

    options = TranslationOptions("EN", "DE")

    def pending(key: str, text: str, units: range) -> Pending:
        refs = [Segment(SegmentKey("big.po", unit), text, unit + 1) for unit in units]
        return Pending(options, Protected(text, ()), key, refs)

    ledger = Ledger("embedded", dry_run=False, budget=None, log=lambda message: None)
    ledger.leave([pending("k-save", "Save", range(0, 2)), pending("k-open", "Open", range(2, 3))])
    ledger.leave([pending("k-save", "Save", range(10, 13))])  # the next part waits for the same text
    assert ledger.report.remaining == Remaining(segments=6, texts=2, characters=8)


def test_which_segments_the_service_translated_is_kept_only_for_a_reviewer_rejection() -> None:
    from pipeline.run.ledger import Ledger
    from pipeline.segments import SegmentKey

    asked, served = SegmentKey("de.po", 1), SegmentKey("de.po", 2)
    for keep in (True, False):
        ledger = Ledger("embedded", dry_run=False, budget=None, log=lambda message: None)
        ledger.keep_asked(keep)
        ledger.scanned("de.po", "DE", skipped=0, awaiting=0)
        ledger.translated(asked, "Gespeichert")
        ledger.served(served, "Geöffnet", characters=6)
        assert ledger.done == {asked: "Gespeichert", served: "Geöffnet"}
        if keep:  # withhold and a text asked again tell the service's translations from the cache's
            assert ledger.was_asked(asked) and not ledger.was_asked(served)
            ledger.withhold("de.po", [asked, served], sent={asked, served})
            counters = ledger.counters("de.po")
            assert (counters.segments_translated, counters.segments_from_cache, counters.segments_skipped) == (0, 0, 2)
        else:  # no rejection to honour: no entry per segment, and asking is a mistake said as one
            assert ledger.window.asked is None
            with pytest.raises(RuntimeError, match="no reviewer rejection"):
                ledger.was_asked(asked)
