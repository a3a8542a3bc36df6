"""Accounts, their developer keys and admin keys, stored in the service database.

Accounts come from the configuration (``pipeline serve`` flags, environment variables or
``ServiceConfig.accounts``) and are found again after a restart through any of their keys.
Developer keys are data: keys created through the admin API, labels, limits and deactivations
persist, and a configured key is an ordinary developer key of its account (it can be relabelled,
limited, deactivated). The configuration can still revoke what it gave: a configured key missing
from the configuration of a later start is deactivated at that start, for good, like a
deactivation through the API (keys created through the API are not affected). Admin keys are
configuration only: each start replaces them with the configured ones.

Secrets are never stored, only their SHA-256; the creating call is the only moment a secret of
an API-created key is known.
"""

import hashlib
import logging
import sqlite3
import uuid
from collections.abc import Sequence
from typing import NamedTuple

from pipeline.protocol import MAX_ACTIVE_DEVELOPER_KEYS
from pipeline.service.config import AccountSpec
from pipeline.service.store.database import Database

#: Label of keys created through the API without one, and of keys given to ``pipeline serve``.
DEFAULT_KEY_LABEL = "Developer key"
CONFIGURED_KEY_LABEL = "Configured key"

_log = logging.getLogger("pipeline.service")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS accounts (
        account_id TEXT PRIMARY KEY,
        tier TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS developer_keys (
        key_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(account_id),
        secret_sha256 TEXT NOT NULL UNIQUE,
        label TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        deactivated_ms INTEGER,
        character_limit INTEGER,
        speech_limit_ms INTEGER,
        configured INTEGER NOT NULL DEFAULT 0)""",
    """CREATE TABLE IF NOT EXISTS admin_keys (
        secret_sha256 TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(account_id))""",
)


class Account(NamedTuple):
    """An account: its id and tier (``paid`` or ``free``)."""

    account_id: str
    tier: str


class DeveloperKey(NamedTuple):
    """A developer key as stored (times in epoch milliseconds, limits None when unlimited)."""

    key_id: str
    account_id: str
    label: str
    created_ms: int
    deactivated_ms: int | None
    character_limit: int | None
    speech_limit_ms: int | None

    @property
    def is_deactivated(self) -> bool:
        """Whether the key was deactivated (permanently)."""
        return self.deactivated_ms is not None


class Credential(NamedTuple):
    """Who a secret belongs to: the account, and the developer key unless it is an admin key."""

    account: Account
    key: DeveloperKey | None

    @property
    def is_admin(self) -> bool:
        """Whether the secret is an admin key."""
        return self.key is None


class ActiveKeyLimitError(Exception):
    """Creating another key would exceed the number of active developer keys."""


def _sha(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _new_key_id() -> str:
    return f"{uuid.uuid4()}:{uuid.uuid4()}"


def _key(row: sqlite3.Row) -> DeveloperKey:
    return DeveloperKey(
        row["key_id"],
        row["account_id"],
        row["label"],
        row["created_ms"],
        row["deactivated_ms"],
        row["character_limit"],
        row["speech_limit_ms"],
    )


def _add_configured_column(db: Database) -> None:
    """Add ``configured`` to a key table from before revocation; its configured keys keep their label."""
    columns = {row["name"] for row in db.query("PRAGMA table_info(developer_keys)")}
    if "configured" not in columns:
        with db.transaction() as conn:
            conn.execute("ALTER TABLE developer_keys ADD COLUMN configured INTEGER NOT NULL DEFAULT 0")
            conn.execute("UPDATE developer_keys SET configured = 1 WHERE label = ?", (CONFIGURED_KEY_LABEL,))


_KEY_COLUMNS = "key_id, account_id, label, created_ms, deactivated_ms, character_limit, speech_limit_ms"


class AccountStore:
    """Accounts and keys in the service database."""

    def __init__(self, db: Database) -> None:
        self._db = db
        db.ensure_schema(_SCHEMA)
        _add_configured_column(db)

    def register(self, specs: Sequence[AccountSpec], now_ms: int) -> list[Account]:
        """Create or find the configured accounts; raises ValueError on contradictory keys."""
        seen: set[str] = set()
        for spec in specs:
            for secret in (*spec.auth_keys, *spec.admin_keys):
                if secret in seen:
                    raise ValueError("the same key is configured for two accounts")
                seen.add(secret)
        with self._db.transaction() as conn:
            accounts = [self._register_one(conn, spec, now_ms) for spec in specs]
            configured = [a.account_id for a in accounts]
            marks = ",".join("?" * len(configured))
            conn.execute(f"DELETE FROM admin_keys WHERE account_id NOT IN ({marks})", configured)
            hashes = [_sha(secret) for spec in specs for secret in spec.auth_keys]
            marks = ",".join("?" * len(hashes))
            revoked = conn.execute(
                "UPDATE developer_keys SET deactivated_ms = ? WHERE configured = 1 AND deactivated_ms IS NULL "
                f"AND secret_sha256 NOT IN ({marks})",
                (now_ms, *hashes),
            ).rowcount
        if revoked:
            _log.warning("deactivated %d developer key(s) that are no longer configured", revoked)
        return accounts

    def _register_one(self, conn: sqlite3.Connection, spec: AccountSpec, now_ms: int) -> Account:
        hashes = [_sha(s) for s in (*spec.auth_keys, *spec.admin_keys)]
        marks = ",".join("?" * len(hashes))
        owners = (
            {
                row[0]
                for table in ("developer_keys", "admin_keys")
                for row in conn.execute(f"SELECT account_id FROM {table} WHERE secret_sha256 IN ({marks})", hashes)
            }
            if hashes
            else set()
        )
        if len(owners) > 1:
            raise ValueError("the keys of one configured account belong to different stored accounts")
        account_id = owners.pop() if owners else str(uuid.uuid4())
        conn.execute(
            "INSERT INTO accounts(account_id, tier) VALUES (?, ?) "
            "ON CONFLICT(account_id) DO UPDATE SET tier=excluded.tier",
            (account_id, spec.tier),
        )
        for secret in spec.auth_keys:
            conn.execute(
                "INSERT INTO developer_keys(key_id, account_id, secret_sha256, label, created_ms, configured) "
                "VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT(secret_sha256) DO UPDATE SET configured = 1",
                (_new_key_id(), account_id, _sha(secret), CONFIGURED_KEY_LABEL, now_ms),
            )
        conn.execute("DELETE FROM admin_keys WHERE account_id = ?", (account_id,))
        conn.executemany(
            "INSERT INTO admin_keys(secret_sha256, account_id) VALUES (?, ?)",
            [(_sha(s), account_id) for s in spec.admin_keys],
        )
        return Account(account_id, spec.tier)

    def authenticate(self, secret: str) -> Credential | None:
        """The credential a secret stands for (deactivated keys included), or None."""
        digest = _sha(secret)
        row = self._db.query_one(
            f"SELECT {_KEY_COLUMNS}, tier FROM developer_keys JOIN accounts USING (account_id) WHERE secret_sha256 = ?",
            (digest,),
        )
        if row is not None:
            return Credential(Account(row["account_id"], row["tier"]), _key(row))
        row = self._db.query_one(
            "SELECT account_id, tier FROM admin_keys JOIN accounts USING (account_id) WHERE secret_sha256 = ?",
            (digest,),
        )
        return None if row is None else Credential(Account(row["account_id"], row["tier"]), None)

    def create_key(self, account_id: str, label: str, now_ms: int) -> tuple[DeveloperKey, str]:
        """A new active key and its secret; raises ActiveKeyLimitError at the active-key limit."""
        secret = str(uuid.uuid4())
        key_id = _new_key_id()
        with self._db.transaction() as conn:
            (active,) = conn.execute(
                "SELECT COUNT(*) FROM developer_keys WHERE account_id = ? AND deactivated_ms IS NULL",
                (account_id,),
            ).fetchone()
            if active >= MAX_ACTIVE_DEVELOPER_KEYS:
                raise ActiveKeyLimitError
            conn.execute(
                "INSERT INTO developer_keys(key_id, account_id, secret_sha256, label, created_ms) "
                "VALUES (?, ?, ?, ?, ?)",
                (key_id, account_id, _sha(secret), label, now_ms),
            )
        key = self.get_key(account_id, key_id)
        assert key is not None
        return key, secret

    def list_keys(self, account_id: str) -> list[DeveloperKey]:
        """All keys of an account, active and deactivated, oldest first."""
        rows = self._db.query(
            f"SELECT {_KEY_COLUMNS} FROM developer_keys WHERE account_id = ? ORDER BY created_ms, rowid",
            (account_id,),
        )
        return [_key(r) for r in rows]

    def get_key(self, account_id: str, key_id: str) -> DeveloperKey | None:
        """One key of an account, or None (keys of other accounts are invisible)."""
        row = self._db.query_one(
            f"SELECT {_KEY_COLUMNS} FROM developer_keys WHERE account_id = ? AND key_id = ?",
            (account_id, key_id),
        )
        return None if row is None else _key(row)

    def deactivate(self, account_id: str, key_id: str, now_ms: int) -> DeveloperKey | None:
        """Deactivate a key for good; a second call changes nothing. None if unknown."""
        return self._update(account_id, key_id, "deactivated_ms = COALESCE(deactivated_ms, ?)", (now_ms,))

    def set_label(self, account_id: str, key_id: str, label: str) -> DeveloperKey | None:
        """Rename a key. None if unknown."""
        return self._update(account_id, key_id, "label = ?", (label,))

    def set_limits(
        self, account_id: str, key_id: str, characters: int | None, speech_ms: int | None, set_speech: bool
    ) -> DeveloperKey | None:
        """Set the monthly character limit (and the speech limit when ``set_speech``). None if unknown."""
        if set_speech:
            return self._update(account_id, key_id, "character_limit = ?, speech_limit_ms = ?", (characters, speech_ms))
        return self._update(account_id, key_id, "character_limit = ?", (characters,))

    def _update(self, account_id: str, key_id: str, assignments: str, args: tuple[object, ...]) -> DeveloperKey | None:
        with self._db.transaction() as conn:
            cursor = conn.execute(
                f"UPDATE developer_keys SET {assignments} WHERE account_id = ? AND key_id = ?",
                (*args, account_id, key_id),
            )
            if cursor.rowcount == 0:
                return None
        return self.get_key(account_id, key_id)
