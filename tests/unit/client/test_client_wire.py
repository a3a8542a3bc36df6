"""Wire format: exactly what goes out for each endpoint (method, path, query, headers, body)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import parse_qsl, unquote

import httpx
import pytest
import respx

from pipeline.client.aio import AsyncClient
from pipeline.client.api_data import (
    CustomInstruction,
    DocumentHandle,
    GlossaryDictionary,
    Language,
    TranslateResult,
    Translation,
)
from pipeline.client.base import AbsoluteURLs
from pipeline.client.requests import translate_params
from pipeline.client.sync import Client
from pipeline.errors import ServiceError
from pipeline.protocol import encode_json, translate_body_size
from tests.unit.client.client_fakes import BASE_URL, KEY

GLOSSARY = {
    "glossary_id": "g-1",
    "name": "UI",
    "ready": True,
    "creation_time": "2026-01-01T00:00:00.000Z",
    "dictionaries": [{"source_lang": "en", "target_lang": "de", "entry_count": 2}],
}
GLOSSARY_V2 = {
    "glossary_id": "g-2",
    "name": "Old",
    "ready": True,
    "source_lang": "en",
    "target_lang": "de",
    "creation_time": "2026-01-01T00:00:00Z",
    "entry_count": 1,
}
STYLE = {
    "style_id": "s-1",
    "name": "House",
    "language": "de",
    "version": 2,
    "creation_time": "2026-01-01T00:00:00Z",
    "updated_time": "2026-01-02T00:00:00Z",
    "configured_rules": {"punctuation": {"apostrophe": "use_curly_apostrophes"}},
    "custom_instructions": [{"id": "i-1", "label": "Tone", "prompt": "Be brief", "source_language": "en"}],
}
INSTRUCTION = {"id": "i-1", "label": "Tone", "prompt": "Be brief"}
DEV_KEY = {
    "key_id": "a:b",
    "label": "CI",
    "creation_time": "2026-01-01T00:00:00.000Z",
    "is_deactivated": False,
    "usage_limits": {"characters": 1000},
}
ENTRIES = "hello\tHallo\nworld\tWelt\n"
DICTIONARY = GlossaryDictionary("en", "de", ENTRIES, "tsv")
DICTIONARY_BODY = {"source_lang": "en", "target_lang": "de", "entries": ENTRIES, "entries_format": "tsv"}


@dataclass(frozen=True)
class Case:
    """One endpoint: the client call, what must go out, what comes back, what it parses into."""

    name: str
    call: Callable[[Client], Any]
    method: str
    path: str
    query: list[tuple[str, str]] | None = None
    body: object = None
    answer: object = None
    answer_status: int = 200
    check: Callable[[Any], bool] = lambda result: True


CASES = [
    Case(
        "translate",
        lambda c: c.translate(["Hello", "World"], target_lang="DE", source_lang="EN", formality="prefer_more"),
        "POST",
        "/v2/translate",
        body={
            "source_lang": "EN",
            "target_lang": "DE",
            "formality": "prefer_more",
            "show_billed_characters": True,
            "text": ["Hello", "World"],
        },
        answer={
            "translations": [
                {"detected_source_language": "EN", "text": "Hallo"},
                {"detected_source_language": "EN", "text": "Welt"},
            ],
            "billed_characters": 10,
        },
        check=lambda r: (
            r == TranslateResult((Translation("Hallo", "EN"), Translation("Welt", "EN")), billed_characters=10)
        ),
    ),
    Case(
        "translate_all_options",
        lambda c: c.translate(
            ["<p>Hi <x id='1'/></p>"],
            target_lang="de",
            source_lang="en",
            context="UI button",
            model_type="quality_optimized",
            split_sentences="nonewlines",
            preserve_formatting=True,
            formality="less",
            glossary_id="g-1",
            style_id="s-1",
            custom_instructions=["Be brief"],
            translation_memory_id="tm-1",
            translation_memory_threshold=80,
            show_billed_characters=False,
            tag_handling="xml",
            tag_handling_version="v2",
            outline_detection=False,
            non_splitting_tags=["b", "i"],
            splitting_tags=["p"],
            ignore_tags=["x"],
        ),
        "POST",
        "/v2/translate",
        body={
            "source_lang": "en",
            "target_lang": "de",
            "context": "UI button",
            "model_type": "quality_optimized",
            "split_sentences": "nonewlines",
            "preserve_formatting": True,
            "formality": "less",
            "glossary_id": "g-1",
            "style_id": "s-1",
            "custom_instructions": ["Be brief"],
            "translation_memory_id": "tm-1",
            "translation_memory_threshold": 80,
            "show_billed_characters": False,
            "tag_handling": "xml",
            "tag_handling_version": "v2",
            "outline_detection": False,
            "non_splitting_tags": ["b", "i"],
            "splitting_tags": ["p"],
            "ignore_tags": ["x"],
            "text": ["<p>Hi <x id='1'/></p>"],
        },
        answer={
            "translations": [{"detected_source_language": "EN", "text": "<p>Hallo <x id='1'/></p>"}],
            "model_type_used": "quality_optimized",
        },
        check=lambda r: r.model_type_used == "quality_optimized" and r.billed_characters is None,
    ),
    Case(
        "document_status",
        lambda c: c.document_status(DocumentHandle("d/1", "dk-secret")),
        "POST",
        "/v2/document/d%2F1",
        body={"document_key": "dk-secret"},
        answer={"document_id": "d/1", "status": "translating", "seconds_remaining": 5},
        check=lambda r: (r.status, r.seconds_remaining, r.done) == ("translating", 5, False),
    ),
    Case(
        "download_document",
        lambda c: c.download_document(DocumentHandle("d1", "dk")),
        "POST",
        "/v2/document/d1/result",
        body={"document_key": "dk"},
        answer=b"\x00translated\xff",
        check=lambda r: r == b"\x00translated\xff",
    ),
    Case(
        "rephrase",
        lambda c: c.rephrase(["i has a cat"], target_lang="en-GB", tone="prefer_friendly"),
        "POST",
        "/v2/write/rephrase",
        body={"text": ["i has a cat"], "target_lang": "en-GB", "tone": "prefer_friendly"},
        answer={
            "improvements": [{"text": "I have a cat.", "target_language": "en-GB", "detected_source_language": "en"}]
        },
        check=lambda r: r[0].text == "I have a cat." and r[0].target_language == "en-GB",
    ),
    Case(
        "correct",
        lambda c: c.correct(["teh cat"], target_lang="en"),
        "POST",
        "/v2/write/correct",
        body={"text": ["teh cat"], "target_lang": "en"},
        answer={"improvements": [{"text": "the cat", "target_language": "en", "detected_source_language": "en"}]},
        check=lambda r: [i.text for i in r] == ["the cat"],
    ),
    Case(
        "create_glossary",
        lambda c: c.create_glossary("UI", [DICTIONARY]),
        "POST",
        "/v3/glossaries",
        body={"name": "UI", "dictionaries": [DICTIONARY_BODY]},
        answer=GLOSSARY,
        check=lambda r: r.glossary_id == "g-1" and r.ready and r.dictionaries[0].entry_count == 2,
    ),
    Case(
        "list_glossaries",
        lambda c: c.list_glossaries(),
        "GET",
        "/v3/glossaries",
        answer={"glossaries": [GLOSSARY]},
        check=lambda r: [g.name for g in r] == ["UI"],
    ),
    Case(
        "get_glossary",
        lambda c: c.get_glossary("g-1"),
        "GET",
        "/v3/glossaries/g-1",
        answer=GLOSSARY,
        check=lambda r: r.dictionaries[0].source_lang == "en",
    ),
    Case(
        "glossary_entries",
        lambda c: c.glossary_entries("g-1", "en", "de"),
        "GET",
        "/v3/glossaries/g-1/entries",
        query=[("source_lang", "en"), ("target_lang", "de")],
        answer={"dictionaries": [DICTIONARY_BODY]},
        check=lambda r: r == DICTIONARY,
    ),
    Case(
        "replace_glossary_dictionary",
        lambda c: c.replace_glossary_dictionary("g-1", DICTIONARY),
        "PUT",
        "/v3/glossaries/g-1/dictionaries",
        body=DICTIONARY_BODY,
        answer={"source_lang": "en", "target_lang": "de", "entry_count": 2},
        check=lambda r: r.entry_count == 2,
    ),
    Case(
        "update_glossary",
        lambda c: c.update_glossary("g-1", name="UI 2", dictionary=DICTIONARY),
        "PATCH",
        "/v3/glossaries/g-1",
        body={"name": "UI 2", "dictionaries": [DICTIONARY_BODY]},
        answer=GLOSSARY,
        check=lambda r: r.glossary_id == "g-1",
    ),
    Case("delete_glossary", lambda c: c.delete_glossary("g-1"), "DELETE", "/v3/glossaries/g-1", answer_status=204),
    Case(
        "delete_glossary_dictionary",
        lambda c: c.delete_glossary_dictionary("g-1", "en", "de"),
        "DELETE",
        "/v3/glossaries/g-1/dictionaries",
        query=[("source_lang", "en"), ("target_lang", "de")],
        answer_status=204,
    ),
    Case(
        "create_glossary_v2",
        lambda c: c.create_glossary_v2("Old", "en", "de", "a,b\n", "csv"),
        "POST",
        "/v2/glossaries",
        body={"name": "Old", "source_lang": "en", "target_lang": "de", "entries": "a,b\n", "entries_format": "csv"},
        answer=GLOSSARY_V2,
        check=lambda r: (r.glossary_id, r.entry_count) == ("g-2", 1),
    ),
    Case(
        "list_glossaries_v2",
        lambda c: c.list_glossaries_v2(),
        "GET",
        "/v2/glossaries",
        answer={"glossaries": [GLOSSARY_V2]},
        check=lambda r: r[0].source_lang == "en",
    ),
    Case(
        "get_glossary_v2",
        lambda c: c.get_glossary_v2("g-2"),
        "GET",
        "/v2/glossaries/g-2",
        answer=GLOSSARY_V2,
        check=lambda r: r.name == "Old",
    ),
    Case(
        "glossary_entries_v2",
        lambda c: c.glossary_entries_v2("g-2"),
        "GET",
        "/v2/glossaries/g-2/entries",
        answer=b"a\tb\n",
        check=lambda r: r == "a\tb\n",
    ),
    Case(
        "delete_glossary_v2", lambda c: c.delete_glossary_v2("g-2"), "DELETE", "/v2/glossaries/g-2", answer_status=204
    ),
    Case(
        "glossary_language_pairs",
        lambda c: c.glossary_language_pairs(),
        "GET",
        "/v2/glossary-language-pairs",
        answer={"supported_languages": [{"source_lang": "en", "target_lang": "de"}]},
        check=lambda r: (r[0].source_lang, r[0].target_lang) == ("en", "de"),
    ),
    Case(
        "create_style_rule_list",
        lambda c: c.create_style_rule_list(
            "House",
            "de",
            configured_rules={"punctuation": {"apostrophe": "use_curly_apostrophes"}},
            custom_instructions=[CustomInstruction("Tone", "Be brief", "en")],
        ),
        "POST",
        "/v3/style_rules",
        body={
            "name": "House",
            "language": "de",
            "configured_rules": {"punctuation": {"apostrophe": "use_curly_apostrophes"}},
            "custom_instructions": [{"label": "Tone", "prompt": "Be brief", "source_language": "en"}],
        },
        answer=STYLE,
        check=lambda r: (
            r.version == 2
            and r.configured_rules["punctuation"]["apostrophe"] == "use_curly_apostrophes"
            and r.custom_instructions[0].id == "i-1"
        ),
    ),
    Case(
        "list_style_rule_lists",
        lambda c: c.list_style_rule_lists(detailed=True, page=1, page_size=25),
        "GET",
        "/v3/style_rules",
        query=[("detailed", "true"), ("page", "1"), ("page_size", "25")],
        answer={
            "style_rules": [{k: v for k, v in STYLE.items() if k not in ("configured_rules", "custom_instructions")}]
        },
        check=lambda r: r[0].configured_rules is None and r[0].custom_instructions is None,
    ),
    Case(
        "get_style_rule_list",
        lambda c: c.get_style_rule_list("s-1"),
        "GET",
        "/v3/style_rules/s-1",
        answer=STYLE,
        check=lambda r: r.style_id == "s-1",
    ),
    Case(
        "rename_style_rule_list",
        lambda c: c.rename_style_rule_list("s-1", "Home"),
        "PATCH",
        "/v3/style_rules/s-1",
        body={"name": "Home"},
        answer=STYLE,
        check=lambda r: r.name == "House",
    ),
    Case(
        "replace_configured_rules",
        lambda c: c.replace_configured_rules(
            "s-1", {"style_and_tone": {"abbreviations": "use_abbreviations_and_symbols"}}
        ),
        "PUT",
        "/v3/style_rules/s-1/configured_rules",
        body={"style_and_tone": {"abbreviations": "use_abbreviations_and_symbols"}},
        answer=STYLE,
    ),
    Case(
        "delete_style_rule_list",
        lambda c: c.delete_style_rule_list("s-1"),
        "DELETE",
        "/v3/style_rules/s-1",
        answer_status=204,
    ),
    Case(
        "add_custom_instruction",
        lambda c: c.add_custom_instruction("s-1", "Tone", "Be brief"),
        "POST",
        "/v3/style_rules/s-1/custom_instructions",
        body={"label": "Tone", "prompt": "Be brief"},
        answer=STYLE,
        check=lambda r: r.custom_instructions[0].prompt == "Be brief",
    ),
    Case(
        "get_custom_instruction",
        lambda c: c.get_custom_instruction("s-1", "i-1"),
        "GET",
        "/v3/style_rules/s-1/custom_instructions/i-1",
        answer=INSTRUCTION,
        check=lambda r: r == CustomInstruction("Tone", "Be brief", None, "i-1"),
    ),
    Case(
        "replace_custom_instruction",
        lambda c: c.replace_custom_instruction("s-1", "i-1", "Tone", "Be briefer"),
        "PUT",
        "/v3/style_rules/s-1/custom_instructions/i-1",
        body={"label": "Tone", "prompt": "Be briefer", "source_language": None},
        answer=INSTRUCTION,
    ),
    Case(
        "delete_custom_instruction",
        lambda c: c.delete_custom_instruction("s-1", "i-1"),
        "DELETE",
        "/v3/style_rules/s-1/custom_instructions/i-1",
        answer_status=204,
    ),
    Case(
        "languages",
        lambda c: c.languages("write", include=["beta", "external"]),
        "GET",
        "/v3/languages",
        query=[("resource", "write"), ("include", "beta"), ("include", "external")],
        answer=[
            {
                "lang": "en-GB",
                "name": "English (British)",
                "usable_as_source": False,
                "usable_as_target": True,
                "status": "stable",
                "features": {"tone": {"status": "stable"}, "writing_style": {"status": "beta"}},
            }
        ],
        check=lambda r: (
            r
            == (
                Language(
                    "en-GB", "English (British)", False, True, "stable", {"tone": "stable", "writing_style": "beta"}
                ),
            )
        ),
    ),
    Case(
        "language_resources",
        lambda c: c.language_resources(),
        "GET",
        "/v3/languages/resources",
        answer=[
            {
                "name": "translate_text",
                "features": [{"name": "glossary", "needs_source_support": True, "needs_target_support": True}],
            }
        ],
        check=lambda r: r[0].features[0].needs_source_support is True,
    ),
    Case(
        "languages_v2",
        lambda c: c.languages_v2("target"),
        "GET",
        "/v2/languages",
        query=[("type", "target")],
        answer=[{"language": "DE", "name": "German", "supports_formality": True}],
        check=lambda r: r[0].supports_formality is True,
    ),
    Case(
        "usage",
        lambda c: c.usage(),
        "GET",
        "/v2/usage",
        answer={"character_count": 42, "character_limit": 500000, "api_key_character_count": 7},
        check=lambda r: (
            (r.character_count, r.character_limit, dict(r.extra)) == (42, 500000, {"api_key_character_count": 7})
        ),
    ),
    Case(
        "translation_memories",
        lambda c: c.translation_memories(),
        "GET",
        "/v3/translation_memories",
        query=[("page", "0"), ("page_size", "25")],
        answer={"translation_memories": [{"translation_memory_id": "tm-1", "name": "Main", "segment_count": 3}]},
        check=lambda r: (r[0].translation_memory_id, r[0].name, r[0].extra["segment_count"]) == ("tm-1", "Main", 3),
    ),
    Case(
        "create_developer_key",
        lambda c: c.create_developer_key("CI"),
        "POST",
        "/v2/admin/developer-keys",
        body={"label": "CI"},
        answer={**DEV_KEY, "api_key": "new-secret"},
        check=lambda r: (
            (r.key_id, r.label, r.characters_limit, r.api_key) == ("a:b", "CI", 1000, "new-secret")
            and "new-secret" not in repr(r)
        ),
    ),
    Case(
        "create_developer_key_default_label",
        lambda c: c.create_developer_key(),
        "POST",
        "/v2/admin/developer-keys",
        body={},
        answer=DEV_KEY,
    ),
    Case(
        "list_developer_keys",
        lambda c: c.list_developer_keys(),
        "GET",
        "/v2/admin/developer-keys",
        answer=[
            DEV_KEY,
            {**DEV_KEY, "key_id": "c:d", "is_deactivated": True, "deactivated_time": "2026-02-01T00:00:00Z"},
        ],
        check=lambda r: [k.is_deactivated for k in r] == [False, True],
    ),
    Case(
        "deactivate_developer_key",
        lambda c: c.deactivate_developer_key("a:b"),
        "PUT",
        "/v2/admin/developer-keys/deactivate",
        body={"key_id": "a:b"},
        answer={**DEV_KEY, "is_deactivated": True},
        check=lambda r: r.is_deactivated,
    ),
    Case(
        "label_developer_key",
        lambda c: c.label_developer_key("a:b", "Nightly"),
        "PUT",
        "/v2/admin/developer-keys/label",
        body={"key_id": "a:b", "label": "Nightly"},
        answer=DEV_KEY,
    ),
    Case(
        "set_developer_key_limits_unlimited",
        lambda c: c.set_developer_key_limits("a:b", None),
        "PUT",
        "/v2/admin/developer-keys/limits",
        body={"key_id": "a:b", "characters": None},
        answer={**DEV_KEY, "usage_limits": {"characters": None}},
        check=lambda r: r.characters_limit is None,
    ),
    Case(
        "set_developer_key_limits_speech",
        lambda c: c.set_developer_key_limits("a:b", 0, speech_to_text_milliseconds=60000),
        "PUT",
        "/v2/admin/developer-keys/limits",
        body={"key_id": "a:b", "characters": 0, "speech_to_text_milliseconds": 60000},
        answer={**DEV_KEY, "usage_limits": {"characters": 0, "speech_to_text_milliseconds": 60000}},
        check=lambda r: (r.characters_limit, r.speech_to_text_milliseconds_limit) == (0, 60000),
    ),
    Case(
        "custom_tag_usage",
        lambda c: c.custom_tag_usage(date(2026, 1, 1), date(2026, 1, 31), aggregate_by="day", page=2),
        "GET",
        "/v2/admin/analytics/custom-tags",
        query=[("start_date", "2026-01-01"), ("end_date", "2026-01-31"), ("aggregate_by", "day"), ("page", "2")],
        answer={
            "custom_tag_usage_report": {
                "aggregate_by": "day",
                "start_date": "2026-01-01T00:00:00Z",
                "end_date": "2026-01-31T00:00:00Z",
                "next_page": None,
                "usage": [
                    {
                        "custom_tag": "po",
                        "usage_date": "2026-01-02T00:00:00Z",
                        "breakdown": {
                            "total_characters": 9,
                            "text_translation_characters": 9,
                            "text_improvement_characters": 0,
                        },
                    }
                ],
            }
        },
        check=lambda r: (r.next_page, r.usage[0].custom_tag, r.usage[0].total_characters) == (None, "po", 9),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_endpoint_wire_format(case: Case, client: Client, router: respx.Router) -> None:
    if isinstance(case.answer, bytes):
        response = httpx.Response(case.answer_status, content=case.answer)
    elif case.answer is None:
        response = httpx.Response(case.answer_status)
    else:
        response = httpx.Response(case.answer_status, json=case.answer)
    route = router.route(method=case.method, path=unquote(case.path)).mock(return_value=response)

    result = case.call(client)

    assert route.call_count == 1
    request = route.calls.last.request
    assert request.method == case.method
    assert request.url.raw_path.split(b"?")[0] == case.path.encode()  # ids are quoted as one segment
    assert parse_qsl(request.url.query.decode(), keep_blank_values=True) == (case.query or [])
    assert request.headers["Authorization"] == f"Service-Auth-Key {KEY}"
    assert request.headers["User-Agent"].startswith("pipeline-i18n/")
    if case.body is None:
        assert request.content == b""
        assert "Content-Type" not in request.headers
    else:
        assert request.headers["Content-Type"] == "application/json"
        assert request.content == encode_json(case.body)
    assert KEY not in request.url.query.decode() and KEY.encode() not in request.content
    assert case.check(result)


def test_translation_memories_are_read_page_by_page(client: Client, router: respx.Router) -> None:
    """The service pages the listing (25 at most); a memory past the first page is still the account's."""
    memories = [{"translation_memory_id": f"tm-{i}", "name": f"m{i}"} for i in range(28)]

    def page(request: httpx.Request) -> httpx.Response:
        query = dict(parse_qsl(request.url.query.decode()))
        start = int(query["page"]) * int(query["page_size"])
        shown = memories[start : start + int(query["page_size"])]
        return httpx.Response(200, json={"translation_memories": shown, "total_count": len(memories)})

    route = router.get("/v3/translation_memories").mock(side_effect=page)
    assert [m.translation_memory_id for m in client.translation_memories()] == [f"tm-{i}" for i in range(28)]
    assert [dict(parse_qsl(c.request.url.query.decode()))["page"] for c in route.calls] == ["0", "1"]


