"""Answers a hostile or broken service may send: each is a clear ServiceError or an absent figure, never a traceback."""

from __future__ import annotations

import pytest
import respx

from pipeline.client.sync import Client
from pipeline.errors import ServerError, ServiceError

#: Numbers JSON parsers take that no count can be: Python's json reads all of them as floats.
NOT_A_COUNT = ["Infinity", "-Infinity", "NaN", "1e400", "-1e400", "-5", "2.5", '"many"', "true"]


def deep(depth: int) -> str:
    """An array nested ``depth`` deep: valid JSON that no recursive parser reads."""
    return "[" * depth + "]" * depth


def answer(text: str, billed: str) -> bytes:
    item = f'{{"text":"{text}","detected_source_language":"EN"}}'
    return f'{{"translations":[{item}],"billed_characters":{billed}}}'.encode()


@pytest.mark.parametrize("billed", NOT_A_COUNT)
def test_a_billed_figure_that_is_no_count_is_absent_and_the_translation_kept(
    client: Client, router: respx.Router, billed: str
) -> None:
    router.post("/v2/translate").respond(200, content=answer("Hallo", billed), content_type="application/json")
    result = client.translate(["Hello"], target_lang="DE")
    assert [t.text for t in result.translations] == ["Hallo"] and result.billed_characters is None


def test_a_billed_figure_that_is_a_count_is_kept(client: Client, router: respx.Router) -> None:
    router.post("/v2/translate").respond(200, content=answer("Hallo", "5.0"), content_type="application/json")
    assert client.translate(["Hello"], target_lang="DE").billed_characters == 5


@pytest.mark.parametrize("path", ["/v2/translate", "/v2/usage"])
@pytest.mark.parametrize("depth", [50_000, 100_000])
def test_json_nested_deeper_than_the_parser_goes_is_an_unexpected_answer(
    client: Client, router: respx.Router, path: str, depth: int
) -> None:
    router.route(path=path).respond(200, content=deep(depth).encode(), content_type="application/json")
    with pytest.raises(ServiceError, match=f"unexpected answer to [A-Z]+ {path}: .*the JSON is nested too deep"):
        client.translate(["Hello"], target_lang="DE") if path == "/v2/translate" else client.usage()


def test_an_error_answer_nested_too_deep_keeps_its_status_and_is_quoted_cut(
    client: Client, router: respx.Router
) -> None:
    router.get("/v2/usage").respond(500, content=deep(100_000).encode(), content_type="application/json")
    with pytest.raises(ServerError) as caught:
        client.usage()
    assert caught.value.status_code == 500 and caught.value.message == "[" * 300


@pytest.mark.parametrize("text", ["\\ud800", "Tag \\udfff", "\\ude00\\ud83d"])
def test_a_translation_holding_a_lone_surrogate_is_refused(client: Client, router: respx.Router, text: str) -> None:
    router.post("/v2/translate").respond(200, content=answer(text, "5"), content_type="application/json")
    with pytest.raises(ServiceError, match="unexpected answer to POST /v2/translate: .*lone surrogate") as caught:
        client.translate(["Hello"], target_lang="DE")
    assert caught.value.status_code == 200 and not caught.value.should_retry


def test_an_escaped_surrogate_pair_is_one_character(client: Client, router: respx.Router) -> None:
    router.post("/v2/translate").respond(200, content=answer("\\ud83d\\ude00", "5"), content_type="application/json")
    assert client.translate(["Hello"], target_lang="DE").translations[0].text == "\U0001f600"


@pytest.mark.parametrize("figure", ["Infinity", "-Infinity", "NaN", "1e400", "-1e400"])
@pytest.mark.parametrize("field", ["character_count", "character_limit"])
def test_usage_figures_that_are_no_count_are_an_unexpected_answer(
    client: Client, router: respx.Router, field: str, figure: str
) -> None:
    figures = {"character_count": "10", "character_limit": "1000", field: figure}
    body = "{" + ",".join(f'"{k}":{v}' for k, v in figures.items()) + "}"
    router.get("/v2/usage").respond(200, content=body.encode(), content_type="application/json")
    with pytest.raises(ServiceError, match=f"unexpected answer to GET /v2/usage: .*{field}"):
        client.usage()
