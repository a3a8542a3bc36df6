"""Character consumption per developer key and monthly period, and per custom reporting tag.

The usage period is the calendar month in UTC (``"2026-05"``): a key-level limit caps what the
key consumes in that month and the count starts again at zero on the first day of the next.
Text translation, Write and document characters are kept apart but count together against a
limit and in ``character_count``. Tag usage is kept per UTC day, for text translation only.
"""

import datetime as dt
from typing import Literal, NamedTuple

from pipeline.service.store.database import Database

Kind = Literal["translation", "write", "document"]
_COLUMNS: dict[Kind, str] = {"translation": "translation_chars", "write": "write_chars", "document": "document_chars"}

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS key_usage (
        key_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        period TEXT NOT NULL,
        translation_chars INTEGER NOT NULL DEFAULT 0,
        write_chars INTEGER NOT NULL DEFAULT 0,
        document_chars INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (key_id, period))""",
    "CREATE INDEX IF NOT EXISTS key_usage_account ON key_usage(account_id, period)",
    """CREATE TABLE IF NOT EXISTS tag_usage (
        account_id TEXT NOT NULL,
        custom_tag TEXT NOT NULL,
        day TEXT NOT NULL,
        translation_chars INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, custom_tag, day))""",
)

_TOTAL = "translation_chars + write_chars + document_chars"


def period_of(now: dt.datetime) -> str:
    """The usage period (UTC calendar month) containing ``now``."""
    return f"{now.year:04d}-{now.month:02d}"


def period_bounds(now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """Start (inclusive) and end (exclusive) of the period containing ``now``, in UTC."""
    start = dt.datetime(now.year, now.month, 1, tzinfo=dt.UTC)
    end = dt.datetime(now.year + now.month // 12, now.month % 12 + 1, 1, tzinfo=dt.UTC)
    return start, end


class TagUsage(NamedTuple):
    """Characters of one custom tag, for the whole range or one day (``day`` set)."""

    custom_tag: str
    day: str | None
    translation_chars: int


class Meter:
    """Counts consumption and enforces key-level monthly limits."""

    def __init__(self, db: Database) -> None:
        self._db = db
        db.ensure_schema(_SCHEMA)

    def charge(self, key_id: str, account_id: str, period: str, kind: Kind, characters: int, limit: int | None) -> bool:
        """Add ``characters`` unless that would take the key over ``limit``; False means refused."""
        column = _COLUMNS[kind]
        add = (
            f"INSERT INTO key_usage(key_id, account_id, period, {column}) VALUES (?, ?, ?, ?) "
            f"ON CONFLICT(key_id, period) DO UPDATE SET {column} = {column} + excluded.{column}"
        )
        values = (key_id, account_id, period, characters)
        if limit is None or characters <= 0:  # nothing to check first: the one statement is its own transaction
            self._db.write(add, values)
            return True
        with self._db.transaction() as conn:
            row = conn.execute(f"SELECT {_TOTAL} FROM key_usage WHERE key_id = ? AND period = ?", (key_id, period))
            found = row.fetchone()
            if (found[0] if found else 0) + characters > limit:
                return False
            conn.execute(add, values)
        return True

    def refund(self, key_id: str, period: str, kind: Kind, characters: int) -> None:
        """Take back a charge whose request then failed."""
        column = _COLUMNS[kind]
        with self._db.transaction() as conn:
            conn.execute(
                f"UPDATE key_usage SET {column} = MAX({column} - ?, 0) WHERE key_id = ? AND period = ?",
                (characters, key_id, period),
            )

    def key_total(self, key_id: str, period: str) -> int:
        """Characters a key consumed in a period."""
        row = self._db.query_one(f"SELECT {_TOTAL} FROM key_usage WHERE key_id = ? AND period = ?", (key_id, period))
        return row[0] if row else 0

    def by_kind(self, key_id: str, account_id: str, period: str) -> dict[Kind, tuple[int, int]]:
        """Per kind: (characters of the key, characters of all keys of the account) in a period."""
        columns = ", ".join(f"COALESCE(SUM({c}), 0)" for c in _COLUMNS.values())
        mine = self._db.query_one(f"SELECT {columns} FROM key_usage WHERE key_id = ? AND period = ?", (key_id, period))
        everyone = self._db.query_one(
            f"SELECT {columns} FROM key_usage WHERE account_id = ? AND period = ?", (account_id, period)
        )
        assert mine is not None and everyone is not None  # sums over no rows are one row of zeros
        return {kind: (int(mine[i]), int(everyone[i])) for i, kind in enumerate(_COLUMNS)}

    def record_tag(self, account_id: str, custom_tag: str, day: str, characters: int) -> None:
        """Add text-translation characters to a custom reporting tag on a UTC day (``YYYY-MM-DD``)."""
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO tag_usage(account_id, custom_tag, day, translation_chars) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(account_id, custom_tag, day) "
                "DO UPDATE SET translation_chars = translation_chars + excluded.translation_chars",
                (account_id, custom_tag, day, characters),
            )

    def tag_report(
        self, account_id: str, first_day: str, last_day: str, by_day: bool, offset: int, limit: int
    ) -> list[TagUsage]:
        """Tag usage between two UTC days (inclusive), per tag or per tag and day, paged."""
        if by_day:
            rows = self._db.query(
                "SELECT custom_tag, day, translation_chars FROM tag_usage "
                "WHERE account_id = ? AND day BETWEEN ? AND ? ORDER BY day, custom_tag LIMIT ? OFFSET ?",
                (account_id, first_day, last_day, limit, offset),
            )
            return [TagUsage(r[0], r[1], r[2]) for r in rows]
        rows = self._db.query(
            "SELECT custom_tag, SUM(translation_chars) FROM tag_usage "
            "WHERE account_id = ? AND day BETWEEN ? AND ? GROUP BY custom_tag ORDER BY custom_tag LIMIT ? OFFSET ?",
            (account_id, first_day, last_day, limit, offset),
        )
        return [TagUsage(r[0], None, r[1]) for r in rows]
