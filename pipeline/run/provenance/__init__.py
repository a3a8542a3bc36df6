"""What the pipeline wrote into each catalog: ``provenance.sqlite3`` in the run state's folder.

For every unit the pipeline wrote, one row: the catalog, the unit's identity (msgctxt + msgid, which
survives reordering), the source it was translated from, the translation written, and the hash of
the other inputs (the glossary entries its source contains, style list, formality, ...: so a changed
term makes stale only the units that contain it). A catalog's rows are read only when the catalog
is parsed and something asks. A fuzzy unit whose target still equals what we wrote is an untouched
machine translation; any other target is a human's.

A run saves what a window is about to write in one transaction (under the run state's lock,
:mod:`pipeline.run.journal`), before it writes the first of those catalogs: a run killed at any
moment leaves either the rows of a window or none of them, and never a machine translation of its
own in a catalog without its row (it would pass for a human's). A row whose catalog was then not
written (changed meanwhile) matches nothing: a record counts only while the unit holds its text.
Earlier versions' files (``provenance/<hash>.json``) are still read beneath the rows, and folded
into the table by the next save, which then removes them.

What reviewers rejected: ``rejections.json`` beside it (:mod:`.rejections`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from json.encoder import encode_basestring_ascii as _json_string
from pathlib import Path
from typing import NamedTuple, TypeGuard

from pipeline.catalogs import Unit, UnitState
from pipeline.files.damaged import file_identity, is_damaged, moved_note, set_aside
from pipeline.files.lockfile import state_lock, state_lock_path
from pipeline.files.own import CACHE_SETTING, check_tables
from pipeline.files.untrusted import made_here
from pipeline.run.journal import read_json
from pipeline.run.provenance.rejections import REJECTIONS_NAME, Entry, Rejections, text_hash

__all__ = [
    "PROVENANCE_DIR",
    "PROVENANCE_FILE",
    "REJECTIONS_NAME",
    "Entry",
    "Provenance",
    "Rejections",
    "Written",
    "text_hash",
    "unit_identity",
]

PROVENANCE_FILE = "provenance.sqlite3"
PROVENANCE_DIR = "provenance"  # earlier versions' files, one per catalog: read, and folded into the table
_BUSY_TIMEOUT_SECONDS = 30.0  # another run's save: seconds, never minutes
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS written (catalog TEXT NOT NULL, identity TEXT NOT NULL, "
    "record TEXT NOT NULL, PRIMARY KEY (catalog, identity)) WITHOUT ROWID"
)


def unit_identity(unit: Unit) -> str:
    """msgctxt + msgid, as gettext names a message (``ctx\\x04id``); a Zope message's id, not its Default."""
    name = unit.sources[0] if unit.key is None else unit.key
    return name if unit.context is None else f"{unit.context}\x04{name}"


class Written(NamedTuple):
    """Provenance of one unit the pipeline wrote."""

    sources: tuple[str, ...]
    targets: tuple[str, ...]
    inputs: str


class _Records:
    """Each (unit, targets, inputs hash) of ``units`` as its identity and record, made again each time they are
    iterated."""

    __slots__ = ("_units",)

    def __init__(self, units: Iterable[tuple[Unit, tuple[str, ...], str]]) -> None:
        self._units = units

    def __iter__(self) -> Iterator[tuple[str, Written]]:
        for unit, targets, inputs in self._units:
            yield unit_identity(unit), Written(unit.sources, targets, inputs)


