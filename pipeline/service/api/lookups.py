"""Resolving the resources a request names (text and document translation alike).

:func:`glossary_entries`, :func:`style_for` and :func:`memory_index` ask the app's
:class:`~pipeline.service.store.resources.Lookups` and turn its answers into engine input or
errors: 404 for an id the account does not have, 400 for a wrong language pair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.service.echo import echo
from pipeline.service.http.responses import ApiError, bad_request
from pipeline.service.languages import Language
from pipeline.service.store.resources import Lookups, StyleInfo

if TYPE_CHECKING:  # made by store.memory_files with the first memory file: a service without memories never loads it
    from pipeline.service.engine.tm_match import MemoryIndex


def no_dictionary_message(glossary_id: str, source: str, target: str) -> str:
    """The message for a language pair a glossary has no dictionary for, in the real service's words."""
    return f"No dictionary found for language pair {source}->{target} in glossary {echo(glossary_id)}"


def glossary_entries(
    lookups: Lookups, account_id: str, glossary_id: str, source: Language | None, target: Language
) -> tuple[tuple[str, str], ...]:
    """The entries of the glossary's dictionary for the base pair (400 without source, 404, 400 no pair)."""
    if source is None:
        raise bad_request("glossary_id requires source_lang: glossaries cannot be used with language detection")
    glossary = lookups.glossary(account_id, glossary_id)
    if glossary is None:
        raise ApiError(404, f"glossary {echo(glossary_id)} not found")
    pair = (source.base, target.base)
    if pair not in glossary.dictionaries:
        raise bad_request(no_dictionary_message(glossary_id, *pair))
    return tuple(glossary.dictionaries[pair])


def style_for(lookups: Lookups, account_id: str, style_id: str, target: Language) -> StyleInfo:
    """The style rule list, which must be for the target's base language (404, 400)."""
    style = lookups.style_list(account_id, style_id)
    if style is None:
        raise ApiError(404, f"style rule list {echo(style_id)} not found")
    if style.language.lower() != target.base:
        raise bad_request(
            f"style rule list {echo(style_id)} is for {style.language!r}, but the target language is {target.v2!r}"
        )
    return style


def memory_index(
    lookups: Lookups, account_id: str, memory_id: str, source: Language | None, target: Language
) -> MemoryIndex:
    """The memory's segments for the target base language (404 unknown, 400 other source or no segments)."""
    memory = lookups.translation_memory(account_id, memory_id)
    if memory is None:
        raise ApiError(404, f"translation memory {echo(memory_id)} not found")
    if source is not None and source.base != memory.source_lang:
        raise bad_request(
            f"translation memory {echo(memory_id)} has source language {memory.source_lang!r}, "
            f"but source_lang is {source.v2!r}"
        )
    index = memory.by_target.get(target.base)
    if index is None:
        raise bad_request(
            f"translation memory {echo(memory_id)} has no segments for target language {target.base!r}; "
            f"it has {', '.join(sorted(memory.by_target)) or 'none'}"
        )
    return index
