"""The official client of the real service against ``pipeline serve``: glossaries, style rules, translation memories.

Each public resource method of ``deepl.DeepLClient`` runs through the library's own code (see
``official_client_support``) and its result is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import deepl
import pytest
from deepl.api_data import MultilingualGlossaryDictionaryEntries as Dictionary

from pipeline.service.engine.pseudo import transliterate
from tests.integration.conftest import LiveService
from tests.integration.service.official_client_support import OfficialClient, official_client

pytestmark = pytest.mark.integration

TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4">
  <header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x"
          creationtool="test" creationtoolversion="1"/>
  <body>
    <tu><tuv xml:lang="en"><seg>Save the file before closing.</seg></tuv>
        <tuv xml:lang="de"><seg>Speichern Sie die Datei vor dem Schließen.</seg></tuv></tu>
  </body>
</tmx>
"""


@pytest.fixture(scope="module")
def client(live_service: LiveService) -> Iterator[OfficialClient]:
    """The official client on the session server with the paid developer key."""
    translator = official_client(live_service.url, live_service.auth_key)
    yield translator
    translator.close()


# --- v2 glossaries (Translator) ---------------------------------------------------------------


def test_single_pair_glossary_lifecycle(client: OfficialClient) -> None:
    glossary = client.create_glossary("client terms", "EN", "DE", {"file": "Datei", "save": "sichern"})
    assert (glossary.name, glossary.ready) == ("client terms", True)
    assert (glossary.source_lang, glossary.target_lang) == ("EN", "DE")
    assert glossary.entry_count == 2 and glossary.creation_time.tzinfo is not None
    assert client.get_glossary(glossary.glossary_id).entry_count == 2
    assert glossary.glossary_id in {g.glossary_id for g in client.list_glossaries()}
    assert client.get_glossary_entries(glossary) == {"file": "Datei", "save": "sichern"}
    assert (
        client.translate_text_with_glossary("Save the file", glossary).text
        == f"sichern {transliterate('the', 'DE')} Datei"
    )
    with_id = client.translate_text("Save the file", source_lang="EN", target_lang="DE", glossary=glossary.glossary_id)
    assert with_id.text == f"sichern {transliterate('the', 'DE')} Datei"
    client.delete_glossary(glossary)
    with pytest.raises(deepl.GlossaryNotFoundException):
        client.get_glossary(glossary.glossary_id)


def test_single_pair_glossary_from_csv(client: OfficialClient) -> None:
    glossary = client.create_glossary_from_csv("csv terms", "EN", "FR", '"file, document",fichier\nsave,enregistrer\n')
    try:
        assert client.get_glossary_entries(glossary) == {"file, document": "fichier", "save": "enregistrer"}
    finally:
        client.delete_glossary(glossary.glossary_id)


def test_glossary_for_a_language_without_glossary_support_is_refused(client: OfficialClient) -> None:
    with pytest.raises(deepl.DeepLException) as caught:
        client.create_glossary("irish", "EN", "GA", {"file": "comhad"})
    assert caught.value.http_status_code == 400 and "ga" in str(caught.value).lower()


# --- v3 glossaries (DeepLClient) --------------------------------------------------------------


