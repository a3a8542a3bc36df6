"""A run's mutable state, from finding its catalogs to writing its report: what the stages take.

One :class:`RunContext` per run. It holds what was asked (settings, options), what is found out
(the report, a record per catalog, what runs remember), and the resources the run opens at most
once, on first need, and closes at its end: the translation cache, the client, the
concurrency limiter, the glossary and style plan. The catalogs are read in windows
(:func:`pipeline.catalog_paths.catalog_windows`); what belongs to one window only is a
:class:`~pipeline.run.window.Window`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.config import Settings
from pipeline.connect import ClientFactory, open_client
from pipeline.model import Issue, Severity
from pipeline.run.journal import Journal
from pipeline.run.locks import CatalogLocks
from pipeline.run.records import CatalogReport, RunOptions, RunReport

if TYPE_CHECKING:  # none of these is loaded by a run that skips every catalog
    import asyncio

    from pipeline.cache import TranslationCache
    from pipeline.client import AsyncClient
    from pipeline.quota import Allowance, UsageRecord
    from pipeline.resources.attach import Synced
    from pipeline.resources.targets import ResourcePlan
    from pipeline.run.report.progress import Progress
    from pipeline.run.reuse.index import Index
    from pipeline.run.send.budget import Budget
    from pipeline.run.send.concurrency import Limiter
    from pipeline.run.send.interruption import Interruption

__all__ = ["RunContext", "drop"]


@dataclass
class RunContext:
    """Everything a run's stages share; the orchestrator makes it and the stages fill it in."""

    settings: Settings
    options: RunOptions
    log: Callable[[str], None]
    report: RunReport
    journal: Journal
    fingerprint: str  # settings_hash of the settings: recorded with every catalog settled
    locks: CatalogLocks  # held on the run's catalogs until it ends
    paths: list[Path] = field(default_factory=list)  # catalogs not skipped as settled
    per_catalog: dict[str, CatalogReport] = field(default_factory=dict)
    clock: Callable[[], float] = time.monotonic  # seconds, for the report's timings (tests give a virtual one)
    started: float = field(init=False)  # the clock when the run started
    client_factory: ClientFactory | None = None  # replaces the client the settings describe (tests)
    progress: Progress | None = None
    terminology: str | None = None  # fingerprint of glossary and style files not yet synced to this service
    interruption: Interruption | None = None  # SIGINT/SIGTERM while sending
    budget: Budget | None = None  # the run's max_characters, across rounds and windows
    limiter: Limiter | None = None  # what it learns of the service's limit holds for the whole run
    offered: frozenset[str] | None = None  # the target codes the service offers, read once
    reuse_index: Index | None = None  # reviewed translations by language, built on first need (run.reuse)
    answered: bool = False  # the service answered this run's key once: it and the key work
    _cache: TranslationCache | None = field(default=None, init=False, repr=False)
    _client: AsyncClient | None = field(default=None, init=False, repr=False)
    _usage: asyncio.Task[tuple[Allowance | None, str | None]] | None = field(default=None, init=False, repr=False)
    _languages: asyncio.Task[tuple[frozenset[str], str]] | None = field(default=None, init=False, repr=False)
    _resources: ResourcePlan | None = field(default=None, init=False, repr=False)
    _said: set[str] = field(default_factory=set, init=False, repr=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def has_work(self) -> bool:
        """Whether there is anything to read, estimate or sync; otherwise the run ends after skipping."""
        return bool(self.paths) or self.options.dry_run or self.terminology is not None

    def say_once(self, message: str) -> None:
        """Log ``message`` unless this run said it already (a corpus is read in several windows)."""
        if message not in self._said:
            self._said.add(message)
            self.log(message)

    def warn(self, where: object, message: str) -> None:
        """A warning of the report: said once, when the run ends, where CI reads it."""
        reason = message.removeprefix("warning: ")
        if not any(i.catalog == str(where) and i.reason == reason for i in self.report.issues):
            self.report.issues.append(Issue(str(where), reason, severity=Severity.WARNING))

    def note_usage(self, usage: UsageRecord, needed: int) -> None:
        """Keep the usage read first (the run's 'before') and the latest note; say each note once.

        The embedded service bills no one: its usage is neither said nor reported.
        """
        if self.settings.service.embedded:
            return
        if usage.note:
            self.say_once(usage.note)
        elif usage.before is not None:
            left, holder = usage.before.left, usage.before.holder
            self.log(f"{left} characters left this period ({holder} limit); this run needs at most {needed}")
        self.report.usage = usage if self.report.usage is None else replace(self.report.usage, note=usage.note)

    def note_terminology(self) -> None:
        """Whether glossary or style files changed since the last sync to this service (offline, by their hashes).

        An unchanged glossary costs no request. The embedded service keeps nothing between runs, so
        there is nothing to keep in step there.
        """
        if self.settings.service.embedded:
            return
        from pipeline.resources import synced

        terms = synced.fingerprint(self.settings)
        if synced.SyncRecord(self.journal.directory).needs_sync(self.report.service, terms):
            self.terminology = terms

    async def sync_terminology(self, scanned_targets: Iterable[str]) -> Synced | None:
        """Sync the glossary and style lists whose files changed, for every target the project's catalogs have.

        Those are the settled catalogs' (known unread) and the scanned ones', so they include every
        target of the run's texts: the run uses what this sync did (None when it failed). A target
        configured without a catalog is left to ``pipeline glossary sync`` / ``style sync``.
        """
        from pipeline.resources import synced
        from pipeline.resources.attach import sync_terminology

        assert self.terminology is not None
        targets = {*self.journal.settled_targets(), *scanned_targets}
        self.log("glossary or style files changed since the last sync: syncing them")
        outcome = await sync_terminology(self.client(), self.resources(), targets, self.report.issues, self.log)
        if outcome is not None:
            try:
                synced.SyncRecord(self.journal.directory).save(self.report.service, self.terminology)
            except OSError as exc:  # the next run syncs again, which writes nothing: a warning
                self.warn(self.journal.directory, f"cannot save the sync record: {exc.strerror}")
        return outcome

    def resources(self) -> ResourcePlan:
        """The glossary and style plan: its files are read and checked once, before any request."""
        if self._resources is None:
            from pipeline.resources.targets import ResourcePlan

            self._resources = ResourcePlan(self.settings)
        return self._resources

    def cache(self) -> TranslationCache:
        """The translation cache, opened on first use: a dry run reads an existing one and creates none."""
        if self._cache is None:
            from pipeline.cache import open_cache

            cache_dir = self.settings.cache_dir if self.options.use_cache else None
            if self.options.dry_run and cache_dir is not None and not cache_dir.is_dir():
                cache_dir = None
            self._cache = open_cache(
                replace(self.settings, cache_dir=cache_dir),
                self.report.service,
                lambda message: self.warn(cache_dir, message),
                enabled=self.options.use_cache,
            )
        return self._cache

    def client(self) -> AsyncClient:
        """The service's client, opened on first use."""
        if self._client is None:
            self._client = self.client_factory() if self.client_factory else open_client(self.settings, self.log)
        return self._client

    def read_usage_soon(self, languages_too: bool = False) -> None:
        """Start reading the account's usage, to be taken by :meth:`usage`: its round trip overlaps the
        work done meanwhile, as long as that work gives the loop turns (the scan and the gate give
        one after each catalog).

        ``languages_too``: when the usage shows no limit (or cannot be read), no quota check can
        stop the run, so the target languages the service offers (read once, before the first
        translate request) are read next, without waiting for the check (:meth:`languages`).
        """
        if self._usage is None:
            import asyncio

            self._usage = asyncio.ensure_future(self._read_usage(languages_too))

    async def _read_usage(self, languages_too: bool) -> tuple[Allowance | None, str | None]:
        # The client is opened here, not when the read is started during the scan: a client that
        # cannot be opened (no key) is then said by the quota check that takes the read, once the
        # window's work that needs no service is written, as when nothing was read early.
        import asyncio

        from pipeline.quota import offered_targets, read_usage

        read = await read_usage(self.client(), self.settings.service.url)
        before = read[0]
        if (
            languages_too
            and self.offered is None
            and self._languages is None
            and (before is None or before.left is None)
        ):
            self._languages = asyncio.ensure_future(offered_targets(self.client()))
        return read

    async def usage(self) -> tuple[Allowance | None, str | None]:
        """The account's usage: the read :meth:`read_usage_soon` started, or one made now (see :func:`read_usage`)."""
        from pipeline.quota import read_usage

        read, self._usage = self._usage, None
        return await (read if read is not None else read_usage(self.client(), self.settings.service.url))

    def languages(self) -> asyncio.Future[tuple[frozenset[str], str]]:
        """The read of the target languages the service offers: the one the usage read started, or a new one."""
        import asyncio

        from pipeline.quota import offered_targets

        read, self._languages = self._languages, None
        return read if read is not None else asyncio.ensure_future(offered_targets(self.client()))

    def forget_usage(self) -> None:
        """Give up the reads started and not taken (the window had nothing to send after all)."""
        drop(self._usage)
        drop(self._languages)
        self._usage = self._languages = None

    async def aclose(self) -> None:
        """Close what the run opened: the limiter, the client (and with it an embedded service), the cache."""
        self.forget_usage()
        if self.limiter is not None:
            self.limiter.close()
        try:
            if self._client is not None:
                await self._client.aclose()
        finally:
            self._client = None
            if self._cache is not None:
                self._cache.close()
                self._cache = None

    def save_state(self) -> None:
        """Save what the run remembers; a failure is a warning (the next run just parses more)."""
        try:
            self.journal.save()
        except OSError as exc:
            self.warn(self.journal.directory, f"cannot save the run state: {exc.strerror}")

    def timed(self, stage: str, since: float) -> float:
        """Add the seconds since ``since`` to the stage's timing (windows add up); returns now."""
        now = self.clock()
        self.report.timings[stage] = round(self.report.timings.get(stage, 0.0) + now - since, 3)
        return now


def drop(read: asyncio.Future[Any] | None) -> None:
    """Cancel ``read`` if it is still running; if it ended, take its outcome, so that none is "never retrieved"."""
    if read is not None and not read.cancel() and not read.cancelled():
        read.exception()