class Provenance:
    """What the pipeline wrote, per catalog: loaded on first use, this run's records held until saved."""

    def __init__(self, directory: Path | None, warn: Callable[[str], None] = lambda message: None) -> None:
        self.directory = directory
        self._warn = warn  # a file SQLite cannot read, set aside (read or save)
        self._provenance: dict[str, dict[str, Written]] = {}
        # This run's provenance, applied on save: per catalog, (identity, record) pairs, made as they are saved.
        self._recorded: dict[str, list[Iterable[tuple[str, Written]]]] = {}
        self._by_text: dict[str, dict[tuple[str | None, tuple[str, ...]], Written]] = {}  # (msgctxt, targets)
        self._db: sqlite3.Connection | None = None
        self._opened = (0, 0)  # which file the connection was opened on (file_identity)
        # Held for each use of the file (a window's catalogs are read in worker threads), for a read until its rows
        # are held, for a record, and for a save or a set-aside whole: a set-aside never falls between a save's
        # insert and its bookkeeping, nor a save between a set-aside's move and its carry (_set_aside).
        self._lock = threading.Lock()
        # The catalogs whose records this process saved (then no longer held): read back from a file set aside.
        self._saved: set[str] = set()
        # Earlier versions' per-catalog files: looked for once (a run of many catalogs asks for each). os.path's
        # answer, not Path's: in a folder this user may not look into (another user's home) there are none to use,
        # where Path.is_dir raises PermissionError.
        self._legacy = directory is not None and os.path.isdir(directory / PROVENANCE_DIR)

    def provenance(self, display: str) -> dict[str, Written]:
        """What the pipeline wrote into ``display``, by unit identity (loaded on first use, with what
        this run recorded and has not saved yet)."""
        loaded = self._provenance.get(display)
        return loaded if loaded is not None else self._load(display)

    def record(self, display: str, units: Iterable[tuple[Unit, tuple[str, ...], str]]) -> None:
        """Remember the translations about to be written into ``display``: (unit, targets, inputs hash) each.

        ``units`` is iterated when saved (again if the save is retried): a collection, or an
        iterable that makes them again each time, so that a large catalog's records (about 200
        bytes a unit) are never all held. The provenance loaded for ``display`` (if it was: a
        catalog translated for the first time has none to load) takes them at once.
        """
        records: Iterable[tuple[str, Written]] = _Records(units)
        if self.directory is None:  # never saved: the records are held, not the catalog they are made from
            records = list(records)
        with self._lock:  # a set-aside may be carrying what is held meanwhile (_carry)
            self._by_text.pop(display, None)
            self._recorded.setdefault(display, []).append(records)
            loaded = self._provenance.get(display)
            if loaded is not None:
                loaded.update(records)

    def machine_written(self, display: str, unit: Unit) -> Written | None:
        """Our record for ``unit`` when its target is still exactly what we wrote, else None.

        Looked up by identity first, then (for a msgid that msgmerge changed, leaving our old
        translation fuzzy under the new msgid) by the written text within the same msgctxt.
        """
        targets = tuple(unit.targets[: unit.nforms])
        if not any(targets):
            return None
        written = self.provenance(display)
        record = written.get(unit_identity(unit))
        if record is not None and record.targets == targets:
            return record
        if display not in self._by_text:
            self._by_text[display] = {(_context_of(key), rec.targets): rec for key, rec in written.items()}
        return self._by_text[display].get((unit.context, targets))

    def is_stale(self, display: str, unit: Unit, current: tuple[str, ...]) -> bool:
        """A fuzzy, untouched machine translation whose source or inputs changed since we wrote it.

        ``current`` holds the inputs hashes the unit would be written with now: its own (with the
        glossary entries its source contains), and the whole target's as written before the
        per-segment hash, so that older provenance is not taken for stale.
        """
        if unit.state is not UnitState.FUZZY:
            return False  # untranslated units are translated anyway; confirmed ones are a human's
        record = self.machine_written(display, unit)
        return record is not None and (record.sources != unit.sources or record.inputs not in current)

    def reload(self) -> None:
        """Forget what was loaded (another run may have written these catalogs meanwhile); this run's records stay."""
        with self._lock:
            self._provenance.clear()
            self._by_text.clear()

    @property
    def changed(self) -> bool:
        """Whether this run recorded something not saved yet."""
        return bool(self._recorded)

    def save(self) -> None:
        """Write the provenance of the catalogs this run wrote into, in one transaction (the caller holds the
        state's lock); OSError when it cannot. Earlier versions' files are folded in, then removed."""
        if self.directory is None or not self._recorded:
            return
        legacy = sorted((self.directory / PROVENANCE_DIR).glob("*.json")) if self._legacy else []
        with self._lock:
            try:
                self._follow(self.directory)
                self._insert_or_start_again(self.directory, legacy)
            except OSError:  # kept for the next save as the records themselves, not the catalogs they are made from
                for recorded in self._recorded.values():
                    recorded[:] = [list(records) for records in recorded]
                raise
            for display in self._recorded:  # on disk now: read again if asked, not held (a run of many windows)
                self._saved.add(display)
                self._provenance.pop(display, None)
                self._by_text.pop(display, None)
            self._recorded.clear()
        for path in legacy:  # in the table now (a file left by a crash here is folded again, beneath)
            if _load_legacy(path, None)[0] is not None:  # ours: a file of another shape is not removed
                with contextlib.suppress(OSError):
                    os.unlink(path)
        if legacy:
            with contextlib.suppress(OSError):
                (self.directory / PROVENANCE_DIR).rmdir()
        self._legacy = False

    def _insert_or_start_again(self, directory: Path, legacy: list[Path]) -> None:
        """:meth:`_insert`; a damaged file is set aside and the insert made into a new one, with what was read from it
        and saved into it carried (:meth:`_carry`); OSError when it cannot (the caller holds the lock)."""
        try:
            self._insert(directory, legacy)
        except sqlite3.Error as exc:
            path = directory / PROVENANCE_FILE
            aside = set_aside(path, lock_held=True) if is_damaged(exc) else None
            if aside is None:
                raise OSError(errno.EIO, f"{path}: {exc}") from None
            self._warn(moved_note(path, exc, aside))
            self._salvage(directory, aside)
            self._carry(partial(_salvaged, aside))
            try:
                self._insert(directory, legacy)
            except sqlite3.Error as again:
                raise OSError(errno.EIO, f"{path}: {again}") from None

    def _insert(self, directory: Path, legacy: list[Path]) -> None:
        """This run's records into the table, in one transaction; a damaged file is closed (sqlite3.Error). The caller
        holds the lock."""
        # Encoded as the table takes them, not all at once: a large catalog's records are held once.
        rows = (
            (display, identity, _record_text(record))
            for display, recorded in self._recorded.items()
            for records in recorded
            for identity, record in records
        )
        try:
            _insert(self._open(directory), legacy, rows)
        except sqlite3.Error as exc:
            if is_damaged(exc):
                self.close()  # set aside next: the next use opens the new file
            raise

    def close(self) -> None:
        """Close the table's file (it is opened again if asked)."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def _load(self, display: str) -> dict[str, Written]:
        """The rows of ``display`` (over an earlier version's file, under this run's records not saved yet), held
        from now on; as without the table where it cannot be read, and a damaged file is set aside."""
        directory, damaged = self.directory, None
        found = _load_legacy(provenance_path(directory, display), display)[1] if directory and self._legacy else {}
        with self._lock:  # until the rows are held: a set-aside carries what is held (_carry), never what is on its way
            try:
                if directory is not None and (self._db is not None or (directory / PROVENANCE_FILE).exists()):
                    found.update(_written_rows(self._open(directory).execute(_ROWS_OF, (display,)).fetchall()))
            except (sqlite3.Error, OSError) as exc:  # locked past the timeout, not ours, not a file, damaged: as
                damaged = exc if is_damaged(exc) else None  # without provenance, and a damaged file is set aside
            for records in self._recorded.get(display, ()):
                found.update(records)
            loaded = self._provenance.setdefault(display, found)
        if damaged is not None and directory is not None:
            self._set_aside(directory, damaged)
        return loaded

    def _set_aside(self, directory: Path, exc: BaseException) -> None:
        """A read found the file damaged (where no save may go for a long time: a run with nothing new to write, a
        review): set it aside, said, as a save that finds it so does, and carry what was read from it before, and
        what this process saved into it (read back from it where it can be), into the new file, at the next save.

        Under the run state's lock, taken first as a save's caller takes it (no two threads wait for each other),
        then this process's: the move and the carry are made with no save, read or record between them.
        """
        path = directory / PROVENANCE_FILE
        try:
            with state_lock(state_lock_path(directory)), self._lock:
                self._follow(directory)  # another run set it aside first: carried from the file this process has open
                self.close()  # before the move (an open file is not moved on Windows), and a save may have opened it
                aside = set_aside(path, lock_held=True)
                if aside is not None:
                    self._salvage(directory, aside)
                    self._carry(partial(_salvaged, aside))
        except OSError:  # the run state's lock not had: as without provenance (the next read or save finds it)
            return
        if aside is not None:  # else another run or a save of this one set it aside first, and carried
            self._warn(moved_note(path, exc, aside))

    def _follow(self, directory: Path) -> None:
        """When another run set aside the file this process has open (found damaged), carry what this process read from
        it and saved into it (read through that connection where it can be), and close it: the next use opens the new
        file. Under the run state's lock, as a set-aside is made, so none falls between this look and what follows;
        the caller holds the lock too."""
        if self._db is None:
            return
        with contextlib.suppress(OSError):  # moved, and no new file made yet: one is made
            if file_identity(directory / PROVENANCE_FILE) == self._opened:
                return
        self._carry(partial(_rows_in, self._db))
        self.close()

    def _salvage(self, directory: Path, aside: Path) -> None:
        """Copy every row of the file set aside as ``aside`` that can still be read into the new one, beneath what it
        holds: the catalogs this process never read keep their records too (the caller holds the lock)."""
        with contextlib.suppress(sqlite3.Error, OSError):  # no new file: the rows carried wait for the next save
            _copy_readable(aside, self._open(directory))

    def _carry(self, saved: Callable[[str], dict[str, Written]]) -> None:
        """The file was set aside: what this process read from it, and what it saved into it (``saved``: a catalog's
        rows read back from it, where they can be), goes into the new file at the next save, beneath this run's
        records (the caller holds the lock)."""
        carried = dict(self._provenance)
        for display in self._saved - carried.keys():  # saved into that file, not held since
            carried[display] = saved(display)
        for display, rows in carried.items():
            if rows:  # beneath this run's records of it (saved over them)
                self._recorded.setdefault(display, []).insert(0, list(rows.items()))

    def _open(self, directory: Path) -> sqlite3.Connection:
        """The table's connection, opened (and the file made in ``directory``) on first use."""
        if self._db is not None:
            return self._db
        path = directory / PROVENANCE_FILE
        directory.mkdir(parents=True, exist_ok=True)
        # Made first as open() makes a file: SQLite makes it 0644 whatever the umask.
        made_here(path)  # and never through a link: SQLite would write where it leads
        # Before the connection: a file another run sets aside (and makes again) after this is noticed (_follow).
        opened = file_identity(path)
        # A window's catalogs are scanned (and their provenance read) in worker threads: one connection,
        # its uses taken in turn (_lock).
        db = sqlite3.connect(path, timeout=_BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False)
        try:
            check_tables(db, path, ("written",), CACHE_SETTING)  # another program's database is not made ours
            db.execute("PRAGMA journal_mode=WAL")
            # Each commit reaches the disk before the window's catalogs are written: a catalog holding a
            # machine translation without its row would pass for a human's after a power cut.
            db.execute("PRAGMA synchronous=FULL")
            db.execute(_SCHEMA)
            db.execute("SELECT catalog, identity, record FROM written LIMIT 0")  # a foreign table of that name
        except BaseException:
            db.close()
            raise
        self._db, self._opened = db, opened
        return db


