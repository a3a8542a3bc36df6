"""What reviewers rejected: ``rejections.json`` in the run state's folder, beside the provenance.

``pipeline review`` empties a rejected entry so that the next run translates it again; with the
same inputs the cache (or the service) would give the very text the reviewer rejected. So the
rejection is remembered, and a run does not write that text for that entry again
(:mod:`pipeline.run.orchestrate.rejected`). An entry is named apart from any catalog: the target
language (the service's code, which the text was translated into), the context (msgctxt) and the
source texts (every form; for a key-based XLIFF key, the text it stands for); for each, the
SHA-256 of every text rejected for it (all its forms). A catalog renamed or moved, or a sibling
catalog with the same entry, keeps the rejection. The file holds the catalogs' own texts and
hashes, never a key or anything of the service's account. Saved atomically under the run state's
lock, merged with what is on disk, so two review sessions never drop each other's records.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeGuard

from pipeline.files.atomic import atomic_write
from pipeline.files.lockfile import state_lock, state_lock_path
from pipeline.files.own import CACHE_SETTING, read_ours
from pipeline.run.journal import STATE_VERSION, dump_json, read_json, this_version

__all__ = ["REJECTIONS_NAME", "Entry", "Rejections", "text_hash"]

REJECTIONS_NAME = "rejections.json"

#: An entry as rejections name it: (target language, context, source forms).
Entry = tuple[str, str | None, tuple[str, ...]]


def text_hash(forms: Sequence[str]) -> str:
    """The hex SHA-256 naming a translation (every form)."""
    return hashlib.sha256(json.dumps(list(forms), ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


def _name(entry: Entry) -> str:
    """The file's key for ``entry``: a hash, so that two sessions merging records agree on it."""
    return text_hash([entry[0], entry[1] or "", "\x00", *entry[2]])


class Rejections:
    """The rejections recorded in the state folder ``directory`` (read when made; nothing without a folder)."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._rejected: dict[Entry, set[str]] = {}
        if directory is not None:
            self._rejected = _load_rejections(directory / REJECTIONS_NAME)

    def __bool__(self) -> bool:
        return bool(self._rejected)

    def texts(self, entry: Entry) -> frozenset[str]:
        """The hashes of the texts rejected for ``entry``."""
        return frozenset(self._rejected.get(entry, ()))

    def rejects(self, entry: Entry, forms: Sequence[str]) -> bool:
        """Whether a reviewer rejected exactly ``forms`` as ``entry``'s translation."""
        found = self._rejected.get(entry)
        return found is not None and text_hash(forms) in found

    def record(self, entry: Entry, forms: Sequence[str]) -> None:
        """Remember that a reviewer rejected ``forms`` for ``entry``, merged into the file at once.

        Raises OSError when it cannot be saved (no state folder: :class:`FileNotFoundError`).
        """
        if self.directory is None:
            raise FileNotFoundError("no cache folder to keep the run state in ([cache] dir is empty)")
        self.directory.mkdir(parents=True, exist_ok=True)
        with state_lock(state_lock_path(self.directory)):
            path = self.directory / REJECTIONS_NAME
            # Never another program's file; another session or run may have saved meanwhile.
            rejected = _rejections_of(this_version(read_ours(path, "entries", CACHE_SETTING)))
            rejected.setdefault(entry, set()).add(text_hash(forms))
            atomic_write(path, dump_json(_rejections_file(rejected)))
        self._rejected = rejected


def _rejections_file(rejected: dict[Entry, set[str]]) -> dict[str, object]:
    entries = {
        _name(entry): {"language": entry[0], "context": entry[1], "sources": list(entry[2]), "texts": sorted(texts)}
        for entry, texts in rejected.items()
    }
    return {"version": STATE_VERSION, "entries": dict(sorted(entries.items()))}


def _load_rejections(path: Path) -> dict[Entry, set[str]]:
    """The file's records; a record of any other shape is dropped (the file is plain JSON anyone may edit)."""
    return _rejections_of(read_json(path))


def _rejections_of(data: dict[str, Any]) -> dict[Entry, set[str]]:
    """The records of a rejections.json's JSON ``data`` of this version; a record of any other shape is dropped."""
    entries = data.get("entries")
    found: dict[Entry, set[str]] = {}
    for values in entries.values() if isinstance(entries, dict) else ():
        if not isinstance(values, dict):
            continue
        language, context, sources, texts = (values.get(k) for k in ("language", "context", "sources", "texts"))
        if not (isinstance(language, str) and isinstance(context, (str, type(None)))):
            continue
        if not (_strings(sources) and sources and _strings(texts)):
            continue
        entry = (language, context, tuple(sources))
        found.setdefault(entry, set()).update(texts)
    return found


def _strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)
