"""Glossaries of every account in the service database (v3 and legacy v2 share one id space).

A glossary row holds name and creation time; each dictionary row holds one language pair (base
languages, lower case) with its entries as TSV text, so a 10 MB dictionary is one write, not
hundreds of thousands. Every method takes the account id: a glossary of another account is
invisible, exactly as if it did not exist. ``revision`` changes on every write of a dictionary
so that parsed entries can be cached safely (see ``resources``).
"""

import sqlite3
import uuid
from typing import NamedTuple

from pipeline.protocol import Dictionary
from pipeline.service.store.database import Database
from pipeline.service.store.glossary_content import check_size, from_tsv, merge, to_tsv

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS glossaries (
        glossary_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(account_id),
        name TEXT NOT NULL,
        created_ms INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS glossary_dictionaries (
        glossary_id TEXT NOT NULL REFERENCES glossaries(glossary_id) ON DELETE CASCADE,
        source_lang TEXT NOT NULL,
        target_lang TEXT NOT NULL,
        entries_tsv TEXT NOT NULL,
        entry_count INTEGER NOT NULL,
        revision TEXT NOT NULL,
        PRIMARY KEY (glossary_id, source_lang, target_lang))""",
    "CREATE INDEX IF NOT EXISTS glossaries_by_account ON glossaries(account_id, created_ms)",
)


class DictionarySummary(NamedTuple):
    """One language pair of a glossary and its number of entries."""

    source_lang: str
    target_lang: str
    entry_count: int
    revision: str = ""


class GlossaryRecord(NamedTuple):
    """A glossary's metadata: id, name, creation time (epoch ms) and dictionary summaries."""

    glossary_id: str
    name: str
    created_ms: int
    dictionaries: tuple[DictionarySummary, ...]


class GlossaryStore:
    """Create, read, change and delete glossaries of one account at a time."""

    def __init__(self, db: Database) -> None:
        self._db = db
        db.ensure_schema(_SCHEMA)

    def create(self, account_id: str, name: str, dictionaries: list[Dictionary], now_ms: int) -> GlossaryRecord:
        """A new glossary with the given dictionaries (distinct pairs, checked by the caller)."""
        glossary_id = str(uuid.uuid4())
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO glossaries(glossary_id, account_id, name, created_ms) VALUES (?, ?, ?, ?)",
                (glossary_id, account_id, name, now_ms),
            )
            for dictionary in dictionaries:
                _write(conn, glossary_id, dictionary.source_lang, dictionary.target_lang, dictionary.entries)
        record = self.get(account_id, glossary_id)
        assert record is not None
        return record

    def list(self, account_id: str) -> list[GlossaryRecord]:
        """Every glossary of the account, oldest first."""
        rows = self._db.query(
            "SELECT glossary_id, name, created_ms FROM glossaries WHERE account_id = ? ORDER BY created_ms, rowid",
            (account_id,),
        )
        return [
            GlossaryRecord(r["glossary_id"], r["name"], r["created_ms"], self._summaries(r["glossary_id"]))
            for r in rows
        ]

    def get(self, account_id: str, glossary_id: str) -> GlossaryRecord | None:
        """One glossary of the account, or None."""
        row = self._db.query_one(
            "SELECT name, created_ms FROM glossaries WHERE account_id = ? AND glossary_id = ?",
            (account_id, glossary_id),
        )
        if row is None:
            return None
        return GlossaryRecord(glossary_id, row["name"], row["created_ms"], self._summaries(glossary_id))

    def _summaries(self, glossary_id: str) -> tuple[DictionarySummary, ...]:
        rows = self._db.query(
            "SELECT source_lang, target_lang, entry_count, revision FROM glossary_dictionaries "
            "WHERE glossary_id = ? ORDER BY rowid",
            (glossary_id,),
        )
        return tuple(DictionarySummary(r[0], r[1], r[2], r[3]) for r in rows)

    def entries(self, account_id: str, glossary_id: str, source: str, target: str) -> tuple[tuple[str, str], ...]:
        """The (source, target) phrase pairs of one dictionary, parsed; none when it is missing."""
        tsv = self.entries_tsv(account_id, glossary_id, source, target)
        return () if tsv is None else from_tsv(tsv)

    def entries_tsv(self, account_id: str, glossary_id: str, source: str, target: str) -> str | None:
        """The TSV entries of one dictionary, or None when the glossary or dictionary is missing."""
        row = self._db.query_one(
            "SELECT d.entries_tsv FROM glossary_dictionaries d JOIN glossaries g USING (glossary_id) "
            "WHERE g.account_id = ? AND d.glossary_id = ? AND d.source_lang = ? AND d.target_lang = ?",
            (account_id, glossary_id, source, target),
        )
        return None if row is None else str(row[0])

    def put_dictionary(self, account_id: str, glossary_id: str, dictionary: Dictionary) -> DictionarySummary | None:
        """Create or replace the dictionary of one pair; None when the glossary is missing."""
        with self._db.transaction() as conn:
            if not _owned(conn, account_id, glossary_id):
                return None
            return _write(conn, glossary_id, dictionary.source_lang, dictionary.target_lang, dictionary.entries)

    def update(
        self, account_id: str, glossary_id: str, name: str | None, dictionary: Dictionary | None
    ) -> GlossaryRecord | None:
        """Rename and/or merge entries into one dictionary (created when missing); None when missing.

        Raises ContentError when the merged dictionary would pass the size limit (nothing changes).
        """
        with self._db.transaction() as conn:
            if not _owned(conn, account_id, glossary_id):
                return None
            if name is not None:
                conn.execute("UPDATE glossaries SET name = ? WHERE glossary_id = ?", (name, glossary_id))
            if dictionary is not None:
                source, target = dictionary.pair
                row = conn.execute(
                    "SELECT entries_tsv FROM glossary_dictionaries "
                    "WHERE glossary_id = ? AND source_lang = ? AND target_lang = ?",
                    (glossary_id, source, target),
                ).fetchone()
                entries = dictionary.entries if row is None else merge(from_tsv(row[0]), dictionary.entries)
                _write(conn, glossary_id, source, target, entries)
        return self.get(account_id, glossary_id)

    def delete(self, account_id: str, glossary_id: str) -> bool:
        """Delete a glossary with its dictionaries; False when it is missing."""
        with self._db.transaction() as conn:
            if not _owned(conn, account_id, glossary_id):
                return False
            conn.execute("DELETE FROM glossary_dictionaries WHERE glossary_id = ?", (glossary_id,))
            conn.execute("DELETE FROM glossaries WHERE glossary_id = ?", (glossary_id,))
        return True

    def delete_dictionary(self, account_id: str, glossary_id: str, source: str, target: str) -> bool | None:
        """Delete one dictionary: True when deleted, False when the pair is missing, None when the glossary is."""
        with self._db.transaction() as conn:
            if not _owned(conn, account_id, glossary_id):
                return None
            cursor = conn.execute(
                "DELETE FROM glossary_dictionaries WHERE glossary_id = ? AND source_lang = ? AND target_lang = ?",
                (glossary_id, source, target),
            )
            return cursor.rowcount > 0


def _owned(conn: sqlite3.Connection, account_id: str, glossary_id: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM glossaries WHERE account_id = ? AND glossary_id = ?", (account_id, glossary_id)
    ).fetchone()
    return row is not None


def _write(
    conn: sqlite3.Connection, glossary_id: str, source: str, target: str, entries: tuple[tuple[str, str], ...]
) -> DictionarySummary:
    tsv = to_tsv(entries)
    check_size(f"dictionary {source}->{target}", tsv)
    revision = uuid.uuid4().hex
    # An upsert keeps the row (and so the dictionary's place in listings) when replacing.
    conn.execute(
        "INSERT INTO glossary_dictionaries(glossary_id, source_lang, target_lang, entries_tsv, entry_count, revision) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(glossary_id, source_lang, target_lang) DO UPDATE SET "
        "entries_tsv = excluded.entries_tsv, entry_count = excluded.entry_count, revision = excluded.revision",
        (glossary_id, source, target, tsv, len(entries), revision),
    )
    return DictionarySummary(source, target, len(entries), revision)
