"""Translation memories: provisioned from files at start-up, listed, and looked up for translation.

The API cannot upload memories (the spec says so), so the local service reads them from files
named in the configuration (``AccountSpec.translation_memories``; ``pipeline serve
--translation-memory NAME=FILE`` for the paid account, ``--free-translation-memory`` for the free
one) each time it starts; the files stay the source of truth. Two formats:

- TMX (``.tmx``): the header's ``srclang`` is the source language (``*all*`` means each ``tu``'s
  own ``srclang``); every other ``tuv`` of a ``tu`` is a translation into its ``xml:lang``.
  Inline codes (``bpt``, ``ept``, ``ph``, ``it``, ``ut``) are dropped, ``hi`` keeps its text.
  Parsed with :func:`pipeline.safexml.parse`; a plain ``<!DOCTYPE tmx SYSTEM "...">`` line, which
  CAT tools write, is removed first (it has no internal subset, so nothing is declared or loaded);
  any other document type declaration is refused.
- PO compendium (``.po``): translated, non-fuzzy, non-obsolete entries; the target language comes
  from the ``Language`` header, the source from ``X-Source-Language`` (default ``en``).

Languages are reduced to base languages (a memory applies to all variants, like a glossary).
A memory's id is a UUID derived from the account's tier and the memory's name, so it stays the
same across restarts. ``api.memories`` lists them; see ``engine.tm_match`` for the fuzzy-match score.
"""

from __future__ import annotations

import hashlib
import pathlib
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from pipeline.service import languages
from pipeline.service.config import AccountSpec, MemorySpec
from pipeline.service.engine.tm_match import MemoryIndex
from pipeline.service.store.database import Database
from pipeline.untrusted import read_regular

if TYPE_CHECKING:  # lxml is loaded with the first TMX file read, not with the service
    from lxml import etree

_ID_NAMESPACE = uuid.UUID("5b0e6c1e-52c4-4f31-9a43-6d0f3c1f0a7e")
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_PLAIN_DOCTYPE = re.compile(rb"<!DOCTYPE\s+tmx\s+(?:SYSTEM|PUBLIC)(?:\s+\"[^\"\[>]*\")+\s*>", re.I)
_INLINE_CODES = frozenset({"bpt", "ept", "ph", "it", "ut"})


class MemoryLoadError(ValueError):
    """A memory file cannot be read; the message names the memory, the file and, when known, the line."""


@dataclass(frozen=True)
class TranslationMemory:
    """One memory: id, name, source language and an index per target language (base codes).

    ``digest`` is the SHA-256 of its file; ``created_ms`` and ``updated_ms`` the times the listing
    shows (epoch milliseconds), set by :class:`MemoryStore`.
    """

    memory_id: str
    name: str
    source_lang: str
    by_target: Mapping[str, MemoryIndex]
    digest: str = ""
    created_ms: int = 0
    updated_ms: int = 0

    @property
    def segment_count(self) -> int:
        """Translation units over all target languages."""
        return sum(len(index.segments) for index in self.by_target.values())


def memory_id_for(tier: str, name: str) -> str:
    """The stable id of memory ``name`` of an account of ``tier``."""
    return str(uuid.uuid5(_ID_NAMESPACE, f"{tier}/{name}"))


def _base(code: str | None, where: str) -> str:
    tag = (code or "").replace("_", "-")  # PO headers write pt_BR
    lang = languages.find(tag) or languages.find(languages.base_of(tag))
    if lang is None:
        raise MemoryLoadError(f"{where}: unknown language {code!r}")
    return lang.base


