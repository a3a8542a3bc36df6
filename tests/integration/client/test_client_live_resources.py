"""Every client method for glossaries (v3, v2), style rule lists and translation memories, against
``pipeline serve`` over a real socket on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pipeline.client.api_data import CustomInstruction, DictionarySummary, GlossaryDictionary
from pipeline.client.sync import Client
from pipeline.errors import BadRequestError, ClientLimitError, NotFoundError

pytestmark = pytest.mark.integration

CURLY = {"punctuation": {"apostrophe": "use_curly_apostrophes"}}


def test_glossaries_v3(client: Client) -> None:
    en_de = GlossaryDictionary("EN", "DE", "save\tSichern\nfile\tDatei\n")
    glossary = client.create_glossary("client terms", [en_de])
    try:
        assert glossary.ready is True and glossary.name == "client terms"
        assert glossary.dictionaries == (DictionarySummary("en", "de", 2),)
        assert glossary.glossary_id in [g.glossary_id for g in client.list_glossaries()]
        assert client.get_glossary(glossary.glossary_id) == glossary
        entries = client.glossary_entries(glossary.glossary_id, "en", "de")
        assert (entries.entries, entries.entries_format) == (
            "save\tSichern\nfile\tDatei",
            "tsv",
        )  # the service joins lines, no final newline
        summary = client.replace_glossary_dictionary(
            glossary.glossary_id, GlossaryDictionary("de", "en", "Datei,file", "csv")
        )
        assert summary == DictionarySummary("de", "en", 1)
        updated = client.update_glossary(
            glossary.glossary_id, name="renamed", dictionary=GlossaryDictionary("en", "de", "file\tAkte\nnew\tneu")
        )
        assert updated.name == "renamed"
        assert DictionarySummary("en", "de", 3) in updated.dictionaries
        result = client.translate(
            ["Save the file"], source_lang="EN", target_lang="DE", glossary_id=glossary.glossary_id
        )
        assert result.translations[0].text.startswith("Sichern") and result.translations[0].text.endswith("Akte")
        client.delete_glossary_dictionary(glossary.glossary_id, "de", "en")
        assert [d.source_lang for d in client.get_glossary(glossary.glossary_id).dictionaries] == ["en"]
    finally:
        client.delete_glossary(glossary.glossary_id)
    with pytest.raises(NotFoundError):
        client.get_glossary(glossary.glossary_id)


def test_glossary_content_rules_are_checked_on_both_sides(client: Client, live_service: Any) -> None:
    with pytest.raises(ClientLimitError, match="duplicate"):
        client.create_glossary("dup", [GlossaryDictionary("en", "de", "a\tb\na\tc")])
    import httpx

    raw = {
        "name": "dup",
        "dictionaries": [{"source_lang": "en", "target_lang": "de", "entries": "a\tb\na\tc", "entries_format": "tsv"}],
    }
    answer = httpx.post(
        f"{live_service.url}/v3/glossaries",
        json=raw,
        headers={"Authorization": f"Service-Auth-Key {live_service.auth_key}"},
    )
    assert answer.status_code == 400 and "line 2" in answer.json()["message"]


def test_glossaries_v2(client: Client) -> None:
    glossary = client.create_glossary_v2("legacy", "EN", "DE", "a,b\nc,d", entries_format="csv")
    try:
        assert (glossary.source_lang, glossary.target_lang, glossary.entry_count, glossary.ready) == (
            "en",
            "de",
            2,
            True,
        )
        assert glossary in client.list_glossaries_v2()
        assert client.get_glossary_v2(glossary.glossary_id) == glossary
        assert client.glossary_entries_v2(glossary.glossary_id) == "a\tb\nc\td\n"
        assert any(p.source_lang == "en" and p.target_lang == "de" for p in client.glossary_language_pairs())
    finally:
        client.delete_glossary_v2(glossary.glossary_id)
    with pytest.raises(NotFoundError):
        client.get_glossary_v2(glossary.glossary_id)


def test_style_rule_lists(client: Client) -> None:
    style = client.create_style_rule_list(
        "client style", "de", configured_rules={}, custom_instructions=[CustomInstruction("Tone", "Be brief.")]
    )
    try:
        assert style.version == 1 and style.language == "de"
        assert style.custom_instructions is not None and style.custom_instructions[0].id
        listed = client.list_style_rule_lists(page_size=25)
        assert style.style_id in [s.style_id for s in listed]
        assert all(s.configured_rules is None for s in listed)
        assert all(
            s.configured_rules is not None for s in client.list_style_rule_lists(detailed=True, page=0, page_size=25)
        )
        assert client.get_style_rule_list(style.style_id) == style
        assert client.rename_style_rule_list(style.style_id, "renamed").version == 2
        ruled = client.replace_configured_rules(style.style_id, CURLY)
        assert ruled.version == 3 and ruled.configured_rules == CURLY
        added = client.add_custom_instruction(style.style_id, "Dates", "Use ISO dates.", source_language="en")
        assert added.version == 4 and added.custom_instructions is not None
        new = added.custom_instructions[-1]
        assert new.id and client.get_custom_instruction(style.style_id, new.id) == new
        replaced = client.replace_custom_instruction(style.style_id, new.id, "Dates", "Use long dates.")
        assert replaced == CustomInstruction("Dates", "Use long dates.", None, new.id)
        client.delete_custom_instruction(style.style_id, new.id)
        with pytest.raises(NotFoundError):
            client.get_custom_instruction(style.style_id, new.id)
        result = client.translate(["it's"], source_lang="EN", target_lang="DE", style_id=style.style_id)
        assert "\u2019" in result.translations[0].text
        with pytest.raises(BadRequestError):
            client.translate(["it's"], source_lang="EN", target_lang="FR", style_id=style.style_id)
    finally:
        client.delete_style_rule_list(style.style_id)
    with pytest.raises(NotFoundError):
        client.get_style_rule_list(style.style_id)


def test_translation_memories(launch_service: Any, tmp_path: Path) -> None:
    po = tmp_path / "tm.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n\nmsgid "Open the file"\nmsgstr "Datei öffnen"\n', encoding="utf-8"
    )
    service = launch_service(extra_args=("--translation-memory", f"docs={po}"))
    with Client(service.url, service.auth_key, timeout=10.0) as client:
        (memory,) = client.translation_memories()
        assert memory.name == "docs" and memory.extra["segment_count"] == 1
        result = client.translate(
            ["Open the files"], source_lang="EN", target_lang="DE", translation_memory_id=memory.translation_memory_id
        )
        assert result.translations[0].text == "Datei öffnen"
        strict = client.translate(
            ["Open the files"],
            source_lang="EN",
            target_lang="DE",
            translation_memory_id=memory.translation_memory_id,
            translation_memory_threshold=100,
        )
        assert strict.translations[0].text != "Datei öffnen"