def test_a_service_that_does_not_page_its_memory_listing_is_read_once(client: Client, router: respx.Router) -> None:
    memories = [{"translation_memory_id": f"tm-{i}", "name": f"m{i}"} for i in range(30)]
    route = router.get("/v3/translation_memories").respond(200, json={"translation_memories": memories})
    assert len(client.translation_memories()) == 30
    assert route.call_count == 2  # the second page repeats the first: nothing new, so no third


def test_translate_body_is_exactly_params_plus_text(client: Client, router: respx.Router) -> None:
    route = router.post("/v2/translate").respond(
        json={"translations": [{"text": "x", "detected_source_language": "EN"}] * 2}
    )
    texts = ["Grüße «x»", 'quote " and \\ slash']
    params = translate_params(target_lang="DE", context="ctx", ignore_tags=["x"], tag_handling="xml")

    client.translate(texts, target_lang="DE", context="ctx", ignore_tags=["x"], tag_handling="xml")

    sent = route.calls.last.request.content
    assert sent == encode_json({**params, "text": texts})
    assert len(sent) == translate_body_size(params, texts)
    assert "Grüße".encode() in sent  # UTF-8, not \u escapes


def test_translate_params_leave_out_none_and_empty() -> None:
    assert translate_params(target_lang="DE") == {"target_lang": "DE", "show_billed_characters": True}
    assert translate_params(target_lang="DE", context="", ignore_tags=(), show_billed_characters=False) == {
        "target_lang": "DE",
        "show_billed_characters": False,
    }


