"""Conformance over HTTP: language discovery (v3 and the deprecated v2 endpoints)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.integration.service.conftest import Keys

pytestmark = pytest.mark.integration

SOURCES = [
    "AR",
    "BG",
    "CS",
    "DA",
    "DE",
    "EL",
    "EN",
    "ES",
    "ET",
    "FI",
    "FR",
    "HE",
    "HU",
    "ID",
    "IT",
    "JA",
    "KO",
    "LT",
    "LV",
    "NB",
    "NL",
    "PL",
    "PT",
    "RO",
    "RU",
    "SK",
    "SL",
    "SV",
    "TH",
    "TR",
    "UK",
    "VI",
    "ZH",
]
#: The unspecified EN, PT and ZH are sources only in v3 (the real service's description shows ``en``
#: with ``usable_as_target: false``; its target list called all three "unspecified variant for backward
#: compatibility"); the deprecated ZH is still accepted as a target and listed by v2.
TARGETS = sorted(
    [c for c in SOURCES if c not in ("EN", "PT", "ZH")]
    + ["EN-GB", "EN-US", "ES-419", "PT-BR", "PT-PT", "ZH-HANS", "ZH-HANT"]
)
FORMALITY = {"DE", "FR", "IT", "ES", "ES-419", "NL", "PL", "PT-BR", "PT-PT", "JA", "RU"}
STYLE_BASES = {"de", "en", "es", "fr", "it", "ja", "ko", "zh"}
RESOURCES = ["translate_text", "translate_document", "glossary", "voice", "write", "style_rules", "translation_memory"]
#: Languages the real service added in beta (documentation, 2026), all of them text sources and targets.
NEW_BETA = 81
#: Codes the real service leaves out of the deprecated v2 listings (its official mock's list).
V2_HIDDEN = {"ACE", "BHO", "CEB", "CKB", "GOM", "KMR", "LMO", "MAI", "PAG", "PAM", "PRS", "SCN", "YUE"}


@pytest.fixture
def languages(http: httpx.Client, keys: Keys) -> Callable[[str], httpx.Response]:
    def get(query: str) -> httpx.Response:
        return http.get(f"/v3/languages?{query}", headers=keys.paid)

    return get


def by_code(response: httpx.Response) -> dict[str, dict[str, Any]]:
    assert response.status_code == 200, response.text
    return {entry["lang"]: entry for entry in response.json()}


def test_translate_text_languages(languages: Callable[[str], httpx.Response]) -> None:
    entries = by_code(languages("resource=translate_text"))
    sources = sorted(c.upper() for c, e in entries.items() if e["usable_as_source"])
    targets = sorted(c.upper() for c, e in entries.items() if e["usable_as_target"])
    assert sources == sorted(SOURCES)
    assert targets == TARGETS
    assert {"en-US", "en-GB", "zh-Hant", "zh-Hans", "es-419", "pt-BR", "pt-PT", "nb"} <= set(entries)
    assert all(e["status"] == "stable" for e in entries.values())
    assert entries["en-US"]["name"] == "English (American)"
    for code, entry in entries.items():
        assert set(entry) == {"lang", "name", "usable_as_source", "usable_as_target", "status", "features"}
        features = entry["features"]
        assert ("formality" in features) == (code.upper() in FORMALITY)
        assert ("style_rules" in features) == (entry["usable_as_target"] and code.split("-")[0] in STYLE_BASES)
        # The real service detects every stable source language but Thai.
        assert ("auto_detection" in features) == (entry["usable_as_source"] and code != "th")
        assert {"glossary", "tag_handling"} <= set(features)
        assert all(value == {"status": "stable"} for value in features.values())


@pytest.mark.parametrize("resource", ["translate_text", "translate_document"])
def test_unspecified_chinese_is_listed_as_a_source_only_like_english(
    languages: Callable[[str], httpx.Response], resource: str
) -> None:
    """``zh`` as a target is deprecated (ZH-HANS or ZH-HANT instead): v3 lists it as ``en`` and ``pt``."""
    entries = by_code(languages(f"resource={resource}"))
    for code in ("en", "pt", "zh"):
        assert (entries[code]["usable_as_source"], entries[code]["usable_as_target"]) == (True, False), code
    for code in ("zh-Hans", "zh-Hant"):
        assert (entries[code]["usable_as_source"], entries[code]["usable_as_target"]) == (False, True), code


def test_beta_languages_only_with_include_beta(languages: Callable[[str], httpx.Response]) -> None:
    default = by_code(languages("resource=translate_text"))
    assert "de-CH" not in default and "fr-CA" not in default
    for query in (
        "resource=translate_text&include=beta",
        "resource=translate_text&include=beta&include=external",
        "resource=translate_text&include=beta,external",
    ):
        beta = by_code(languages(query))
        assert beta["de-CH"]["status"] == "beta" and beta["fr-CA"]["status"] == "beta"
        assert beta["de-CH"]["usable_as_target"] and not beta["de-CH"]["usable_as_source"]
        assert len(beta) == len(default) + NEW_BETA + 2
        assert (beta["ga"]["status"], beta["ga"]["usable_as_source"], beta["ga"]["usable_as_target"]) == (
            "beta",
            True,
            True,
        )
        assert beta["ga"]["features"] == {"tag_handling": {"status": "stable"}}  # no glossary, formality, style
    assert by_code(languages("resource=translate_text&include=external")) == default


def test_language_query_errors(
    languages: Callable[[str], httpx.Response], error: Callable[[httpx.Response, int], str]
) -> None:
    assert error(languages(""), 400) == ("query parameter 'resource' is required; one of " + ", ".join(RESOURCES))
    assert error(languages("resource=translation"), 400) == (
        "invalid value 'translation' for 'resource'; allowed: " + ", ".join(RESOURCES)
    )
    assert error(languages("resource=glossary&include=alpha"), 400) == (
        "invalid value 'alpha' for 'include'; allowed: beta, external"
    )
    assert error(languages("resource=glossary&resource=voice"), 400) == (
        "query parameter 'resource' may be given only once"
    )
    assert error(languages("product=translate_text"), 400).startswith("query parameter 'resource' is required")


@pytest.mark.parametrize("resource", RESOURCES)
def test_every_resource_lists_languages(languages: Callable[[str], httpx.Response], resource: str) -> None:
    entries = by_code(languages(f"resource={resource}"))
    assert entries
    assert all(isinstance(e["features"], dict) for e in entries.values())


def test_write_resource_features(languages: Callable[[str], httpx.Response]) -> None:
    entries = by_code(languages("resource=write"))
    styled = {c for c, e in entries.items() if {"writing_style", "tone"} <= set(e["features"])}
    assert styled == {"de", "en-GB", "en-US", "es", "fr", "it", "pt-BR", "pt-PT"}
    assert {"ja", "ko", "zh", "zh-Hans", "en", "pt", "pt-BR"} <= set(entries)


def test_style_rules_and_glossary_resources(languages: Callable[[str], httpx.Response]) -> None:
    style = by_code(languages("resource=style_rules"))
    assert set(style) == STYLE_BASES
    assert all(e["usable_as_target"] and not e["usable_as_source"] and e["features"] == {} for e in style.values())
    glossary = by_code(languages("resource=glossary"))
    assert sorted(c.upper() for c in glossary) == sorted(SOURCES)


def test_document_formality_excludes_es_419(languages: Callable[[str], httpx.Response]) -> None:
    entries = by_code(languages("resource=translate_document"))
    assert "formality" in entries["es"]["features"]
    assert "formality" not in entries["es-419"]["features"]
    assert "tag_handling" not in entries["de"]["features"]


def test_language_resources(http: httpx.Client, keys: Keys) -> None:
    response = http.get("/v3/languages/resources", headers=keys.paid)
    assert response.status_code == 200
    resources = {r["name"]: {f["name"]: f for f in r["features"]} for r in response.json()}
    assert list(resources) == RESOURCES
    text = resources["translate_text"]
    assert set(text) == {"formality", "glossary", "tag_handling", "style_rules", "translation_memory", "auto_detection"}
    assert (text["formality"]["needs_source_support"], text["formality"]["needs_target_support"]) == (False, True)
    assert (text["glossary"]["needs_source_support"], text["glossary"]["needs_target_support"]) == (True, True)
    assert (text["auto_detection"]["needs_source_support"], text["auto_detection"]["needs_target_support"]) == (
        True,
        False,
    )
    assert set(resources["write"]) == {"writing_style", "tone", "auto_detection"}
    assert resources["style_rules"] == {} and resources["translation_memory"] == {}


def test_feature_check_rule_for_a_pair(
    languages: Callable[[str], httpx.Response], http: httpx.Client, keys: Keys
) -> None:
    """A feature works for a pair when every side it needs lists it."""
    entries = by_code(languages("resource=translate_text"))
    resources = {r["name"]: r for r in http.get("/v3/languages/resources", headers=keys.paid).json()}
    needs = {f["name"]: f for f in resources["translate_text"]["features"]}

    def supported(feature: str, source: str, target: str) -> bool:
        rule = needs[feature]
        return (not rule["needs_source_support"] or feature in entries[source]["features"]) and (
            not rule["needs_target_support"] or feature in entries[target]["features"]
        )

    assert supported("formality", "en", "de") and not supported("formality", "de", "en-US")
    assert supported("style_rules", "de", "en-GB") and not supported("style_rules", "en", "sv")


def test_v2_languages(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    """v2 derives from the same data: the stable languages and the new ones, less what v2 never lists."""
    sources = http.get("/v2/languages", headers=keys.paid).json()
    codes = {x["language"] for x in sources}
    assert set(SOURCES) <= codes and "GA" in codes and not codes & V2_HIDDEN
    assert len(sources) == len(SOURCES) + NEW_BETA - len(V2_HIDDEN)
    assert all(set(x) == {"language", "name"} for x in sources)
    assert http.get("/v2/languages?type=source", headers=keys.paid).json() == sources
    targets = http.get("/v2/languages?type=target", headers=keys.paid).json()
    target_codes = {x["language"] for x in targets}
    assert set(TARGETS) | {"ZH"} <= target_codes and not target_codes & (V2_HIDDEN | {"EN", "PT", "DE-CH", "FR-CA"})
    assert len(targets) == len(TARGETS) + 1 + NEW_BETA - len(V2_HIDDEN)
    assert all(set(x) == {"language", "name", "supports_formality"} for x in targets)
    assert {x["language"] for x in targets if x["supports_formality"]} == FORMALITY
    # The deprecated unspecified Chinese, served as Simplified Chinese, is named so (the official mock's name).
    assert {"language": "ZH", "name": "Chinese (simplified)", "supports_formality": False} in targets
    assert error(http.get("/v2/languages?type=both", headers=keys.paid), 400) == (
        "invalid value 'both' for 'type'; allowed: source, target"
    )


def test_v2_glossary_language_pairs(http: httpx.Client, keys: Keys) -> None:
    response = http.get("/v2/glossary-language-pairs", headers=keys.paid)
    pairs = response.json()["supported_languages"]
    assert len(pairs) == len(SOURCES) * (len(SOURCES) - 1)
    assert {"source_lang": "de", "target_lang": "en"} in pairs
    # Lower case, as the real service sends them.
    assert all(p["source_lang"] != p["target_lang"] and p["source_lang"].islower() for p in pairs)


def test_v2_languages_read_the_type_from_a_form_body(http: httpx.Client, keys: Keys) -> None:
    """The official clients send ``type=target`` in a form body of the GET."""
    form = {**keys.paid, "Content-Type": "application/x-www-form-urlencoded"}
    targets = http.request("GET", "/v2/languages", content=b"type=target", headers=form).json()
    assert targets == http.get("/v2/languages?type=target", headers=keys.paid).json()
    as_json = http.request("GET", "/v2/languages", json={"type": "target"}, headers=keys.paid).json()
    assert as_json == targets
    # The query wins over the body, as the query is what the spec names.
    query_first = http.request("GET", "/v2/languages?type=source", content=b"type=target", headers=form).json()
    assert query_first == http.get("/v2/languages", headers=keys.paid).json()


def test_free_tier_may_discover_languages(http: httpx.Client, keys: Keys) -> None:
    assert http.get("/v3/languages?resource=translate_text", headers=keys.free).status_code == 200
    assert http.get("/v2/languages", headers=keys.free).status_code == 200
