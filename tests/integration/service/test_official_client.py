"""The official client of the real service against ``pipeline serve``: translation, languages, usage, Write, documents.

Every public method of ``deepl.Translator`` and the Write methods of ``deepl.DeepLClient`` run
through the library's own code (only the authorization scheme is renamed, see
``official_client_support``); the results are checked, not just the absence of errors. The
library has no asynchronous client, so there is nothing asynchronous to drive. Glossaries,
style rules and translation memories are in ``test_official_client_resources``.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path

import deepl
import docx as python_docx
import pytest

from pipeline.service.engine.pseudo import transliterate
from tests.document_samples import docx
from tests.integration.conftest import LiveService
from tests.integration.service.conftest import DevKey
from tests.integration.service.official_client_support import OfficialClient, official_client

pytestmark = pytest.mark.integration

#: ``Hello world`` as the classic (latency-optimized) engine variant writes it in German.
HELLO_DE = transliterate("Hello world", "DE")
#: ... and as the next-gen (quality-optimized) variant writes it.
HELLO_DE_NEXT_GEN = transliterate("Hello world", "DE", next_gen=True)


@pytest.fixture(scope="module")
def client(live_service: LiveService) -> Iterator[OfficialClient]:
    """The official client on the session server with the paid developer key."""
    translator = official_client(live_service.url, live_service.auth_key)
    yield translator
    translator.close()


@pytest.fixture
def fresh_client(live_service: LiveService, new_key: Callable[..., DevKey]) -> Iterator[OfficialClient]:
    """The official client with a developer key created for this test (usage starts at 0)."""
    key = new_key("official client")
    translator = official_client(live_service.url, key.headers["Authorization"].split()[-1])
    yield translator
    translator.close()


# --- the client itself: server_url, set_app_info, close, the renamed header -------------------


def test_server_url_app_info_and_close_behave(live_service: LiveService) -> None:
    translator = official_client(live_service.url, live_service.auth_key)
    assert translator.server_url == live_service.url
    assert translator.set_app_info("pipeline-tests", "1.0") is translator
    assert translator.translate_text("Hello world", source_lang="EN", target_lang="DE").text == HELLO_DE
    translator.close()


def test_the_real_services_scheme_word_is_refused(live_service: LiveService) -> None:
    """Without the rename the key is not accepted: the rename is what makes every other test work."""
    translator = deepl.DeepLClient(live_service.auth_key, server_url=live_service.url)
    with pytest.raises(deepl.AuthorizationException):
        translator.get_usage()
    translator.close()


# --- translate_text ---------------------------------------------------------------------------


def test_translate_text_many_texts(client: OfficialClient) -> None:
    results = client.translate_text(["Hello world", "Save the file"], source_lang="EN", target_lang="DE")
    assert [r.text for r in results] == [HELLO_DE, transliterate("Save the file", "DE")]
    assert [r.detected_source_lang for r in results] == ["EN", "EN"]
    assert all(r.model_type_used is None for r in results)  # no model_type sent, none reported


def test_detection_is_served_by_the_quality_model(client: OfficialClient) -> None:
    """Without source_lang the next-gen model serves, whatever model_type says (spec rule 3)."""
    detected = client.translate_text("Hello world", target_lang="DE", model_type="latency_optimized")
    assert (detected.text, detected.detected_source_lang) == (HELLO_DE_NEXT_GEN, "EN")
    assert detected.model_type_used == "quality_optimized"


def test_latency_and_quality_models_answer_visibly_differently(client: OfficialClient) -> None:
    latency = client.translate_text("Hello world", source_lang="EN", target_lang="DE", model_type="latency_optimized")
    quality = client.translate_text("Hello world", source_lang="EN", target_lang="DE", model_type="quality_optimized")
    preferred = client.translate_text(
        "Hello world", source_lang="EN", target_lang="DE", model_type="prefer_quality_optimized"
    )
    assert (latency.text, latency.model_type_used) == (HELLO_DE, "latency_optimized")
    assert (quality.text, quality.model_type_used) == (HELLO_DE_NEXT_GEN, "quality_optimized")
    assert (preferred.text, preferred.model_type_used) == (quality.text, "quality_optimized")


def test_custom_instructions_and_tag_handling_v2_imply_the_quality_model(client: OfficialClient) -> None:
    quality = client.translate_text("Hello world", source_lang="EN", target_lang="DE", model_type="quality_optimized")
    instructed = client.translate_text(
        "Hello world",
        source_lang="EN",
        target_lang="DE",
        custom_instructions=["Be brief"],
        model_type="prefer_quality_optimized",
    )
    # The quality model's text, the first letter of each word rewritten within German's alphabet by these instructions.
    assert instructed.model_type_used == "quality_optimized"
    assert [(w[0], w[1:]) for w in instructed.text.split()] != [(w[0], w[1:]) for w in quality.text.split()]
    assert [w[1:] for w in instructed.text.split()] == [w[1:] for w in quality.text.split()]
    implied = client.translate_text("Hello world", source_lang="EN", target_lang="DE", custom_instructions=["Be brief"])
    assert implied.text == instructed.text
    v2 = client.translate_text(
        "<p>Hello world</p>", source_lang="EN", target_lang="DE", tag_handling="xml", tag_handling_version="v2"
    )
    assert v2.text == f"<p>{quality.text}</p>"
    with pytest.raises(deepl.DeepLException, match="latency_optimized"):
        client.translate_text(
            "Hello", source_lang="EN", target_lang="DE", custom_instructions=["x"], model_type="latency_optimized"
        )


def test_custom_instructions_change_the_output_visibly_and_deterministically(client: OfficialClient) -> None:
    """The client suite's ``test_custom_instructions``: other instructions, another text; the same, the same."""
    text = "I am testing if custom instructions are working correctly."
    plain = client.translate_text(text, target_lang="DE")
    instructed = client.translate_text(
        text, target_lang="DE", custom_instructions=["Use informal language", "Be concise"]
    )
    again = client.translate_text(text, target_lang="DE", custom_instructions=["Use informal language", "Be concise"])
    assert instructed.text == again.text != plain.text
    assert instructed.detected_source_lang == "EN"
    limited = client.translate_text(text, target_lang="DE", custom_instructions=["At most 20 characters."])
    assert 0 < len(limited.text) <= 20


