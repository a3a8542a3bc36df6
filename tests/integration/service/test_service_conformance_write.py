"""Conformance over HTTP: Write (``/v2/write/rephrase`` and ``/v2/write/correct``)."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.integration.service.conftest import DevKey, Keys

pytestmark = pytest.mark.integration

REPHRASE, CORRECT = "/v2/write/rephrase", "/v2/write/correct"
STYLES = ["simple", "business", "academic", "casual"]
TONES = ["enthusiastic", "friendly", "confident", "diplomatic"]


@pytest.mark.parametrize("path", [REPHRASE, CORRECT])
def test_improvements_in_request_order(http: httpx.Client, keys: Keys, path: str) -> None:
    texts = ["this is  the the first text .", "second one ,here", "third"]
    response = http.post(path, json={"text": texts, "target_lang": "en-US"}, headers=keys.paid)
    assert response.status_code == 200, response.text
    items = response.json()["improvements"]
    assert [i["text"] for i in items] == ["This is the first text.", "Second one, here", "Third"]
    # Lower case, as the real service writes it (its description's example "en"; deepl-dotnet#76 shows "de").
    assert all(i["target_language"] == "en-US" and i["detected_source_language"] == "en" for i in items)


def test_form_bodies_with_repeated_text(post_form: Callable[..., httpx.Response], keys: Keys) -> None:
    response = post_form(CORRECT, [("text", "hello  world"), ("text", "bonjour"), ("target_lang", "EN")], keys.paid)
    assert response.status_code == 200, response.text
    assert [i["text"] for i in response.json()["improvements"]] == ["Hello world", "Bonjour"]


def test_language_conventions(http: httpx.Client, keys: Keys) -> None:
    body = {"text": ['il a dit "oui" ?'], "target_lang": "fr"}
    french = http.post(CORRECT, json=body, headers=keys.paid).json()["improvements"][0]["text"]
    assert french == "Il a dit «\u202foui\u202f»\u202f?"
    german = http.post(CORRECT, json={"text": ['er sagt "ja"'], "target_lang": "de"}, headers=keys.paid)
    assert german.json()["improvements"][0]["text"] == "Er sagt \u201eja\u201c"


def test_without_target_lang_the_detected_language_is_used(http: httpx.Client, keys: Keys) -> None:
    response = http.post(CORRECT, json={"text": ["Das ist ist ein schöner Tag in Berlin."]}, headers=keys.paid)
    item = response.json()["improvements"][0]
    assert item == {
        "text": "Das ist ein schöner Tag in Berlin.",
        "target_language": "de",
        "detected_source_language": "de",
    }


@pytest.mark.parametrize("text", ["Hi", "ok", "Hello", "Save"])
def test_without_target_lang_a_short_text_is_taken_for_a_write_language(
    http: httpx.Client, keys: Keys, text: str
) -> None:
    # Write improves de, en, es, fr, it, ja, ko, pt and zh only; a word too short to tell (the model
    # gave "Hi" to Arabic, first of a tie, and "Hello" to Finnish) is no reason to answer another.
    response = http.post(REPHRASE, json={"text": [text]}, headers=keys.paid)
    item = response.json()["improvements"][0]
    assert item["target_language"] in ("de", "en", "es", "fr", "it", "ja", "ko", "pt", "zh"), item
    assert item["detected_source_language"] == item["target_language"]


def test_without_target_lang_a_text_with_nothing_to_tell_is_english(http: httpx.Client, keys: Keys) -> None:
    # Nothing in "Hi" or "ok" points anywhere: the model's scores tie, and English is the fallback.
    for text in ("Hi", "ok"):
        item = http.post(CORRECT, json={"text": [text]}, headers=keys.paid).json()["improvements"][0]
        assert (item["target_language"], item["detected_source_language"]) == ("en", "en"), (text, item)


@pytest.mark.parametrize("path", [REPHRASE, CORRECT])
def test_without_target_lang_a_text_in_a_language_write_does_not_improve_is_400(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], path: str
) -> None:
    # Without target_lang the text's own language is the target, and it must be one Write improves:
    # Russian is none, so taking it for German, English or Chinese (as the detector restricted to
    # Write's nine languages did) answered a language the text is not in.
    before = http.get("/v2/usage", headers=keys.paid).json()["character_count"]
    russian = "Файл не найден. Проверьте путь и повторите попытку."
    message = error(http.post(path, json={"text": ["fine", russian]}, headers=keys.paid), 400)
    assert "text 1 is in RU" in message and "target_lang" in message
    assert http.get("/v2/usage", headers=keys.paid).json()["character_count"] == before
    # With a Write language, or a text too short to tell, the detected language is the target.
    for text, language in (("Das ist ist ein schöner Tag in Berlin.", "de"), ("Привет", None)):
        item = http.post(path, json={"text": [text]}, headers=keys.paid).json()["improvements"][0]
        assert item["detected_source_language"] == item["target_language"], item
        assert language is None or item["target_language"] == language


def test_with_target_lang_the_target_language_is_reported_as_detected(http: httpx.Client, keys: Keys) -> None:
    # A text too short to tell is taken to be in the target's language, as the real service reports
    # it (deepl-dotnet#76: target DE, detected_source_language "de").
    for text, target, detected in (("Hi", "de", "de"), ("Bonjour", "en-GB", "en"), ("ok", "pt-BR", "pt")):
        body = {"text": [text], "target_lang": target}
        item = http.post(CORRECT, json=body, headers=keys.paid).json()["improvements"][0]
        assert (item["target_language"], item["detected_source_language"]) == (target, detected), item


@pytest.mark.parametrize(("name", "value"), [("writing_style", v) for v in STYLES] + [("tone", v) for v in TONES])
def test_every_style_and_tone_value(http: httpx.Client, keys: Keys, name: str, value: str) -> None:
    for sent in (value, f"prefer_{value}", "default"):
        response = http.post(REPHRASE, json={"text": ["fine"], "target_lang": "de", name: sent}, headers=keys.paid)
        assert response.status_code == 200, (sent, response.text)


@pytest.mark.parametrize("target", ["de", "en-GB", "en-US", "es", "fr", "it", "pt-BR", "pt-PT", "EN-us"])
def test_style_supported_targets(http: httpx.Client, keys: Keys, target: str) -> None:
    response = http.post(REPHRASE, json={"text": ["x"], "target_lang": target, "tone": "friendly"}, headers=keys.paid)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("target", ["ja", "ko", "zh", "zh-Hans", None])
def test_unsupported_target_prefer_falls_back_unprefixed_is_400(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], target: str | None
) -> None:
    base = {"text": ["x"]} if target is None else {"text": ["x"], "target_lang": target}
    for name, value in (("writing_style", "simple"), ("tone", "friendly")):
        assert http.post(REPHRASE, json={**base, name: f"prefer_{value}"}, headers=keys.paid).status_code == 200
        assert http.post(REPHRASE, json={**base, name: "default"}, headers=keys.paid).status_code == 200
        message = error(http.post(REPHRASE, json={**base, name: value}, headers=keys.paid), 400)
        what = "a writing style" if name == "writing_style" else "a tone"
        who = "A request without target_lang" if target is None else f"Language {target.lower()}"
        assert message.startswith(f"{who} does not support setting {what} ({name} '{value}')")


def test_style_and_tone_are_mutually_exclusive_unless_one_is_default(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    body = {"text": ["x"], "target_lang": "de", "writing_style": "simple", "tone": "prefer_friendly"}
    assert error(http.post(REPHRASE, json=body, headers=keys.paid), 400) == (
        "Both writing_style and tone defined. Currently only style OR tone can be chosen for a single request."
    )
    for style, tone in (("default", "confident"), ("academic", "default"), ("default", "default")):
        body = {"text": ["x"], "target_lang": "en", "writing_style": style, "tone": tone}
        assert http.post(REPHRASE, json=body, headers=keys.paid).status_code == 200, (style, tone)


def test_unknown_values_are_400(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    body = {"text": ["x"], "target_lang": "de"}
    assert "invalid value 'formal'" in error(
        http.post(REPHRASE, json={**body, "writing_style": "formal"}, headers=keys.paid), 400
    )
    assert "invalid value 'prefer_angry'" in error(
        http.post(REPHRASE, json={**body, "tone": "prefer_angry"}, headers=keys.paid), 400
    )


@pytest.mark.parametrize("name", ["writing_style", "tone"])
def test_correct_refuses_style_and_tone(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], name: str
) -> None:
    body = {"text": ["x"], "target_lang": "de", name: "default"}
    assert "does not accept" in error(http.post(CORRECT, json=body, headers=keys.paid), 400)


def test_target_lists_differ_per_endpoint(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    for target in ("en", "pt", "PT"):
        corrected = http.post(CORRECT, json={"text": ["x"], "target_lang": target}, headers=keys.paid)
        assert corrected.json()["improvements"][0]["target_language"] == target.lower()
    for path in (REPHRASE, CORRECT):
        assert error(http.post(path, json={"text": ["x"], "target_lang": "nl"}, headers=keys.paid), 400).startswith(
            f"Value for 'target_lang' not supported: 'nl' is not a target of {path}; use one of "
        )


@pytest.mark.parametrize(("sent", "answered"), [("en", "en-US"), ("EN", "en-US"), ("pt", "pt-PT")])
def test_rephrase_answers_a_base_code_as_the_variant_the_real_service_picks(
    post_form: Callable[..., httpx.Response], keys: Keys, sent: str, answered: str
) -> None:
    """The official clients send ``en`` to rephrase, with or without style or tone (Node sends forms)."""
    for extra in ([], [("writing_style", "business")], [("tone", "confident")]):
        response = post_form(REPHRASE, [("text", "this is fine"), ("target_lang", sent), *extra], keys.paid)
        assert response.status_code == 200, (extra, response.text)
        [item] = response.json()["improvements"]
        assert (item["text"], item["target_language"]) == ("This is fine", answered)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"target_lang": "de"}, "parameter 'text' is required"),
        ({"text": [], "target_lang": "de"}, "at least one text"),
        ({"text": "x", "target_lang": "de"}, "must be an array of strings"),
    ],
)
def test_malformed_bodies(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], body: dict[str, object], message: str
) -> None:
    assert message in error(http.post(REPHRASE, json=body, headers=keys.paid), 400)


def test_body_over_10_kib_is_413(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    body = {"text": ["a" * (10 * 1024)], "target_lang": "de"}
    assert "request body too large" in error(http.post(CORRECT, json=body, headers=keys.paid), 413)
    just_under = {"text": ["a" * (10 * 1024 - 40)], "target_lang": "de"}
    assert http.post(CORRECT, json=just_under, headers=keys.paid).status_code == 200


def test_wrong_media_type_is_415(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    response = http.post(CORRECT, content=b"text=x", headers={**keys.paid, "Content-Type": "text/plain"})
    error(response, 415)


@pytest.mark.parametrize("path", [REPHRASE, CORRECT])
def test_free_tier_is_refused(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], path: str
) -> None:
    assert "paid-tier accounts only" in error(http.post(path, json={"text": ["x"]}, headers=keys.free), 403)


def test_characters_count_in_usage_and_limits(
    http: httpx.Client, keys: Keys, new_key: Callable[..., DevKey], error: Callable[[httpx.Response, int], str]
) -> None:
    key = new_key()
    assert http.post(CORRECT, json={"text": ["abc", "de"]}, headers=key.headers).status_code == 200
    usage = http.get("/v2/usage", headers=key.headers).json()
    assert usage["api_key_character_count"] == 5
    http.put("/v2/admin/developer-keys/limits", json={"key_id": key.key_id, "characters": 7}, headers=keys.admin)
    assert "quota exceeded" in error(http.post(REPHRASE, json={"text": ["abc"]}, headers=key.headers), 456)
    assert http.post(REPHRASE, json={"text": ["ab"]}, headers=key.headers).status_code == 200


@pytest.mark.parametrize("path", [REPHRASE, CORRECT])
def test_a_text_reliably_in_another_language_is_400(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], path: str
) -> None:
    # Spec rule 1: "The language of the input text must equal the target language."
    german = "Das Haus ist groß und schön, und wir wohnen gern darin."
    message = error(http.post(path, json={"text": ["fine", german], "target_lang": "en-US"}, headers=keys.paid), 400)
    assert "text 1 is in DE" in message and "en-US" in message
    # Variants of the target's language pass, and so do texts too short to judge ("Bonjour").
    for target, text in (("en-GB", "The quick brown fox jumps over the lazy dog."), ("de", "Bonjour"), ("de", german)):
        response = http.post(path, json={"text": [text], "target_lang": target}, headers=keys.paid)
        assert response.status_code == 200, (target, text, response.text)


def test_a_refused_language_is_not_billed(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    before = http.get("/v2/usage", headers=keys.paid).json()["character_count"]
    german = "Das Haus ist groß und schön, und wir wohnen gern darin."
    error(http.post(CORRECT, json={"text": [german], "target_lang": "fr"}, headers=keys.paid), 400)
    assert http.get("/v2/usage", headers=keys.paid).json()["character_count"] == before
