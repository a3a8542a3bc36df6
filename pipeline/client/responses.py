"""The parsers that turn the service's JSON into records (what comes before them, an answer's
body, its errors and its JSON, is :mod:`pipeline.client.reception`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pipeline.client.api_data import (
    CustomInstruction,
    CustomTagUsage,
    CustomTagUsageReport,
    DeveloperKey,
    DictionarySummary,
    DocumentHandle,
    DocumentStatus,
    FeatureDescriptor,
    Glossary,
    GlossaryDictionary,
    GlossaryV2,
    Improvement,
    Language,
    LanguagePair,
    LanguageResource,
    LanguageV2,
    StyleRuleList,
    TranslateResult,
    Translation,
    TranslationMemory,
    Usage,
    frozen_mapping,
)

# --- Parsers --------------------------------------------------------------------------------


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _count(data: Mapping[str, Any], field: str) -> int | None:
    """``data[field]`` as a whole number of at least 0, None when absent or null; ValueError naming it otherwise.

    JSON has no integer type: a number such as ``1e400`` or ``Infinity`` reaches Python as a
    float that no count can be.
    """
    value = data.get(field)
    if value is None:
        return None
    if type(value) is int and value >= 0:
        return value
    if type(value) is float and value.is_integer() and value >= 0:
        return int(value)
    raise ValueError(f"{field} is not a count: {str(value)[:40]}")


def _billed(data: Mapping[str, Any]) -> int | None:
    """The billed characters of a translation answer, None when absent or no count.

    The translations beside a nonsensical figure are still good, and refusing them would make the
    run pay for them again; without the figure the run counts what it sent.
    """
    try:
        return _count(data, "billed_characters")
    except ValueError:
        return None


def parse_translate(data: Mapping[str, Any]) -> TranslateResult:
    """``POST /v2/translate``."""
    translations = tuple(
        Translation(text=item["text"], detected_source_language=item.get("detected_source_language", ""))
        for item in data["translations"]
    )
    return TranslateResult(translations, _billed(data), data.get("model_type_used"))


def translate_parser(count: int) -> Callable[[Mapping[str, Any]], TranslateResult]:
    """:func:`parse_translate` for a request of ``count`` texts: another number of translations is refused.

    One translation too many (or too few) leaves no way to tell which answer belongs to which text.
    """

    def parse(data: Mapping[str, Any]) -> TranslateResult:
        result = parse_translate(data)
        if len(result.translations) != count:
            raise ValueError(f"{len(result.translations)} translations for {count} texts")
        return result

    return parse


def parse_document_handle(data: Mapping[str, Any]) -> DocumentHandle:
    """``POST /v2/document``."""
    return DocumentHandle(data["document_id"], data["document_key"])


def parse_document_status(data: Mapping[str, Any]) -> DocumentStatus:
    """``POST /v2/document/{id}``."""
    return DocumentStatus(
        document_id=data["document_id"],
        status=data["status"],
        seconds_remaining=_opt_int(data.get("seconds_remaining")),
        billed_characters=_billed(data),
        message=data.get("message"),
    )


def parse_improvements(data: Mapping[str, Any]) -> tuple[Improvement, ...]:
    """``POST /v2/write/rephrase`` and ``/v2/write/correct``."""
    return tuple(
        Improvement(item["text"], item.get("target_language"), item.get("detected_source_language"))
        for item in data["improvements"]
    )


def parse_dictionary_summary(data: Mapping[str, Any]) -> DictionarySummary:
    """A v3 dictionary summary (also the answer of ``PUT .../dictionaries``)."""
    return DictionarySummary(data["source_lang"], data["target_lang"], int(data.get("entry_count", 0)))


def parse_glossary(data: Mapping[str, Any]) -> Glossary:
    """A v3 glossary."""
    return Glossary(
        glossary_id=data["glossary_id"],
        name=data["name"],
        dictionaries=tuple(parse_dictionary_summary(d) for d in data.get("dictionaries", ())),
        creation_time=data.get("creation_time"),
        ready=data.get("ready"),
    )


def parse_glossaries(data: Mapping[str, Any]) -> tuple[Glossary, ...]:
    """``GET /v3/glossaries``."""
    return tuple(parse_glossary(item) for item in data["glossaries"])


def parse_glossary_entries(data: Mapping[str, Any]) -> GlossaryDictionary:
    """``GET /v3/glossaries/{id}/entries``: the one requested dictionary."""
    (item,) = data["dictionaries"]
    return GlossaryDictionary(
        item["source_lang"], item["target_lang"], item["entries"], item.get("entries_format", "tsv")
    )


def parse_glossary_v2(data: Mapping[str, Any]) -> GlossaryV2:
    """A v2 glossary."""
    return GlossaryV2(
        glossary_id=data["glossary_id"],
        name=data["name"],
        source_lang=data["source_lang"],
        target_lang=data["target_lang"],
        entry_count=int(data.get("entry_count", 0)),
        ready=data.get("ready"),
        creation_time=data.get("creation_time"),
    )


def parse_glossaries_v2(data: Mapping[str, Any]) -> tuple[GlossaryV2, ...]:
    """``GET /v2/glossaries``."""
    return tuple(parse_glossary_v2(item) for item in data["glossaries"])


def parse_language_pairs(data: Mapping[str, Any]) -> tuple[LanguagePair, ...]:
    """``GET /v2/glossary-language-pairs``."""
    return tuple(LanguagePair(item["source_lang"], item["target_lang"]) for item in data["supported_languages"])


def parse_custom_instruction(data: Mapping[str, Any]) -> CustomInstruction:
    """A custom instruction of a style rule list."""
    return CustomInstruction(data["label"], data["prompt"], data.get("source_language"), data.get("id"))


def parse_style_rule_list(data: Mapping[str, Any]) -> StyleRuleList:
    """A style rule list, summary or detailed."""
    rules = data.get("configured_rules")
    instructions = data.get("custom_instructions")
    return StyleRuleList(
        style_id=data["style_id"],
        name=data["name"],
        language=data["language"],
        version=int(data["version"]),
        creation_time=data.get("creation_time"),
        updated_time=data.get("updated_time"),
        configured_rules=None
        if rules is None
        else frozen_mapping({category: frozen_mapping(chosen) for category, chosen in rules.items()}),
        custom_instructions=None if instructions is None else tuple(parse_custom_instruction(i) for i in instructions),
    )


def parse_style_rule_lists(data: Mapping[str, Any]) -> tuple[StyleRuleList, ...]:
    """``GET /v3/style_rules``."""
    return tuple(parse_style_rule_list(item) for item in data["style_rules"])


def _feature_status(value: Any) -> str:
    return value if isinstance(value, str) else str(value.get("status", "stable"))


def parse_language(data: Mapping[str, Any]) -> Language:
    """A v3 language object."""
    features = data.get("features") or {}
    if isinstance(features, list):  # the pre-GA shape: a list of names
        features = {name: "stable" for name in features}
    return Language(
        code=data["lang"],
        name=data["name"],
        usable_as_source=bool(data.get("usable_as_source", False)),
        usable_as_target=bool(data.get("usable_as_target", False)),
        status=data.get("status", "stable"),
        features=frozen_mapping({name: _feature_status(value) for name, value in features.items()}),
    )


def parse_languages(data: Sequence[Mapping[str, Any]]) -> tuple[Language, ...]:
    """``GET /v3/languages``."""
    return tuple(parse_language(item) for item in data)


def parse_language_resources(data: Sequence[Mapping[str, Any]]) -> tuple[LanguageResource, ...]:
    """``GET /v3/languages/resources``."""
    return tuple(
        LanguageResource(
            item["name"],
            tuple(
                FeatureDescriptor(f["name"], bool(f.get("needs_source_support")), bool(f.get("needs_target_support")))
                for f in item.get("features", ())
            ),
        )
        for item in data
    )


def parse_languages_v2(data: Sequence[Mapping[str, Any]]) -> tuple[LanguageV2, ...]:
    """``GET /v2/languages``."""
    return tuple(LanguageV2(item["language"], item["name"], item.get("supports_formality")) for item in data)


def parse_translation_memories(data: Any) -> tuple[TranslationMemory, ...]:
    """``GET /v3/translation_memories``; the spec does not show the shape, so both a bare list and
    an object with a ``translation_memories`` list are read, ids under ``translation_memory_id`` or ``id``.
    """
    items = data["translation_memories"] if isinstance(data, dict) else data
    memories = []
    for item in items:
        known = {"translation_memory_id", "id", "name"}
        memory_id = item.get("translation_memory_id", item.get("id"))
        if memory_id is None:
            raise KeyError("translation_memory_id")
        extra = {k: v for k, v in item.items() if k not in known}
        memories.append(TranslationMemory(str(memory_id), item.get("name"), frozen_mapping(extra)))
    return tuple(memories)


_USAGE_FIELDS = (
    "character_count",
    "character_limit",
    "speech_to_text_milliseconds_count",
    "speech_to_text_milliseconds_limit",
)


def parse_usage(data: Mapping[str, Any]) -> Usage:
    """``GET /v2/usage``."""
    count = _count(data, "character_count")
    if count is None:
        raise KeyError("character_count")
    return Usage(
        character_count=count,
        character_limit=_count(data, "character_limit"),
        speech_to_text_milliseconds_count=_count(data, "speech_to_text_milliseconds_count"),
        speech_to_text_milliseconds_limit=_count(data, "speech_to_text_milliseconds_limit"),
        extra=frozen_mapping({k: v for k, v in data.items() if k not in _USAGE_FIELDS}),
    )


def parse_developer_key(data: Mapping[str, Any]) -> DeveloperKey:
    """A developer key record of the admin endpoints."""
    limits = data.get("usage_limits") or {}
    return DeveloperKey(
        key_id=data["key_id"],
        label=data.get("label", ""),
        creation_time=data.get("creation_time"),
        is_deactivated=bool(data.get("is_deactivated", False)),
        deactivated_time=data.get("deactivated_time"),
        characters_limit=_opt_int(limits.get("characters")),
        speech_to_text_milliseconds_limit=_opt_int(limits.get("speech_to_text_milliseconds")),
        api_key=data.get("api_key"),
    )


def parse_developer_keys(data: Sequence[Mapping[str, Any]]) -> tuple[DeveloperKey, ...]:
    """``GET /v2/admin/developer-keys``."""
    return tuple(parse_developer_key(item) for item in data)


def parse_custom_tag_usage_report(data: Mapping[str, Any]) -> CustomTagUsageReport:
    """``GET /v2/admin/analytics/custom-tags``: one page."""
    report = data["custom_tag_usage_report"]
    usage = []
    for item in report.get("usage", ()):
        breakdown = item.get("breakdown", {})
        usage.append(
            CustomTagUsage(
                custom_tag=item["custom_tag"],
                total_characters=int(breakdown.get("total_characters", 0)),
                text_translation_characters=int(breakdown.get("text_translation_characters", 0)),
                text_improvement_characters=int(breakdown.get("text_improvement_characters", 0)),
                usage_date=item.get("usage_date"),
            )
        )
    return CustomTagUsageReport(
        aggregate_by=report["aggregate_by"],
        start_date=report["start_date"],
        end_date=report["end_date"],
        usage=tuple(usage),
        next_page=_opt_int(report.get("next_page")),
    )
