"""A SQLite file of the cache folder that SQLite cannot read as a database, set aside so runs can start afresh.

The translation cache (``translations.sqlite3``) and the provenance (``provenance.sqlite3``) are the
pipeline's own files. When one is not a database any more (overwritten, cut short, a disk's bad
block in its header or in a table), every run used to warn and go on without it, for ever. It is
now renamed to ``<name>.damaged-<UTC time>`` (with its ``-wal`` and ``-shm`` files: SQLite would
otherwise apply a stale log to the new file), once, under the lock of the folder's run state, so two
runs that find it damaged at the same moment move it once, and a run never moves a new file
another run made. What it held cannot be read whole (the provenance copies the rows that still can
be); the file is kept for whoever wants to look.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path

from pipeline.files.lockfile import state_lock, state_lock_path

__all__ = ["file_identity", "is_damaged", "moved_note", "readable", "set_aside"]

_UNREADABLE = (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT)


def is_damaged(exc: BaseException) -> bool:
    """Whether ``exc`` says the file is not a database or is malformed (not busy, not a full disk)."""
    return isinstance(exc, sqlite3.DatabaseError) and getattr(exc, "sqlite_errorcode", None) in _UNREADABLE


def moved_note(path: Path, reason: object, aside: Path) -> str:
    """What a run says of ``path`` set aside as ``aside`` for SQLite's ``reason``."""
    return f"{path} was not a database SQLite can read ({reason}); it was moved to {aside.name} and a new one started"


def set_aside(path: Path, lock_held: bool = False) -> Path | None:
    """Rename the damaged database ``path`` (see the module), under the run state's lock of its folder
    (which the caller may hold already: ``lock_held``): its new name.

    None when it reads as a database now (another run set it aside and made a new one), or when it
    cannot be moved (the caller goes on without it, as before).

    A file that is not SQLite at all is set aside too, though nothing says the pipeline made it
    (``[cache] dir`` may name any folder): it is renamed, never removed or written, and its name is
    ours alone. Another program's SQLite database of that name is refused before this
    (:func:`pipeline.files.own.check_tables`).
    """
    try:
        if lock_held:
            return _set_aside(path)
        with state_lock(state_lock_path(path.parent)):
            return _set_aside(path)
    except OSError:
        return None


def _set_aside(path: Path) -> Path | None:
    if readable(path):
        return None
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}")
    if aside.exists():  # set aside within the same second before: keep both
        aside = aside.with_name(f"{aside.name}-{os.urandom(3).hex()}")
    os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    return aside


def file_identity(path: Path) -> tuple[int, int]:
    """Which file is at ``path`` now (device and inode): another run may set it aside and make a new one, while a
    connection opened before still leads to the old one."""
    status = os.stat(path)
    return status.st_dev, status.st_ino


def readable(path: Path) -> bool:
    """Whether SQLite reads ``path`` whole (a missing file is readable: it would be made new).

    Every page, not the schema alone: a file whose schema reads but whose tables are malformed (a
    bad block past the first page) failed at its first query, and was kept, for ever. This runs only
    once a query said the file is damaged, and reads every page, once.
    """
    try:
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=10.0)
    except sqlite3.Error:
        return True  # missing or not openable: nothing to set aside
    try:
        return db.execute("PRAGMA quick_check(1)").fetchall() == [("ok",)]
    except sqlite3.Error as exc:
        return not is_damaged(exc)
    finally:
        db.close()
