"""Frozen records the client returns: one per resource of the service, parsed from its JSON.

Fields the spec names are typed attributes; for resources whose full shape the spec does not show
(usage, translation memories) the remaining fields are kept read-only in ``extra``.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple, TypeVar

_V = TypeVar("_V")


def frozen_mapping(data: Mapping[str, _V] | None = None) -> Mapping[str, _V]:
    """A read-only copy of ``data`` (records stay immutable all the way down)."""
    return MappingProxyType(dict(data or {}))


#: The ``extra`` of a record the service said nothing more about (read-only, so one serves all).
NO_EXTRA: Mapping[str, object] = frozen_mapping()


# --- Text translation -----------------------------------------------------------------------


class Translation(NamedTuple):
    """One translated text, in the order of the request's texts."""

    text: str
    detected_source_language: str


class TranslateResult(NamedTuple):
    """The answer of ``POST /v2/translate``."""

    translations: tuple[Translation, ...]
    billed_characters: int | None = None
    model_type_used: str | None = None


# --- Documents ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentHandle:
    """What an upload returns; the key is a secret, so it stays out of ``repr``."""

    document_id: str
    document_key: str = field(repr=False)


class DocumentStatus(NamedTuple):
    """State of a document translation job."""

    document_id: str
    status: str  # queued, translating, done, error
    seconds_remaining: int | None = None
    billed_characters: int | None = None
    message: str | None = None

    @property
    def done(self) -> bool:
        """True when the result can be downloaded."""
        return self.status == "done"

    @property
    def failed(self) -> bool:
        """True when the job ended in ``error``."""
        return self.status == "error"


@dataclass(frozen=True)
class TranslatedDocument:
    """A downloaded translation together with the job's final status."""

    content: bytes = field(repr=False)
    status: DocumentStatus


# --- Write ----------------------------------------------------------------------------------


class Improvement(NamedTuple):
    """One improved text from ``/v2/write/rephrase`` or ``/v2/write/correct``."""

    text: str
    target_language: str | None
    detected_source_language: str | None


# --- Glossaries -----------------------------------------------------------------------------


class DictionarySummary(NamedTuple):
    """One language pair of a v3 glossary, without its entries."""

    source_lang: str
    target_lang: str
    entry_count: int


@dataclass(frozen=True)
class GlossaryDictionary:
    """One language pair of a glossary with its entries (``tsv`` or ``csv`` text)."""

    source_lang: str
    target_lang: str
    entries: str = field(repr=False)
    entries_format: str = "tsv"


class Glossary(NamedTuple):
    """A v3 (multilingual) glossary's metadata."""

    glossary_id: str
    name: str
    dictionaries: tuple[DictionarySummary, ...]
    creation_time: str | None = None
    ready: bool | None = None


class GlossaryV2(NamedTuple):
    """A legacy single-pair glossary."""

    glossary_id: str
    name: str
    source_lang: str
    target_lang: str
    entry_count: int
    ready: bool | None = None
    creation_time: str | None = None


class LanguagePair(NamedTuple):
    """A source/target pair (``/v2/glossary-language-pairs``)."""

    source_lang: str
    target_lang: str


# --- Style rules ----------------------------------------------------------------------------


class CustomInstruction(NamedTuple):
    """A free-text instruction of a style rule list; ``id`` is None before the service assigns one."""

    label: str
    prompt: str
    source_language: str | None = None
    id: str | None = None


class StyleRuleList(NamedTuple):
    """A style rule list; rules and instructions are None unless the view was detailed."""

    style_id: str
    name: str
    language: str
    version: int
    creation_time: str | None = None
    updated_time: str | None = None
    configured_rules: Mapping[str, Mapping[str, str]] | None = None
    custom_instructions: tuple[CustomInstruction, ...] | None = None


# --- Languages ------------------------------------------------------------------------------


class Language(NamedTuple):
    """A language of ``GET /v3/languages``; ``features`` maps feature name -> status."""

    code: str
    name: str
    usable_as_source: bool
    usable_as_target: bool
    status: str
    features: Mapping[str, str]

    def supports(self, feature: str) -> bool:
        """True when ``feature`` is listed for this language."""
        return feature in self.features


class FeatureDescriptor(NamedTuple):
    """Which sides of a pair a feature needs (``GET /v3/languages/resources``)."""

    name: str
    needs_source_support: bool
    needs_target_support: bool


class LanguageResource(NamedTuple):
    """A resource (``translate_text``, ``glossary``, ...) and its features."""

    name: str
    features: tuple[FeatureDescriptor, ...]


class LanguageV2(NamedTuple):
    """A language of the deprecated ``GET /v2/languages``."""

    language: str
    name: str
    supports_formality: bool | None = None


# --- Translation memories, usage ------------------------------------------------------------


class TranslationMemory(NamedTuple):
    """A translation memory of the account; its shape beyond the id is not specified."""

    translation_memory_id: str
    name: str | None = None
    extra: Mapping[str, object] = NO_EXTRA


class Usage(NamedTuple):
    """``GET /v2/usage``; figures the spec does not name are kept in ``extra``."""

    character_count: int
    character_limit: int | None = None
    speech_to_text_milliseconds_count: int | None = None
    speech_to_text_milliseconds_limit: int | None = None
    extra: Mapping[str, object] = NO_EXTRA


# --- Administration -------------------------------------------------------------------------


@dataclass(frozen=True)
class DeveloperKey:
    """A developer key as the admin endpoints show it; ``characters_limit`` None means unlimited."""

    key_id: str
    label: str
    creation_time: str | None
    is_deactivated: bool
    deactivated_time: str | None = None
    characters_limit: int | None = None
    speech_to_text_milliseconds_limit: int | None = None
    #: The new key's secret: only in the answer to its creation, never shown again.
    api_key: str | None = field(default=None, repr=False)


class CustomTagUsage(NamedTuple):
    """Characters used under one reporting tag (per period, or per day with ``usage_date``)."""

    custom_tag: str
    total_characters: int
    text_translation_characters: int
    text_improvement_characters: int
    usage_date: str | None = None


class CustomTagUsageReport(NamedTuple):
    """One page of ``GET /v2/admin/analytics/custom-tags``."""

    aggregate_by: str
    start_date: str
    end_date: str
    usage: tuple[CustomTagUsage, ...]
    next_page: int | None = None
