"""Glossary writes as URL-encoded forms, each request shape exactly as the official Node.js client sends it.

``deepl-node`` builds every glossary write with ``URLSearchParams`` (spaces as ``+``, the dictionaries
of a v3 body as ``dictionaries[N].field``): ``Translator.createGlossary`` (v2),
``DeepLClient.createMultilingualGlossary`` / ``...WithCsv`` (v3 POST),
``updateMultilingualGlossaryName`` / ``updateMultilingualGlossaryDictionary`` (PATCH) and
``replaceMultilingualGlossaryDictionary`` (PUT). These tests keep those shapes without node.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Iterator

import httpx
import pytest

from pipeline.service.engine.pseudo import transliterate
from tests.integration.service.conftest import Keys

pytestmark = pytest.mark.integration

FORM = "application/x-www-form-urlencoded"


def form(pairs: list[tuple[str, str]]) -> bytes:
    """A body as ``URLSearchParams.toString()`` writes it (``+`` for spaces, the rest percent-encoded)."""
    return urllib.parse.urlencode(pairs).encode()


def send(
    http: httpx.Client, method: str, path: str, pairs: list[tuple[str, str]], headers: dict[str, str]
) -> httpx.Response:
    return http.request(method, path, content=form(pairs), headers={**headers, "Content-Type": FORM})


def node_dictionary(index: int, source: str, target: str, entries: str, fmt: str = "tsv") -> list[tuple[str, str]]:
    """``appendDictionaryEntries`` / ``appendCsvDictionaryEntries`` of deepl-node."""
    return [
        (f"dictionaries[{index}].source_lang", source),
        (f"dictionaries[{index}].target_lang", target),
        (f"dictionaries[{index}].entries", entries),
        (f"dictionaries[{index}].entries_format", fmt),
    ]


@pytest.fixture
def created(http: httpx.Client, keys: Keys) -> Iterator[list[str]]:
    """Glossary ids to delete after the test."""
    ids: list[str] = []
    yield ids
    for glossary_id in ids:
        http.delete(f"/v3/glossaries/{glossary_id}", headers=keys.paid)


def entries(http: httpx.Client, keys: Keys, glossary_id: str, source: str, target: str) -> str:
    query = {"source_lang": source, "target_lang": target}
    response = http.get(f"/v3/glossaries/{glossary_id}/entries", params=query, headers=keys.paid)
    assert response.status_code == 200, response.text
    result: str = response.json()["dictionaries"][0]["entries"]
    return result


def test_v2_creation_from_a_form(http: httpx.Client, keys: Keys, created: list[str]) -> None:
    pairs = [
        ("name", "node v2 glossary"),
        ("source_lang", "en"),
        ("target_lang", "de"),
        ("entries_format", "tsv"),
        ("entries", "Hello\tHallo\nthe file\tdie Datei"),
    ]
    response = send(http, "POST", "/v2/glossaries", pairs, keys.paid)
    assert response.status_code == 201, response.text
    glossary = response.json()
    created.append(glossary["glossary_id"])
    assert (glossary["name"], glossary["source_lang"], glossary["target_lang"], glossary["entry_count"]) == (
        "node v2 glossary",
        "en",
        "de",
        2,
    )
    csv = [("name", "csv"), ("source_lang", "en"), ("target_lang", "de"), ("entries_format", "csv"), ("entries", "a,b")]
    from_csv = send(http, "POST", "/v2/glossaries", csv, keys.paid)
    assert from_csv.status_code == 201, from_csv.text
    created.append(from_csv.json()["glossary_id"])


def test_v3_creation_from_indexed_form_fields_is_usable(http: httpx.Client, keys: Keys, created: list[str]) -> None:
    pairs = [
        ("name", "node v3 glossary"),
        *node_dictionary(0, "en", "de", "Hello\tHallo\nthe file\tdie Datei"),
        *node_dictionary(1, "de", "en", "Hallo\tHello"),
    ]
    response = send(http, "POST", "/v3/glossaries", pairs, keys.paid)
    assert response.status_code == 201, response.text
    glossary = response.json()
    created.append(glossary["glossary_id"])
    assert glossary["name"] == "node v3 glossary"
    assert [(d["source_lang"], d["target_lang"], d["entry_count"]) for d in glossary["dictionaries"]] == [
        ("en", "de", 2),
        ("de", "en", 1),
    ]
    assert entries(http, keys, glossary["glossary_id"], "en", "de") == "Hello\tHallo\nthe file\tdie Datei"
    body = {"text": ["Open the file"], "source_lang": "EN", "target_lang": "DE", "glossary_id": glossary["glossary_id"]}
    assert http.post("/v2/translate", json=body, headers=keys.paid).json()["translations"][0]["text"] == (
        f"{transliterate('Open', 'DE')} die Datei"
    )


def test_v3_creation_from_csv_form_fields(http: httpx.Client, keys: Keys, created: list[str]) -> None:
    pairs = [
        ("name", "csv"),
        *node_dictionary(0, "en", "de", 'sourceEntry1,targetEntry1\n"source""Entry","t,E"', "csv"),
    ]
    response = send(http, "POST", "/v3/glossaries", pairs, keys.paid)
    assert response.status_code == 201, response.text
    created.append(response.json()["glossary_id"])
    assert entries(http, keys, response.json()["glossary_id"], "en", "de") == (
        'sourceEntry1\ttargetEntry1\nsource"Entry\tt,E'
    )


@pytest.mark.parametrize(
    "send_it",
    [
        pytest.param(
            lambda http, keys: send(http, "POST", "/v3/glossaries", [("name", "empty")], keys.paid), id="form"
        ),
        pytest.param(
            lambda http, keys: http.post(
                "/v3/glossaries", json={"name": "empty", "dictionaries": []}, headers=keys.paid
            ),
            id="json-empty",
        ),
        pytest.param(
            lambda http, keys: http.post("/v3/glossaries", json={"name": "empty"}, headers=keys.paid), id="json"
        ),
    ],
)
def test_a_glossary_may_be_created_with_no_dictionary_and_filled_later(
    http: httpx.Client, keys: Keys, created: list[str], send_it: Callable[[httpx.Client, Keys], httpx.Response]
) -> None:
    """``createMultilingualGlossary(name, [])`` succeeds against the real service (deepl-node's own test)."""
    response = send_it(http, keys)
    assert response.status_code == 201, response.text
    glossary = response.json()
    created.append(glossary["glossary_id"])
    assert (glossary["name"], glossary["dictionaries"]) == ("empty", [])
    assert http.get(f"/v3/glossaries/{glossary['glossary_id']}", headers=keys.paid).json()["dictionaries"] == []
    filled = send(
        http,
        "PUT",
        f"/v3/glossaries/{glossary['glossary_id']}/dictionaries",
        [("source_lang", "en"), ("target_lang", "de"), ("entries", "a\tb"), ("entries_format", "tsv")],
        keys.paid,
    )
    assert filled.json() == {"source_lang": "en", "target_lang": "de", "entry_count": 1}


def test_patch_renames_and_merges_from_forms(http: httpx.Client, keys: Keys, created: list[str]) -> None:
    made = send(
        http, "POST", "/v3/glossaries", [("name", "before"), *node_dictionary(0, "en", "de", "a\tb")], keys.paid
    )
    glossary_id = made.json()["glossary_id"]
    created.append(glossary_id)
    path = f"/v3/glossaries/{glossary_id}"
    renamed = send(http, "PATCH", path, [("name", "after rename")], keys.paid)
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["name"] == "after rename"
    merged = send(http, "PATCH", path, node_dictionary(0, "en", "de", "c\td"), keys.paid)
    assert merged.status_code == 200, merged.text
    assert merged.json()["dictionaries"] == [{"source_lang": "en", "target_lang": "de", "entry_count": 2}]
    from_csv = send(http, "PATCH", path, node_dictionary(0, "en", "de", "a,z", "csv"), keys.paid)
    assert from_csv.status_code == 200, from_csv.text
    assert entries(http, keys, glossary_id, "en", "de") == "a\tz\nc\td"


@pytest.mark.parametrize(("fmt", "sent"), [("tsv", "x\ty\nv\tw"), ("csv", "x,y\nv,w")])
def test_put_replaces_a_dictionary_from_a_form(
    http: httpx.Client, keys: Keys, created: list[str], fmt: str, sent: str
) -> None:
    made = send(http, "POST", "/v3/glossaries", [("name", "put"), *node_dictionary(0, "en", "de", "a\tb")], keys.paid)
    glossary_id = made.json()["glossary_id"]
    created.append(glossary_id)
    pairs = [("source_lang", "en"), ("target_lang", "de"), ("entries", sent), ("entries_format", fmt)]
    replaced = send(http, "PUT", f"/v3/glossaries/{glossary_id}/dictionaries", pairs, keys.paid)
    assert replaced.json() == {"source_lang": "en", "target_lang": "de", "entry_count": 2}
    assert entries(http, keys, glossary_id, "en", "de") == "x\ty\nv\tw"


def test_the_bracket_spelling_of_indexed_fields_is_read_too(http: httpx.Client, keys: Keys, created: list[str]) -> None:
    pairs = [("name", "brackets"), *((k.replace(".", "[") + "]", v) for k, v in node_dictionary(0, "en", "fr", "a\tb"))]
    assert pairs[1][0] == "dictionaries[0][source_lang]"
    response = send(http, "POST", "/v3/glossaries", pairs, keys.paid)
    assert response.status_code == 201, response.text
    created.append(response.json()["glossary_id"])
    assert response.json()["dictionaries"] == [{"source_lang": "en", "target_lang": "fr", "entry_count": 1}]


@pytest.mark.parametrize(
    ("pairs", "words"),
    [
        ([("name", "x"), *node_dictionary(1, "en", "de", "a\tb")], "dictionaries[0] is missing"),
        ([("name", "x"), ("name", "y")], "form field 'name' may be given only once"),
        (
            [("name", "x"), *node_dictionary(0, "en", "de", "a\tb"), ("dictionaries[0][entries]", "c\td")],
            "'dictionaries[0][entries]' is given twice",
        ),
        (
            [("name", "x"), ("dictionaries", "en"), *node_dictionary(0, "en", "de", "a\tb")],
            "'dictionaries' is given both plain and indexed",
        ),
        ([("name", "x"), *node_dictionary(0, "en", "en", "a\tb")], "must differ"),
        ([("name", "x"), *node_dictionary(0, "en", "de", "a\tb", "xlsx")], "entries_format"),
        ([*node_dictionary(0, "en", "de", "a\tb")], "'name'"),
    ],
)
def test_broken_form_fields_are_400_naming_the_field(
    http: httpx.Client,
    keys: Keys,
    error: Callable[[httpx.Response, int], str],
    pairs: list[tuple[str, str]],
    words: str,
) -> None:
    assert words in error(send(http, "POST", "/v3/glossaries", pairs, keys.paid), 400)


def test_a_form_that_is_not_utf8_is_400(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    response = http.post("/v3/glossaries", content=b"name=%ff", headers={**keys.paid, "Content-Type": FORM})
    assert "not a valid URL-encoded form" in error(response, 400)


def test_other_media_types_are_415_and_legacy_auth_in_a_form_is_403(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    for method, path in (
        ("POST", "/v3/glossaries"),
        ("POST", "/v2/glossaries"),
        ("PATCH", f"/v3/glossaries/{'0' * 8}"),
    ):
        response = http.request(method, path, content=b"name=x", headers={**keys.paid, "Content-Type": "text/plain"})
        assert error(response, 415) == (
            "unsupported content type 'text/plain'; send application/json or application/x-www-form-urlencoded"
        )
    legacy = send(http, "POST", "/v3/glossaries", [("name", "x"), ("auth_key", "k")], keys.paid)
    assert "legacy authentication" in error(legacy, 403)


def test_style_rules_still_take_json_only(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    response = send(http, "POST", "/v3/style_rules", [("name", "x"), ("language", "de")], keys.paid)
    assert error(response, 415) == f"unsupported content type '{FORM}'; send application/json"


@pytest.mark.parametrize(
    "key",
    [
        "dictionaries[][source_lang]",  # qs with arrayFormat "brackets", PHP's way of writing a list
        "dictionaries[1000000].source_lang",
        "dictionaries[-1].source_lang",
        "dictionaries[0]source_lang",
    ],
)
def test_a_dictionary_in_fields_outside_the_form_grammar_is_400_not_dropped(
    http: httpx.Client,
    keys: Keys,
    created: list[str],
    error: Callable[[httpx.Response, int], str],
    key: str,
) -> None:
    """Such fields were read as unknown plain fields: 201 and an empty glossary, the dictionary gone."""
    fields = [key.replace("source_lang", name) for name in ("source_lang", "target_lang", "entries", "entries_format")]
    pairs = [("name", "odd fields"), *zip(fields, ("en", "de", "a\tb", "tsv"), strict=True)]
    response = send(http, "POST", "/v3/glossaries", pairs, keys.paid)
    if response.status_code == 201:
        created.append(response.json()["glossary_id"])
    assert key in error(response, 400)