def test_upload_document_is_multipart_with_form_fields(client: Client, router: respx.Router) -> None:
    route = router.post("/v2/document").respond(json={"document_id": "d1", "document_key": "dk"})

    handle = client.upload_document(
        b"%PDF-1.7 data",
        "report.pdf",
        target_lang="DE",
        source_lang="EN",
        output_format="docx",
        translation_memory_threshold=90,
    )

    assert handle == DocumentHandle("d1", "dk")
    assert "dk" not in repr(handle)
    request = route.calls.last.request
    assert request.headers["Content-Type"].startswith("multipart/form-data; boundary=")
    body = request.content
    assert b'Content-Disposition: form-data; name="file"; filename="report.pdf"' in body
    assert b"%PDF-1.7 data" in body
    for name, value in [
        ("filename", "report.pdf"),
        ("source_lang", "EN"),
        ("target_lang", "DE"),
        ("output_format", "docx"),
        ("translation_memory_threshold", "90"),
    ]:
        assert f'name="{name}"\r\n\r\n{value}\r\n'.encode() in body
    assert b'name="formality"' not in body and b'name="glossary_id"' not in body


def test_glossary_entries_v2_asks_for_tsv(client: Client, router: respx.Router) -> None:
    route = router.get("/v2/glossaries/g-2/entries").respond(text="a\tb\n")
    client.glossary_entries_v2("g-2")
    assert route.calls.last.request.headers["Accept"] == "text/tab-separated-values"