#: A catalog's rows, each (identity, record as bytes).
_ROWS_OF = "SELECT identity, CAST(record AS BLOB) FROM written WHERE catalog = ?"


def _written_rows(rows: Iterable[tuple[object, object]]) -> Iterator[tuple[str, Written]]:
    """The records of ``rows`` (:data:`_ROWS_OF`); a row of any other shape is dropped (anyone may write the file)."""
    for identity, text in rows:
        record = _record_from(text)
        if record is not None and isinstance(identity, str):
            yield identity, record


def _salvaged(aside: Path, display: str) -> dict[str, Written]:
    """The rows of ``display`` that can still be read from the damaged file set aside as ``aside`` (opened read-only);
    empty when they cannot."""
    try:
        db = sqlite3.connect(f"{aside.absolute().as_uri()}?mode=ro", uri=True, timeout=_BUSY_TIMEOUT_SECONDS)
    except sqlite3.Error:
        return {}
    try:
        return _rows_in(db, display)
    finally:
        db.close()


#: Every row, in key order from one end of the table (``{0}``: ASC or DESC).
_IN_ORDER = "SELECT catalog, identity, CAST(record AS BLOB) FROM written ORDER BY catalog {0}, identity {0}"


def _copy_readable(aside: Path, db: sqlite3.Connection) -> None:
    """Every row of the damaged file ``aside`` (opened read-only) that can be read in key order from either end of
    the table, into ``db`` beneath what it holds, in one transaction: a read in order stops at the first page it
    cannot read, so only the rows on the pages between are left."""
    try:
        old = sqlite3.connect(f"{aside.absolute().as_uri()}?mode=ro", uri=True, timeout=_BUSY_TIMEOUT_SECONDS)
    except sqlite3.Error:
        return
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            for order in ("ASC", "DESC"):
                db.executemany(
                    "INSERT OR IGNORE INTO written (catalog, identity, record) VALUES (?, ?, ?)", _readable(old, order)
                )
        except BaseException:
            if db.in_transaction:  # SQLite may have ended it (a full disk): its error is the one to raise
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    finally:
        old.close()