def test_formality_where_supported_and_prefer_values_elsewhere(client: OfficialClient) -> None:
    informal = client.translate_text("How are you?", source_lang="EN", target_lang="DE", formality="less")
    assert informal.text == transliterate("How are you?", "DE")
    # The client's own suite matches "Target language ... formality", the real service's order.
    with pytest.raises(deepl.DeepLException, match=r"Target language 'SV' does not support formality"):
        client.translate_text("How are you?", target_lang="SV", formality="more")
    fallback = client.translate_text("How are you?", target_lang="SV", formality=deepl.Formality.PREFER_MORE)
    plain = client.translate_text("How are you?", target_lang="SV")
    assert fallback.text == plain.text != "How are you?"


def test_tag_handling_keeps_markup_and_ignored_content(client: OfficialClient) -> None:
    html = client.translate_text("<p>Hello <b>world</b></p>", source_lang="EN", target_lang="FR", tag_handling="html")
    assert html.text.startswith("<p>") and "<b>" in html.text and html.text.endswith("</b></p>")
    xml = client.translate_text(
        "<p>Hello <x>world</x></p>",
        source_lang="EN",
        target_lang="FR",
        tag_handling="xml",
        ignore_tags=["x"],
        non_splitting_tags="b",
        splitting_tags=["p"],
        outline_detection=False,
    )
    assert xml.text.endswith("<x>world</x></p>") and not xml.text.startswith("<p>Hello")


def test_context_is_free_and_billed_characters_come_back_when_asked(client: OfficialClient) -> None:
    result = client.translate_text(
        "Hello",
        source_lang="EN",
        target_lang="FR",
        context="A greeting on the start page",
        preserve_formatting=True,
        split_sentences=deepl.SplitSentences.NO_NEWLINES,
        extra_body_parameters={"show_billed_characters": True},
    )
    assert result.billed_characters == 5 and result.text != "Hello"


def test_irish_translates_both_ways(client: OfficialClient) -> None:
    to_irish = client.translate_text("Hello world", source_lang="EN", target_lang="GA")
    assert to_irish.detected_source_lang == "EN"
    assert to_irish.text not in ("Hello world", HELLO_DE) and len(to_irish.text.split()) == 2
    from_irish = client.translate_text("Dia duit", source_lang="GA", target_lang="DE")
    assert (from_irish.text, from_irish.detected_source_lang) == (transliterate("Dia duit", "DE"), "GA")


# --- language lists ---------------------------------------------------------------------------


def test_source_languages_include_todays_languages(client: OfficialClient) -> None:
    sources = {lang.code: lang for lang in client.get_source_languages()}
    assert sources["GA"].name == "Irish" and sources["HR"].name == "Croatian"
    assert {"EN", "DE", "ZH", "PT"} <= set(sources)
    assert not {"EN-GB", "PT-BR", "ZH-HANS", "ACE", "YUE"} & set(sources)  # variants; hidden from v2
    assert all(lang.supports_formality is None for lang in sources.values())


def test_target_languages_say_whether_formality_works(client: OfficialClient) -> None:
    """The client sends ``type=target`` in a form body of a GET; every target entry has the flag."""
    targets = {lang.code: lang for lang in client.get_target_languages(skip_cache=True)}
    assert {"EN-GB", "EN-US", "PT-BR", "PT-PT", "ZH-HANS", "ZH-HANT", "ES-419", "GA"} <= set(targets)
    assert not {"EN", "PT", "DE-CH", "ACE"} & set(targets)
    assert all(isinstance(lang.supports_formality, bool) for lang in targets.values())
    assert targets["DE"].supports_formality and targets["PT-BR"].supports_formality
    assert not targets["GA"].supports_formality and not targets["EN-GB"].supports_formality


