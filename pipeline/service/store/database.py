"""The storage of the local service: one SQLite database, in a file or in memory.

One code path serves both cases: with a data directory the database is the file
``<data_dir>/service.sqlite3`` (WAL journal, so a restart finds everything committed);
without one it is SQLite's ``:memory:`` database and dies with the app.

Each area keeps its tables in its own module (``accounts``, ``metering``, ``glossaries``,
``styles``, ``jobs``) and declares them with :meth:`Database.ensure_schema`. Calls are short and
synchronous: the service runs them on the event loop, which is cheaper than a thread hop for
statements that take microseconds. A lock still guards the connection so a caller in a worker
thread (the document worker, the glossary endpoints' parsing) cannot interleave with the loop.
"""

from __future__ import annotations

import contextlib
import pathlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from typing import Any

DATABASE_FILE = "service.sqlite3"
#: The largest value of an SQLite INTEGER (a signed 64-bit integer); a larger Python int is an OverflowError.
MAX_INTEGER = 2**63 - 1


class Database:
    """A SQLite connection with a lock, transactions, and schema declaration per area."""

    def __init__(self, data_dir: pathlib.Path | None) -> None:
        if data_dir is None:
            target = ":memory:"
        else:
            data_dir.mkdir(parents=True, exist_ok=True)
            target = str(data_dir / DATABASE_FILE)
        # isolation_level=None: we open transactions ourselves, so a plain read never holds one.
        self._conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        if data_dir is not None:
            self._conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives a process crash; only a power loss may drop the last commits.
            self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA foreign_keys=ON")

    def ensure_schema(self, statements: Sequence[str]) -> None:
        """Run ``CREATE ... IF NOT EXISTS`` statements of one area."""
        with self.transaction() as conn:
            for statement in statements:
                conn.execute(statement)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: committed on success, rolled back on any exception."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                if self._conn.in_transaction:  # SQLite may have ended it (a full disk): its error is the one to raise
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def write(self, sql: str, args: Sequence[Any] = ()) -> None:
        """One writing statement, atomic on its own (SQLite commits it as it ends)."""
        with self._lock:
            self._conn.execute(sql, args)

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """All rows of a read-only statement."""
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    def query_one(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Row | None:
        """The first row of a read-only statement, or None."""
        with self._lock:
            row: sqlite3.Row | None = self._conn.execute(sql, args).fetchone()
        return row

    def close(self) -> None:
        """Close the connection (checkpoints the WAL into the main file)."""
        with self._lock:
            self._conn.close()
