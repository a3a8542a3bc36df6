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

A file found damaged is set aside (:mod:`pipeline.files.damaged`), by this run or by another one
that found it first, and the store goes on in the new file: what ``recent`` held is carried over
(what this run paid for since it last folded, and what killed runs left), as far as it can be
read. A store also notices that another run set its file aside meanwhile (it was writing to the
file under its old name), every :data:`FOLLOW_EVERY` entries it stores, before it folds and when it
closes, and carries its entries over the same way: a run killed meanwhile leaves at most that many in
the file set aside. What it had folded into the damaged file's main table is not carried:
:attr:`LocalStore.lost` says so.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from pipeline.cache.entry import decode, encode
from pipeline.files.damaged import file_identity, is_damaged, readable, set_aside
from pipeline.files.own import CACHE_SETTING, check_tables
from pipeline.files.untrusted import made_here

FILE_NAME = "translations.sqlite3"
LEGACY_FILES = ("cache.db", "cache.db-wal", "cache.db-shm")  # diskcache's, read by earlier versions
_BUSY_TIMEOUT_SECONDS = 30.0  # another run's write transaction: seconds, never minutes
_CHUNK = 500  # keys per SELECT: below every SQLite's limit on bound parameters
#: Entries a connection appends to ``recent`` before it folds them into the main table (``recent``
#: has no index: reads scan it, so it stays short).
FOLD_AT = 4096
#: Entries a connection appends between two looks at whether another run set its file aside: a run killed
#: before it looks again leaves at most these in the file set aside, to be paid for again. A look is an
#: ``os.stat``: not one per request's entries.
FOLLOW_EVERY = 256
_TABLES = ("translations", "recent")


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
        #: Whether some entry stored through this store was left in a file set aside, not carried to the new one.
        self.lost = False
        try:
            try:
                self._db = _connect(self.path)
            except sqlite3.Error as exc:
                self.damaged_moved_to = set_aside(self.path) if is_damaged(exc) else None
                if self.damaged_moved_to is None and not (is_damaged(exc) and readable(self.path)):
                    raise  # else another run set it aside first and made a new one: that is opened
                self.damaged_reason = str(exc)
                self._db = _connect(self.path)  # a new file where the damaged one was
            self._opened = file_identity(self.path)
        except (OSError, sqlite3.Error) as exc:
            raise _failed(exc) from None
        self._appended = 0  # entries this connection put in recent since it last folded
        self._folded = False  # whether this connection folded entries into its file's main table
        self._afresh = False  # whether this store started afresh once (it does not twice)

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
            after = self._appended + len(items)
            if after >= FOLD_AT or after // FOLLOW_EVERY > self._appended // FOLLOW_EVERY:
                self._follow()  # not left in, nor folded into, a file another run set aside meanwhile
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
                if self._db.in_transaction:  # SQLite may have ended it (a full disk): its error is the one to raise
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
        self._folded = True

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
        if not _diskcache(self.path.parent / LEGACY_FILES[0]):
            return int(entries)  # another program's cache.db ([cache] dir may name any folder): left alone
        for name in LEGACY_FILES:
            try:
                os.unlink(self.path.parent / name)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise _failed(exc) from None
        return int(entries)

    def start_afresh(self) -> str | None:
        """After a :class:`LocalStoreError` that said the file is damaged (its tables malformed past a
        schema that opened): set it aside (:mod:`pipeline.files.damaged`), or find that another run did
        and made a new one, and go on in the new file, with what ``recent`` held carried over.

        What happened, for a message ("it was moved to X and a new one started"); None when the store
        could not go on in a new file (it started afresh once already, the file is neither movable nor
        readable, no new file could be made), and the store is closed then.
        """
        if self._afresh or self.damaged_moved_to is not None:
            self._db.close()
            return None
        self._afresh = True
        carried = self._recent()
        self._db.close()
        moved = set_aside(self.path)
        if moved is None and not readable(self.path):
            return None
        if not self._reopen(carried):
            return None
        if moved is None:
            return "another run had set it aside and started a new one, which this run uses from here on"
        self.damaged_moved_to = moved
        return f"it was moved to {moved.name} and a new one started"

    def _follow(self) -> None:
        """Go on in the file now at the store's path if another run set this one aside meanwhile (found damaged):
        what ``recent`` holds is carried over. Every :data:`FOLLOW_EVERY` entries stored, before a fold, and when
        the store closes."""
        try:
            if file_identity(self.path) == self._opened:
                return
        except OSError:
            pass  # moved and not made again yet: a new file is made
        carried = self._recent()
        self._db.close()
        if not self._reopen(carried):
            self.lost = True  # what it appended stays in the file set aside
            raise sqlite3.OperationalError(f"cannot open {self.path} again")

    def _recent(self) -> list[tuple[str, str]] | None:
        """The well-formed entries of ``recent`` in the file the store has open, in order; None when some could
        not be read (a damaged page)."""
        rows: list[tuple[str, str]] = []
        try:
            for key, value in self._db.execute("SELECT key, CAST(value AS BLOB) FROM recent ORDER BY id"):
                translation = decode(value)
                if translation is not None and isinstance(key, str):
                    rows.append((key, translation))
        except sqlite3.Error:
            return None
        return rows

    def _reopen(self, carried: list[tuple[str, str]] | None) -> bool:
        """Open the file at the store's path (made if missing) and append ``carried`` to its ``recent``; False when
        it cannot be opened. An entry this connection folded into the old file's main table, or one of
        ``recent`` that could not be read (``carried`` None), is not carried: :attr:`lost`."""
        before = self._opened
        try:
            self._db = _connect(self.path)
            self._opened = file_identity(self.path)
            if carried:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany(
                    "INSERT INTO recent (key, value) VALUES (?, ?)", ((k, encode(v)) for k, v in carried)
                )
                self._db.execute("COMMIT")
        except (OSError, sqlite3.Error):
            return False
        if self._opened != before:  # the same file (readable again) still holds what was folded into it
            self.lost = self.lost or self._folded or (carried is None and self._appended > 0)
        self._appended, self._folded = len(carried or ()), False
        return True

    def close(self) -> None:
        """Fold what this connection appended into the main table, and close the file.

        A fold that fails (the disk full, the file read-only) leaves the entries in ``recent``,
        where they are read all the same: closing never fails. A file another run set aside meanwhile
        is not folded into: its entries are carried to the new one first.
        """
        try:
            if self._appended:
                self._follow()
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._fold()
                except BaseException:
                    if self._db.in_transaction:  # SQLite may have ended it (a full disk): its error is the one to raise
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
    """Whether a local cache was ever made in ``directory``: this store's file, or the legacy one it reads.

    In a folder this user may not look into (another user's home, through ``sudo``) it may have been:
    whoever opens it then says why it cannot be used.
    """
    try:
        return (directory / FILE_NAME).exists() or (directory / LEGACY_FILES[0]).exists()
    except OSError:  # exists() answers False for a missing file only: PermissionError is raised
        return True


def _diskcache(path: Path) -> bool:
    """Whether ``path`` is a regular file (not a link) holding diskcache's tables: the earlier versions' cache."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    except (OSError, sqlite3.Error):
        return False
    try:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error:
        return False
    finally:
        db.close()
    return {"Cache", "Settings"} <= tables


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
        check_tables(db, path, _TABLES, CACHE_SETTING)  # another program's database is not made ours
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
