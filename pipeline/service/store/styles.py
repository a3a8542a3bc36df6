"""Style rule lists of every account in the service database.

One row per list; its configured rules and custom instructions are JSON columns (a list holds at
most 200 instructions, so rewriting them whole is cheap and keeps every change one statement).
Every method takes the account id: another account's list is invisible, exactly as if missing.
Each successful change sets ``updated_ms`` and adds one to ``version``.
"""

import json
import sqlite3
import uuid
from collections.abc import Callable
from typing import Any, NamedTuple

from pipeline.service.store.database import MAX_INTEGER, Database

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS style_rule_lists (
        style_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(account_id),
        name TEXT NOT NULL,
        language TEXT NOT NULL,
        version INTEGER NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        configured_rules TEXT NOT NULL,
        custom_instructions TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS style_rule_lists_by_account ON style_rule_lists(account_id, created_ms)",
)

Rules = dict[str, dict[str, str]]


class Instruction(NamedTuple):
    """A custom instruction: generated id, label, prompt, optional source language."""

    id: str
    label: str
    prompt: str
    source_language: str | None = None


class StyleList(NamedTuple):
    """A style rule list as stored (times in epoch milliseconds)."""

    style_id: str
    name: str
    language: str
    version: int
    created_ms: int
    updated_ms: int
    configured_rules: Rules
    instructions: tuple[Instruction, ...]


def _from_row(row: sqlite3.Row) -> StyleList:
    return StyleList(
        row["style_id"],
        row["name"],
        row["language"],
        row["version"],
        row["created_ms"],
        row["updated_ms"],
        json.loads(row["configured_rules"]),
        tuple(Instruction(**item) for item in json.loads(row["custom_instructions"])),
    )


def _instructions_json(instructions: tuple[Instruction, ...]) -> str:
    return json.dumps([i._asdict() for i in instructions], ensure_ascii=False)


def new_instruction(label: str, prompt: str, source_language: str | None) -> Instruction:
    """An instruction with a freshly generated id."""
    return Instruction(str(uuid.uuid4()), label, prompt, source_language)


class StyleStore:
    """Create, read, change and delete style rule lists of one account at a time."""

    def __init__(self, db: Database) -> None:
        self._db = db
        db.ensure_schema(_SCHEMA)

    def create(
        self,
        account_id: str,
        name: str,
        language: str,
        rules: Rules,
        instructions: tuple[Instruction, ...],
        now_ms: int,
    ) -> StyleList:
        """A new list at version 1."""
        style = StyleList(str(uuid.uuid4()), name, language, 1, now_ms, now_ms, rules, instructions)
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO style_rule_lists(style_id, account_id, name, language, version, created_ms, updated_ms, "
                "configured_rules, custom_instructions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    style.style_id,
                    account_id,
                    name,
                    language,
                    1,
                    now_ms,
                    now_ms,
                    json.dumps(rules, ensure_ascii=False),
                    _instructions_json(instructions),
                ),
            )
        return style

    def page(self, account_id: str, page: int, page_size: int) -> list[StyleList]:
        """One page of the account's lists, oldest first (empty past the last list, however far)."""
        offset = page * page_size
        if offset > MAX_INTEGER:  # no SQLite table holds that many rows, and the query could not take it
            return []
        rows = self._db.query(
            "SELECT * FROM style_rule_lists WHERE account_id = ? ORDER BY created_ms, rowid LIMIT ? OFFSET ?",
            (account_id, page_size, offset),
        )
        return [_from_row(r) for r in rows]

    def get(self, account_id: str, style_id: str) -> StyleList | None:
        """One list of the account, or None."""
        row = self._db.query_one(
            "SELECT * FROM style_rule_lists WHERE account_id = ? AND style_id = ?", (account_id, style_id)
        )
        return None if row is None else _from_row(row)

    def change(
        self, account_id: str, style_id: str, now_ms: int, edit: Callable[[StyleList], StyleList]
    ) -> StyleList | None:
        """Apply ``edit`` to a list and store the result with version + 1; None when the list is missing.

        ``edit`` may raise to abort (nothing is stored).
        """
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT * FROM style_rule_lists WHERE account_id = ? AND style_id = ?", (account_id, style_id)
            ).fetchone()
            if row is None:
                return None
            current = _from_row(row)
            edited = edit(current)._replace(version=current.version + 1, updated_ms=now_ms)
            conn.execute(
                "UPDATE style_rule_lists SET name = ?, version = ?, updated_ms = ?, configured_rules = ?, "
                "custom_instructions = ? WHERE style_id = ?",
                (
                    edited.name,
                    edited.version,
                    edited.updated_ms,
                    json.dumps(edited.configured_rules, ensure_ascii=False),
                    _instructions_json(edited.instructions),
                    style_id,
                ),
            )
        return edited

    def delete(self, account_id: str, style_id: str) -> bool:
        """Delete a list for good; False when it is missing."""
        with self._db.transaction() as conn:
            cursor = conn.execute(
                "DELETE FROM style_rule_lists WHERE account_id = ? AND style_id = ?", (account_id, style_id)
            )
            return cursor.rowcount > 0


def instruction_json(instruction: Instruction) -> dict[str, Any]:
    """A custom instruction as the API shows it (``source_language`` only when set)."""
    body: dict[str, Any] = {"id": instruction.id, "label": instruction.label, "prompt": instruction.prompt}
    if instruction.source_language is not None:
        body["source_language"] = instruction.source_language
    return body
