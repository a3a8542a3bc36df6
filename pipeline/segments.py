"""The records of the text a run translates: segments as read, their protected form and placeholders,
and the options besides the text that change the service's output.

Imported only once some catalog is read: a run with nothing new needs :mod:`pipeline.model` alone.
"""

import functools
import hashlib
import re
from typing import NamedTuple

__all__ = ["Placeholder", "Protected", "Segment", "SegmentKey", "TranslationOptions"]


class SegmentKey(NamedTuple):
    """Identity of one translatable string: catalog path, unit within it, source form within the unit."""

    catalog: str
    unit: int
    form: int = 0


class Segment(NamedTuple):
    """One string to translate, as read from a catalog."""

    key: SegmentKey
    text: str
    line: int
    flags: tuple[str, ...] = ()
    context: str | None = None


class Placeholder(NamedTuple):
    """A span of source text that must come back verbatim; ``ordered`` ones keep their relative order."""

    id: int
    text: str
    kind: str
    ordered: bool = False


class Protected(NamedTuple):
    """A segment's text as sent: placeholders replaced by ``<x id="N"/>``, edge whitespace set aside."""

    text: str
    placeholders: tuple[Placeholder, ...]
    prefix: str = ""
    suffix: str = ""

    @property
    def needs_translation(self) -> bool:
        """False when nothing but placeholders, digits, punctuation or spaces is left to translate."""
        return _has_letters(self.text)


class TranslationOptions(NamedTuple):
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

    def inputs_hash(self) -> str:
        """Short hash of the inputs besides text and context (glossary, style, formality, ...), for provenance."""
        return _inputs_hash(self)


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