def test_multilingual_glossary_lifecycle(client: OfficialClient) -> None:
    glossary = client.create_multilingual_glossary(
        "multi", [Dictionary("EN", "DE", {"file": "Datei"}), Dictionary("EN", "FR", {"file": "fichier"})]
    )
    try:
        pairs = {(d.source_lang.lower(), d.target_lang.lower(), d.entry_count) for d in glossary.dictionaries}
        assert pairs == {("en", "de", 1), ("en", "fr", 1)}
        assert client.get_multilingual_glossary(glossary.glossary_id).name == "multi"
        assert glossary.glossary_id in {g.glossary_id for g in client.list_multilingual_glossaries()}
        (entries,) = client.get_multilingual_glossary_entries(glossary, "EN", "DE").dictionaries
        # deepl annotates entries as a dict; it holds the tab-separated text as the service sent it.
        assert cast(str, entries.entries) == "file\tDatei"  # no trailing newline, as the real service sends it
        assert client.update_multilingual_glossary_name(glossary, "renamed").name == "renamed"
        merged = client.update_multilingual_glossary_dictionary(glossary, Dictionary("EN", "DE", {"save": "sichern"}))
        assert {(d.target_lang.lower(), d.entry_count) for d in merged.dictionaries} == {("de", 2), ("fr", 1)}
        merged = client.update_multilingual_glossary_dictionary_from_csv(glossary, "EN", "DE", "open,öffnen\n")
        assert {(d.target_lang.lower(), d.entry_count) for d in merged.dictionaries} == {("de", 3), ("fr", 1)}
        (entries,) = client.get_multilingual_glossary_entries(glossary, "EN", "DE").dictionaries
        assert sorted(cast(str, entries.entries).split("\n")) == ["file\tDatei", "open\töffnen", "save\tsichern"]
        replaced = client.replace_multilingual_glossary_dictionary(glossary, Dictionary("EN", "IT", {"file": "file"}))
        assert (replaced.source_lang.lower(), replaced.target_lang.lower(), replaced.entry_count) == ("en", "it", 1)
        replaced = client.replace_multilingual_glossary_dictionary_from_csv(glossary, "EN", "FR", "save,enregistrer\n")
        assert replaced.entry_count == 1
        used = client.translate_text("Save the file", source_lang="EN", target_lang="DE", glossary=glossary)
        assert used.text == f"sichern {transliterate('the', 'DE')} Datei"
        client.delete_multilingual_glossary_dictionary(glossary, source_lang="EN", target_lang="IT")
        left = client.get_multilingual_glossary(glossary.glossary_id).dictionaries
        assert {d.target_lang.lower() for d in left} == {"de", "fr"}
    finally:
        client.delete_multilingual_glossary(glossary)
    with pytest.raises(deepl.GlossaryNotFoundException):
        client.get_multilingual_glossary(glossary.glossary_id)


def test_multilingual_glossary_from_csv(client: OfficialClient) -> None:
    glossary = client.create_multilingual_glossary_from_csv("csv multi", "EN", "DE", "file,Datei\n")
    try:
        (entries,) = client.get_multilingual_glossary_entries(glossary.glossary_id, "en", "de").dictionaries
        assert cast(str, entries.entries) == "file\tDatei"
    finally:
        client.delete_multilingual_glossary(glossary.glossary_id)


# --- style rules ------------------------------------------------------------------------------


def test_style_rule_lifecycle(client: OfficialClient) -> None:
    rules = {"punctuation": {"periods_in_academic_degrees": "do_not_use"}}
    style = client.create_style_rule(
        "house style", "en", configured_rules=rules, custom_instructions=[{"label": "tone", "prompt": "Be brief"}]
    )
    try:
        assert (style.name, style.language, style.version) == ("house style", "en", 1)
        assert style.configured_rules is not None
        assert style.configured_rules.punctuation == {"periods_in_academic_degrees": "do_not_use"}
        assert [(c.label, c.prompt) for c in style.custom_instructions] == [("tone", "Be brief")]
        listed = {s.style_id: s for s in client.get_all_style_rules(detailed=True, page=0, page_size=25)}
        assert listed[style.style_id].custom_instructions[0].prompt == "Be brief"
        brief = {s.style_id: s for s in client.get_all_style_rules()}
        assert brief[style.style_id].configured_rules is None  # only detailed views carry them
        assert client.get_style_rule(style.style_id).name == "house style"
        renamed = client.update_style_rule_name(style, "house style 2")
        assert (renamed.name, renamed.version) == ("house style 2", 2)
        reconfigured = client.update_style_rule_configured_rules(
            style, {"style_and_tone": {"short_vs_long_words": "use_short_words"}}
        )
        assert reconfigured.version == 3 and reconfigured.configured_rules is not None
        assert reconfigured.configured_rules.punctuation == {}
        assert reconfigured.configured_rules.style_and_tone == {"short_vs_long_words": "use_short_words"}
        result = client.translate_text("Hallo Welt", source_lang="DE", target_lang="EN-US", style_rule=style)
        quality = client.translate_text(
            "Hallo Welt", source_lang="DE", target_lang="EN-US", model_type="quality_optimized"
        )
        # The quality model's text, each word's first letter rewritten by the list's instruction ("Be brief").
        assert result.text != quality.text != "Hallo Welt"
        assert [w[1:] for w in result.text.split()] == [w[1:] for w in quality.text.split()]
        with pytest.raises(deepl.DeepLException):
            client.translate_text(
                "Hallo", source_lang="DE", target_lang="EN-US", style_rule=style, model_type="latency_optimized"
            )
    finally:
        client.delete_style_rule(style)
    with pytest.raises(deepl.DeepLException) as caught:
        client.get_style_rule(style.style_id)
    assert caught.value.http_status_code == 404


