"""The document worker: translates the queued jobs of ``store.jobs`` in the background.

The worker is one thread with its own event loop, independent of the loop that serves requests:
it keeps running whether the app runs under uvicorn or in-process through ``httpx.ASGITransport``
(where a task on the caller's loop would stop between requests). It starts on the first job and
ends after a few idle seconds, so an idle app holds no thread. :meth:`DocumentJobs.close` stops it
for good (the app's ``aclose``): an engine request in flight is cancelled and the job, left
``translating``, is resumed by the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable, Sequence

from pipeline.service import languages
from pipeline.service.config import DEFAULT_DOCUMENT_RETENTION_HOURS
from pipeline.service.documents.base import DocumentError, Markup
from pipeline.service.documents.formats import FORMATS
from pipeline.service.engine import detect
from pipeline.service.engine.base import Engine, EngineRequest, MarkupOptions
from pipeline.service.engine.markup import visible_text
from pipeline.service.engine.tm_match import MemoryIndex
from pipeline.service.store.database import Database
from pipeline.service.store.jobs import JobSpec, JobTable, JobView
from pipeline.service.store.resources import Lookups, NoResources

_log = logging.getLogger("pipeline.service")

#: Texts per engine request (as in text translation).
CHUNK = 50
IDLE_SECONDS = 5.0
#: How long :meth:`DocumentJobs.close` waits for the worker (an engine that blocks its thread).
CLOSE_TIMEOUT_SECONDS = 5.0
#: Put in the queue to wake the worker when closing.
_WAKE_UP = ""
EQUAL_LANGUAGES = "Source and target language are equal"
#: Visible characters read from the start of a document to detect its language.
DETECT_SAMPLE_CHARS = 10_000


def refuse_text_in_target_language(texts: Sequence[str], options: MarkupOptions | None, target: str) -> None:
    """Without ``source_lang``, a document detected in the target's language ends in error.

    The real service treats it as a document whose ``source_lang`` equals the target (the official
    clients' suites expect the same error). The document's start decides: its first
    :data:`DETECT_SAMPLE_CHARS` visible characters; a document without letters is never refused.
    """
    sample: list[str] = []
    size = 0
    for text in texts:
        if size >= DETECT_SAMPLE_CHARS:
            break
        visible = visible_text(text, options)
        sample.append(visible)
        size += len(visible) + 1
    joined = "\n".join(sample)[:DETECT_SAMPLE_CHARS]
    if any(ch.isalpha() for ch in joined) and languages.base_of(detect.detect(joined)) == languages.base_of(target):
        raise DocumentError(EQUAL_LANGUAGES)


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
        if self._spec.source is None:
            refuse_text_in_target_language(texts, options, self._spec.target)
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
                model_type=self._spec.model,
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
    """The document jobs of one app (a :class:`JobTable`) and the background worker that runs them.

    ``ended`` is told each job's id once the worker is done with it, from the worker's thread.
    """

    def __init__(
        self,
        db: Database,
        engine: Engine,
        now_ms: Callable[[], int],
        idle_seconds: float = IDLE_SECONDS,
        lookups: Lookups | None = None,
        retention_hours: float = DEFAULT_DOCUMENT_RETENTION_HOURS,
        ended: Callable[[str], None] | None = None,
    ):
        self.table = JobTable(db, now_ms, retention_hours)
        self._engine, self._now_ms, self._idle = engine, now_ms, idle_seconds
        self._ended = ended
        self._lookups: Lookups = lookups or NoResources()
        self._queue: queue.Queue[str] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing = False
        self.table.sweep()
        for document_id in self.table.requeue_unfinished():
            self._enqueue(document_id)

    # --- requests ------------------------------------------------------------------------

    def submit(self, account_id: str, key_id: str, spec: JobSpec, data: bytes) -> tuple[str, str]:
        """Store an upload as a queued job and wake the worker; its ``(document_id, document_key)``."""
        document_id, document_key = self.table.submit(account_id, key_id, spec, data)
        self._enqueue(document_id)
        return document_id, document_key

    def get(self, document_id: str) -> JobView | None:
        """The job ``document_id``, or None (also when it expired, swept or not)."""
        return self.table.get(document_id)

    def result(self, document_id: str) -> bytes | None:
        """The stored result of a done job (not yet taken)."""
        return self.table.result(document_id)

    def delete(self, document_id: str) -> bool:
        """Remove a done job with its upload and result; False if it was already gone (taken or expired)."""
        return self.table.delete(document_id)

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
                    if self._ended is not None:
                        self._ended(document_id)
                    self.table.sweep_if_due()
                except (_Closed, sqlite3.ProgrammingError):
                    return
                finally:
                    self._queue.task_done()
        finally:
            with self._lock:
                if self._thread is threading.current_thread():
                    self._thread = self._loop = None
            # Join the threads of engines' to_thread; a cancellation from close() may interrupt it.
            with contextlib.suppress(asyncio.CancelledError):
                loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()

    def _update(self, document_id: str, **fields: object) -> None:
        try:
            self.table.update(document_id, **fields)
        except sqlite3.ProgrammingError as exc:
            raise _Closed() from exc

    def _memory(self, account_id: str, spec: JobSpec) -> MemoryIndex | None:
        """The job's memory for its target (None when a restart dropped it from the configuration)."""
        assert spec.memory_id is not None
        info = self._lookups.translation_memory(account_id, spec.memory_id)
        return None if info is None else info.by_target.get(languages.base_of(spec.target))

    def _run(self, document_id: str, loop: asyncio.AbstractEventLoop) -> None:
        try:
            taken = self.table.take_queued(document_id)
        except sqlite3.ProgrammingError as exc:
            raise _Closed() from exc
        if taken is None:
            return
        spec, data, account_id = taken
        if spec.source is not None and languages.base_of(spec.source) == languages.base_of(spec.target):
            self._fail(document_id, EQUAL_LANGUAGES)
            return
        memory = None
        if spec.memory_id is not None:
            memory = self._memory(account_id, spec)
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
            self.table.finish(document_id, billed, output)
        except sqlite3.ProgrammingError as exc:
            raise _Closed() from exc

    def _fail(self, document_id: str, message: str) -> None:
        try:
            self.table.fail(document_id, message)
        except sqlite3.ProgrammingError as exc:
            raise _Closed() from exc


def _cancel_all(loop: asyncio.AbstractEventLoop) -> None:
    for task in asyncio.all_tasks(loop):
        task.cancel()
