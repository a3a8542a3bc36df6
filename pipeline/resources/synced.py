"""Whether the terminology (glossary files, style lists) changed since it was last synced: offline.

A run that syncs records a fingerprint of what it synced, per service, in the state folder
(``synced.json``, next to ``state.json``): the SHA-256 of every configured glossary file's bytes
and of the resource tables of the configuration. A later run compares the fingerprint of the
files as they are now: equal, and nothing is asked of the service (so a run with nothing to
translate stays offline); different, and the run syncs before anything else, even when every
catalog is settled and left unread. Standard library only: the pre-commit path computes it at
every commit.

Without a state folder (``[cache] dir = ""``) nothing is remembered, so terminology is synced
only by runs that translate something (what they send needs it) and by ``pipeline glossary sync``
/ ``pipeline style sync``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pipeline.config import Settings, as_data
from pipeline.config.resources import ResourceSettings
from pipeline.files.atomic import atomic_write
from pipeline.files.lockfile import state_lock, state_lock_path
from pipeline.files.own import CACHE_SETTING, read_ours
from pipeline.files.untrusted import read_regular

RECORD_NAME = "synced.json"
RECORD_VERSION = 1


def glossary_files(res: ResourceSettings) -> list[Path]:
    """Every glossary file the configuration names, each once, in a stable order."""
    paths = [*res.multilingual_glossaries, *res.defaults.glossaries]
    for spec in res.locales.values():
        paths.extend(spec.glossaries)
    return sorted(set(paths))


def fingerprint(settings: Settings) -> str | None:
    """Hash of everything a sync sends, from the files' bytes and the configuration; None without resources."""
    res = settings.resources
    if not res.configured:
        return None
    files = {str(path): _file_hash(path) for path in glossary_files(settings.resources)}
    material = {
        "source": settings.source_lang,
        "locale_map": dict(settings.locale_map),
        "files": files,
        "resources": as_data(res),
    }
    encoded = json.dumps(material, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def _file_hash(path: Path) -> str:
    try:
        return hashlib.sha256(read_regular(path)).hexdigest()
    except OSError:
        return "unreadable"  # the sync itself reports the file with its reason


class SyncRecord:
    """What was last synced to each service from this project's state folder."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._synced: dict[str, str] = _load(directory / RECORD_NAME) if directory is not None else {}

    def needs_sync(self, service: str, current: str | None) -> bool:
        """Whether ``current`` (a :func:`fingerprint`) differs from what was last synced to ``service``.

        False without a state folder (nothing to compare with) or without resources.
        """
        return self.directory is not None and current is not None and self._synced.get(service) != current

    def save(self, service: str, current: str) -> None:
        """Remember ``current`` as synced to ``service`` (atomically; other services' records kept)."""
        if self.directory is None:
            return
        path = self.directory / RECORD_NAME
        self.directory.mkdir(parents=True, exist_ok=True)
        with state_lock(state_lock_path(self.directory)):  # as every file of the folder: see state_lock
            # Never another program's file; another run may have synced to another service meanwhile.
            synced = {**_synced_of(read_ours(path, "synced", CACHE_SETTING)), service: current}
            data = {"version": RECORD_VERSION, "synced": dict(sorted(synced.items()))}
            atomic_write(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8"))
        self._synced = synced


def _load(path: Path) -> dict[str, str]:
    try:
        data = json.loads(read_regular(path))
    except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested deeper than the parser goes
        return {}  # missing or damaged: the next run syncs again, which costs reads only
    return _synced_of(data)


def _synced_of(data: object) -> dict[str, str]:
    """The records of a sync record's JSON ``data`` of this version; empty for anything else."""
    if not isinstance(data, dict) or data.get("version") != RECORD_VERSION or not isinstance(data.get("synced"), dict):
        return {}
    return {str(k): str(v) for k, v in data["synced"].items()}
