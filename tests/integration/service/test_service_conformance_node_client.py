"""The requests of the official Node.js client other than glossary writes, each shaped as deepl-node sends it.

deepl-node (``src/translator.ts``, ``src/deeplClient.ts``, ``src/utils.ts``) sends translation,
Write and document status as ``URLSearchParams`` forms (booleans ``1``/``0``, tag lists joined with
commas, ``text`` and ``custom_instructions`` repeated, ``show_billed_characters=1`` always), document
uploads as multipart with the same fields, and the parameters of every GET in the query string.
Glossary writes are in ``test_service_conformance_glossary_forms``.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

import httpx
import pytest

from tests.integration.service.conftest import Keys
from tests.waiting import poll

pytestmark = pytest.mark.integration

FORM = "application/x-www-form-urlencoded"


def post_node_form(
    http: httpx.Client, path: str, pairs: list[tuple[str, str]], headers: dict[str, str]
) -> httpx.Response:
    body = urllib.parse.urlencode(pairs).encode()
    return http.post(path, content=body, headers={**headers, "Content-Type": FORM})


def test_translate_text_with_every_option_as_a_form(http: httpx.Client, keys: Keys) -> None:
    pairs = [
        ("target_lang", "de"),
        ("source_lang", "en"),
        ("formality", "prefer_less"),
        ("show_billed_characters", "1"),
        ("text", "Open <b>the</b> file"),
        ("text", "Keep <raw>this</raw> as is"),
        ("split_sentences", "nonewlines"),
        ("preserve_formatting", "1"),
        ("tag_handling", "xml"),
        ("tag_handling_version", "v2"),
        ("outline_detection", "0"),
        ("context", "A menu entry"),
        ("model_type", "prefer_quality_optimized"),
        ("non_splitting_tags", "b,i"),
        ("splitting_tags", "p"),
        ("ignore_tags", "raw,code"),
        ("custom_instructions", "Use informal language"),
        ("custom_instructions", "Be concise"),
    ]
    response = post_node_form(http, "/v2/translate", pairs, keys.paid)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["billed_characters"] == len("Open <b>the</b> file") + len("Keep <raw>this</raw> as is")
    first, second = body["translations"]
    assert (first["model_type_used"], first["detected_source_language"]) == ("quality_optimized", "EN")
    assert "<b>" in first["text"] and "</b>" in first["text"] and first["text"] != pairs[4][1]
    assert "<raw>this</raw>" in second["text"]


def test_extra_request_parameters_replace_the_standard_ones(http: httpx.Client, keys: Keys) -> None:
    """``extraRequestParameters`` are ``set``, so the form holds the override once, among unknown fields."""
    pairs = [("target_lang", "fr"), ("example_extra_param", "true"), ("show_billed_characters", "1"), ("text", "hi")]
    response = post_node_form(http, "/v2/translate", pairs, keys.paid)
    assert response.status_code == 200, response.text
    assert response.json()["translations"][0]["billed_characters"] == 2


def test_rephrase_as_a_form(http: httpx.Client, keys: Keys) -> None:
    pairs = [("target_lang", "en"), ("tone", "confident"), ("text", "this are fine")]
    response = post_node_form(http, "/v2/write/rephrase", pairs, keys.paid)
    assert response.status_code == 200, response.text
    assert response.json()["improvements"][0]["target_language"] == "en-US"


def test_document_upload_multipart_then_status_and_result_as_forms(http: httpx.Client, keys: Keys) -> None:
    fields = {"target_lang": "de", "source_lang": "en", "formality": "prefer_more", "filename": "doc.txt"}
    upload = http.post("/v2/document", files={"file": ("doc.txt", b"proton beam")}, data=fields, headers=keys.paid)
    assert upload.status_code == 200, upload.text
    handle = upload.json()
    key = [("document_key", handle["document_key"])]

    def ended() -> dict[str, Any] | None:
        status = post_node_form(http, f"/v2/document/{handle['document_id']}", key, keys.paid).json()
        return status if status["status"] in ("done", "error") else None

    status = poll(ended, "the document job to end")
    assert status["status"] == "done", status
    result = post_node_form(http, f"/v2/document/{handle['document_id']}/result", key, keys.paid)
    assert result.status_code == 200 and result.content.decode() != "proton beam"


def test_gets_carry_their_parameters_in_the_query(http: httpx.Client, keys: Keys) -> None:
    targets = http.get("/v2/languages", params={"type": "target"}, headers=keys.paid).json()
    assert all("supports_formality" in lang for lang in targets)
    styles = http.get("/v3/style_rules", params={"page": "0", "page_size": "25", "detailed": "true"}, headers=keys.paid)
    assert styles.status_code == 200 and "style_rules" in styles.json()
    memories = http.get("/v3/translation_memories", params={"page": "0", "page_size": "10"}, headers=keys.paid)
    assert memories.status_code == 200 and "translation_memories" in memories.json()
