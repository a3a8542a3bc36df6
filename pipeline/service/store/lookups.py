"""How text and document translation find the account resources a request names (the part-2 seam).

Translation asks a :class:`Lookups` for the glossary, style rule list or translation memory a
request names; :func:`glossary_entries`, :func:`style_for` and :func:`memory_index` turn the
answers into errors (404 unknown id, 400 wrong language pair) and engine input, the same for
``/v2/translate`` and ``/v2/document``. ``resources.Resources`` implements :class:`Lookups` over
the stores of glossaries, style rules and translation memories; :class:`NoResources` answers that
nothing exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from pipeline.service.engine.tm_match import MemoryIndex
from pipeline.service.http.responses import ApiError, bad_request
from pipeline.service.languages import Language


@dataclass(frozen=True)
class GlossaryInfo:
    """A glossary's dictionaries: (source base, target base) in lower case -> (source, target) pairs."""

    dictionaries: Mapping[tuple[str, str], tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class StyleInfo:
    """A style rule list as translation needs it: language, instruction prompts, configured rules."""

    language: str
    instructions: tuple[str, ...] = ()
    #: (category, rule, option) triples of the list's configured rules.
    configured_rules: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class MemoryInfo:
    """A translation memory of the account: its source base language and a matcher per target base."""

    memory_id: str
    source_lang: str = ""
    by_target: Mapping[str, MemoryIndex] = field(default_factory=dict)


class Lookups(Protocol):
    """Finds an account's resources by id; None means the account has no such resource."""

    def glossary(self, account_id: str, glossary_id: str) -> GlossaryInfo | None:
        """The glossary ``glossary_id`` of the account."""
        ...

    def style_list(self, account_id: str, style_id: str) -> StyleInfo | None:
        """The style rule list ``style_id`` of the account."""
        ...

    def translation_memory(self, account_id: str, memory_id: str) -> MemoryInfo | None:
        """The translation memory ``memory_id`` of the account."""
        ...


class NoResources:
    """Lookups for a service without resource stores: every id is unknown."""

    def glossary(self, account_id: str, glossary_id: str) -> GlossaryInfo | None:
        """Always None."""
        return None

    def style_list(self, account_id: str, style_id: str) -> StyleInfo | None:
        """Always None."""
        return None

    def translation_memory(self, account_id: str, memory_id: str) -> MemoryInfo | None:
        """Always None."""
        return None


def glossary_entries(
    lookups: Lookups, account_id: str, glossary_id: str, source: Language | None, target: Language
) -> tuple[tuple[str, str], ...]:
    """The entries of the glossary's dictionary for the base pair (400 without source, 404, 400 no pair)."""
    if source is None:
        raise bad_request("glossary_id requires source_lang: glossaries cannot be used with language detection")
    glossary = lookups.glossary(account_id, glossary_id)
    if glossary is None:
        raise ApiError(404, f"glossary {glossary_id!r} not found")
    pair = (source.base, target.base)
    if pair not in glossary.dictionaries:
        raise bad_request(f"glossary {glossary_id!r} has no dictionary for {pair[0]} -> {pair[1]}")
    return tuple(glossary.dictionaries[pair])


def style_for(lookups: Lookups, account_id: str, style_id: str, target: Language) -> StyleInfo:
    """The style rule list, which must be for the target's base language (404, 400)."""
    style = lookups.style_list(account_id, style_id)
    if style is None:
        raise ApiError(404, f"style rule list {style_id!r} not found")
    if style.language.lower() != target.base:
        raise bad_request(
            f"style rule list {style_id!r} is for {style.language!r}, but the target language is {target.v2!r}"
        )
    return style


def memory_index(
    lookups: Lookups, account_id: str, memory_id: str, source: Language | None, target: Language
) -> MemoryIndex:
    """The memory's segments for the target base language (404 unknown, 400 other source or no segments)."""
    memory = lookups.translation_memory(account_id, memory_id)
    if memory is None:
        raise ApiError(404, f"translation memory {memory_id!r} not found")
    if source is not None and source.base != memory.source_lang:
        raise bad_request(
            f"translation memory {memory_id!r} has source language {memory.source_lang!r}, "
            f"but source_lang is {source.v2!r}"
        )
    index = memory.by_target.get(target.base)
    if index is None:
        raise bad_request(
            f"translation memory {memory_id!r} has no segments for target language {target.base!r}; "
            f"it has {', '.join(sorted(memory.by_target)) or 'none'}"
        )
    return index
