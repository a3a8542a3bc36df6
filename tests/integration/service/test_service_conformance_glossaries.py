"""Conformance of glossaries v3 and v2 over real HTTP: endpoints, content rules, limits, translation."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from pipeline.service.engine.pseudo import transliterate
from tests.integration.service.conftest import Keys

pytestmark = pytest.mark.integration

MILLIS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def dictionary(entries: str, source: str = "en", target: str = "de", fmt: str = "tsv") -> dict[str, str]:
    return {"source_lang": source, "target_lang": target, "entries": entries, "entries_format": fmt}


@pytest.fixture
def make_glossary(http: httpx.Client, keys: Keys) -> Iterator[Callable[..., dict[str, Any]]]:
    """Create v3 glossaries (paid key unless told); deleted after the test."""
    made: list[tuple[str, dict[str, str]]] = []

    def make(
        *dictionaries: dict[str, str], name: str = "terms", headers: dict[str, str] | None = None
    ) -> dict[str, Any]:
        headers = headers or keys.paid
        response = http.post("/v3/glossaries", json={"name": name, "dictionaries": list(dictionaries)}, headers=headers)
        assert response.status_code == 201, response.text
        body = response.json()
        made.append((body["glossary_id"], headers))
        result: dict[str, Any] = body
        return result

    yield make
    for glossary_id, headers in made:
        http.delete(f"/v3/glossaries/{glossary_id}", headers=headers)


def test_create_answers_the_glossary_with_ready_counts_and_millisecond_time(
    make_glossary: Callable[..., dict[str, Any]],
) -> None:
    body = make_glossary(dictionary("save\tSichern\nfile\tDatei\n"), dictionary("Datei\tfile", "DE", "EN"))
    uuid.UUID(body["glossary_id"])
    assert body["name"] == "terms" and body["ready"] is True
    assert MILLIS.match(body["creation_time"])
    assert body["dictionaries"] == [
        {"source_lang": "en", "target_lang": "de", "entry_count": 2},
        {"source_lang": "de", "target_lang": "en", "entry_count": 1},
    ]


def test_list_and_get_show_metadata_without_entries(
    http: httpx.Client, keys: Keys, make_glossary: Callable[..., dict[str, Any]]
) -> None:
    body = make_glossary(dictionary("a\tb"))
    listed = http.get("/v3/glossaries", headers=keys.paid).json()["glossaries"]
    assert body in listed
    got = http.get(f"/v3/glossaries/{body['glossary_id']}", headers=keys.paid)
    assert got.status_code == 200 and got.json() == body
    assert "entries" not in got.text


def test_entries_come_back_as_tsv_for_any_case_of_language(
    http: httpx.Client, keys: Keys, make_glossary: Callable[..., dict[str, Any]]
) -> None:
    csv_text = '"save",Sichern\n"a, b","say ""hi"""\nx,y,en,fr\nz,w,EN-us,de\n'
    body = make_glossary(dictionary(csv_text, fmt="csv"))
    assert body["dictionaries"][0]["entry_count"] == 3  # the en->fr line is ignored
    response = http.get(
        f"/v3/glossaries/{body['glossary_id']}/entries",
        params={"source_lang": "EN", "target_lang": "De"},
        headers=keys.paid,
    )
    assert response.status_code == 200
    assert response.json() == {
        "dictionaries": [
            {
                "source_lang": "en",
                "target_lang": "de",
                "entries": 'save\tSichern\na, b\tsay "hi"\nz\tw',  # lines joined, no trailing newline
                "entries_format": "tsv",
            }
        ]
    }


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_a_byte_order_mark_before_the_entries_is_not_part_of_the_first_phrase(
    http: httpx.Client, keys: Keys, make_glossary: Callable[..., dict[str, Any]], fmt: str
) -> None:
    # A spreadsheet's CSV or TSV export read as text starts with U+FEFF; it marks the file, not the phrase.
    sep = "\t" if fmt == "tsv" else ","
    body = make_glossary(dictionary(f"\ufeffsave{sep}Sichern\nfile{sep}Datei\n", fmt=fmt))
    response = http.get(
        f"/v3/glossaries/{body['glossary_id']}/entries",
        params={"source_lang": "en", "target_lang": "de"},
        headers=keys.paid,
    )
    assert response.json()["dictionaries"][0]["entries"] == "save\tSichern\nfile\tDatei"
    translate = {"text": ["save"], "source_lang": "EN", "target_lang": "DE", "glossary_id": body["glossary_id"]}
    assert http.post("/v2/translate", json=translate, headers=keys.paid).json()["translations"][0]["text"] == "Sichern"


