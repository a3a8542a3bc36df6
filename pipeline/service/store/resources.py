"""The account resources of one app (glossaries, style rule lists, translation memories) and the
:class:`Lookups` seam through which translation finds them.

Text and document translation ask a :class:`Lookups` for the glossary, style rule list or
translation memory a request names (``api.lookups`` turns the answers into errors and engine
input); :class:`Resources` implements it over the stores, :class:`NoResources` answers that
nothing exists.

Glossary entries are read lazily: translation first learns which pairs a glossary has, and only
the dictionary of the request's pair is loaded and parsed, once per revision (a small cache keeps
the latest parsed dictionaries, so a 10 MB dictionary is not re-read for every request).

The glossary and style stores open at their first use (:func:`_glossary_store`, :func:`_style_store`:
their modules loaded, their tables made), so an app that is never asked for a glossary or a style
rule list, the pipeline's embedded service translating a project without them, loads neither.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple, Protocol

from pipeline.service.store.database import Database
from pipeline.service.store.memories import MemoryStore

if TYPE_CHECKING:  # the matchers come with the first memory file (store.memory_files), the stores at first use
    from pipeline.service.engine.tm_match import MemoryIndex
    from pipeline.service.store.glossaries import GlossaryStore
    from pipeline.service.store.styles import StyleStore

Entries = tuple[tuple[str, str], ...]
_CACHED_DICTIONARIES = 8


class GlossaryInfo(NamedTuple):
    """A glossary's dictionaries: (source base, target base) in lower case -> (source, target) pairs."""

    dictionaries: Mapping[tuple[str, str], tuple[tuple[str, str], ...]]


class StyleInfo(NamedTuple):
    """A style rule list as translation needs it: language, instruction prompts, configured rules."""

    language: str
    instructions: tuple[str, ...] = ()
    #: (category, rule, option) triples of the list's configured rules.
    configured_rules: tuple[tuple[str, str, str], ...] = ()


class MemoryInfo(NamedTuple):
    """A translation memory of the account: its source base language and a matcher per target base."""

    memory_id: str
    source_lang: str = ""
    by_target: Mapping[str, MemoryIndex] = MappingProxyType({})


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


class _EntryCache:
    """Parsed dictionaries by (glossary, pair, revision), least recently used dropped first."""

    def __init__(self) -> None:
        self._items: OrderedDict[tuple[str, str, str, str], Entries] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, str, str], load: Callable[[], Entries]) -> Entries:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        entries: Entries = load()
        with self._lock:
            self._items[key] = entries
            while len(self._items) > _CACHED_DICTIONARIES:
                self._items.popitem(last=False)
        return entries


class _Dictionaries(Mapping[tuple[str, str], Entries]):
    """A glossary's dictionaries by pair; entries are loaded only for the pair asked for."""

    def __init__(self, resources: Resources, account_id: str, glossary_id: str, revisions: dict[tuple[str, str], str]):
        self._resources, self._account_id, self._glossary_id = resources, account_id, glossary_id
        self._revisions = revisions

    def __getitem__(self, pair: tuple[str, str]) -> Entries:
        revision = self._revisions[pair]

        def load() -> Entries:
            return self._resources.glossaries.entries(self._account_id, self._glossary_id, *pair)

        return self._resources.entry_cache.get((self._glossary_id, *pair, revision), load)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._revisions)

    def __len__(self) -> int:
        return len(self._revisions)


def _glossary_store(db: Database) -> GlossaryStore:
    """The glossary store over ``db``, its tables made."""
    from pipeline.service.store.glossaries import GlossaryStore  # the front door: with the first glossary use

    return GlossaryStore(db)


def _style_store(db: Database) -> StyleStore:
    """The style rule list store over ``db``, its table made."""
    from pipeline.service.store.styles import StyleStore  # the front door: with the first style rule list use

    return StyleStore(db)


class Resources:
    """Stores of the account resources; also the app's :class:`Lookups`.

    The memories are read when the app opens; the glossary and style stores open at their first
    use, or all at once with :meth:`open_all` (an app with a data directory, whose file then holds
    every table from the start, as a store that cannot be used is then found at once).
    """

    def __init__(self, db: Database, memories: MemoryStore) -> None:
        self.memories = memories
        self.entry_cache = _EntryCache()
        self._db = db
        self._opening = threading.Lock()  # endpoints reach the stores from worker threads too
        self._glossaries: GlossaryStore | None = None
        self._styles: StyleStore | None = None

    def open_all(self) -> None:
        """Open the glossary and style stores now."""
        _ = self.glossaries, self.styles

    @property
    def glossaries(self) -> GlossaryStore:
        """The glossary store, opened at its first use."""
        with self._opening:
            if self._glossaries is None:
                self._glossaries = _glossary_store(self._db)
            return self._glossaries

    @property
    def styles(self) -> StyleStore:
        """The style rule list store, opened at its first use."""
        with self._opening:
            if self._styles is None:
                self._styles = _style_store(self._db)
            return self._styles

    def glossary(self, account_id: str, glossary_id: str) -> GlossaryInfo | None:
        """The glossary with its dictionaries by (source base, target base)."""
        record = self.glossaries.get(account_id, glossary_id)
        if record is None:
            return None
        revisions = {(d.source_lang, d.target_lang): d.revision for d in record.dictionaries}
        return GlossaryInfo(_Dictionaries(self, account_id, glossary_id, revisions))

    def style_list(self, account_id: str, style_id: str) -> StyleInfo | None:
        """The style rule list's language, instruction prompts and configured rules."""
        style = self.styles.get(account_id, style_id)
        if style is None:
            return None
        rules = tuple(
            (category, rule, option)
            for category, chosen in style.configured_rules.items()
            for rule, option in chosen.items()
        )
        return StyleInfo(style.language, tuple(i.prompt for i in style.instructions), rules)

    def translation_memory(self, account_id: str, memory_id: str) -> MemoryInfo | None:
        """The memory's source language and its matchers per target language."""
        memory = self.memories.get(account_id, memory_id)
        if memory is None:
            return None
        return MemoryInfo(memory.memory_id, memory.source_lang, memory.by_target)
