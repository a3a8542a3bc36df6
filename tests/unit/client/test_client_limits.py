"""Client-side limits: each broken limit raises ClientLimitError naming it, before anything is sent."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
import respx

from pipeline.client.api_data import CustomInstruction, GlossaryDictionary
from pipeline.client.limits import parse_entries
from pipeline.client.requests import dictionary_from_pairs, translate_params
from pipeline.client.sync import Client
from pipeline.errors import ClientLimitError, ExitCode


@pytest.fixture(autouse=True)
def nothing_is_sent(router: respx.Router) -> Iterator[None]:
    route = router.route().respond(500)
    yield
    assert route.call_count == 0


def test_texts_per_request(client: Client) -> None:
    with pytest.raises(ClientLimitError, match="51 texts in one request; the limit is 50"):
        client.translate(["a"] * 51, target_lang="DE")
    with pytest.raises(ClientLimitError, match="at least one text"):
        client.translate([], target_lang="DE")
    with pytest.raises(TypeError):
        client.translate("Hello", target_lang="DE")


def test_translate_body_size(client: Client) -> None:
    big = "é" * (64 * 1024)  # 128 KiB of UTF-8 in one text, plus quotes and params
    with pytest.raises(ClientLimitError, match=r"translate body is \d+ bytes; the limit is 131072 bytes \(128 KiB\)"):
        client.translate([big], target_lang="DE")


def test_custom_instructions(client: Client) -> None:
    with pytest.raises(ClientLimitError, match="11 custom_instructions; the limit is 10"):
        client.translate(["a"], target_lang="DE", custom_instructions=["x"] * 11)
    with pytest.raises(ClientLimitError, match=r"custom_instructions\[2\] has 301 characters; the limit is 300"):
        client.translate(["a"], target_lang="DE", custom_instructions=["ok", "y" * 301])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"formality": "polite"}, "formality='polite' is not one of"),
        ({"split_sentences": "2"}, "split_sentences='2'"),
        ({"model_type": "fast"}, "model_type='fast'"),
        ({"tag_handling": "json"}, "tag_handling='json'"),
        ({"translation_memory_threshold": 101}, "translation_memory_threshold=101 is outside 0..100"),
        (
            {"model_type": "latency_optimized", "style_id": "s"},
            "style_id cannot be combined with model_type=latency_optimized",
        ),
        ({"model_type": "latency_optimized", "tag_handling_version": "v2"}, "tag_handling_version=v2 cannot"),
        ({"model_type": "latency_optimized", "translation_memory_id": "t"}, "translation_memory_id cannot"),
        ({"glossary_id": "g"}, "glossary_id requires source_lang"),
    ],
)
def test_translate_rules(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ClientLimitError, match=message):
        translate_params(target_lang="DE", **options)


def test_bare_string_for_a_tag_list_is_refused() -> None:
    with pytest.raises(TypeError, match="ignore_tags"):
        translate_params(target_lang="DE", ignore_tags="keep")


def test_write_body_and_options(client: Client) -> None:
    with pytest.raises(ClientLimitError, match="write body is 10253 bytes; the limit is 10240 bytes"):
        client.correct(["x" * 10_240])
    with pytest.raises(ClientLimitError, match="writing_style and tone"):
        client.rephrase(["x"], writing_style="business", tone="friendly")


@pytest.mark.parametrize(("style", "tone"), [("default", "friendly"), ("business", "default")])
def test_a_default_style_or_tone_goes_with_the_other(style: str, tone: str) -> None:
    """As the service and its official clients accept: 'default' asks for nothing."""
    import json

    from pipeline.client.requests import write

    call = write("rephrase", ["x"], lambda answer: answer, writing_style=style, tone=tone)
    body = json.loads(call.request.content or b"")
    assert (body["writing_style"], body["tone"]) == (style, tone)


def test_limit_errors_exit_with_usage_code() -> None:
    assert ClientLimitError.exit_code == ExitCode.USAGE


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ("a\tb\na\tc\n", "line 2: duplicate source entry 'a'"),
        ("a\t\n", "line 1 \\(target\\): empty phrase"),
        (" a\tb\n", "leading or trailing whitespace"),
        ("a\tb\u00a0\n", "leading or trailing whitespace"),
        ("a\x07\tb\n", "control character U\\+0007"),
        ("a\u0085x\tb\n", "control character U\\+0085"),
        ("a\u2028x\tb\n", "control character U\\+2028"),
        ("a\tb\tc\n", "found 3 fields"),
        ("\n\n", "has no entries"),
        (("x" * 1025) + "\tb\n", "phrase is 1025 bytes; the limit is 1024"),
    ],
)
def test_glossary_content_rules_tsv(entries: str, message: str, client: Client) -> None:
    with pytest.raises(ClientLimitError, match=message):
        client.create_glossary("G", [GlossaryDictionary("en", "de", entries, "tsv")])


def test_glossary_csv_quoting_and_foreign_pairs() -> None:
    entries = '"a, b","say ""hi"""\nc,d,fr,it\ne,f,EN,de\n'
    assert parse_entries(entries, "csv", "en", "de") == [("a, b", 'say "hi"'), ("e", "f")]