@pytest.mark.parametrize(
    ("entries", "fmt", "line", "words"),
    [
        ("a\tb\na\tc\n", "tsv", 2, "duplicate source phrase"),
        ("a\tb\n\tc\n", "tsv", 2, "empty phrase"),
        ("a\tb\nc\t\n", "tsv", 2, "empty phrase"),
        ("a\tb\tc\n", "tsv", 1, "3 fields"),
        ("ok\tfine\n x\ty\n", "tsv", 2, "whitespace"),
        ("x\ty\u3000\n", "tsv", 1, "whitespace"),
        ("x\u0007\ty\n", "tsv", 1, "U+0007"),
        ("x\u0085y\tz\n", "tsv", 1, "U+0085"),
        ("x\u2028y\tz\n", "tsv", 1, "U+2028"),
        ("x\ry\tz\n", "tsv", 1, "U+000D"),
        ('"a\tb",c\n', "csv", 1, "U+0009"),
        ('"a,b\n', "csv", 1, "invalid CSV"),
        ("a,b,c\n", "csv", 1, "3 fields"),
        ("a\t" + "é" * 513 + "\n", "tsv", 1, "1026 UTF-8 bytes"),
    ],
)
def test_every_content_rule_is_a_400_naming_the_line(
    http: httpx.Client,
    keys: Keys,
    error: Callable[[httpx.Response, int], str],
    entries: str,
    fmt: str,
    line: int,
    words: str,
) -> None:
    response = http.post(
        "/v3/glossaries", json={"name": "bad", "dictionaries": [dictionary(entries, fmt=fmt)]}, headers=keys.paid
    )
    message = error(response, 400)
    assert f"line {line}" in message and words in message


def test_phrase_of_exactly_1024_bytes_is_accepted(make_glossary: Callable[..., dict[str, Any]]) -> None:
    make_glossary(dictionary("a\t" + "é" * 512 + "\n"))


def test_name_and_dictionary_limits(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    long_name = {"name": "n" * 1025, "dictionaries": [dictionary("a\tb")]}
    assert "1025 UTF-8 bytes" in error(http.post("/v3/glossaries", json=long_name, headers=keys.paid), 400)
    big = "\n".join(f"s{i:07d}\t{'t' * 90}" for i in range(100_001))  # just over 10,000,000 bytes
    too_big = {"name": "big", "dictionaries": [dictionary(big)]}
    assert "at most 10000000 bytes" in error(http.post("/v3/glossaries", json=too_big, headers=keys.paid), 400)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"dictionaries": [dictionary("a\tb")]}, "'name'"),
        ({"name": "x", "dictionaries": {"source_lang": "en"}}, "'dictionaries' must be an array"),
        ({"name": "x", "dictionaries": [dictionary("a\tb"), dictionary("c\td", "EN", "DE")]}, "given twice"),
        ({"name": "x", "dictionaries": [dictionary("a\tb", "en", "en")]}, "must differ"),
        ({"name": "x", "dictionaries": [dictionary("a\tb", "en-US", "de")]}, "base languages"),
        ({"name": "x", "dictionaries": [dictionary("a\tb", "xx", "de")]}, "not a supported"),
        ({"name": "x", "dictionaries": [dictionary("a\tb", fmt="xlsx")]}, "entries_format"),
        ({"name": "x", "dictionaries": [dictionary("\n\n")]}, "no entries"),
    ],
)
def test_malformed_creations_are_400(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], body: dict[str, object], words: str
) -> None:
    assert words in error(http.post("/v3/glossaries", json=body, headers=keys.paid), 400)


def test_put_replaces_or_creates_one_dictionary(
    http: httpx.Client, keys: Keys, make_glossary: Callable[..., dict[str, Any]]
) -> None:
    glossary_id = make_glossary(dictionary("a\tb\nc\td"))["glossary_id"]
    path = f"/v3/glossaries/{glossary_id}/dictionaries"
    replaced = http.put(path, json=dictionary("x\ty", "EN", "DE"), headers=keys.paid)
    assert replaced.status_code == 200
    assert replaced.json() == {"source_lang": "en", "target_lang": "de", "entry_count": 1}
    created = http.put(path, json=dictionary("x,y", "fr", "it", "csv"), headers=keys.paid)
    assert created.json() == {"source_lang": "fr", "target_lang": "it", "entry_count": 1}
    entries = http.get(f"/v3/glossaries/{glossary_id}/entries?source_lang=en&target_lang=de", headers=keys.paid)
    assert entries.json()["dictionaries"][0]["entries"] == "x\ty"  # no trailing newline, as the real service


