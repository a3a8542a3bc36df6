"""The seam between the service and whatever produces translations.

An :class:`Engine` receives one validated :class:`EngineRequest` (all texts of an HTTP request,
languages already checked, the effective model and sentence splitting resolved, resources such as
glossary entries already looked up) and returns one :class:`Translation` per text, in order.
The HTTP layer owns everything else: parameters, errors, billing, usage, test faults.

Part 2 resources (glossaries, style rules, translation memories) reach the engine as plain data
on the request, so a new resource adds a field with a default here and nothing else changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, NamedTuple, Protocol

from pipeline.protocol import TM_THRESHOLD_DEFAULT

if TYPE_CHECKING:  # made by store.memory_files with the first memory file: a service without memories never loads it
    from pipeline.service.engine.tm_match import MemoryIndex


class MarkupOptions(NamedTuple):
    """Tag handling of a request: the mode and the tag-name lists it was given."""

    mode: Literal["xml", "html"]
    ignore_tags: frozenset[str] = frozenset()
    splitting_tags: frozenset[str] = frozenset()
    non_splitting_tags: frozenset[str] = frozenset()
    outline_detection: bool = True
    version: Literal["v1", "v2"] = "v1"


class EngineRequest(NamedTuple):
    """Texts to translate and every setting that may change the output.

    Languages are upper-case v2 codes: ``source_lang`` is a base language (``EN``) or None to
    detect; ``target_lang`` may be a variant (``EN-US``). ``formality`` is the effective value
    (``prefer_*`` already resolved); ``model_type`` is ``latency_optimized`` (classic) or
    ``quality_optimized`` (next-gen); ``split_sentences`` is the effective ``0``/``1``/``nonewlines``.
    """

    texts: tuple[str, ...]
    source_lang: str | None
    target_lang: str
    markup: MarkupOptions | None = None
    split_sentences: str = "1"
    model_type: str = "latency_optimized"
    formality: str = "default"
    preserve_formatting: bool = False
    context: str | None = None
    #: (source phrase, target phrase) pairs of the glossary dictionary for this language pair.
    glossary: tuple[tuple[str, str], ...] = ()
    #: Custom instructions of the request followed by those of the style rule list.
    instructions: tuple[str, ...] = ()
    #: (category, rule, option) triples of the style rule list's configured rules.
    style_rules: tuple[tuple[str, str, str], ...] = ()
    #: The translation memory's segments for this target language, when the request names one.
    memory: MemoryIndex | None = None
    #: Minimum fuzzy-match score (0..100) for a memory segment to be applied (see ``engine.tm_match``).
    memory_threshold: int = TM_THRESHOLD_DEFAULT


class Translation(NamedTuple):
    """One translated text and the source language used (detected or given), upper case."""

    text: str
    detected_source_language: str


class Engine(Protocol):
    """Anything that translates an :class:`EngineRequest`."""

    async def translate(self, request: EngineRequest) -> Sequence[Translation]:
        """One translation per text of ``request``, in order."""
        ...