def _readable(db: sqlite3.Connection, order: str) -> Iterator[tuple[str, str, str]]:
    """The well-formed rows of ``db`` in ``order`` (:data:`_IN_ORDER`), up to the first that cannot be read."""
    try:
        for catalog, identity, text in db.execute(_IN_ORDER.format(order)):
            record = _record_from(text)
            if record is not None and isinstance(catalog, str) and isinstance(identity, str):
                yield catalog, identity, _record_text(record)
    except sqlite3.Error:
        return


def _rows_in(db: sqlite3.Connection, display: str) -> dict[str, Written]:
    """The rows of ``display`` that can be read through ``db``; empty when they cannot (damaged where they are too)."""
    try:
        return dict(_written_rows(db.execute(_ROWS_OF, (display,))))
    except sqlite3.Error:
        return {}


def _insert(db: sqlite3.Connection, legacy: list[Path], rows: Iterable[tuple[str, str, str]]) -> None:
    """Fold ``legacy`` files in beneath what the table holds, and put ``rows`` over it, in one transaction."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for path in legacy:  # beneath the rows: what a later version saved wins
            catalog, units = _load_legacy(path, None)
            if catalog is not None:
                db.executemany(
                    "INSERT OR IGNORE INTO written (catalog, identity, record) VALUES (?, ?, ?)",
                    ((catalog, identity, _record_text(rec)) for identity, rec in units.items()),
                )
        db.executemany("INSERT OR REPLACE INTO written (catalog, identity, record) VALUES (?, ?, ?)", rows)
    except BaseException:
        if db.in_transaction:  # SQLite may have ended it (a full disk): its error is the one to raise
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def provenance_path(directory: Path, display: str) -> Path:
    """Where an earlier version kept the provenance of catalog ``display`` in the state folder ``directory``."""
    name = hashlib.sha256(display.encode("utf-8")).hexdigest()[:32]
    return directory / PROVENANCE_DIR / f"{name}.json"


def _context_of(identity: str) -> str | None:
    return identity.split("\x04", 1)[0] if "\x04" in identity else None


def _record_text(rec: Written) -> str:
    """``[sources, targets, inputs]`` as ``json.dumps(..., separators=(",", ":"))`` writes it, put together
    from its strings: an encoder's call makes its C encoder anew each time, and a run records every unit."""
    sources, targets = ",".join(map(_json_string, rec.sources)), ",".join(map(_json_string, rec.targets))
    return f"[[{sources}],[{targets}],{_json_string(rec.inputs)}]"