def test_patch_renames_and_merges(
    http: httpx.Client,
    keys: Keys,
    make_glossary: Callable[..., dict[str, Any]],
    error: Callable[[httpx.Response, int], str],
) -> None:
    glossary_id = make_glossary(dictionary("a\tb\nc\td"))["glossary_id"]
    path = f"/v3/glossaries/{glossary_id}"
    renamed = http.patch(path, json={"name": "renamed"}, headers=keys.paid)
    assert renamed.status_code == 200 and renamed.json()["name"] == "renamed"
    merged = http.patch(path, json={"dictionaries": [dictionary("c\tD2\ne\tf")]}, headers=keys.paid)
    assert merged.json()["dictionaries"] == [{"source_lang": "en", "target_lang": "de", "entry_count": 3}]
    assert "entries" not in merged.text
    entries = http.get(f"{path}/entries", params={"source_lang": "en", "target_lang": "de"}, headers=keys.paid)
    assert entries.json()["dictionaries"][0]["entries"] == "a\tb\nc\tD2\ne\tf"
    added = http.patch(path, json={"dictionaries": [dictionary("g\th", "de", "en")]}, headers=keys.paid)
    assert len(added.json()["dictionaries"]) == 2
    two = {"dictionaries": [dictionary("a\tb"), dictionary("a\tb", "de", "en")]}
    assert "exactly one" in error(http.patch(path, json=two, headers=keys.paid), 400)
    assert "nothing to change" in error(http.patch(path, json={}, headers=keys.paid), 400)
    bad = http.patch(path, json={"name": "x", "dictionaries": [dictionary("a\tb\na\tc")]}, headers=keys.paid)
    assert "line 2" in error(bad, 400)
    assert http.get(path, headers=keys.paid).json()["name"] == "renamed"  # a refused PATCH changes nothing


def test_deletes_answer_204_and_then_404(
    http: httpx.Client,
    keys: Keys,
    make_glossary: Callable[..., dict[str, Any]],
    error: Callable[[httpx.Response, int], str],
) -> None:
    glossary_id = make_glossary(dictionary("a\tb"), dictionary("c\td", "de", "en"))["glossary_id"]
    query = {"source_lang": "de", "target_lang": "en"}
    gone = http.delete(f"/v3/glossaries/{glossary_id}/dictionaries", params=query, headers=keys.paid)
    assert gone.status_code == 204 and gone.content == b""
    error(http.delete(f"/v3/glossaries/{glossary_id}/dictionaries", params=query, headers=keys.paid), 404)
    error(http.get(f"/v3/glossaries/{glossary_id}/entries", params=query, headers=keys.paid), 404)
    assert "source_lang" in error(http.delete(f"/v3/glossaries/{glossary_id}/dictionaries", headers=keys.paid), 400)
    deleted = http.delete(f"/v3/glossaries/{glossary_id}", headers=keys.paid)
    assert deleted.status_code == 204 and deleted.content == b""
    for response in (
        http.get(f"/v3/glossaries/{glossary_id}", headers=keys.paid),
        http.delete(f"/v3/glossaries/{glossary_id}", headers=keys.paid),
        http.patch(f"/v3/glossaries/{glossary_id}", json={"name": "x"}, headers=keys.paid),
        http.put(f"/v3/glossaries/{glossary_id}/dictionaries", json=dictionary("a\tb"), headers=keys.paid),
    ):
        error(response, 404)


