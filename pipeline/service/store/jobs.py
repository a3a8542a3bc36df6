"""Document jobs and their files in the service database (the worker is ``documents.jobs``).

Jobs and files live in the service's SQLite database (files as BLOBs), so one code path serves
the in-memory service and ``--data-dir``: with a data directory a restarted service finds every
job, and the worker puts those that were ``queued`` or ``translating`` back in its queue.

States: ``queued`` (accepted) -> ``translating`` (the worker has it; ``progress`` grows with each
engine request) -> ``done`` (result stored, ``billed_characters`` known) or ``error`` (``message``
says why). A result is taken exactly once (:meth:`JobTable.delete` after billing): the job, its
upload and its result are deleted in one transaction.

Jobs nobody downloads expire: a job is deleted with its files ``retention`` after it finished
(``finished_ms``), or after its upload while it has not finished (an upload abandoned by a stopped
service, a stuck engine). An expired job is invisible at once (:meth:`JobTable.get` answers None,
so the routes answer 404 as for an unknown id); its rows go in a sweep that runs at start-up and,
at most once a minute, on upload, status and after each job, so it costs nothing per request.
Document keys are stored hashed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import secrets
from collections.abc import Callable
from typing import NamedTuple

from pipeline.protocol import TM_THRESHOLD_DEFAULT
from pipeline.service.config import DEFAULT_DOCUMENT_RETENTION_HOURS
from pipeline.service.store.database import Database

_log = logging.getLogger("pipeline.service")

QUEUED, TRANSLATING, DONE, ERROR = "queued", "translating", "done", "error"
#: Characters per second assumed for an estimate before the first engine request finished.
ESTIMATE_RATE = 20_000
#: Expired jobs are swept at most this often (of service clock time).
SWEEP_INTERVAL_MS = 60_000
#: The instant a job's retention counts from: its finish, or its upload while it has not finished.
_KEPT_SINCE = "COALESCE(finished_ms, created_ms)"

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS document_jobs (
        document_id TEXT PRIMARY KEY,
        key_hash TEXT NOT NULL,
        account_id TEXT NOT NULL,
        key_id TEXT NOT NULL,
        spec TEXT NOT NULL,
        status TEXT NOT NULL,
        message TEXT,
        size INTEGER NOT NULL,
        billed_characters INTEGER,
        progress REAL NOT NULL DEFAULT 0,
        created_ms INTEGER NOT NULL,
        started_ms INTEGER,
        finished_ms INTEGER)""",
    "CREATE INDEX IF NOT EXISTS document_jobs_status ON document_jobs(status, created_ms)",
    """CREATE TABLE IF NOT EXISTS document_files (
        document_id TEXT NOT NULL REFERENCES document_jobs(document_id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (document_id, role))""",
)