def _record_from(text: object) -> Written | None:
    """A row's record; None for anything else (the file is plain SQLite anyone with write access can edit)."""
    try:
        values = json.loads(text) if isinstance(text, bytes) else None
    except (ValueError, RecursionError):
        return None
    if not (isinstance(values, list) and len(values) == 3):
        return None
    return _written(*values)


def _written_from(values: object) -> Written | None:
    """An earlier version's file's record (a dict); None for anything else."""
    if not isinstance(values, dict):
        return None
    return _written(values.get("sources"), values.get("targets"), values.get("inputs"))


def _written(sources: object, targets: object, inputs: object) -> Written | None:
    """A record of these values, or None when any is not of its type."""
    if not (_strings(sources) and _strings(targets) and isinstance(inputs, str)):
        return None
    return Written(tuple(sources), tuple(targets), inputs)


def _strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _load_legacy(path: Path, display: str | None) -> tuple[str | None, dict[str, Written]]:
    """An earlier version's file: the catalog it names (``display`` when given: the file is named after it)
    and its records; nothing when missing or damaged."""
    data = read_json(path)
    catalog, units = display or data.get("catalog"), data.get("units")
    if not isinstance(units, dict) or not isinstance(catalog, str):
        return None, {}
    return catalog, {key: record for key, values in units.items() if (record := _written_from(values)) is not None}
