"""The local store: SQLite tables in the cache folder, holding plain JSON entries.

A plain table rather than diskcache: diskcache records a storage mode per row and unpickles rows in
pickle mode (and may read or delete the file a row names), whatever the application stored, so
anyone who can write the cache folder could run code in the next run. Here a value is only ever
a TEXT parsed by :func:`pipeline.cache.entry.decode`; anything else in the file is a miss.

The folder's earlier diskcache file (``cache.db``) is never opened; ``pipeline cache clear``
removes it. WAL mode and a busy timeout let parallel runs on one folder read and write together.

Each request's entries are committed at once (a run stopped at any moment keeps what it paid
for), but not into the main table: its keys are hashes, so a request's dozen entries land on a
dozen pages of it, and every commit wrote each of those pages out again (four fifths of what a
run's cache cost). They are appended to ``recent`` instead (one or two pages a commit) and folded
into ``translations`` in one transaction when the store closes, or once a connection has appended
:data:`FOLD_AT` of them. Reads look in both, the later entry winning; entries a killed run left in
``recent`` are read like the others and folded by the next run that writes.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from pipeline.cache.entry import decode, encode
from pipeline.files.damaged import is_damaged, set_aside
from pipeline.files.untrusted import made_here

FILE_NAME = "translations.sqlite3"
LEGACY_FILES = ("cache.db", "cache.db-wal", "cache.db-shm")  # diskcache's, read by earlier versions
_BUSY_TIMEOUT_SECONDS = 30.0  # another run's write transaction: seconds, never minutes
_CHUNK = 500  # keys per SELECT: below every SQLite's limit on bound parameters
#: Entries a connection appends to ``recent`` before it folds them into the main table (``recent``
#: has no index: reads scan it, so it stays short).
FOLD_AT = 4096


class LocalStoreError(Exception):
    """The cache file cannot be opened, read or written (damaged, not SQLite, disk full, ...).

    Never leaves the cache package: the tiered cache falls back to memory, maintenance reports it.
    ``damaged``: SQLite said the file is no database or is malformed (:meth:`LocalStore.start_afresh`).
    """

    def __init__(self, reason: str, damaged: bool = False) -> None:
        super().__init__(reason)
        self.damaged = damaged


class LocalStore:
    """Verified protected translations in ``<directory>/translations.sqlite3``."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / FILE_NAME
        #: Where a file SQLite could not read as a database was moved (:mod:`pipeline.files.damaged`).
        self.damaged_moved_to: Path | None = None
        self.damaged_reason = ""  # SQLite's words for what was wrong with it
        try:
            try:
                self._db = _connect(self.path)
            except sqlite3.Error as exc:
                self.damaged_moved_to = set_aside(self.path) if is_damaged(exc) else None
                if self.damaged_moved_to is None:
                    raise
                self.damaged_reason = str(exc)
                self._db = _connect(self.path)  # a new file where the damaged one was
        except (OSError, sqlite3.Error) as exc:
            raise _failed(exc) from None
        self._appended = 0  # entries this connection put in recent since it last folded

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        """The entries found among ``keys`` (well-formed ones only)."""
        wanted = list(keys)
        found: dict[str, str] = {}
        try:
            # Values as bytes: a row that is not UTF-8 is then a miss in decode(), where sqlite3's own
            # decoding would fail the whole read (and cost the run its cache file).
            queries = ["SELECT key, CAST(value AS BLOB) FROM translations WHERE key IN ({})"]
            if self._db.execute("SELECT EXISTS (SELECT 1 FROM recent)").fetchone()[0]:
                queries.append(
                    "SELECT key, CAST(value AS BLOB) FROM recent WHERE key IN ({}) ORDER BY id"
                )  # later wins
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for query in queries:
                    for key, value in self._db.execute(query.format(marks), chunk):
                        translation = decode(value)
                        if translation is not None and isinstance(key, str):
                            found[key] = translation
        except sqlite3.Error as exc:
            raise _failed(exc) from None
        return found

    def set_many(self, items: Mapping[str, str]) -> None:
        """Store ``items`` (key -> protected translation) in one transaction (appended to ``recent``)."""
        if not items:
            return
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT INTO recent (key, value) VALUES (?, ?)",
                    ((key, encode(value)) for key, value in items.items()),
                )
                self._appended += len(items)
                if self._appended >= FOLD_AT:
                    self._fold()
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _failed(exc) from None

    def _fold(self) -> None:
        """Move every entry of ``recent`` (any run's) into the main table, in order; inside a transaction."""
        self._db.execute("INSERT OR REPLACE INTO translations (key, value) SELECT key, value FROM recent ORDER BY id")
        self._db.execute("DELETE FROM recent")
        self._appended = 0

    def stats(self) -> dict[str, object]:
        """Entries and bytes on disk."""
        try:
            (entries,) = self._db.execute(_COUNT).fetchone()
        except sqlite3.Error as exc:
            raise _failed(exc) from None
        return {
            "entries": entries,
            "bytes": _size(self.path, "", "-wal", "-shm"),
            "legacy_bytes": _size(self.path.parent / LEGACY_FILES[0], "", "-wal", "-shm"),
        }

    def clear(self) -> int:
        """Remove every entry (and the legacy diskcache file); returns how many entries there were."""
        try:
            (entries,) = self._db.execute(_COUNT).fetchone()
            self._db.execute("DELETE FROM translations")
            self._db.execute("DELETE FROM recent")
            self._db.execute("VACUUM")
        except sqlite3.Error as exc:
            raise _failed(exc) from None
        for name in LEGACY_FILES:
            try:
                os.unlink(self.path.parent / name)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise _failed(exc) from None
        return int(entries)

    def start_afresh(self) -> Path | None:
        """After a :class:`LocalStoreError` that said the file is damaged (its tables malformed past a
        schema that opened): set it aside (:mod:`pipeline.files.damaged`) and go on with a new file.

        Where it was moved; None when it was not (already set aside once by this store, readable
        now, not movable, or no new file could be made), and the store is closed then.
        """
        self._db.close()
        if self.damaged_moved_to is not None:
            return None
        moved = set_aside(self.path)
        if moved is None:
            return None
        try:
            self._db = _connect(self.path)
        except (OSError, sqlite3.Error):
            return None
        self.damaged_moved_to, self._appended = moved, 0
        return moved

    def close(self) -> None:
        """Fold what this connection appended into the main table, and close the file.

        A fold that fails (the disk full, the file read-only) leaves the entries in ``recent``,
        where they are read all the same: closing never fails.
        """
        try:
            if self._appended:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._fold()
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
        except sqlite3.Error:
            pass
        finally:
            self._db.close()