def test_reporting_tag_header_only_when_given(router: respx.Router) -> None:
    route = router.get("/v2/usage").respond(json={"character_count": 1})
    with Client(BASE_URL, KEY, transport=httpx.MockTransport(router.handler), reporting_tag="nightly po") as tagged:
        tagged.usage()
    assert route.calls.last.request.headers["X-Service-Reporting-Tag"] == "nightly po"
    with Client(BASE_URL, KEY, transport=httpx.MockTransport(router.handler)) as plain:
        plain.usage()
    assert "X-Service-Reporting-Tag" not in route.calls.last.request.headers


def test_base_url_path_prefix_is_kept(router: respx.Router) -> None:
    route = respx.Router(assert_all_called=False)
    used = route.get("https://svc.test/api/v2/usage").respond(json={"character_count": 1})
    with Client("https://svc.test/api/", KEY, transport=httpx.MockTransport(route.handler)) as c:
        assert c.usage().character_count == 1
    assert used.call_count == 1


def test_json_bodies_are_compact_utf8(client: Client, router: respx.Router) -> None:
    route = router.post("/v2/write/correct").respond(json={"improvements": [{"text": "ß"}]})
    client.correct(["straße"])
    assert route.calls.last.request.content == '{"text":["straße"]}'.encode()
    assert json.loads(route.calls.last.request.content) == {"text": ["straße"]}