@pytest.mark.parametrize("other", ["free", "other_paid"])
def test_another_account_sees_nothing(
    http: httpx.Client,
    keys: Keys,
    make_glossary: Callable[..., dict[str, Any]],
    error: Callable[[httpx.Response, int], str],
    other: str,
) -> None:
    glossary_id = make_glossary(dictionary("a\tb"))["glossary_id"]
    stranger = getattr(keys, other)
    assert glossary_id not in [
        g["glossary_id"] for g in http.get("/v3/glossaries", headers=stranger).json()["glossaries"]
    ]
    error(http.get(f"/v3/glossaries/{glossary_id}", headers=stranger), 404)
    error(http.get(f"/v3/glossaries/{glossary_id}/entries?source_lang=en&target_lang=de", headers=stranger), 404)
    error(http.patch(f"/v3/glossaries/{glossary_id}", json={"name": "mine"}, headers=stranger), 404)
    error(http.put(f"/v3/glossaries/{glossary_id}/dictionaries", json=dictionary("x\ty"), headers=stranger), 404)
    error(
        http.delete(f"/v3/glossaries/{glossary_id}/dictionaries?source_lang=en&target_lang=de", headers=stranger), 404
    )
    error(http.delete(f"/v3/glossaries/{glossary_id}", headers=stranger), 404)
    error(http.get(f"/v2/glossaries/{glossary_id}", headers=stranger), 404)
    body = {"text": ["a"], "source_lang": "EN", "target_lang": "DE", "glossary_id": glossary_id}
    error(http.post("/v2/translate", json=body, headers=stranger), 404)
    document = {"source_lang": "EN", "target_lang": "DE", "glossary_id": glossary_id}
    error(http.post("/v2/document", files={"file": ("a.txt", b"a\n")}, data=document, headers=stranger), 404)
    assert http.get(f"/v3/glossaries/{glossary_id}", headers=keys.paid).json()["name"] == "terms"


def test_free_tier_may_use_glossaries(make_glossary: Callable[..., dict[str, Any]], keys: Keys) -> None:
    assert make_glossary(dictionary("a\tb"), headers=keys.free)["ready"] is True