#: Distinct keys held in both tables.
_COUNT = "SELECT count(*) FROM (SELECT key FROM translations UNION SELECT key FROM recent)"


def created(directory: Path) -> bool:
    """Whether a local cache was ever made in ``directory``: this store's file, or the legacy one it reads."""
    return (directory / FILE_NAME).exists() or (directory / LEGACY_FILES[0]).exists()


def _size(base: Path, *suffixes: str) -> int:
    total = 0
    for suffix in suffixes:
        try:
            total += os.stat(f"{base}{suffix}").st_size
        except OSError:
            pass
    return total


def _connect(path: Path) -> sqlite3.Connection:
    """The store's connection, its file and tables made if missing; OSError or sqlite3.Error when it cannot."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Made first as open() makes a file (SQLite makes it 0644 whatever the umask, and its WAL files
    # like it): a team's shared cache folder under umask 002 stays writable by the group.
    made_here(path)  # and never through a link: SQLite would write where it leads
    db = sqlite3.connect(path, timeout=_BUSY_TIMEOUT_SECONDS, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # WAL keeps it consistent; a crash loses only the last ones
        db.execute("CREATE TABLE IF NOT EXISTS translations (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
        db.execute("CREATE TABLE IF NOT EXISTS recent (id INTEGER PRIMARY KEY, key TEXT NOT NULL, value TEXT NOT NULL)")
        db.execute("SELECT key, value FROM translations LIMIT 0")  # a foreign table of that name
        db.execute("SELECT id, key, value FROM recent LIMIT 0")
    except BaseException:
        db.close()
        raise
    return db


def _failed(exc: OSError | sqlite3.Error) -> LocalStoreError:
    return LocalStoreError(_reason(exc), damaged=is_damaged(exc))


def _reason(exc: BaseException) -> str:
    """A short reason without a traceback (paths are the user's own, so they may be named)."""
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc) or type(exc).__name__
