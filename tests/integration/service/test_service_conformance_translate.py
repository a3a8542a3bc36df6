"""Conformance over HTTP: ``POST /v2/translate``, its parameters and rules 1-12."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from pipeline.service.engine.pseudo import transliterate
from tests.integration.service.conftest import Keys

pytestmark = pytest.mark.integration

TRANSLATE = "/v2/translate"
UUID = "6f1d7a0e-3c1b-4a55-9e0f-2b8d7c6a5e41"


@pytest.fixture
def translate(http: httpx.Client, keys: Keys) -> Callable[..., httpx.Response]:
    """POST a JSON translate body with the paid key; returns the response."""

    def post(body: dict[str, Any], headers: dict[str, str] | None = None) -> httpx.Response:
        return http.post(TRANSLATE, json=body, headers={**keys.paid, **(headers or {})})

    return post


def ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def texts_of(response: httpx.Response) -> list[str]:
    return [t["text"] for t in ok(response)["translations"]]


def test_response_shape_and_pseudo_translation(translate: Callable[..., httpx.Response]) -> None:
    body = ok(translate({"text": ["Hello world", "Second text"], "source_lang": "EN", "target_lang": "DE"}))
    assert list(body) == ["translations"]
    assert [sorted(t) for t in body["translations"]] == [["detected_source_language", "text"]] * 2
    assert [t["detected_source_language"] for t in body["translations"]] == ["EN", "EN"]
    out = [t["text"] for t in body["translations"]]
    assert out[0] != "Hello world" and out[1] != "Second text"
    assert out[0] == transliterate("Hello world", "DE")


def test_with_tag_handling_each_translation_says_which_tag_handling_version_served(
    translate: Callable[..., httpx.Response],
) -> None:
    # The real service's OpenAPI description: tag_handling_version on every translation when
    # tag_handling is set, the default (v1) included; absent without tag handling.
    body = {"text": ["<b>Hello</b>", "world"], "source_lang": "EN", "target_lang": "DE"}
    for extra, version in (
        ({"tag_handling": "xml"}, "v1"),
        ({"tag_handling": "html", "tag_handling_version": "v2"}, "v2"),
    ):
        items = ok(translate({**body, **extra}))["translations"]
        assert [t["tag_handling_version"] for t in items] == [version, version], extra
    assert all("tag_handling_version" not in t for t in ok(translate(body))["translations"])


def test_same_input_same_output_and_targets_differ(translate: Callable[..., httpx.Response]) -> None:
    body = {"text": ["Save the file 3 times."], "source_lang": "EN"}
    german = texts_of(translate({**body, "target_lang": "DE"}))
    assert german == texts_of(translate({**body, "target_lang": "DE"}))
    french = texts_of(translate({**body, "target_lang": "FR"}))
    british = texts_of(translate({**body, "source_lang": "DE", "target_lang": "EN-GB"}))
    american = texts_of(translate({**body, "source_lang": "DE", "target_lang": "EN-US"}))
    assert len({german[0], french[0], british[0], american[0], body["text"][0]}) == 5


def test_digits_and_edge_whitespace_are_kept(translate: Callable[..., httpx.Response]) -> None:
    [out] = texts_of(translate({"text": ["  Version 2.10 (build 4711)\n"], "source_lang": "EN", "target_lang": "FR"}))
    assert out.startswith("  ") and out.endswith(")\n")
    assert "2.10" in out and "4711" in out


def test_detected_source_language_when_source_omitted(translate: Callable[..., httpx.Response]) -> None:
    body = ok(
        translate(
            {"text": ["Guten Tag, wie geht es Ihnen heute?", "Bonjour, comment allez-vous ?"], "target_lang": "EN-US"}
        )
    )
    assert [t["detected_source_language"] for t in body["translations"]] == ["DE", "FR"]


def test_text_count_limit(
    translate: Callable[..., httpx.Response], error: Callable[[httpx.Response, int], str]
) -> None:
    assert len(texts_of(translate({"text": ["x"] * 50, "target_lang": "DE"}))) == 50
    assert error(translate({"text": ["x"] * 51, "target_lang": "DE"}), 400) == (
        "too many texts: 51; at most 50 per request"
    )
    assert error(translate({"target_lang": "DE"}), 400) == "parameter 'text' is required"
    assert error(translate({"text": [], "target_lang": "DE"}), 400) == "parameter 'text' must hold at least one text"


def test_target_lang_rules(
    translate: Callable[..., httpx.Response], error: Callable[[httpx.Response, int], str]
) -> None:
    assert error(translate({"text": ["x"]}), 400) == "parameter 'target_lang' is required"
    assert error(translate({"text": ["x"], "target_lang": "XX"}), 400) == "target_lang 'XX' is not supported"
    assert error(translate({"text": ["x"], "target_lang": "EN"}), 400) == (
        "target_lang 'EN' is not supported; use one of EN-GB, EN-US"
    )
    assert error(translate({"text": ["x"], "target_lang": "pt"}), 400) == (
        "target_lang 'pt' is not supported; use one of PT-BR, PT-PT"
    )
    for code in ("en-us", "EN-GB", "zh-hant", "ZH-HANS", "es-419", "pt-br", "de", "nb"):
        assert translate({"text": ["Hello"], "target_lang": code}).status_code == 200, code


def test_target_zh_is_served_as_zh_hans(translate: Callable[..., httpx.Response]) -> None:
    # Deprecated, still accepted by the real service and its official clients: unspecified Chinese
    # is Simplified Chinese.
    body = {"text": ["Save the file"], "source_lang": "EN"}
    for code in ("ZH", "zh"):
        assert texts_of(translate({**body, "target_lang": code})) == texts_of(
            translate({**body, "target_lang": "ZH-HANS"})
        )
    with_instructions = translate({**body, "target_lang": "ZH", "custom_instructions": ["Be brief"]})
    assert with_instructions.status_code == 200, with_instructions.text


def test_source_lang_rules(
    translate: Callable[..., httpx.Response], error: Callable[[httpx.Response, int], str]
) -> None:
    assert error(translate({"text": ["x"], "source_lang": "EN-US", "target_lang": "DE"}), 400) == (
        "source_lang 'EN-US' is not supported; use the base language 'EN'"
    )
    assert error(translate({"text": ["x"], "source_lang": "QQ", "target_lang": "DE"}), 400) == (
        "source_lang 'QQ' is not supported"
    )
    body = ok(translate({"text": ["Hello"], "source_lang": "en", "target_lang": "de"}))
    assert body["translations"][0]["detected_source_language"] == "EN"


@pytest.mark.parametrize("value", ["0", "1", "nonewlines"])
def test_split_sentences_values(translate: Callable[..., httpx.Response], value: str) -> None:
    assert texts_of(
        translate({"text": ["One. Two.\nThree"], "source_lang": "EN", "target_lang": "DE", "split_sentences": value})
    )


def test_split_sentences_invalid(
    translate: Callable[..., httpx.Response], error: Callable[[httpx.Response, int], str]
) -> None:
    assert error(translate({"text": ["x"], "target_lang": "DE", "split_sentences": "2"}), 400) == (
        "invalid value '2' for 'split_sentences'; allowed: 0, 1, nonewlines"
    )


@pytest.mark.parametrize(
    ("extra", "used"),
    [
        ({"source_lang": "EN", "model_type": "latency_optimized"}, "latency_optimized"),
        ({"source_lang": "EN", "model_type": "quality_optimized"}, "quality_optimized"),
        ({"source_lang": "EN", "model_type": "prefer_quality_optimized"}, "quality_optimized"),
        ({"model_type": "latency_optimized"}, "quality_optimized"),  # no source_lang: next-gen
        (
            {
                "source_lang": "EN",
                "model_type": "prefer_quality_optimized",
                "tag_handling": "xml",
                "tag_handling_version": "v2",
            },
            "quality_optimized",
        ),
        (
            {"source_lang": "EN", "model_type": "quality_optimized", "custom_instructions": ["Be brief."]},
            "quality_optimized",
        ),
    ],
)
def test_model_type_used(translate: Callable[..., httpx.Response], extra: dict[str, object], used: str) -> None:
    body = ok(translate({"text": ["Hello"], "target_lang": "DE", **extra}))
    assert body["model_type_used"] == used
    assert body["translations"][0]["model_type_used"] == used


def test_model_type_used_absent_without_model_type(translate: Callable[..., httpx.Response]) -> None:
    body = ok(translate({"text": ["Hello"], "target_lang": "DE", "tag_handling": "xml", "tag_handling_version": "v2"}))
    assert "model_type_used" not in body
    assert "model_type_used" not in body["translations"][0]


def test_model_type_invalid(
    translate: Callable[..., httpx.Response], error: Callable[[httpx.Response, int], str]
) -> None:
    assert error(translate({"text": ["x"], "target_lang": "DE", "model_type": "fast"}), 400) == (
        "invalid value 'fast' for 'model_type'; allowed: latency_optimized, quality_optimized, prefer_quality_optimized"
    )


@pytest.mark.parametrize(
    ("extra", "name"),
    [
        ({"tag_handling": "xml", "tag_handling_version": "v2"}, "tag_handling_version=v2"),
        ({"style_id": UUID}, "style_id"),
        ({"custom_instructions": ["Use short words."]}, "custom_instructions"),
        ({"translation_memory_id": UUID}, "translation_memory_id"),
    ],
)
def test_quality_only_options_refuse_latency_optimized(
    translate: Callable[..., httpx.Response],
    error: Callable[[httpx.Response, int], str],
    extra: dict[str, object],
    name: str,
) -> None:
    body = {"text": ["Hello"], "source_lang": "EN", "target_lang": "DE", "model_type": "latency_optimized", **extra}
    assert error(translate(body), 400) == (
        f"{name} requires quality_optimized models and cannot be combined with model_type=latency_optimized"
    )


def test_tag_handling_version_values(
    translate: Callable[..., httpx.Response], error: Callable[[httpx.Response, int], str]
) -> None:
    assert error(translate({"text": ["x"], "target_lang": "DE", "tag_handling_version": "v3"}), 400) == (
        "invalid value 'v3' for 'tag_handling_version'; allowed: v1, v2"
    )
    assert error(translate({"text": ["x"], "target_lang": "DE", "tag_handling": "json"}), 400) == (
        "invalid value 'json' for 'tag_handling'; allowed: xml, html"
    )


def test_custom_instructions_limits(
    translate: Callable[..., httpx.Response], error: Callable[[httpx.Response, int], str]
) -> None:
    base = {"text": ["Hello"], "source_lang": "EN", "target_lang": "DE"}
    assert ok(translate({**base, "custom_instructions": ["i" * 300] * 10}))
    assert error(translate({**base, "custom_instructions": ["i"] * 11}), 400) == (
        "too many custom_instructions: 11; at most 10 are allowed"
    )
    assert error(translate({**base, "custom_instructions": ["ok", "i" * 301]}), 400) == (
        "custom instruction 2 has 301 characters; at most 300 are allowed"
    )


@pytest.mark.parametrize(
    "target", ["DE", "EN-GB", "EN-US", "ES", "ES-419", "FR", "IT", "JA", "KO", "ZH-HANS", "ZH-HANT", "de-CH", "fr-CA"]
)
def test_custom_instructions_targets(translate: Callable[..., httpx.Response], target: str) -> None:
    assert ok(
        translate(
            {"text": ["Hallo"], "source_lang": "DE", "target_lang": target, "custom_instructions": ["Keep it short."]}
        )
    )


@pytest.mark.parametrize("target", ["NL", "PL", "PT-BR", "RU", "SV"])
def test_custom_instructions_refused_for_other_targets(
    translate: Callable[..., httpx.Response], error: Callable[[httpx.Response, int], str], target: str
) -> None:
    message = error(
        translate(
            {"text": ["Hallo"], "source_lang": "DE", "target_lang": target, "custom_instructions": ["Keep it short."]}
        ),
        400,
    )
    assert message == (
        f"custom_instructions are not supported for target language {target!r}; "
        "supported: de, en, es, fr, it, ja, ko, zh and their variants"
    )


FORMALITY_TARGETS = ["DE", "FR", "IT", "ES", "ES-419", "NL", "PL", "PT-BR", "PT-PT", "JA", "RU"]


@pytest.mark.parametrize("target", FORMALITY_TARGETS)
@pytest.mark.parametrize("formality", ["default", "more", "less", "prefer_more", "prefer_less"])
def test_formality_on_supported_targets(translate: Callable[..., httpx.Response], target: str, formality: str) -> None:
    assert ok(translate({"text": ["Hello"], "target_lang": target, "formality": formality}))


@pytest.mark.parametrize("target", ["EN-US", "EN-GB", "ZH-HANS", "SV", "de-CH", "fr-CA"])
def test_formality_on_other_targets(
    translate: Callable[..., httpx.Response], error: Callable[[httpx.Response, int], str], target: str
) -> None:
    for value in ("default", "prefer_more", "prefer_less"):
        assert ok(translate({"text": ["Hallo"], "target_lang": target, "formality": value}))
    for value in ("more", "less"):
        assert error(translate({"text": ["Hallo"], "target_lang": target, "formality": value}), 400) == (
            f"Target language {target.upper()!r} does not support formality; "
            "use prefer_more or prefer_less to fall back to the default formality"
        )
    assert error(translate({"text": ["x"], "target_lang": "DE", "formality": "formal"}), 400) == (
        "invalid value 'formal' for 'formality'; allowed: default, more, less, prefer_more, prefer_less"
    )


def test_translation_memory_threshold_range(
    translate: Callable[..., httpx.Response], error: Callable[[httpx.Response, int], str]
) -> None:
    base = {"text": ["Hello"], "source_lang": "EN", "target_lang": "DE"}
    for value in (0, 75, 100):
        assert ok(translate({**base, "translation_memory_threshold": value}))
    for value in (-1, 101):
        assert error(translate({**base, "translation_memory_threshold": value}), 400) == (
            f"translation_memory_threshold must be between 0 and 100, got {value}"
        )


def test_resource_ids(translate: Callable[..., httpx.Response], error: Callable[[httpx.Response, int], str]) -> None:
    base = {"text": ["Hello"], "source_lang": "EN", "target_lang": "DE"}
    assert error(translate({**base, "translation_memory_id": "not-a-uuid"}), 400) == (
        "parameter 'translation_memory_id' must be a UUID"
    )
    assert error(translate({**base, "translation_memory_id": UUID}), 404) == f"translation memory {UUID!r} not found"
    assert error(translate({**base, "glossary_id": UUID}), 404) == f"glossary {UUID!r} not found"
    assert error(translate({**base, "style_id": UUID}), 404) == f"style rule list {UUID!r} not found"
    assert error(translate({"text": ["Hello"], "target_lang": "DE", "glossary_id": UUID}), 400) == (
        "glossary_id requires source_lang: glossaries cannot be used with language detection"
    )


def test_billing_context_is_free(translate: Callable[..., httpx.Response]) -> None:
    body = ok(
        translate(
            {
                "text": ["Hello", "World!"],
                "source_lang": "EN",
                "target_lang": "DE",
                "context": "A long context " * 100,
                "show_billed_characters": True,
            }
        )
    )
    assert body["billed_characters"] == 11
    assert [t["billed_characters"] for t in body["translations"]] == [5, 6]


def test_billed_characters_only_when_asked(translate: Callable[..., httpx.Response]) -> None:
    for flag in (None, False):
        body: dict[str, object] = {"text": ["Hello"], "target_lang": "DE"}
        if flag is not None:
            body["show_billed_characters"] = flag
        result = ok(translate(body))
        assert "billed_characters" not in result and "billed_characters" not in result["translations"][0]


def test_variants_unchanged_and_equal_languages_billed(translate: Callable[..., httpx.Response]) -> None:
    body = ok(
        translate(
            {
                "text": ["Colour me surprised"],
                "source_lang": "EN",
                "target_lang": "EN-US",
                "show_billed_characters": True,
            }
        )
    )
    assert body["translations"][0]["text"] == "Colour me surprised"
    assert body["billed_characters"] == 19
    same = ok(
        translate({"text": ["Guten Tag"], "source_lang": "DE", "target_lang": "DE", "show_billed_characters": True})
    )
    assert same["translations"][0]["text"] == "Guten Tag" and same["billed_characters"] == 9
    detected = ok(translate({"text": ["The weather is lovely today."], "target_lang": "EN-GB"}))
    assert detected["translations"][0]["text"] == "The weather is lovely today."


@pytest.mark.parametrize("target", ["DE-CH", "fr-ca"])
def test_beta_targets_are_not_billed(translate: Callable[..., httpx.Response], target: str) -> None:
    body = ok(
        translate({"text": ["Hello world"], "source_lang": "EN", "target_lang": target, "show_billed_characters": True})
    )
    assert body["billed_characters"] == 0
    assert body["translations"][0]["text"] != "Hello world"


def test_xml_markup_and_ignored_content_are_kept(translate: Callable[..., httpx.Response]) -> None:
    text = 'Press <x id="1"/> to <b class="k">save</b> &amp; <keep>do not translate</keep> <!-- note --> now<x id="2"/>'
    [out] = texts_of(
        translate(
            {
                "text": [text],
                "source_lang": "EN",
                "target_lang": "DE",
                "tag_handling": "xml",
                "ignore_tags": ["x", "keep"],
            }
        )
    )
    for kept in (
        '<x id="1"/>',
        '<b class="k">',
        "</b>",
        "&amp;",
        "<keep>do not translate</keep>",
        "<!-- note -->",
        '<x id="2"/>',
    ):
        assert kept in out
    assert out.endswith('<x id="2"/>')
    assert "save" not in out  # translated
    expected = f'{transliterate("Press", "DE")} <x id="1"/> {transliterate("to", "DE")} <b class="k">'
    expected += f"{transliterate('save', 'DE')}</b> &amp; <keep>do not translate</keep> <!-- note --> "
    assert out == expected + f'{transliterate("now", "DE")}<x id="2"/>'


def test_html_protected_elements(translate: Callable[..., httpx.Response]) -> None:
    text = (
        '<p>Run <code>make all</code> then <span translate="no">Acme Corp</span>'
        "<script>if (a<b) go();</script><style>p{color:red}</style><br>done</p>"
    )
    [out] = texts_of(translate({"text": [text], "source_lang": "EN", "target_lang": "FR", "tag_handling": "html"}))
    for kept in (
        "<code>make all</code>",
        '<span translate="no">Acme Corp</span>',
        "<script>if (a<b) go();</script>",
        "<style>p{color:red}</style>",
        "<br>",
    ):
        assert kept in out
    assert "Run" not in out and "done" not in out


def test_tag_lists_and_outline_detection_accepted(
    translate: Callable[..., httpx.Response], post_form: Callable[..., httpx.Response], keys: Keys
) -> None:
    body = {
        "text": ["<p>One<br/>two</p>"],
        "source_lang": "EN",
        "target_lang": "DE",
        "tag_handling": "xml",
        "split_sentences": "nonewlines",
        "outline_detection": False,
        "splitting_tags": "p,br",
        "non_splitting_tags": ["b", "i"],
        "ignore_tags": "code",
    }
    [out] = texts_of(translate(body))
    assert out.startswith("<p>") and "<br/>" in out
    pairs = [
        ("text", "<p>One</p>"),
        ("target_lang", "DE"),
        ("tag_handling", "xml"),
        ("outline_detection", "0"),
        ("splitting_tags", "p"),
        ("splitting_tags", "br,div"),
        ("ignore_tags", "x"),
    ]
    response = post_form(TRANSLATE, pairs, keys.paid)
    assert response.status_code == 200, response.text
    assert response.json()["translations"][0]["text"].startswith("<p>")


def test_enable_beta_languages_has_no_effect(translate: Callable[..., httpx.Response]) -> None:
    base = {"text": ["Hello"], "source_lang": "EN", "target_lang": "DE"}
    assert texts_of(translate({**base, "enable_beta_languages": True})) == texts_of(translate(base))