def test_a_cookie_the_service_sets_is_never_sent_back(router: respx.Router) -> None:
    route = router.get("/v2/usage").respond(json={"character_count": 1}, headers={"Set-Cookie": "session=abc; Path=/"})
    with Client(BASE_URL, KEY, transport=httpx.MockTransport(router.handler)) as c:
        c.usage()
        c.usage()
    assert [call.request.headers.get("Cookie") for call in route.calls] == [None, None]


def test_absolute_urls_stay_right_past_the_paths_kept() -> None:
    urls = AbsoluteURLs(httpx.URL("https://svc.test/api/"), most=2)
    paths = ["/v2/document/a", "/v2/document/b", "/v2/document/c", "/v2/document/a", "https://other.test/x"]
    assert [str(urls(p)) for p in paths] == [
        "https://svc.test/api/v2/document/a",
        "https://svc.test/api/v2/document/b",
        "https://svc.test/api/v2/document/c",
        "https://svc.test/api/v2/document/a",
        "https://other.test/x",
    ]


def test_a_cookie_set_on_a_retried_answer_is_not_sent_with_the_retry(client: Client, router: respx.Router) -> None:
    route = router.get("/v2/usage").mock(
        side_effect=[
            httpx.Response(429, headers={"Set-Cookie": "lb=node1; Path=/", "Retry-After": "1"}),
            httpx.Response(200, json={"character_count": 1}, headers={"Set-Cookie": "session=abc; Path=/"}),
            httpx.Response(200, json={"character_count": 2}),
        ]
    )
    assert client.usage().character_count == 1
    assert client.usage().character_count == 2
    assert [call.request.headers.get("Cookie") for call in route.calls] == [None, None, None]
    assert [call.request.headers["Authorization"] for call in route.calls] == [f"Service-Auth-Key {KEY}"] * 3
    assert all(call.request.headers["User-Agent"].startswith("pipeline-i18n/") for call in route.calls)


