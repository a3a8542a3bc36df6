"""Glossaries (v3 and legacy v2) and style rule lists: the resources that steer terminology and
style, as methods written once for both shells (see :mod:`pipeline.client.endpoints`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pipeline import protocol
from pipeline.client import limits, requests
from pipeline.client import responses as parse
from pipeline.client.api_data import (
    CustomInstruction,
    DictionarySummary,
    Glossary,
    GlossaryDictionary,
    GlossaryV2,
    LanguagePair,
    StyleRuleList,
)
from pipeline.client.endpoints import EndpointBase
from pipeline.client.requests import segment
from pipeline.errors import ClientLimitError


class TerminologyEndpoints(EndpointBase):
    """Glossaries v3 and v2, style rule lists and their custom instructions."""

    # --- Glossaries v3 ----------------------------------------------------------------------

    def create_glossary(self, name: str, dictionaries: Sequence[GlossaryDictionary]) -> Glossary:
        """Create a glossary with one or more dictionaries (``POST /v3/glossaries``)."""
        body = requests.glossary_body(name, dictionaries)
        return self._call(requests.send_json("POST", "/v3/glossaries", body, parse.parse_glossary))

    def list_glossaries(self) -> tuple[Glossary, ...]:
        """All glossaries, without entries (``GET /v3/glossaries``)."""
        return self._call(requests.get("/v3/glossaries", parse.parse_glossaries))

    def get_glossary(self, glossary_id: str) -> Glossary:
        """One glossary's metadata (``GET /v3/glossaries/{id}``)."""
        return self._call(requests.get(f"/v3/glossaries/{segment(glossary_id)}", parse.parse_glossary))

    def glossary_entries(self, glossary_id: str, source_lang: str, target_lang: str) -> GlossaryDictionary:
        """One dictionary with its entries, as TSV (``GET /v3/glossaries/{id}/entries``)."""
        query = [("source_lang", source_lang), ("target_lang", target_lang)]
        path = f"/v3/glossaries/{segment(glossary_id)}/entries"
        return self._call(
            requests.get(path, parse.parse_glossary_entries, query, requests.GLOSSARY_ENTRIES_ANSWER_BYTES)
        )

    def replace_glossary_dictionary(self, glossary_id: str, dictionary: GlossaryDictionary) -> DictionarySummary:
        """Create or replace the dictionary of one pair (``PUT /v3/glossaries/{id}/dictionaries``)."""
        body = requests.dictionary_body(dictionary)
        path = f"/v3/glossaries/{segment(glossary_id)}/dictionaries"
        return self._call(requests.send_json("PUT", path, body, parse.parse_dictionary_summary))

    def update_glossary(
        self, glossary_id: str, *, name: str | None = None, dictionary: GlossaryDictionary | None = None
    ) -> Glossary:
        """Rename and/or merge entries into one dictionary (``PATCH /v3/glossaries/{id}``)."""
        body: dict[str, object] = {}
        if name is not None:
            limits.check_glossary_name(name)
            body["name"] = name
        if dictionary is not None:
            body["dictionaries"] = [requests.dictionary_body(dictionary)]
        if not body:
            raise ClientLimitError("update_glossary needs a name or a dictionary")
        path = f"/v3/glossaries/{segment(glossary_id)}"
        return self._call(requests.send_json("PATCH", path, body, parse.parse_glossary))

    def delete_glossary(self, glossary_id: str) -> None:
        """Delete a whole glossary (``DELETE /v3/glossaries/{id}``)."""
        return self._call(requests.delete(f"/v3/glossaries/{segment(glossary_id)}"))

    def delete_glossary_dictionary(self, glossary_id: str, source_lang: str, target_lang: str) -> None:
        """Delete the dictionary of one pair (``DELETE /v3/glossaries/{id}/dictionaries``)."""
        query = [("source_lang", source_lang), ("target_lang", target_lang)]
        return self._call(requests.delete(f"/v3/glossaries/{segment(glossary_id)}/dictionaries", query))

    # --- Glossaries v2 (legacy, one pair, immutable) ----------------------------------------

    def create_glossary_v2(
        self, name: str, source_lang: str, target_lang: str, entries: str, entries_format: str = "tsv"
    ) -> GlossaryV2:
        """Create a single-pair glossary (``POST /v2/glossaries``)."""
        limits.check_glossary_name(name)
        dictionary = GlossaryDictionary(source_lang, target_lang, entries, entries_format)
        body = {"name": name, **requests.dictionary_body(dictionary)}
        return self._call(requests.send_json("POST", "/v2/glossaries", body, parse.parse_glossary_v2))

    def list_glossaries_v2(self) -> tuple[GlossaryV2, ...]:
        """All v2 glossaries (``GET /v2/glossaries``)."""
        return self._call(requests.get("/v2/glossaries", parse.parse_glossaries_v2))

    def get_glossary_v2(self, glossary_id: str) -> GlossaryV2:
        """One v2 glossary (``GET /v2/glossaries/{id}``)."""
        return self._call(requests.get(f"/v2/glossaries/{segment(glossary_id)}", parse.parse_glossary_v2))

    def glossary_entries_v2(self, glossary_id: str) -> str:
        """A v2 glossary's entries as tab-separated lines (``GET /v2/glossaries/{id}/entries``)."""
        request = requests.Request(
            "GET",
            f"/v2/glossaries/{segment(glossary_id)}/entries",
            headers=(("Accept", "text/tab-separated-values"),),
        )
        return self._call(requests.Call(request, str, "text", requests.GLOSSARY_ENTRIES_ANSWER_BYTES))

    def delete_glossary_v2(self, glossary_id: str) -> None:
        """Delete a v2 glossary (``DELETE /v2/glossaries/{id}``)."""
        return self._call(requests.delete(f"/v2/glossaries/{segment(glossary_id)}"))

    def glossary_language_pairs(self) -> tuple[LanguagePair, ...]:
        """Deprecated list of glossary pairs (``GET /v2/glossary-language-pairs``); prefer ``languages("glossary")``."""
        return self._call(requests.get("/v2/glossary-language-pairs", parse.parse_language_pairs))

    # --- Style rule lists -------------------------------------------------------------------

    def create_style_rule_list(
        self,
        name: str,
        language: str,
        *,
        configured_rules: Mapping[str, Mapping[str, str]] | None = None,
        custom_instructions: Sequence[CustomInstruction] = (),
    ) -> StyleRuleList:
        """Create a style rule list for one target language (``POST /v3/style_rules``)."""
        limits.check_style_name(name)
        limits.check_choice("language", language.lower(), protocol.STYLE_LANGUAGES)
        if len(custom_instructions) > protocol.MAX_STYLE_INSTRUCTIONS:
            raise ClientLimitError(
                f"{len(custom_instructions)} custom instructions; the limit is {protocol.MAX_STYLE_INSTRUCTIONS}"
            )
        body: dict[str, object] = {"name": name, "language": language}
        if configured_rules is not None:
            body["configured_rules"] = _rules_body(configured_rules)
        if custom_instructions:
            body["custom_instructions"] = [_instruction_body(i) for i in custom_instructions]
        return self._call(requests.send_json("POST", "/v3/style_rules", body, parse.parse_style_rule_list))

    def list_style_rule_lists(
        self, *, detailed: bool = False, page: int | None = None, page_size: int | None = None
    ) -> tuple[StyleRuleList, ...]:
        """One page of style rule lists (``GET /v3/style_rules``); rules only when ``detailed``."""
        limits.check_range("page_size", page_size, protocol.STYLE_PAGE_SIZE_MIN, protocol.STYLE_PAGE_SIZE_MAX)
        query = [("detailed", requests.flag(detailed))]
        if page is not None:
            query.append(("page", str(page)))
        if page_size is not None:
            query.append(("page_size", str(page_size)))
        return self._call(requests.get("/v3/style_rules", parse.parse_style_rule_lists, query))

    def get_style_rule_list(self, style_id: str) -> StyleRuleList:
        """One style rule list in full (``GET /v3/style_rules/{id}``)."""
        return self._call(requests.get(f"/v3/style_rules/{segment(style_id)}", parse.parse_style_rule_list))

    def rename_style_rule_list(self, style_id: str, name: str) -> StyleRuleList:
        """Rename a style rule list (``PATCH /v3/style_rules/{id}``)."""
        limits.check_style_name(name)
        path = f"/v3/style_rules/{segment(style_id)}"
        return self._call(requests.send_json("PATCH", path, {"name": name}, parse.parse_style_rule_list))

    def replace_configured_rules(
        self, style_id: str, configured_rules: Mapping[str, Mapping[str, str]]
    ) -> StyleRuleList:
        """Replace the whole set of configured rules (``PUT /v3/style_rules/{id}/configured_rules``)."""
        path = f"/v3/style_rules/{segment(style_id)}/configured_rules"
        return self._call(requests.send_json("PUT", path, _rules_body(configured_rules), parse.parse_style_rule_list))

    def delete_style_rule_list(self, style_id: str) -> None:
        """Delete a style rule list for good (``DELETE /v3/style_rules/{id}``)."""
        return self._call(requests.delete(f"/v3/style_rules/{segment(style_id)}"))

    def add_custom_instruction(
        self, style_id: str, label: str, prompt: str, source_language: str | None = None
    ) -> StyleRuleList:
        """Add an instruction; the answer is the whole list (``POST /v3/style_rules/{id}/custom_instructions``)."""
        body = _instruction_body(CustomInstruction(label, prompt, source_language))
        path = f"/v3/style_rules/{segment(style_id)}/custom_instructions"
        return self._call(requests.send_json("POST", path, body, parse.parse_style_rule_list))

    def get_custom_instruction(self, style_id: str, instruction_id: str) -> CustomInstruction:
        """One custom instruction (``GET /v3/style_rules/{id}/custom_instructions/{instruction_id}``)."""
        path = _instruction_path(style_id, instruction_id)
        return self._call(requests.get(path, parse.parse_custom_instruction))

    def replace_custom_instruction(
        self, style_id: str, instruction_id: str, label: str, prompt: str, source_language: str | None = None
    ) -> CustomInstruction:
        """Replace an instruction; all three fields are sent (``PUT .../custom_instructions/{instruction_id}``)."""
        limits.check_custom_instruction(label, prompt)
        body = {"label": label, "prompt": prompt, "source_language": source_language}
        path = _instruction_path(style_id, instruction_id)
        return self._call(requests.send_json("PUT", path, body, parse.parse_custom_instruction))

    def delete_custom_instruction(self, style_id: str, instruction_id: str) -> None:
        """Delete an instruction for good (``DELETE .../custom_instructions/{instruction_id}``)."""
        path = _instruction_path(style_id, instruction_id)
        return self._call(requests.delete(path))


def _instruction_body(instruction: CustomInstruction) -> dict[str, str]:
    limits.check_custom_instruction(instruction.label, instruction.prompt)
    body = {"label": instruction.label, "prompt": instruction.prompt}
    if instruction.source_language is not None:
        body["source_language"] = instruction.source_language
    return body


def _rules_body(configured_rules: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    return {category: dict(rules) for category, rules in configured_rules.items()}


def _instruction_path(style_id: str, instruction_id: str) -> str:
    return f"/v3/style_rules/{segment(style_id)}/custom_instructions/{segment(instruction_id)}"