def test_glossary_dictionary_size_and_name() -> None:
    with pytest.raises(ClientLimitError, match="dictionary is 10000001 bytes; the limit is 10000000"):
        parse_entries("a" * 10_000_001, "tsv", "en", "de")
    client_name = "n" * 1025
    from pipeline.client.limits import check_glossary_name

    with pytest.raises(ClientLimitError, match="glossary name is 1025 bytes"):
        check_glossary_name(client_name)


def test_glossary_needs_distinct_pairs(client: Client) -> None:
    d = GlossaryDictionary("en", "de", "a\tb\n")
    with pytest.raises(ClientLimitError, match="one dictionary per language pair"):
        client.create_glossary("G", [d, GlossaryDictionary("EN", "DE", "c\td\n")])
    with pytest.raises(ClientLimitError, match="at least one dictionary"):
        client.create_glossary("G", [])
    with pytest.raises(ClientLimitError, match="needs a name or a dictionary"):
        client.update_glossary("g-1")


def test_dictionary_from_pairs_builds_checked_tsv() -> None:
    assert dictionary_from_pairs("en", "de", {"Save": "Speichern", "Open": "Öffnen"}) == GlossaryDictionary(
        "en", "de", "Save\tSpeichern\nOpen\tÖffnen\n", "tsv"
    )
    with pytest.raises(ClientLimitError, match="entry 1 \\(source\\): control character U\\+0009"):
        dictionary_from_pairs("en", "de", [("a\tb", "c")])


def test_style_rule_limits(client: Client) -> None:
    with pytest.raises(ClientLimitError, match="style rule list name has 1025 characters; the limit is 1024"):
        client.create_style_rule_list("n" * 1025, "de")
    with pytest.raises(ClientLimitError, match="language='pt'"):
        client.create_style_rule_list("House", "pt")
    with pytest.raises(ClientLimitError, match="201 custom instructions; the limit is 200"):
        client.create_style_rule_list("House", "de", custom_instructions=[CustomInstruction("l", "p")] * 201)
    with pytest.raises(ClientLimitError, match="label has 101 characters; the limit is 100"):
        client.add_custom_instruction("s", "l" * 101, "p")
    with pytest.raises(ClientLimitError, match="prompt has 301 characters; the limit is 300"):
        client.replace_custom_instruction("s", "i", "l", "p" * 301)
    with pytest.raises(ClientLimitError, match=r"page_size=26 is outside 1\.\.25"):
        client.list_style_rule_lists(page_size=26)


def test_admin_and_language_limits(client: Client) -> None:
    with pytest.raises(ClientLimitError, match="analytics range is 367 days; the limit is 366"):
        client.custom_tag_usage(date(2025, 1, 1), date(2026, 1, 3))
    with pytest.raises(ClientLimitError, match="end_date 2025-01-01 is before start_date 2025-02-01"):
        client.custom_tag_usage(date(2025, 2, 1), date(2025, 1, 1))
    with pytest.raises(ClientLimitError, match="characters=-1 must not be negative"):
        client.set_developer_key_limits("a:b", -1)
    with pytest.raises(ClientLimitError, match="resource='text'"):
        client.languages("text")
    with pytest.raises(ClientLimitError, match="include='alpha'"):
        client.languages(include=["alpha"])
    with pytest.raises(ValueError, match="'' is not a valid id"):
        client.get_glossary("")
    with pytest.raises(ValueError, match=r"'\.\.' is not a valid id"):
        client.delete_style_rule_list("..")