def test_glossary_language_pairs_in_lower_case(client: OfficialClient) -> None:
    pairs = {(p.source_lang, p.target_lang) for p in client.get_glossary_languages()}
    assert {("en", "de"), ("de", "en"), ("ja", "zh"), ("ar", "en")} <= pairs
    assert not any(s == t for s, t in pairs) and not any("ga" in pair for pair in pairs)
    languages = {s for s, _ in pairs}
    assert len(pairs) == len(languages) * (len(languages) - 1)


# --- usage ------------------------------------------------------------------------------------


def test_usage_has_a_count_and_a_limit(fresh_client: OfficialClient) -> None:
    before = fresh_client.get_usage()
    count = before.character.count
    assert before.character.valid and count is not None and count >= 0
    assert before.character.limit == 1_000_000_000_000  # the real service's figure for "no limit"
    assert not before.any_limit_reached and "Characters:" in str(before)
    fresh_client.translate_text("Hello world", source_lang="EN", target_lang="DE")
    assert fresh_client.get_usage().character.count == count + 11


# --- Write ------------------------------------------------------------------------------------


def test_rephrase_and_correct(client: OfficialClient) -> None:
    styled = client.rephrase_text("this are bad", target_lang="en-US", style="business")
    assert (styled.text, styled.target_language, styled.detected_source_language) == ("This are bad", "en-US", "en")
    toned = client.rephrase_text(["das ist gut", "ja"], target_lang="de", tone="friendly")
    assert [r.target_language for r in toned] == ["de", "de"] and toned[0].text.startswith("D")
    corrected = client.correct_text("this are bad", target_lang="en-GB")
    assert (corrected.text, corrected.target_language) == ("This are bad", "en-GB")
    with pytest.raises(deepl.DeepLException, match="Language ja does not support setting a writing style"):
        client.rephrase_text("これは", target_lang="ja", style="business")
    assert client.rephrase_text("this is fine", target_lang="en", style="business").target_language == "en-US"
    assert client.rephrase_text("これは", target_lang="ja", style="prefer_business").target_language == "ja"


# --- documents --------------------------------------------------------------------------------


def test_document_from_filepath(client: OfficialClient, tmp_path: Path) -> None:
    source, target = tmp_path / "notes.txt", tmp_path / "notes.de.txt"
    source.write_text("Hello world", encoding="utf-8")
    status = client.translate_document_from_filepath(source, target, target_lang="DE")
    assert status.done and status.billed_characters == 11
    assert target.read_text(encoding="utf-8") == HELLO_DE


def test_document_from_file_objects_keeps_a_word_file(client: OfficialClient) -> None:
    output = io.BytesIO()
    status = client.translate_document(
        docx(paragraphs=1), output, source_lang="EN", target_lang="FR", filename="notes.docx"
    )
    assert status.ok and status.done
    texts = [p.text for p in python_docx.Document(io.BytesIO(output.getvalue())).paragraphs if p.text]
    assert texts and all(text != "Release notes" for text in texts) and len(texts[0].split()) == 2


def test_document_upload_status_wait_and_download_one_by_one(client: OfficialClient) -> None:
    handle = client.translate_document_upload(b"Hello world", target_lang="DE", filename="hello.txt")
    assert len(handle.document_id) == 32 and handle.document_key
    first = client.translate_document_get_status(handle)
    assert first.status.value in ("queued", "translating", "done") and first.ok
    done = client.translate_document_wait_until_done(handle)
    assert done.done and done.billed_characters == 11 and done.error_message is None
    output = io.BytesIO()
    client.translate_document_download(handle, output)
    assert output.getvalue().decode("utf-8") == HELLO_DE


def test_document_with_equal_languages_ends_in_error_with_a_message(client: OfficialClient) -> None:
    with pytest.raises(deepl.DocumentTranslationException) as caught:
        client.translate_document(b"Hallo Welt", io.BytesIO(), source_lang="DE", target_lang="DE", filename="x.txt")
    assert "Source and target language are equal" in str(caught.value)
    status = client.translate_document_get_status(caught.value.document_handle)
    assert status.status.value == "error" and str(status.error_message) == "Source and target language are equal"


def test_a_document_detected_in_its_target_language_ends_in_error(client: OfficialClient, tmp_path: Path) -> None:
    """The client suite's ``test_document_failure_during_translation``: no source_lang, a German text into German."""
    source = tmp_path / "example_document.txt"
    source.write_text("Protonenstrahl", encoding="utf-8")
    with pytest.raises(deepl.DocumentTranslationException) as caught:
        client.translate_document_from_filepath(source, tmp_path / "out.txt", target_lang="DE")
    assert "Source and target language are equal" in str(caught.value)
    assert caught.value.document_handle is not None


def test_unsupported_document_type_uses_the_real_services_wording(client: OfficialClient) -> None:
    with pytest.raises(deepl.DeepLException) as caught:
        client.translate_document_upload(b"<a/>", target_lang="DE", filename="data.xml")
    assert caught.value.http_status_code == 400
    assert "Failed to get the document_type from the file extension (data.xml)." in str(caught.value)
