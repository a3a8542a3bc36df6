"""Conformance of style rule lists over real HTTP: ten endpoints, versions, paging, limits, translation."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from pipeline.service.engine.pseudo import transliterate
from tests.integration.service.conftest import DevKey, Keys

pytestmark = pytest.mark.integration

MILLIS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
CURLY = {"punctuation": {"apostrophe": "use_curly_apostrophes"}}


@pytest.fixture
def make_style(http: httpx.Client, keys: Keys) -> Iterator[Callable[..., dict[str, Any]]]:
    """Create style rule lists with the paid key; deleted after the test."""
    made: list[str] = []

    def make(**fields: object) -> dict[str, Any]:
        body = {"name": "house style", "language": "de", **fields}
        response = http.post("/v3/style_rules", json=body, headers=keys.paid)
        assert response.status_code == 201, response.text
        made.append(response.json()["style_id"])
        made_rule: dict[str, Any] = response.json()
        return made_rule

    yield make
    for style_id in made:
        http.delete(f"/v3/style_rules/{style_id}", headers=keys.paid)


def test_create_answers_the_full_list_at_version_1(make_style: Callable[..., dict[str, Any]]) -> None:
    instruction = {"label": "Tone", "prompt": "Use the informal du.", "source_language": "EN"}
    body = make_style(language="DE", configured_rules=CURLY, custom_instructions=[instruction])
    uuid.UUID(body["style_id"])
    assert body["language"] == "de" and body["version"] == 1 and body["name"] == "house style"
    assert MILLIS.match(body["creation_time"]) and body["updated_time"] == body["creation_time"]
    assert body["configured_rules"] == CURLY
    [made] = body["custom_instructions"]
    uuid.UUID(made.pop("id"))
    assert made == {"label": "Tone", "prompt": "Use the informal du.", "source_language": "en"}


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"name": ""}, "'name'"),
        ({"name": "n" * 1025}, "1025 characters"),
        ({"language": "nl"}, "'language'"),
        ({"language": "en-US"}, "'language'"),
        ({"configured_rules": {"punctuation": "curly"}}, "configured_rules"),
        ({"configured_rules": {"punctuation": {"apostrophe": 1}}}, "configured_rules"),
        # Not an array, though falsy: they were read as "no instructions" (found with the OpenAPI description).
        ({"custom_instructions": {}}, "'custom_instructions'"),
        ({"custom_instructions": 0}, "'custom_instructions'"),
        ({"custom_instructions": ""}, "'custom_instructions'"),
        ({"custom_instructions": [{"label": "l"}]}, "'prompt'"),
        ({"custom_instructions": [{"label": "l" * 101, "prompt": "p"}]}, "101 characters"),
        ({"custom_instructions": [{"label": "l", "prompt": "p" * 301}]}, "301 characters"),
        ({"custom_instructions": [{"label": "l", "prompt": "p", "source_language": "xx"}]}, "source_language"),
        ({"custom_instructions": [{"label": "l", "prompt": "p"}] * 201}, "at most 200"),
    ],
)
def test_creation_limits_are_400(
    http: httpx.Client,
    keys: Keys,
    error: Callable[[httpx.Response, int], str],
    fields: dict[str, object],
    words: str,
) -> None:
    body = {"name": "x", "language": "de", **fields}
    assert words in error(http.post("/v3/style_rules", json=body, headers=keys.paid), 400)


def test_200_instructions_are_accepted_and_the_201st_refused(
    http: httpx.Client,
    keys: Keys,
    make_style: Callable[..., dict[str, Any]],
    error: Callable[[httpx.Response, int], str],
) -> None:
    style = make_style(custom_instructions=[{"label": f"l{i}", "prompt": "p"} for i in range(200)])
    assert len(style["custom_instructions"]) == 200
    more = http.post(
        f"/v3/style_rules/{style['style_id']}/custom_instructions",
        json={"label": "x", "prompt": "y"},
        headers=keys.paid,
    )
    assert "at most 200" in error(more, 400)
    assert http.get(f"/v3/style_rules/{style['style_id']}", headers=keys.paid).json()["version"] == 1


def test_every_modification_adds_one_to_the_version(
    http: httpx.Client, keys: Keys, make_style: Callable[..., dict[str, Any]]
) -> None:
    style = make_style(custom_instructions=[{"label": "a", "prompt": "b"}])
    path = f"/v3/style_rules/{style['style_id']}"
    renamed = http.patch(path, json={"name": "new name"}, headers=keys.paid).json()
    assert (renamed["name"], renamed["version"]) == ("new name", 2)
    rules = http.put(f"{path}/configured_rules", json=CURLY, headers=keys.paid).json()
    assert rules["version"] == 3 and rules["configured_rules"] == CURLY
    assert rules["custom_instructions"] == style["custom_instructions"]  # PUT leaves instructions alone
    added = http.post(f"{path}/custom_instructions", json={"label": "c", "prompt": "d"}, headers=keys.paid)
    assert added.status_code == 201 and added.json()["version"] == 4
    new = added.json()["custom_instructions"][-1]
    replaced = http.put(
        f"{path}/custom_instructions/{new['id']}",
        json={"label": "e", "prompt": "f", "source_language": "fr"},
        headers=keys.paid,
    )
    assert replaced.json() == {"id": new["id"], "label": "e", "prompt": "f", "source_language": "fr"}
    assert http.get(f"{path}/custom_instructions/{new['id']}", headers=keys.paid).json() == replaced.json()
    removed = http.delete(f"{path}/custom_instructions/{new['id']}", headers=keys.paid)
    assert removed.status_code == 204 and removed.content == b""
    final = http.get(path, headers=keys.paid).json()
    assert final["version"] == 6 and final["custom_instructions"] == style["custom_instructions"]
    assert final["updated_time"] >= final["creation_time"]
    emptied = http.put(f"{path}/configured_rules", json={}, headers=keys.paid).json()
    assert emptied["configured_rules"] == {} and emptied["version"] == 7


def test_replacing_the_configured_rules_without_a_body_is_400_and_keeps_them(
    http: httpx.Client,
    keys: Keys,
    make_style: Callable[..., dict[str, Any]],
    error: Callable[[httpx.Response, int], str],
) -> None:
    # The body is required (the real service's description); an absent one was read as {} and
    # replaced every rule with nothing. An explicit {} still clears them.
    style = make_style(configured_rules=CURLY)
    path = f"/v3/style_rules/{style['style_id']}"
    assert "configured rules" in error(http.put(f"{path}/configured_rules", headers=keys.paid), 400)
    kept = http.get(path, headers=keys.paid).json()
    assert (kept["configured_rules"], kept["version"]) == (CURLY, 1)


def test_list_pages_and_detail(
    http: httpx.Client,
    keys: Keys,
    make_style: Callable[..., dict[str, Any]],
    error: Callable[[httpx.Response, int], str],
) -> None:
    ids = [make_style(name=f"list {i}", configured_rules=CURLY)["style_id"] for i in range(3)]
    everything = http.get("/v3/style_rules", params={"page_size": 25}, headers=keys.paid).json()["style_rules"]
    mine = [s for s in everything if s["style_id"] in ids]
    assert [s["style_id"] for s in mine] == ids
    assert all("configured_rules" not in s and "custom_instructions" not in s for s in mine)
    detailed = http.get("/v3/style_rules", params={"page_size": 25, "detailed": "true"}, headers=keys.paid).json()
    assert all(s["configured_rules"] == CURLY for s in detailed["style_rules"] if s["style_id"] in ids)
    total = len(everything)
    pages = [
        http.get("/v3/style_rules", params={"page": p, "page_size": 1}, headers=keys.paid).json()["style_rules"]
        for p in range(total + 1)
    ]
    assert [page[0]["style_id"] for page in pages[:total]] == [s["style_id"] for s in everything]
    assert pages[total] == []
    default = http.get("/v3/style_rules", headers=keys.paid).json()["style_rules"]
    assert len(default) == min(total, 10)
    for params in ({"page_size": 0}, {"page_size": 26}, {"page": -1}, {"page": "x"}, {"detailed": "maybe"}):
        error(http.get("/v3/style_rules", params=params, headers=keys.paid), 400)


@pytest.mark.parametrize("page", ["400000000000000000", "99999999999999999999"])
def test_a_page_past_every_list_is_empty_not_a_server_error(http: httpx.Client, keys: Keys, page: str) -> None:
    """A page number whose offset does not fit SQLite's 64-bit integers was a 500 (OverflowError)."""
    response = http.get("/v3/style_rules", params={"page": page, "page_size": 25}, headers=keys.paid)
    assert response.status_code == 200, response.text
    assert response.json() == {"style_rules": []}