class JobSpec(NamedTuple):
    """What to do with an upload: formats, languages and resources, resolved at upload time."""

    filename: str
    input_format: str
    output_format: str
    #: Upper-case v2 codes; ``source`` None means detect.
    source: str | None
    target: str
    #: The target in v3 form (written into XLIFF files).
    target_code: str
    formality: str = "default"
    glossary: tuple[tuple[str, str], ...] = ()
    instructions: tuple[str, ...] = ()
    #: (category, rule, option) triples of the style rule list's configured rules.
    style_rules: tuple[tuple[str, str, str], ...] = ()
    #: The translation memory is looked up again when the job runs (its files are read at start-up).
    memory_id: str | None = None
    memory_threshold: int = TM_THRESHOLD_DEFAULT
    #: True for beta targets (free during beta, as in text translation).
    free: bool = False
    #: The engine model: next-gen when a style rule list or a memory asks for it, as in text translation.
    model: str = "latency_optimized"

    def to_json(self) -> str:
        """The spec as stored."""
        return json.dumps(self._asdict(), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> JobSpec:
        """A stored spec."""
        data = json.loads(text)
        data["glossary"] = tuple(tuple(pair) for pair in data["glossary"])
        data["instructions"] = tuple(data["instructions"])
        data["style_rules"] = tuple(tuple(rule) for rule in data.get("style_rules", ()))
        return cls(**data)


class JobView(NamedTuple):
    """A job as the status endpoint shows it."""

    document_id: str
    account_id: str
    key_hash: str
    spec: JobSpec
    status: str
    message: str | None
    billed_characters: int | None
    seconds_remaining: int | None

    def key_matches(self, document_key: str) -> bool:
        """Whether ``document_key`` is this job's key (constant-time comparison)."""
        return hmac.compare_digest(self.key_hash, _hash(document_key))


def _add_finished_column(db: Database) -> None:
    """Add ``finished_ms`` to a table created before jobs expired (its jobs expire by upload time)."""
    columns = {row["name"] for row in db.query("PRAGMA table_info(document_jobs)")}
    if "finished_ms" not in columns:
        with db.transaction() as conn:
            conn.execute("ALTER TABLE document_jobs ADD COLUMN finished_ms INTEGER")


def _hash(document_key: str) -> str:
    return hashlib.sha256(document_key.encode("utf-8", "surrogatepass")).hexdigest()


class JobTable:
    """The document jobs of one app: stored, read, updated by the worker, taken, expired."""

    def __init__(
        self, db: Database, now_ms: Callable[[], int], retention_hours: float = DEFAULT_DOCUMENT_RETENTION_HOURS
    ) -> None:
        self._db, self._now_ms = db, now_ms
        self._retention_ms = round(retention_hours * 3_600_000)
        db.ensure_schema(_SCHEMA)
        _add_finished_column(db)
        self._next_sweep_ms = 0

    def submit(self, account_id: str, key_id: str, spec: JobSpec, data: bytes) -> tuple[str, str]:
        """Store an upload as a queued job; its ``(document_id, document_key)``."""
        self.sweep_if_due()
        document_id = secrets.token_hex(16).upper()
        document_key = secrets.token_hex(32).upper()
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO document_jobs(document_id, key_hash, account_id, key_id, spec, status, size, created_ms)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    document_id,
                    _hash(document_key),
                    account_id,
                    key_id,
                    spec.to_json(),
                    QUEUED,
                    len(data),
                    self._now_ms(),
                ),
            )
            conn.execute("INSERT INTO document_files VALUES (?, 'input', ?)", (document_id, data))
        return document_id, document_key

    def get(self, document_id: str) -> JobView | None:
        """The job ``document_id``, or None (also when it expired, swept or not)."""
        self.sweep_if_due()
        row = self._db.query_one(
            f"SELECT * FROM document_jobs WHERE document_id = ? AND {_KEPT_SINCE} > ?",
            (document_id, self._cutoff_ms()),
        )
        if row is None:
            return None
        remaining = None
        if row["status"] == TRANSLATING:
            remaining = self._remaining(row["size"], row["progress"], row["started_ms"])
        return JobView(
            document_id=row["document_id"],
            account_id=row["account_id"],
            key_hash=row["key_hash"],
            spec=JobSpec.from_json(row["spec"]),
            status=row["status"],
            message=row["message"],
            billed_characters=row["billed_characters"] if row["status"] == DONE else None,
            seconds_remaining=remaining,
        )

    def _remaining(self, size: int, progress: float, started_ms: int | None) -> int:
        elapsed = max(self._now_ms() - (started_ms or self._now_ms()), 0) / 1000
        if progress <= 0:
            return max(1, math.ceil(size / ESTIMATE_RATE - elapsed))
        return max(0, math.ceil(elapsed * (1 - progress) / progress))

    def result(self, document_id: str) -> bytes | None:
        """The stored result of a done job (not yet taken)."""
        row = self._db.query_one(
            "SELECT data FROM document_files WHERE document_id = ? AND role = 'output'", (document_id,)
        )
        return None if row is None else bytes(row[0])

    def delete(self, document_id: str) -> bool:
        """Remove a done job with its upload and result; False if it was already gone (taken or expired)."""
        with self._db.transaction() as conn:
            cursor = conn.execute(
                f"DELETE FROM document_jobs WHERE document_id = ? AND status = ? AND {_KEPT_SINCE} > ?",
                (document_id, DONE, self._cutoff_ms()),
            )
        return cursor.rowcount == 1

    def sweep(self) -> int:
        """Delete the expired jobs with their files; how many were deleted."""
        now = self._now_ms()
        self._next_sweep_ms = now + SWEEP_INTERVAL_MS
        with self._db.transaction() as conn:
            cursor = conn.execute(f"DELETE FROM document_jobs WHERE {_KEPT_SINCE} <= ?", (now - self._retention_ms,))
        if cursor.rowcount:
            _log.info("deleted %d expired document job(s) that were never downloaded", cursor.rowcount)
        return cursor.rowcount

    def sweep_if_due(self) -> None:
        """:meth:`sweep`, at most once per :data:`SWEEP_INTERVAL_MS`."""
        if self._now_ms() >= self._next_sweep_ms:
            self.sweep()

    def _cutoff_ms(self) -> int:
        """Jobs that finished (or, unfinished, were uploaded) at or before this instant have expired."""
        return self._now_ms() - self._retention_ms

    # --- for the worker ----------------------------------------------------------------------

    def requeue_unfinished(self) -> list[str]:
        """Put the jobs a previous run left ``translating`` back to ``queued``; every queued id, oldest first."""
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE document_jobs SET status = ?, progress = 0, started_ms = NULL WHERE status IN (?, ?)",
                (QUEUED, QUEUED, TRANSLATING),
            )
        rows = self._db.query("SELECT document_id FROM document_jobs WHERE status = ? ORDER BY created_ms", (QUEUED,))
        return [row[0] for row in rows]

    def take_queued(self, document_id: str) -> tuple[JobSpec, bytes, str] | None:
        """Spec, upload and account of a queued job, now marked ``translating``; None if it is not queued."""
        row = self._db.query_one(
            "SELECT j.spec, f.data, j.account_id FROM document_jobs j JOIN document_files f USING (document_id) "
            "WHERE j.document_id = ? AND f.role = 'input' AND j.status = ?",
            (document_id, QUEUED),
        )
        if row is None:
            return None
        self.update(document_id, status=TRANSLATING, started_ms=self._now_ms(), progress=0.0)
        return JobSpec.from_json(row[0]), bytes(row[1]), str(row[2])

    def update(self, document_id: str, **fields: object) -> None:
        """Set columns of one job (``progress`` as it runs)."""
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self._db.transaction() as conn:
            conn.execute(
                f"UPDATE document_jobs SET {assignments} WHERE document_id = ?", (*fields.values(), document_id)
            )

    def finish(self, document_id: str, billed: int, output: bytes) -> None:
        """Mark a job ``done`` with its result (nothing is stored if the job expired while it ran)."""
        with self._db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE document_jobs SET status = ?, billed_characters = ?, progress = 1, finished_ms = ? "
                "WHERE document_id = ?",
                (DONE, billed, self._now_ms(), document_id),
            )
            # The job expired while it ran (its upload is gone): there is nothing to attach a result to.
            if cursor.rowcount == 1:
                conn.execute("INSERT OR REPLACE INTO document_files VALUES (?, 'output', ?)", (document_id, output))

    def fail(self, document_id: str, message: str) -> None:
        """Mark a job ``error`` with the message its status shows."""
        self.update(document_id, status=ERROR, message=message, finished_ms=self._now_ms())