def test_custom_instruction_lifecycle(client: OfficialClient) -> None:
    style = client.create_style_rule("instructions", "de")
    try:
        created = client.create_style_rule_custom_instruction(style, "formal", "Use Sie", source_language="en")
        assert (created.label, created.prompt, created.source_language) == ("formal", "Use Sie", "en")
        assert created.id and client.get_style_rule(style).version == 2
        fetched = client.get_style_rule_custom_instruction(style, created.id)
        assert (fetched.id, fetched.label, fetched.prompt) == (created.id, "formal", "Use Sie")
        updated = client.update_style_rule_custom_instruction(
            style, created.id, "informal", "Use du", source_language="en"
        )
        assert (updated.id, updated.label, updated.prompt) == (created.id, "informal", "Use du")
        client.delete_style_rule_custom_instruction(style, created.id)
        assert client.get_style_rule(style).custom_instructions == []
        with pytest.raises(deepl.DeepLException) as caught:
            client.get_style_rule_custom_instruction(style, created.id)
        assert caught.value.http_status_code == 404
    finally:
        client.delete_style_rule(style.style_id)


# --- translation memories ---------------------------------------------------------------------


@pytest.fixture
def memory_client(launch_service: Callable[..., LiveService], tmp_path: Path) -> Iterator[OfficialClient]:
    """The official client on a server provisioned with one translation memory."""
    tmx = tmp_path / "ui.tmx"
    tmx.write_text(TMX, encoding="utf-8")
    service = launch_service(extra_args=("--translation-memory", f"ui={tmx}"))
    translator = official_client(service.url, service.auth_key)
    yield translator
    translator.close()


def test_translation_memories_are_listed_read_and_used(memory_client: OfficialClient) -> None:
    (memory,) = memory_client.list_translation_memories(page=0, page_size=10)
    assert (memory.name, memory.source_language) == ("ui", "en")
    assert (memory.target_languages, memory.segment_count) == (["de"], 1)
    assert memory_client.get_translation_memory(memory.translation_memory_id).name == "ui"
    page = memory_client.list_translation_memory_segments(memory, page_size=10)
    assert [s.source_text for s in page.segments] == ["Save the file before closing."]
    assert [t.target_text for t in page.segments[0].targets] == ["Speichern Sie die Datei vor dem Schließen."]
    assert page.next_page_cursor is None
    used = memory_client.translate_text(
        "Save the file before closing.", source_lang="EN", target_lang="DE", translation_memory=memory
    )
    assert used.text == "Speichern Sie die Datei vor dem Schließen."


def test_changing_memories_through_the_api_is_not_available(memory_client: OfficialClient, tmp_path: Path) -> None:
    """The contract: uploading, modifying and deleting memories through the API is announced, not available."""
    (memory,) = memory_client.list_translation_memories()
    tmx = tmp_path / "more.tmx"
    tmx.write_text(TMX, encoding="utf-8")
    # upload_translation_memory_file and download_translation_memory_export talk to the upload or
    # download URL of an import or export job; with no job there is no URL to call them with.
    calls: dict[str, Callable[[], object]] = {
        "delete_translation_memory": lambda: memory_client.delete_translation_memory(memory),
        "create_translation_memory_import": lambda: memory_client.create_translation_memory_import("ui.tmx", 10),
        "create_translation_memory_export": lambda: memory_client.create_translation_memory_export(memory),
        "get_translation_memory_job": lambda: memory_client.get_translation_memory_job("job-1"),
        "wait_until_translation_memory_job_done": lambda: memory_client.wait_until_translation_memory_job_done("job-1"),
        "import_translation_memory_from_filepath": lambda: memory_client.import_translation_memory_from_filepath(tmx),
        "export_translation_memory_to_filepath": lambda: memory_client.export_translation_memory_to_filepath(
            memory, tmp_path / "export.tmx"
        ),
    }
    for name, call in calls.items():
        with pytest.raises(deepl.DeepLException) as caught:
            call()
        assert caught.value.http_status_code == 404, name
        assert "not available" in str(caught.value), name
    assert memory_client.get_translation_memory(memory).segment_count == 1  # nothing was deleted