def test_missing_lists_and_instructions_are_404(
    http: httpx.Client,
    keys: Keys,
    make_style: Callable[..., dict[str, Any]],
    error: Callable[[httpx.Response, int], str],
) -> None:
    missing = f"/v3/style_rules/{uuid.uuid4()}"
    for response in (
        http.get(missing, headers=keys.paid),
        http.patch(missing, json={"name": "x"}, headers=keys.paid),
        http.put(f"{missing}/configured_rules", json={}, headers=keys.paid),
        http.delete(missing, headers=keys.paid),
        http.post(f"{missing}/custom_instructions", json={"label": "l", "prompt": "p"}, headers=keys.paid),
    ):
        error(response, 404)
    path = f"/v3/style_rules/{make_style()['style_id']}"
    instruction = f"{path}/custom_instructions/{uuid.uuid4()}"
    error(http.get(instruction, headers=keys.paid), 404)
    error(http.put(instruction, json={"label": "l", "prompt": "p"}, headers=keys.paid), 404)
    error(http.delete(instruction, headers=keys.paid), 404)
    assert http.get(path, headers=keys.paid).json()["version"] == 1
    assert http.delete(path, headers=keys.paid).status_code == 204
    error(http.delete(path, headers=keys.paid), 404)


def test_paid_tier_only(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    for response in (
        http.get("/v3/style_rules", headers=keys.free),
        http.post("/v3/style_rules", json={"name": "x", "language": "de"}, headers=keys.free),
        http.get(f"/v3/style_rules/{uuid.uuid4()}", headers=keys.free),
    ):
        assert "paid-tier" in error(response, 403)


def test_keys_of_one_account_share_its_lists(
    http: httpx.Client, keys: Keys, make_style: Callable[..., dict[str, Any]], new_key: Callable[..., DevKey]
) -> None:
    style_id = make_style()["style_id"]
    other_key = new_key("style reader")
    assert http.get(f"/v3/style_rules/{style_id}", headers=other_key.headers).status_code == 200


def test_another_paid_account_sees_nothing(
    http: httpx.Client,
    keys: Keys,
    make_style: Callable[..., dict[str, Any]],
    error: Callable[[httpx.Response, int], str],
) -> None:
    style = make_style(custom_instructions=[{"label": "Tone", "prompt": "Use du."}])
    path = f"/v3/style_rules/{style['style_id']}"
    instruction = f"{path}/custom_instructions/{style['custom_instructions'][0]['id']}"
    stranger = keys.other_paid
    listed = http.get("/v3/style_rules", params={"page_size": 25}, headers=stranger).json()["style_rules"]
    assert style["style_id"] not in [s["style_id"] for s in listed]
    for response in (
        http.get(path, headers=stranger),
        http.patch(path, json={"name": "mine"}, headers=stranger),
        http.put(f"{path}/configured_rules", json=CURLY, headers=stranger),
        http.post(f"{path}/custom_instructions", json={"label": "l", "prompt": "p"}, headers=stranger),
        http.get(instruction, headers=stranger),
        http.put(instruction, json={"label": "l", "prompt": "p"}, headers=stranger),
        http.delete(instruction, headers=stranger),
        http.delete(path, headers=stranger),
        http.post(
            "/v2/translate", json={"text": ["x"], "target_lang": "DE", "style_id": style["style_id"]}, headers=stranger
        ),
        http.post(
            "/v2/document",
            files={"file": ("a.txt", b"x\n")},
            data={"target_lang": "DE", "style_id": style["style_id"]},
            headers=stranger,
        ),
    ):
        error(response, 404)
    assert http.get(path, headers=keys.paid).json()["version"] == 1
    theirs = http.post("/v3/style_rules", json={"name": "theirs", "language": "de"}, headers=stranger).json()[
        "style_id"
    ]
    try:
        error(http.get(f"/v3/style_rules/{theirs}", headers=keys.paid), 404)
    finally:
        http.delete(f"/v3/style_rules/{theirs}", headers=stranger)


def test_translation_uses_the_list(
    http: httpx.Client,
    keys: Keys,
    make_style: Callable[..., dict[str, Any]],
    error: Callable[[httpx.Response, int], str],
) -> None:
    style = make_style(configured_rules=CURLY)
    body = {"text": ["don't"], "source_lang": "EN", "target_lang": "DE", "style_id": style["style_id"]}
    out = http.post("/v2/translate", json={**body, "model_type": "prefer_quality_optimized"}, headers=keys.paid).json()
    curly = transliterate("don't", "DE", next_gen=True).replace("'", "\u2019")
    assert out["translations"][0]["text"] == curly  # the next-gen model's letters
    assert out["model_type_used"] == "quality_optimized"
    swiss = http.post("/v2/translate", json={**body, "target_lang": "DE-CH"}, headers=keys.paid)
    assert swiss.status_code == 200
    assert "'de'" in error(http.post("/v2/translate", json={**body, "target_lang": "FR"}, headers=keys.paid), 400)
    latency = {**body, "model_type": "latency_optimized"}
    assert "latency_optimized" in error(http.post("/v2/translate", json=latency, headers=keys.paid), 400)
    unknown = {**body, "style_id": str(uuid.uuid4())}
    error(http.post("/v2/translate", json=unknown, headers=keys.paid), 404)
    plain = http.post("/v2/translate", json={**body, "style_id": None}, headers=keys.paid).json()
    assert "'" in plain["translations"][0]["text"]


def test_mechanical_configured_rules_change_the_translation(
    http: httpx.Client, keys: Keys, make_style: Callable[..., dict[str, Any]]
) -> None:
    rules = {
        "punctuation": {
            "quotation_mark": "use_guillemets",
            "apostrophe": "use_curly_apostrophes",
            "spacing_and_punctuation": "use_regular_space",
        },
        "numbers": {"decimal_separator": "use_comma_as_decimal_separator"},  # stored only
    }
    style = make_style(language="fr", configured_rules=rules)
    body = {
        "text": ['<b title="a">"it\'s" 1.5?</b>'],
        "source_lang": "EN",
        "target_lang": "FR",
        "style_id": style["style_id"],
        "tag_handling": "xml",
    }
    out = http.post("/v2/translate", json=body, headers=keys.paid).json()["translations"][0]["text"]
    its = transliterate("it's", "FR", next_gen=True).replace("'", "\u2019")
    assert out == f'<b title="a">\u00ab\u202f{its}\u202f\u00bb 1.5 ?</b>'  # the next-gen model's letters
