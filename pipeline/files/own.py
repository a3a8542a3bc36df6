"""Files of the pipeline's own in a folder a setting names: replaced or written into only when they are ours.

``[cache] dir`` and ``[report] dir`` may name any folder, and a cloned repository's pipeline.toml
chooses them: a run must not replace another program's ``state.json`` or ``report.json`` there, nor
turn its SQLite database to WAL with our tables in it. Before such a file is replaced, it must be
missing, empty or NUL bytes only (nothing to lose: an unflushed write cut by a power cut), or a
regular file (not a link) in our format, told by its first bytes (:func:`check_ours`), by what it
holds (:func:`parse_json`, for a JSON file its writer reads anyway: in any key order) or, for SQLite,
by its tables (:func:`check_tables`); otherwise :class:`NotOurs`, naming the file and the setting,
and the file is left as it was. Only the first bytes are read (all of a file of NULs, up to 64 MiB):
the check costs one small read per save.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.files.untrusted import READ_FLAGS, read_regular

if TYPE_CHECKING:  # a run that saves only its JSON state loads no SQLite
    import sqlite3

__all__ = [
    "CACHE_SETTING",
    "NOT_OUR_FORMAT",
    "REPORT_SETTING",
    "NotOurs",
    "check_ours",
    "check_tables",
    "json_first",
    "nul_only",
    "parse_json",
    "read_ours",
]

#: Where a folder named in a refusal comes from: the configuration, or the command line.
CACHE_SETTING = "[cache] dir (--cache-dir)"
REPORT_SETTING = "[report] dir (--report-dir)"
_HEAD = 256  # bytes read to tell the format
#: Why a file is refused when its content is not what the pipeline writes there.
NOT_OUR_FORMAT = "not in the format pipeline writes"
#: The largest file of NUL bytes read through to take it as empty: a sparse file of any size reads as NULs.
_NUL_LIMIT = 64 << 20


class NotOurs(OSError):
    """A file where the pipeline would write one of its own is not one it wrote: it was left as it is."""

    def __init__(self, path: Path, why: str, setting: str) -> None:
        super().__init__(
            errno.EEXIST,
            f"{path} is not a file pipeline wrote ({why}); it was left as it is: point {setting} at a folder of "
            f"pipeline's own, or remove the file",
            str(path),
        )

    def __str__(self) -> str:
        return str(self.strerror)


def json_first(*keys: str) -> tuple[bytes, ...]:
    """The markers of a JSON file of ours whose first key is one of ``keys`` (sorted keys, of this version or an
    earlier one): ``{"key":`` (whitespace allowed)."""
    return tuple(b'{"' + key.encode() + b'":' for key in keys)


def parse_json(raw: bytes, key: str) -> tuple[object, str | None]:
    """The JSON in ``raw`` (a file's bytes; None when it does not parse), and why it is not a file of the pipeline's
    that holds ``key`` (None: it is, or holds nothing to lose: empty, NUL bytes only).

    Told by what it holds (:func:`_versioned`), whatever the order of its keys (a tool or a hand may
    have reordered them, another version may write another key first) or a byte-order mark an editor
    put before it; a file that does not parse (cut short, damaged) by how it begins: with ``key``
    (:func:`json_first`), as the pipeline writes it, its keys sorted.
    """
    if not raw or (raw[0] == 0 and not raw.strip(b"\0")):
        return None, None
    try:
        parsed = json.loads(raw)  # bytes: a byte-order mark is read as one
    except (ValueError, RecursionError):
        return None, None if _squeezed(raw[:_HEAD]).startswith(json_first(key)) else NOT_OUR_FORMAT
    return parsed, None if _versioned(parsed, key) else NOT_OUR_FORMAT


def _versioned(data: object, key: str) -> bool:
    """Whether parsed JSON ``data`` is a file of the pipeline's holding ``key``, of any version, its keys in any order
    (its records may be damaged: each reader drops those it cannot take): an object with an integer ``version`` and
    ``key`` (another program's JSON may begin with either, seldom holds both)."""
    return isinstance(data, dict) and type(data.get("version")) is int and key in data


def read_ours(path: Path, key: str, setting: str) -> object:
    """The JSON of the pipeline's file at ``path``, read before it is replaced (None: missing, empty, or it does not
    parse); :class:`NotOurs` when something else is there: a link, not a regular file, another program's JSON
    (:func:`parse_json`, with ``key``)."""
    check_ours(path, None, setting)
    try:
        raw = read_regular(path)
    except FileNotFoundError:
        return None
    parsed, why = parse_json(raw, key)
    if why is not None:
        raise NotOurs(path, why, setting)
    return parsed


def check_ours(path: Path, markers: tuple[bytes, ...] | None, setting: str) -> None:
    """Raise :class:`NotOurs` unless ``path`` is missing, empty (or NUL bytes only), or a regular file whose first
    bytes, whitespace aside, start with one of ``markers`` (:func:`json_first`, or a text's first line; None:
    any, its content judged by :func:`parse_json`)."""
    try:
        fd = os.open(path, READ_FLAGS | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotOurs(path, "a link", setting) from None
        raise
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotOurs(path, "not a regular file", setting)
        if not status.st_size:
            return
        head = os.read(fd, _HEAD)
        if not head.strip(b"\0") and nul_only(fd, status.st_size, _NUL_LIMIT):
            return  # as empty: what a power cut leaves of an unflushed write on some file systems
    finally:
        os.close(fd)
    if markers is not None and not _squeezed(head).startswith(tuple(_squeezed(marker) for marker in markers)):
        raise NotOurs(path, NOT_OUR_FORMAT, setting)


def nul_only(fd: int, size: int, limit: int) -> bool:
    """Whether the file open at ``fd``, of ``size`` bytes, holds NUL bytes only; False, unread, past ``limit``
    bytes (a sparse file of any size reads as NULs). After a power cut, a file written without a flush (the
    reports, a lock's note) may have its new size but not its blocks (XFS): it reads as NULs."""
    if size > limit:
        return False
    os.lseek(fd, 0, os.SEEK_SET)
    while piece := os.read(fd, 1 << 16):
        if piece.strip(b"\0"):
            return False
    return True


def _squeezed(data: bytes) -> bytes:
    """``data`` without its whitespace (a JSON file may be indented or not)."""
    return b"".join(data.split())


def check_tables(db: sqlite3.Connection, path: Path, ours: Collection[str], setting: str) -> None:
    """Raise :class:`NotOurs` when the database ``db`` (just opened at ``path``, nothing written yet) holds a table,
    index, view or trigger that is not among ``ours``. SQLite's own are aside: only SQLite makes names that begin
    with ``sqlite_`` (automatic indexes; ``sqlite_stat1`` after an ANALYZE someone ran on a file of ours)."""
    names = [name for (name,) in db.execute("SELECT name FROM sqlite_master")]
    foreign = sorted(n for n in names if n not in ours and not str(n).startswith("sqlite_"))
    if foreign:
        raise NotOurs(path, f"a database with other tables: {', '.join(map(str, foreign[:3]))}", setting)
