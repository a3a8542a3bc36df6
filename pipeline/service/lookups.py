"""How text translation finds the account resources a request names (the part-2 seam).

Translation asks a :class:`Lookups` for the glossary, style rule list or translation memory a
request names and turns the answers into errors (404 unknown id, 400 wrong language pair) and
engine input. ``resources.Resources`` implements it over the stores of glossaries, style rules and
translation memories; :class:`NoResources` answers that nothing exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from pipeline.service.tm_match import MemoryIndex


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
