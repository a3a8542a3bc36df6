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
import uuid
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from pipeline.files.untrusted import read_regular
from pipeline.service.config import AccountSpec, MemoryLoadError, MemorySpec
from pipeline.service.store.database import Database

if TYPE_CHECKING:  # the matchers are made by store.memory_files, with the first memory file
    from pipeline.service.engine.tm_match import MemoryIndex

_ID_NAMESPACE = uuid.UUID("5b0e6c1e-52c4-4f31-9a43-6d0f3c1f0a7e")


class TranslationMemory(NamedTuple):
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


def load_memory(tier: str, spec: MemorySpec) -> TranslationMemory:
    """Read one memory file; MemoryLoadError when it cannot be used."""
    where = f"translation memory {spec.name!r} ({spec.path})"
    try:
        data = read_regular(spec.path)
    except OSError as exc:
        raise MemoryLoadError(f"{where}: cannot read the file: {exc.strerror or exc}") from None
    suffix = spec.path.suffix.lower()
    if suffix not in (".tmx", ".po"):
        raise MemoryLoadError(f"{where}: unknown format; use a .tmx file or a .po compendium")
    # The front door of the memory files' readers (lxml, polib): loaded with the first file, not with the service.
    from pipeline.service.store import memory_files

    try:
        source, pairs = (memory_files.read_tmx if suffix == ".tmx" else memory_files.read_po)(data, where)
    except UnicodeDecodeError:
        raise MemoryLoadError(f"{where}: a PO compendium must be UTF-8") from None
    by_target = memory_files.indexes(source, pairs)
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
        return memory._replace(created_ms=created, updated_ms=updated)

    def list(self, account_id: str) -> Iterable[TranslationMemory]:
        """The account's memories in configuration order."""
        return self._by_account.get(account_id, {}).values()

    def get(self, account_id: str, memory_id: str) -> TranslationMemory | None:
        """One memory of the account, or None (another account's memory included)."""
        return self._by_account.get(account_id, {}).get(memory_id.lower())
