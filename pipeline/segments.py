"""The records of the text a run translates: segments as read, their protected form and placeholders,
and the options besides the text that change the service's output.

Imported only once some catalog is read: a run with nothing new needs :mod:`pipeline.model` alone.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["Placeholder", "Protected", "Segment", "SegmentKey", "TranslationOptions"]


@dataclass(frozen=True, slots=True)
class SegmentKey:
    """Identity of one translatable string: catalog path, unit within it, source form within the unit."""

    catalog: str
    unit: int
    form: int = 0


@dataclass(frozen=True, slots=True)
class Segment:
    """One string to translate, as read from a catalog."""

    key: SegmentKey
    text: str
    line: int
    flags: tuple[str, ...] = ()
    context: str | None = None


@dataclass(frozen=True, slots=True)
class Placeholder:
    """A span of source text that must come back verbatim; ``ordered`` ones keep their relative order."""

    id: int
    text: str
    kind: str
    ordered: bool = False


@dataclass(frozen=True, slots=True)
class Protected:
    """A segment's text as sent: placeholders replaced by ``<x id="N"/>``, edge whitespace set aside."""

    text: str
    placeholders: tuple[Placeholder, ...]
    prefix: str = ""
    suffix: str = ""

    @property
    def needs_translation(self) -> bool:
        """False when nothing but placeholders, digits, punctuation or spaces is left to translate."""
        return _has_letters(self.text)


@dataclass(frozen=True, slots=True)
class TranslationOptions:
    """Everything besides the text that changes the service's output for a segment."""

    source_lang: str
    target_lang: str
    context: str | None = None
    formality: str | None = None
    glossary_id: str | None = None
    style_id: str | None = None
    model_type: str | None = None
    # Ids name server-side objects whose content can change under the same id (a glossary is
    # replaced, a style list edited), so the content hashes are what keep the cache honest.
    glossary_hash: str | None = None
    style_version: str | None = None
    custom_instructions: tuple[str, ...] = ()
    translation_memory_id: str | None = None
    translation_memory_threshold: int | None = None
    tag_handling_version: str | None = None
    # A memory's content lives on the service and changes under its id (edited in the web UI): what
    # the service says about it (pipeline.resources.attach.memory_version) keys the cache. Unknown
    # (None) until the run has asked, and a key made before that is never stored under.
    translation_memory_version: str | None = None
    # A run looks its few options up tens of thousands of times (memos, groups of texts): their hash,
    # a tuple of every field above, is worked out once. Not a field to compare, show or pickle.
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash(tuple(getattr(self, name) for name in _COMPARED)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # The hash of strings differs between processes: a copy made elsewhere works its own out.
        return TranslationOptions, tuple(getattr(self, name) for name in _COMPARED)

    def inputs_hash(self) -> str:
        """Short hash of the inputs besides text and context (glossary, style, formality, ...), for provenance."""
        return _inputs_hash(self)


_COMPARED = tuple(f.name for f in fields(TranslationOptions) if f.compare)


@functools.lru_cache(maxsize=256)
def _inputs_hash(options: TranslationOptions) -> str:
    """Hashed once per distinct options: a run has a few, and asks for the hash of every unit it writes."""
    material = "\x1f".join(
        str(v)
        for v in (
            options.source_lang,
            options.target_lang,
            options.formality,
            options.glossary_hash or options.glossary_id,
            options.style_version or options.style_id,
            "\x1e".join(options.custom_instructions),
            options.model_type,
            options.translation_memory_id,
            options.translation_memory_threshold,
            options.tag_handling_version,
        )
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:16]


_MARKUP = re.compile(r"<[^>]*>|&[#\w]+;")


@functools.lru_cache(maxsize=4096)
def _has_letters(text: str) -> bool:
    """Whether ``text`` has a letter outside its tags; once per text (a run asks for each source once per language)."""
    return any(map(str.isalpha, _MARKUP.sub("", text)))
