"""Small frozen records that flow between the stages of a run."""

from __future__ import annotations

import enum
import functools
import hashlib
import re
from dataclasses import dataclass


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


#: Version of the protected form (:mod:`pipeline.placeholders.protect`), part of every cache key and run fingerprint:
#: bump it when the protected form of any text changes. Kept here, not in protect.py, so that a run
#: with nothing to translate can check its fingerprints without loading the placeholder grammars.
SCHEME_VERSION = "x-tags/3"  # 3: sh-format variables in lower case protected


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


class Severity(enum.StrEnum):
    """How much an :class:`Issue` matters; the values are what the reports print."""

    ERROR = "error"  # counts as failed: the run exits 1, the catalog is not settled
    WARNING = "warning"  # written, but worth a look (an approximate plural, a feature left out)
    SKIPPED = "skipped"  # deliberately left for a human (a partial plural, a template)


class Cause(enum.Enum):
    """Why an error lasts: a rerun with the same inputs cannot change it, so the catalog is settled with it."""

    INPUT = "input"  # the catalog (or the settings) must change first
    LANGUAGE = "language"  # the service does not offer the language, until its language list changes


class Alert(str):
    """A progress message a user must see even with ``--quiet`` (the CLI's quiet log still prints it).

    A plain ``str`` to every other receiver of a run's log.
    """

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Issue:
    """A per-segment or per-catalog problem: reported, never raised."""

    catalog: str
    reason: str
    line: int | None = None
    target_lang: str | None = None
    severity: Severity = Severity.ERROR
    cause: Cause | None = None  # set when the problem lasts whatever the run does (see Cause)

    def __post_init__(self) -> None:
        # Replayed notices come back from state.json as plain strings: one type from here on.
        object.__setattr__(self, "severity", Severity(self.severity))
        if self.cause is not None:
            object.__setattr__(self, "cause", Cause(self.cause))

    def where(self) -> str:
        """``path:line`` (or just the path) for messages."""
        return f"{self.catalog}:{self.line}" if self.line else self.catalog


@dataclass(slots=True)
class Counters:
    """Per-catalog (and total) tallies shown in the report."""

    billed_characters: int = 0
    characters_saved: int = 0
    requests: int = 0
    segments_translated: int = 0
    segments_from_cache: int = 0
    segments_copied: int = 0
    segments_failed: int = 0
    segments_skipped: int = 0
    # A reviewed translation of the same entry elsewhere (a sibling catalog, a compendium), written at
    # no cost; the characters its texts would have been billed.
    segments_reused: int = 0
    characters_reused: int = 0
    # Length limits: segments sent again asking for at most N characters; units written over their
    # limit all the same (marked for review) or, as configured, left untranslated.
    length_retried: int = 0
    length_over: int = 0
    length_refused: int = 0

    def add(self, other: Counters) -> None:
        """Add ``other``'s tallies to this one."""
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


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