def test_cookies_put_on_a_client_by_hand_are_not_kept_nor_sent(router: respx.Router) -> None:
    route = router.get("/v2/usage").respond(json={"character_count": 1})
    with Client(BASE_URL, KEY, transport=httpx.MockTransport(router.handler)) as c:
        c._http.cookies.set("session", "abc")
        c._http.cookies = {"other": "x"}
        c.usage()
        assert list(c._http.cookies.jar) == []
    with Client(BASE_URL, KEY, transport=httpx.MockTransport(router.handler)) as other:
        other.usage()
    assert [call.request.headers.get("Cookie") for call in route.calls] == [None, None]


def test_a_redirect_answer_is_not_followed_and_its_cookie_not_kept(client: Client, router: respx.Router) -> None:
    moved = router.get("/v2/usage").respond(
        302, headers={"Location": f"{BASE_URL}/v2/elsewhere", "Set-Cookie": "s=1; Path=/"}
    )
    elsewhere = router.get("/v2/elsewhere").respond(json={"character_count": 1})
    with pytest.raises(ServiceError):
        client.usage()
    assert moved.call_count == 1 and elsewhere.call_count == 0
    assert list(client._http.cookies.jar) == []


@pytest.mark.anyio
async def test_async_a_cookie_the_service_sets_is_never_sent_back(router: respx.Router) -> None:
    route = router.get("/v2/usage").mock(
        side_effect=[
            httpx.Response(429, headers={"Set-Cookie": "lb=node1; Path=/", "Retry-After": "0"}),
            httpx.Response(200, json={"character_count": 1}, headers={"Set-Cookie": "session=abc; Path=/"}),
            httpx.Response(200, json={"character_count": 2}),
        ]
    )
    async with AsyncClient(BASE_URL, KEY, transport=httpx.MockTransport(router.async_handler)) as c:
        assert (await c.usage()).character_count == 1
        assert (await c.usage()).character_count == 2
        assert list(c._http.cookies.jar) == []
    assert [call.request.headers.get("Cookie") for call in route.calls] == [None, None, None]
    assert [call.request.headers["Authorization"] for call in route.calls] == [f"Service-Auth-Key {KEY}"] * 3


