"""The language data files of the local service: counts, statuses, features, and their agreement with the contract."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from pipeline.protocol import FORMALITY_TARGETS, STYLE_LANGUAGES
from pipeline.service.data import tables

#: resource -> (languages, stable, beta, usable as source, usable as target), as the files hold them.
COUNTS = {
    "translate_text": (123, 40, 83, 114, 120),
    "translate_document": (122, 40, 82, 113, 119),
    "glossary": (33, 33, 0, 33, 33),
    "voice": (44, 39, 5, 38, 44),
    "write": (14, 14, 0, 9, 14),
    "style_rules": (8, 8, 0, 0, 8),
    "translation_memory": (12, 12, 0, 8, 12),
}


@pytest.mark.parametrize("resource", tables.RESOURCES)
def test_counts_per_resource(resource: str) -> None:
    table = tables.load(resource)
    statuses = Counter(row.status for row in table.languages)
    figures = (
        len(table.languages),
        statuses["stable"],
        statuses["beta"],
        sum(row.source for row in table.languages),
        sum(row.target for row in table.languages),
    )
    assert figures == COUNTS[resource]
    assert len({row.code.lower() for row in table.languages}) == len(table.languages)  # no duplicates


@pytest.mark.parametrize("resource", tables.RESOURCES)
def test_every_file_names_its_sources_and_date(resource: str) -> None:
    table = tables.load(resource)
    assert table.sources and all(source.strip() for source in table.sources)
    assert dt.date.fromisoformat(table.retrieved) <= dt.date(2026, 12, 31)


def test_irish_is_a_beta_language_without_glossary_formality_or_style_rules() -> None:
    irish = tables.load("translate_text").find("GA")
    assert irish is not None and (irish.name, irish.status, irish.source, irish.target) == ("Irish", "beta", True, True)
    assert irish.features == ("tag_handling",)
    assert tables.load("glossary").find("ga") is None
    assert tables.load("translate_document").find("ga") is not None


def test_todays_languages_are_offered_for_text_translation() -> None:
    table = tables.load("translate_text")
    for code in ("hr", "sr", "sq", "bs", "mk", "ga", "hi", "sw"):
        row = table.find(code)
        assert row is not None and row.status == "beta" and row.target, code
    german, japanese = table.find("de"), table.find("ja")
    assert german is not None and japanese is not None
    assert german.status == "stable" and japanese.features == (
        "formality",
        "glossary",
        "tag_handling",
        "style_rules",
        "translation_memory",
        "auto_detection",
    )


def test_text_features_agree_with_the_contracts_lists() -> None:
    table = tables.load("translate_text")
    formality = {row.v2 for row in table.languages if "formality" in row.features}
    assert formality == FORMALITY_TARGETS
    style = {row.code for row in table.languages if "style_rules" in row.features}
    assert {code.split("-")[0] for code in style} == set(STYLE_LANGUAGES)
    assert [row.code for row in tables.load("style_rules").languages] == list(STYLE_LANGUAGES)


def test_document_formality_leaves_out_latin_american_spanish() -> None:
    formality = {row.v2 for row in tables.load("translate_document").languages if "formality" in row.features}
    assert formality == FORMALITY_TARGETS - {"ES-419"}


def test_variants_are_targets_only_and_glossaries_use_base_languages() -> None:
    text = tables.load("translate_text")
    variants = [row for row in text.languages if "-" in row.code]
    assert {row.code for row in variants} == {
        "en-GB",
        "en-US",
        "es-419",
        "pt-BR",
        "pt-PT",
        "zh-Hans",
        "zh-Hant",
        "de-CH",
        "fr-CA",
    }
    assert all(row.target and not row.source for row in variants)
    assert all("-" not in row.code for row in tables.load("glossary").languages)


def test_write_styles_and_tones_follow_the_contract() -> None:
    write = tables.load("write")
    styled = {row.code for row in write.languages if "writing_style" in row.features}
    assert styled == {"de", "en-GB", "en-US", "es", "fr", "it", "pt-BR", "pt-PT"}
    assert styled == {row.code for row in write.languages if "tone" in row.features}


def test_resources_list_their_features_with_the_sides_they_need() -> None:
    features = {f.name: f for f in tables.load("translate_text").features}
    assert (features["glossary"].needs_source_support, features["glossary"].needs_target_support) == (True, True)
    assert (features["formality"].needs_source_support, features["formality"].needs_target_support) == (False, True)
    assert tables.load("style_rules").features == () and tables.load("glossary").features == ()


def test_an_inconsistent_file_fails_at_load_time(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = {
        "sources": ["test"],
        "retrieved": "2026-11-23",
        "features": [
            {"name": "glossary", "needs_source_support": True, "needs_target_support": True, "languages": ["xx"]}
        ],
        "languages": [{"lang": "de", "status": "stable", "usable_as_source": True, "usable_as_target": True}],
    }
    real_read = tables._read
    monkeypatch.setattr(tables, "_read", lambda name: broken if name == "write" else real_read(name))
    tables.load.cache_clear()
    try:
        with pytest.raises(ValueError, match="'xx', which is not listed"):
            tables.load("write")
    finally:
        tables.load.cache_clear()


def test_unknown_resource_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        tables.load("speech")
