"""What a run with work shares: its :class:`RunContext`, and the :class:`Connections` it opens once and closes.

Made by the run's front door once it knows there is work (:mod:`pipeline.run.orchestrate`), never
by a run with nothing new, all at once before the first window: no field of the context is filled
in later. The budget, the limiter and the glossary and style plan are made at
once; the cache opens on first need (a dry run reads an existing one and creates none); the client
opens when a request is needed, and with it, for the embedded service, the service itself. The
account's usage and the service's languages are read by one owner, :class:`Reads`, which may start
a read early to overlap other work and gives up what it started and nobody took.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple

from pipeline import connect
from pipeline.cache import TranslationCache, open_cache
from pipeline.connect import ClientFactory
from pipeline.model import Issue
from pipeline.resources import synced
from pipeline.resources.attach import Synced, sync_terminology
from pipeline.resources.targets import ResourcePlan
from pipeline.run import send
from pipeline.run.journal import Journal
from pipeline.run.ledger import Ledger
from pipeline.run.locks import CatalogLocks
from pipeline.run.provenance import Provenance, Rejections
from pipeline.run.quota import Allowance, Targets, offered_targets, read_usage
from pipeline.run.records import RunInputs
from pipeline.run.report.progress import Progress
from pipeline.run.reuse import Index
from pipeline.run.send.budget import Budget
from pipeline.run.send.claims import Claims
from pipeline.run.send.interruption import Interruption

if TYPE_CHECKING:
    from pipeline.client.aio import AsyncClient

__all__ = ["Connections", "Reads", "RunContext"]

#: Loop turns a read just started takes to be written: about 12 on a new connection (the client's first
#: request: loading the transport, the connect, the write), fewer on a pooled one (measured over loopback).
_WRITE_TURNS = 16


class Connections:
    """One run's cache, client, limiter, budget, claims, glossary and style plan, and the account's reads."""

    def __init__(
        self, inputs: RunInputs, ledger: Ledger, journal: Journal, client_factory: ClientFactory | None
    ) -> None:
        settings = inputs.settings
        self.budget = Budget(settings.max_characters)  # the run's max_characters, across rounds and windows
        self.limiter = send.new_limiter(settings.service)  # what it learns of the service holds for the whole run
        self.resources = ResourcePlan(settings)  # the glossary and style files, read and checked before any request
        self.reads = Reads(lambda: self.client, settings.service.url)
        self.claims = Claims()  # the texts being sent, so that overlapping parts send each once
        self.preparing = asyncio.Lock()  # held by the part making the service ready and attaching its resources
        self._inputs, self._ledger, self._journal = inputs, ledger, journal
        self._client_factory = client_factory  # replaces the client the settings describe (tests)
        self._terminology = inputs.terminology  # synced at most once per run

    @functools.cached_property
    def cache(self) -> TranslationCache:
        """The translation cache, opened on first use: a dry run reads an existing one and creates none."""
        settings, options = self._inputs.settings, self._inputs.options
        cache_dir = settings.cache_dir if options.use_cache else None
        # os.path's answer: a folder this user may not look into is not one a dry run reads (Path.is_dir raises).
        if options.dry_run and cache_dir is not None and not os.path.isdir(cache_dir):
            cache_dir = None
        return open_cache(
            settings._replace(cache_dir=cache_dir),
            self._inputs.service,
            lambda message: self._ledger.warn(cache_dir, message),
            enabled=options.use_cache,
        )

    @functools.cached_property
    def client(self) -> AsyncClient:
        """The service's client, opened when a request is first needed (:func:`pipeline.connect.open_client`
        loads it, and the embedded service, then)."""
        if self._client_factory is not None:
            return self._client_factory()
        return connect.open_client(self._inputs.settings.service, self._ledger.log)

    def prepare_client(self) -> None:
        """Start making what the client will need and costs CPU alone (:func:`pipeline.connect.prepare`: an https
        service's TLS context), beside the run's work, unless a client factory replaces the client."""
        if self._client_factory is None and "client" not in self.__dict__:
            connect.prepare(self._inputs.settings.service)

    async def languages(self) -> Targets:
        """The service's target languages (:meth:`Reads.languages`); the budget learns which of them bill nothing."""
        targets = await self.reads.languages()
        self.budget.free = targets.free
        return targets

    @property
    def terminology_due(self) -> bool:
        """Whether glossary or style files changed since the last sync to this service, and this run has not synced."""
        return self._terminology is not None

    async def sync_terminology(self, scanned_targets: Iterable[str]) -> Synced | None:
        """Sync the glossary and style lists whose files changed, for every target the project's catalogs have.

        Those are the settled catalogs' (known unread) and the scanned ones', so they include every
        target of the run's texts: the run uses what this sync did (None when it failed, or was done).
        A target configured without a catalog is left to ``pipeline glossary sync`` / ``style sync``.
        """
        terms, self._terminology = self._terminology, None
        if terms is None:
            return None
        targets = {*self._journal.settled_targets(), *scanned_targets}
        self._ledger.log("glossary or style files changed since the last sync: syncing them")
        issues: list[Issue] = []
        outcome = await sync_terminology(self.client, self.resources, targets, issues, self._ledger.log)
        self._ledger.add_issues(issues)
        if outcome is not None:
            try:
                synced.SyncRecord(self._journal.directory).save(self._inputs.service, terms)
            except OSError as exc:  # the next run syncs again, which writes nothing: a warning
                self._ledger.warn(self._journal.directory, f"cannot save the sync record: {exc.strerror}")
        return outcome

    def close_cache(self) -> None:
        """Close the cache now, if it was opened: the run uses it no more (a later use would open it again)."""
        cache = self.__dict__.pop("cache", None)
        if cache is not None:
            self._close(cache)

    async def aclose(self) -> None:
        """Close what the run opened: the reads, the limiter, the client (and an embedded service), the cache."""
        self.reads.forget()
        self.limiter.close()
        try:
            if "client" in self.__dict__:
                await self.client.aclose()
        finally:
            if "cache" in self.__dict__:
                self._close(self.cache)

    def _close(self, cache: TranslationCache) -> None:
        """Close ``cache``, the report told when some translation of the run is in no cache a later run reads."""
        try:
            cache.close()
        finally:
            if not cache.kept:
                self._ledger.cache_lost()


class Reads:
    """The account's usage and the service's target languages, read by one owner that can start each early.

    A read started early (:meth:`start_usage`, :meth:`start_languages`) overlaps the work done
    meanwhile, as long as that work gives the loop turns; :meth:`usage` and :meth:`languages` take
    it (or read now). The languages are read once per run. :meth:`forget` gives up whatever was
    started and not taken (a window with nothing to send after all; the run's end), so no read is
    left running or its outcome "never retrieved".
    """

    def __init__(self, client: Callable[[], AsyncClient], url: str | None) -> None:
        self._client = client  # opens the client on first use: a client that cannot be opened is said by the read
        self._url = url
        self._usage: asyncio.Future[tuple[Allowance | None, str | None]] | None = None
        self._languages: asyncio.Future[Targets] | None = None
        self._offered: Targets | None = None
        self._kept: tuple[Allowance | None, str | None] | None = None  # see keep
        self._unlimited: tuple[Allowance | None, str | None] | None = None  # the last read, when it showed no limit

    @property
    def offered(self) -> frozenset[str] | None:
        """The target codes the service offers, once read (None before)."""
        return None if self._offered is None else self._offered.offered

    @property
    def reading(self) -> bool:
        """Whether a read started early is still on its way (the event loop must keep turns to send and receive it)."""
        return any(read is not None and not read.done() for read in (self._usage, self._languages))

    def start_usage(self, languages_too: bool = False) -> None:
        """Start reading the account's usage, to be taken by :meth:`usage`.

        ``languages_too``: the target languages are read at the same time, without waiting for the
        quota check (a listing bills nothing; what the check guards is the translate requests, and
        glossary and style writes): the first request then waits for one round trip, not two.
        """
        if self._usage is None:
            self._usage = asyncio.ensure_future(read_usage(self._client(), self._url))
        if languages_too:
            self.start_languages()

    async def written(self) -> None:
        """Give the loop the turns a read just started needs to be written, before work that holds the loop (the
        window's writes) or competes for the interpreter with it (a scan in a worker thread): the read's round
        trip then overlaps that work from its start. Returns at once when no read is on its way."""
        for _ in range(_WRITE_TURNS):
            if not self.reading:
                return
            await asyncio.sleep(0)

    async def usage(self) -> tuple[Allowance | None, str | None]:
        """The account's usage: one kept since the run's last request (:meth:`keep`), the read :meth:`start_usage`
        started, the last one when it showed no limit (no quota check can stop the run: there is nothing to
        read again for), or one made now (see :func:`read_usage`)."""
        kept, self._kept = self._kept, None
        if kept is not None:
            return kept
        read, self._usage = self._usage, None
        if read is None and self._unlimited is not None:
            return self._unlimited
        got = await (read if read is not None else read_usage(self._client(), self._url))
        self._unlimited = got if got[0] is not None and got[0].left is None else None
        return got

    def keep(self, read: tuple[Allowance | None, str | None]) -> None:
        """``read`` was made after the run's last request was billed: the next :meth:`usage` returns it instead of
        reading again (the next window's first part, whose check it serves as well)."""
        self._kept = read

    def drop(self) -> None:
        """The kept read may be stale now (the run waited for another run's catalogs): the next one reads."""
        self._kept = None

    def start_languages(self) -> None:
        """Start reading the target languages the service offers, unless they were read (or are being read)."""
        if self._offered is None and self._languages is None:
            self._languages = asyncio.ensure_future(offered_targets(self._client()))

    async def languages(self) -> Targets:
        """The target codes the service offers, those it bills nothing, and a hash: read once per run, whoever
        asks while it is read waiting for the same read (raises what the read raised; the next call reads again)."""
        if self._offered is None:
            read = self._languages
            if read is None:
                read = self._languages = asyncio.ensure_future(offered_targets(self._client()))
            try:
                self._offered = await asyncio.shield(read)
            finally:
                if self._languages is read and read.done():
                    self._languages = None
        return self._offered

    def forget(self) -> None:
        """Give up the reads started and not taken."""
        for read in (self._usage, self._languages):
            if read is not None and not read.cancel() and not read.cancelled():
                read.exception()  # it ended: take its outcome, so that none is "never retrieved"
        self._usage = self._languages = None


class RunContext(NamedTuple):
    """A run with work, as its windows and rounds see it: what it was asked (inputs), what it decided (ledger),
    what runs remember, and what it opened (connections, locks, the signal handling, the progress display).

    Made all at once before the first window; no field is filled in later.
    """

    inputs: RunInputs
    ledger: Ledger
    journal: Journal  # what runs remember; read again after waiting for another run's catalogs
    provenance: Provenance
    locks: CatalogLocks  # held on a window's catalogs until it is written and saved
    connections: Connections
    interruption: Interruption  # SIGINT/SIGTERM while sending
    progress: Progress
    reuse: Index | None  # reviewed translations by language, built on first need; None: [translate] reuse off
    rejections: Rejections  # what reviewers rejected: never written again for the same entry