class _ImportsLookedUp:
    """A meta path finder that only notes the modules the import system had to look for."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        self.names.append(name)


def test_httpcore_finds_out_the_async_library_without_searching_for_a_module_each_time() -> None:
    import asyncio
    import sys

    from httpcore._synchronization import AsyncLock, AsyncShieldCancellation

    async def per_request_primitives() -> None:
        for _ in range(3):  # what one request makes in the pool: a lock and a shield
            AsyncLock().setup()
            with AsyncShieldCancellation():
                pass

    finder = _ImportsLookedUp()
    sys.meta_path.insert(0, finder)
    try:
        asyncio.run(per_request_primitives())
    finally:
        sys.meta_path.remove(finder)
    assert "sniffio" not in finder.names


def test_the_user_agent_names_the_interpreter_as_platform_does_without_loading_platform() -> None:
    script = (
        "import sys\n"
        "sys.modules['httpx._main'] = None\n"  # as the command's process does (pipeline.cli.run)
        "from pipeline.client.base import user_agent\n"
        "print(user_agent(), 'platform' in sys.modules)\n"
        "import platform\n"
        "print(f'{platform.python_implementation()}/{platform.python_version()}')\n"
    )
    agent_line, platform_says = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    agent, loaded = agent_line.rsplit(" ", 1)
    assert agent.startswith("pipeline-i18n/") and agent.endswith(f" {platform_says}")
    assert loaded == "False"