def _seg_text(seg: etree._Element) -> str:
    parts = [seg.text or ""]
    for child in seg:
        if not isinstance(child.tag, str):
            parts.append(child.tail or "")
            continue
        if child.tag.rpartition("}")[2] not in _INLINE_CODES:  # the local name, namespace or not
            parts.append(_seg_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _read_tmx(data: bytes, where: str) -> tuple[str, dict[str, list[tuple[str, str]]]]:
    from pipeline.safexml import UnsafeXmlError, parse

    try:
        root = parse(_PLAIN_DOCTYPE.sub(b"", data, count=1)).getroot()
    except UnsafeXmlError as exc:
        raise MemoryLoadError(f"{where}: {exc}") from None
    header = root.find("header")
    if str(root.tag).rpartition("}")[2] != "tmx" or header is None:
        raise MemoryLoadError(f"{where}: not a TMX file (expected <tmx> with a <header>)")
    header_source = header.get("srclang")
    if header_source is None:
        raise MemoryLoadError(f"{where}: the TMX header has no srclang")
    source_lang = None if header_source == "*all*" else _base(header_source, f"{where}, header")
    pairs: dict[str, list[tuple[str, str]]] = {}
    for tu in root.iter("tu"):
        line = f"{where}, line {tu.sourceline}"
        tu_source = source_lang or _base(tu.get("srclang"), line)
        if source_lang is None:
            source_lang = tu_source
        elif tu_source != source_lang:
            raise MemoryLoadError(
                f"{line}: a memory has one source language ({source_lang}), this unit has {tu_source}"
            )
        texts: dict[str, str] = {}
        for tuv in tu.findall("tuv"):
            lang = _base(tuv.get(_XML_LANG) or tuv.get("lang"), f"{where}, line {tuv.sourceline}")
            seg = tuv.find("seg")
            if seg is not None:
                texts.setdefault(lang, _seg_text(seg))
        source_text = texts.pop(tu_source, None)
        if source_text is None or not source_text.strip():
            continue
        for lang, text in texts.items():
            if text.strip():
                pairs.setdefault(lang, []).append((source_text, text))
    if source_lang is None:
        raise MemoryLoadError(f"{where}: no translation units")
    return source_lang, pairs


def _read_po(data: bytes, where: str) -> tuple[str, dict[str, list[tuple[str, str]]]]:
    import polib

    try:
        catalog = polib.pofile(data.decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise MemoryLoadError(f"{where}: {exc}") from None
    target = _base(catalog.metadata.get("Language"), f"{where}, header Language")
    source = _base(catalog.metadata.get("X-Source-Language", "en"), f"{where}, header X-Source-Language")
    segments: list[tuple[str, str]] = []
    for entry in catalog.translated_entries():
        if entry.msgid_plural:
            forms = entry.msgstr_plural
            segments.append((entry.msgid, forms.get(0, "")))
            if forms.get(1):
                segments.append((entry.msgid_plural, forms[1]))
        else:
            segments.append((entry.msgid, entry.msgstr))
    return source, {target: [(s, t) for s, t in segments if s.strip() and t.strip()]}


def load_memory(tier: str, spec: MemorySpec) -> TranslationMemory:
    """Read one memory file; MemoryLoadError when it cannot be used."""
    where = f"translation memory {spec.name!r} ({spec.path})"
    try:
        data = read_regular(spec.path)
    except OSError as exc:
        raise MemoryLoadError(f"{where}: cannot read the file: {exc.strerror or exc}") from None
    suffix = spec.path.suffix.lower()
    if suffix == ".tmx":
        source, pairs = _read_tmx(data, where)
    elif suffix == ".po":
        try:
            source, pairs = _read_po(data, where)
        except UnicodeDecodeError:
            raise MemoryLoadError(f"{where}: a PO compendium must be UTF-8") from None
    else:
        raise MemoryLoadError(f"{where}: unknown format; use a .tmx file or a .po compendium")
    pairs.pop(source, None)
    by_target = {target: MemoryIndex(source, target, tuple(items)) for target, items in sorted(pairs.items())}
    digest = hashlib.sha256(data).hexdigest()
    return TranslationMemory(memory_id_for(tier, spec.name), spec.name, source, by_target, digest)


_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS translation_memory_versions (
        memory_id TEXT PRIMARY KEY,
        digest TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL)""",
)


class MemoryStore:
    """The memories of every account, loaded once at start-up (read-only afterwards).

    A memory lists a creation and an update time, as the real service's do: the update time
    changes with the memory's content, so a client that keys its cache by what the listing says
    (``pipeline.resources.attach.memory_version``) never serves a translation of its old content.
    The service keeps each memory's digest and times in its database: a file whose bytes changed
    since the last start is updated then (at its modification time, or just after the last update
    time when that is later); one whose bytes did not keeps its times whatever its modification
    time. Without a data folder the database starts empty: both times are the file's modification
    time, which an edit changes.
    """

    def __init__(self, db: Database) -> None:
        self._db = db
        db.ensure_schema(_SCHEMA)
        self._by_account: dict[str, dict[str, TranslationMemory]] = {}

    def load(self, account_id: str, spec: AccountSpec) -> None:
        """Read the memory files of one configured account; MemoryLoadError on the first bad one."""
        memories: dict[str, TranslationMemory] = {}
        names: set[str] = set()
        for memory_spec in spec.translation_memories:
            if memory_spec.name in names:
                raise MemoryLoadError(f"translation memory name {memory_spec.name!r} is given twice")
            names.add(memory_spec.name)
            memory = self._dated(load_memory(spec.tier, memory_spec), memory_spec.path)
            memories[memory.memory_id] = memory
        self._by_account[account_id] = memories

    def _dated(self, memory: TranslationMemory, path: pathlib.Path) -> TranslationMemory:
        """``memory`` with its creation and update times (see the class docstring), recorded."""
        try:
            modified = path.stat().st_mtime_ns // 1_000_000
        except OSError:
            modified = 0
        row = self._db.query_one(
            "SELECT digest, created_ms, updated_ms FROM translation_memory_versions WHERE memory_id = ?",
            (memory.memory_id,),
        )
        if row is None:
            created = updated = modified
        elif row["digest"] == memory.digest:
            created, updated = row["created_ms"], row["updated_ms"]
        else:
            created, updated = row["created_ms"], max(modified, row["updated_ms"] + 1)
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO translation_memory_versions VALUES (?, ?, ?, ?)",
                (memory.memory_id, memory.digest, created, updated),
            )
        return replace(memory, created_ms=created, updated_ms=updated)

    def list(self, account_id: str) -> Iterable[TranslationMemory]:
        """The account's memories in configuration order."""
        return self._by_account.get(account_id, {}).values()

    def get(self, account_id: str, memory_id: str) -> TranslationMemory | None:
        """One memory of the account, or None (another account's memory included)."""
        return self._by_account.get(account_id, {}).get(memory_id.lower())