def test_wrong_media_type_and_no_key(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    response = http.post("/v3/glossaries", content=b"name=x", headers={**keys.paid, "Content-Type": "text/plain"})
    error(response, 415)
    error(http.get("/v3/glossaries"), 403)


def test_translation_applies_the_dictionary_of_the_base_pair(
    http: httpx.Client,
    keys: Keys,
    make_glossary: Callable[..., dict[str, Any]],
    error: Callable[[httpx.Response, int], str],
) -> None:
    glossary_id = make_glossary(dictionary("save\tSichern\nthe file\tdie Datei"))["glossary_id"]
    body = {"text": ["Save the FILE now"], "source_lang": "en", "target_lang": "DE", "glossary_id": glossary_id}
    out = http.post("/v2/translate", json=body, headers=keys.paid)
    assert out.json()["translations"][0]["text"] == f"Sichern die Datei {transliterate('now', 'DE')}"
    swiss = http.post("/v2/translate", json={**body, "target_lang": "de-CH"}, headers=keys.paid)
    assert swiss.json()["translations"][0]["text"].startswith("Sichern die Datei")
    assert "source_lang" in error(
        http.post("/v2/translate", json={**body, "source_lang": None}, headers=keys.paid), 400
    )
    assert "No dictionary found for language pair en->fr" in error(
        http.post("/v2/translate", json={**body, "target_lang": "FR"}, headers=keys.paid), 400
    )
    unknown = {**body, "glossary_id": str(uuid.uuid4())}
    assert "not found" in error(http.post("/v2/translate", json=unknown, headers=keys.paid), 404)


# --- v2 (legacy) ---------------------------------------------------------------------------


def test_v2_lifecycle(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    body = {"name": "legacy", "source_lang": "EN", "target_lang": "de", "entries": "a,b\n", "entries_format": "csv"}
    created = http.post("/v2/glossaries", json=body, headers=keys.paid)
    assert created.status_code == 201, created.text
    glossary = created.json()
    assert {k: glossary[k] for k in ("name", "source_lang", "target_lang", "entry_count", "ready")} == {
        "name": "legacy",
        "source_lang": "en",
        "target_lang": "de",
        "entry_count": 1,
        "ready": True,
    }
    assert MILLIS.match(glossary["creation_time"])
    glossary_id = glossary["glossary_id"]
    assert glossary in http.get("/v2/glossaries", headers=keys.paid).json()["glossaries"]
    assert http.get(f"/v2/glossaries/{glossary_id}", headers=keys.paid).json() == glossary
    tsv = http.get(
        f"/v2/glossaries/{glossary_id}/entries", headers={**keys.paid, "Accept": "text/tab-separated-values"}
    )
    assert tsv.status_code == 200 and tsv.text == "a\tb\n"
    assert tsv.headers["content-type"].startswith("text/tab-separated-values")
    # 415, as the real service's OpenAPI description ("the requested entries format specified in the
    # Accept header is not supported") and its official mock answer; it was 406.
    json_accept = {**keys.paid, "Accept": "application/json"}
    assert "Accept" in error(http.get(f"/v2/glossaries/{glossary_id}/entries", headers=json_accept), 415)
    # v2 glossaries are v3 glossaries with one dictionary, usable in translation
    assert http.get(f"/v3/glossaries/{glossary_id}", headers=keys.paid).json()["dictionaries"][0]["entry_count"] == 1
    translate = {"text": ["a"], "source_lang": "EN", "target_lang": "DE", "glossary_id": glossary_id}
    assert http.post("/v2/translate", json=translate, headers=keys.paid).json()["translations"][0]["text"] == "b"
    error(http.patch(f"/v2/glossaries/{glossary_id}", json={"name": "x"}, headers=keys.paid), 405)
    error(http.get(f"/v2/glossaries/{glossary_id}", headers=keys.free), 404)
    deleted = http.delete(f"/v2/glossaries/{glossary_id}", headers=keys.paid)
    assert deleted.status_code == 204
    error(http.get(f"/v2/glossaries/{glossary_id}", headers=keys.paid), 404)


def test_v2_rules_and_multilingual_glossaries(
    http: httpx.Client,
    keys: Keys,
    error: Callable[[httpx.Response, int], str],
    make_glossary: Callable[..., dict[str, Any]],
) -> None:
    bad = {"name": "x", "source_lang": "en", "target_lang": "de", "entries": "a\tb\na\tc", "entries_format": "tsv"}
    assert "line 2" in error(http.post("/v2/glossaries", json=bad, headers=keys.paid), 400)
    multi = make_glossary(dictionary("a\tb"), dictionary("b\ta", "de", "en"))["glossary_id"]
    assert multi not in [g["glossary_id"] for g in http.get("/v2/glossaries", headers=keys.paid).json()["glossaries"]]
    assert "/v3/glossaries" in error(http.get(f"/v2/glossaries/{multi}", headers=keys.paid), 400)


def test_glossary_language_pairs_are_listed(http: httpx.Client, keys: Keys) -> None:
    pairs = http.get("/v2/glossary-language-pairs", headers=keys.paid).json()["supported_languages"]
    assert {"source_lang": "en", "target_lang": "de"} in pairs


def test_v2_entries_of_a_missing_glossary_is_404_whatever_the_accept(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    # Existence is decided before content negotiation, as for every other resource endpoint.
    missing = f"/v2/glossaries/{uuid.uuid4()}/entries"
    error(http.get(missing, headers={**keys.paid, "Accept": "application/json"}), 404)


def test_a_glossary_outlives_its_last_dictionary(
    http: httpx.Client,
    keys: Keys,
    make_glossary: Callable[..., dict[str, Any]],
    error: Callable[[httpx.Response, int], str],
) -> None:
    # Spec: silent. Choice (local-service-resources.md): the glossary stays, empty, until deleted.
    glossary_id = make_glossary(dictionary("a\tb"))["glossary_id"]
    query = {"source_lang": "en", "target_lang": "de"}
    gone = http.delete(f"/v3/glossaries/{glossary_id}/dictionaries", params=query, headers=keys.paid)
    assert gone.status_code == 204
    empty = http.get(f"/v3/glossaries/{glossary_id}", headers=keys.paid).json()
    assert empty["dictionaries"] == [] and empty["glossary_id"] == glossary_id
    listed = http.get("/v3/glossaries", headers=keys.paid).json()["glossaries"]
    assert any(g["glossary_id"] == glossary_id for g in listed)
    body = {"text": ["a"], "source_lang": "EN", "target_lang": "DE", "glossary_id": glossary_id}
    assert "dictionary" in error(http.post("/v2/translate", json=body, headers=keys.paid), 400)
    assert "/v3/glossaries" in error(http.get(f"/v2/glossaries/{glossary_id}", headers=keys.paid), 400)
    refilled = http.put(f"/v3/glossaries/{glossary_id}/dictionaries", json=dictionary("a\tc"), headers=keys.paid)
    assert refilled.status_code == 200
    out = http.post("/v2/translate", json=body, headers=keys.paid).json()["translations"][0]["text"]
    assert out == "c"
