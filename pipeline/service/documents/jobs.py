"""Document jobs: their table, their files, and the worker that translates them in the background.

Jobs and files live in the service's SQLite database (files as BLOBs), so one code path serves
the in-memory service and ``--data-dir``: with a data directory a restarted service finds every
job, puts those that were ``queued`` or ``translating`` back in the queue and finishes them.

States: ``queued`` (accepted) -> ``translating`` (the worker has it; ``progress`` grows with each
engine request) -> ``done`` (result stored, ``billed_characters`` known) or ``error`` (``message``
says why). A result is taken exactly once (:meth:`DocumentJobs.delete` after billing): the job, its
upload and its result are deleted in one transaction.

Jobs nobody downloads expire: a job is deleted with its files ``retention`` after it finished
(``finished_ms``), or after its upload while it has not finished (an upload abandoned by a stopped
service, a stuck engine). An expired job is invisible at once (:meth:`DocumentJobs.get` answers
None, so the routes answer 404 as for an unknown id); its rows go in a sweep that runs at start-up
and, at most once a minute, on upload, status and after each job, so it costs nothing per request.

The worker is one thread with its own event loop, independent of the loop that serves requests:
it keeps running whether the app runs under uvicorn or in-process through ``httpx.ASGITransport``
(where a task on the caller's loop would stop between requests). It starts on the first job and
ends after a few idle seconds, so an idle app holds no thread. :meth:`DocumentJobs.close` stops it
for good (the app's ``aclose``): an engine request in flight is cancelled and the job, left
``translating``, is resumed by the next start. Document keys are stored hashed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import hmac
import json
import logging
import math
import queue
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pipeline.protocol import TM_THRESHOLD_DEFAULT
from pipeline.service import languages
from pipeline.service.config import DEFAULT_DOCUMENT_RETENTION_HOURS
from pipeline.service.documents.base import DocumentError, Markup
from pipeline.service.documents.formats import FORMATS
from pipeline.service.engine.base import Engine, EngineRequest, MarkupOptions
from pipeline.service.engine.markup import visible_text
from pipeline.service.engine.tm_match import MemoryIndex
from pipeline.service.store.database import Database
from pipeline.service.store.resources import Lookups, NoResources

_log = logging.getLogger("pipeline.service")

QUEUED, TRANSLATING, DONE, ERROR = "queued", "translating", "done", "error"
#: Texts per engine request (as in text translation).
CHUNK = 50
#: Characters per second assumed for an estimate before the first engine request finished.
ESTIMATE_RATE = 20_000
IDLE_SECONDS = 5.0
#: How long :meth:`DocumentJobs.close` waits for the worker (an engine that blocks its thread).
CLOSE_TIMEOUT_SECONDS = 5.0
#: Put in the queue to wake the worker when closing.
_WAKE_UP = ""
#: Expired jobs are swept at most this often (of service clock time).
SWEEP_INTERVAL_MS = 60_000
#: The instant a job's retention counts from: its finish, or its upload while it has not finished.
_KEPT_SINCE = "COALESCE(finished_ms, created_ms)"
EQUAL_LANGUAGES = "Source and target language are equal"

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


@dataclass(frozen=True)
class JobSpec:
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

    def to_json(self) -> str:
        """The spec as stored."""
        return json.dumps(dataclasses.asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> JobSpec:
        """A stored spec."""
        data = json.loads(text)
        data["glossary"] = tuple(tuple(pair) for pair in data["glossary"])
        data["instructions"] = tuple(data["instructions"])
        data["style_rules"] = tuple(tuple(rule) for rule in data.get("style_rules", ()))
        return cls(**data)


@dataclass(frozen=True)
class JobView:
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


def billable_characters(texts: Sequence[str], markup: Markup = None) -> int:
    """Characters a document is billed for ``texts`` (before any minimum): visible text, not markup."""
    options = MarkupOptions(markup) if markup else None
    return sum(len(visible_text(text, options)) for text in texts)


class _Closed(Exception):
    """The database was closed under the worker (the app is shutting down)."""


class _Translator:
    """The :class:`~pipeline.service.documents.base.Translator` of one job."""

    def __init__(
        self,
        engine: Engine,
        spec: JobSpec,
        memory: MemoryIndex | None,
        loop: asyncio.AbstractEventLoop,
        progress: Callable[[float], None],
        closing: Callable[[], bool],
    ) -> None:
        self._engine, self._spec, self._memory, self._loop, self._progress = engine, spec, memory, loop, progress
        self._closing = closing
        self.characters = 0

    def __call__(self, texts: Sequence[str], markup: Markup = None) -> list[str]:
        options = MarkupOptions(markup) if markup else None
        out: list[str] = []
        for start in range(0, len(texts), CHUNK):
            if self._closing():
                raise _Closed()
            chunk = tuple(texts[start : start + CHUNK])
            request = EngineRequest(
                texts=chunk,
                source_lang=self._spec.source,
                target_lang=self._spec.target,
                markup=options,
                split_sentences="nonewlines" if options else "1",
                formality=self._spec.formality,
                glossary=self._spec.glossary,
                instructions=self._spec.instructions,
                style_rules=self._spec.style_rules,
                memory=self._memory,
                memory_threshold=self._spec.memory_threshold,
            )
            try:
                translations = self._loop.run_until_complete(self._engine.translate(request))
            except asyncio.CancelledError:
                raise _Closed() from None  # DocumentJobs.close cancelled the engine request
            out.extend(t.text for t in translations)
            self.characters += billable_characters(chunk, markup)
            self._progress((start + len(chunk)) / len(texts))
        return out


class DocumentJobs:
    """The document jobs of one app and the background worker that runs them."""

    def __init__(
        self,
        db: Database,
        engine: Engine,
        now_ms: Callable[[], int],
        idle_seconds: float = IDLE_SECONDS,
        lookups: Lookups | None = None,
        retention_hours: float = DEFAULT_DOCUMENT_RETENTION_HOURS,
    ):
        self._db, self._engine, self._now_ms, self._idle = db, engine, now_ms, idle_seconds
        self._lookups: Lookups = lookups or NoResources()
        self._retention_ms = round(retention_hours * 3_600_000)
        db.ensure_schema(_SCHEMA)
        _add_finished_column(db)
        self._queue: queue.Queue[str] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing = False
        self._next_sweep_ms = 0
        self.sweep()
        self._resume()

    # --- requests ------------------------------------------------------------------------

    def submit(self, account_id: str, key_id: str, spec: JobSpec, data: bytes) -> tuple[str, str]:
        """Store an upload as a queued job; its ``(document_id, document_key)``."""
        self._sweep_if_due()
        document_id = secrets.token_hex(16).upper()
        document_key = secrets.token_hex(32).upper()
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO document_jobs(document_id, key_hash, account_id, key_id, spec, status, size, created_ms)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (document_id, _hash(document_key), account_id, key_id, spec.to_json(), QUEUED, len(data), self._now_ms()),
            )
            conn.execute("INSERT INTO document_files VALUES (?, 'input', ?)", (document_id, data))
        self._enqueue(document_id)
        return document_id, document_key

    def get(self, document_id: str) -> JobView | None:
        """The job ``document_id``, or None (also when it expired, swept or not)."""
        self._sweep_if_due()
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

    def _sweep_if_due(self) -> None:
        if self._now_ms() >= self._next_sweep_ms:
            self.sweep()

    def _cutoff_ms(self) -> int:
        """Jobs that finished (or, unfinished, were uploaded) at or before this instant have expired."""
        return self._now_ms() - self._retention_ms

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no job is queued or running (tests, benchmarks); False on timeout."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    def close(self, timeout: float = CLOSE_TIMEOUT_SECONDS) -> None:
        """Stop the worker for good and wait for it (before the database closes).

        The running job stops at its engine request (cancelled) and stays ``translating``, queued
        ones stay ``queued``: the next start resumes both.
        """
        with self._lock:
            self._closing = True
            thread, loop = self._thread, self._loop
        if thread is None:
            return
        self._queue.put(_WAKE_UP)
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the worker closed its loop in between
                loop.call_soon_threadsafe(_cancel_all, loop)
        thread.join(timeout)

    # --- worker --------------------------------------------------------------------------

    def _resume(self) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE document_jobs SET status = ?, progress = 0, started_ms = NULL WHERE status IN (?, ?)",
                (QUEUED, QUEUED, TRANSLATING),
            )
        for row in self._db.query(
            "SELECT document_id FROM document_jobs WHERE status = ? ORDER BY created_ms", (QUEUED,)
        ):
            self._enqueue(row[0])

    def _enqueue(self, document_id: str) -> None:
        with self._lock:
            if self._closing:
                return  # stays queued in the database for the next start
            self._queue.put(document_id)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="document-jobs", daemon=True)
                self._thread.start()

    def _work(self) -> None:
        loop = asyncio.new_event_loop()
        with self._lock:
            self._loop = loop
        try:
            while True:
                try:
                    document_id = self._queue.get(timeout=self._idle)
                except queue.Empty:
                    with self._lock:
                        if self._queue.empty():
                            self._thread = self._loop = None  # under the lock: _enqueue starts a new one
                            return
                    continue
                try:
                    if self._closing:
                        return
                    self._run(document_id, loop)
                    self._sweep_if_due()
                except (_Closed, sqlite3.ProgrammingError):
                    return
                finally:
                    self._queue.task_done()
        finally:
            with self._lock:
                if self._thread is threading.current_thread():
                    self._thread = self._loop = None
            loop.close()

    def _update(self, document_id: str, **fields: object) -> None:
        assignments = ", ".join(f"{name} = ?" for name in fields)
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    f"UPDATE document_jobs SET {assignments} WHERE document_id = ?", (*fields.values(), document_id)
                )
        except sqlite3.ProgrammingError as exc:
            raise _Closed() from exc

    def _memory(self, account_id: str, spec: JobSpec) -> MemoryIndex | None:
        """The job's memory for its target (None when a restart dropped it from the configuration)."""
        assert spec.memory_id is not None
        info = self._lookups.translation_memory(account_id, spec.memory_id)
        return None if info is None else info.by_target.get(languages.base_of(spec.target))

    def _run(self, document_id: str, loop: asyncio.AbstractEventLoop) -> None:
        try:
            row = self._db.query_one(
                "SELECT j.spec, f.data, j.account_id FROM document_jobs j JOIN document_files f USING (document_id) "
                "WHERE j.document_id = ? AND f.role = 'input' AND j.status = ?",
                (document_id, QUEUED),
            )
        except sqlite3.ProgrammingError as exc:
            raise _Closed() from exc
        if row is None:
            return
        spec, data = JobSpec.from_json(row[0]), bytes(row[1])
        self._update(document_id, status=TRANSLATING, started_ms=self._now_ms(), progress=0.0)
        if spec.source is not None and languages.base_of(spec.source) == languages.base_of(spec.target):
            self._fail(document_id, EQUAL_LANGUAGES)
            return
        memory = None
        if spec.memory_id is not None:
            memory = self._memory(row[2], spec)
            if memory is None:
                self._fail(document_id, f"translation memory {spec.memory_id} is gone")
                return
        translator = _Translator(
            self._engine, spec, memory, loop, lambda p: self._update(document_id, progress=p), lambda: self._closing
        )
        document_format = FORMATS[spec.input_format]
        try:
            output = document_format.translate(data, translator, spec.target_code)
        except _Closed:
            raise
        except DocumentError as exc:
            self._fail(document_id, str(exc))
            return
        except Exception:
            _log.exception("document %s failed", document_id)
            self._fail(document_id, "internal error of the local service while translating")
            return
        billed = 0 if spec.free else max(translator.characters, document_format.minimum_billed)
        try:
            with self._db.transaction() as conn:
                cursor = conn.execute(
                    "UPDATE document_jobs SET status = ?, billed_characters = ?, progress = 1, finished_ms = ? "
                    "WHERE document_id = ?",
                    (DONE, billed, self._now_ms(), document_id),
                )
                # The job expired while it ran (its upload is gone): there is nothing to attach a result to.
                if cursor.rowcount == 1:
                    conn.execute("INSERT OR REPLACE INTO document_files VALUES (?, 'output', ?)", (document_id, output))
        except sqlite3.ProgrammingError as exc:
            raise _Closed() from exc

    def _fail(self, document_id: str, message: str) -> None:
        self._update(document_id, status=ERROR, message=message, finished_ms=self._now_ms())


def _cancel_all(loop: asyncio.AbstractEventLoop) -> None:
    for task in asyncio.all_tasks(loop):
        task.cancel()
