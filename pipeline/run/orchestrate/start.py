"""How every run starts: what it is asked (its inputs), the catalogs an earlier run settled skipped; and how it ends."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from pipeline import locales
from pipeline.catalog_paths import find_catalogs
from pipeline.config import Settings
from pipeline.connect import check_service, service_identity
from pipeline.resources import synced
from pipeline.run import cache_folder
from pipeline.run.journal import Journal, settings_hash, stale_hash
from pipeline.run.ledger import Ledger
from pipeline.run.records import RunInputs, RunOptions, RunReport
from pipeline.run.report import exit_code
from pipeline.run.settled import skip_unchanged

__all__ = ["begin", "finish", "unsettled"]


def begin(
    settings: Settings,
    options: RunOptions,
    log: Callable[[str], None],
    clock: Callable[[], float] = time.monotonic,
) -> tuple[RunInputs, Ledger, Journal]:
    """Check the service is configured, find the catalogs, skip those an earlier run settled.

    What is left is the run's inputs; the catalogs are locked window by window, each before it is
    read (:mod:`.work`).
    """
    started = clock()
    if not options.dry_run:
        check_service(settings.service)
        settings = cache_folder.usable(settings, log)
    journal = Journal(settings.cache_dir)
    service = service_identity(settings.service)
    if options.frozen and not settings.service.url:
        # A CI check names no service: the one the last run used is whose results the cache holds.
        service = journal.last_service() or service
    ledger = Ledger(service, options.dry_run, settings.max_characters, log, clock)
    found = find_catalogs(settings, options.paths)
    ledger.add_issues(found.refused)
    # Glossary and style files as they are now (offline): changed since the last sync, they are synced first.
    terms = synced.fingerprint(settings)
    own = settings_hash(settings)
    refreshed = stale_hash(own, terms)  # a glossary edit makes machine translations stale: a refresh redoes them
    fingerprint, skips = (refreshed, (refreshed,)) if options.retranslate_stale else (own, (own, refreshed))
    paths = unsettled(settings, options, journal, (skips, service), found.paths, ledger)
    terminology = None
    # The embedded service keeps nothing between runs: nothing to sync before a run that has no work.
    if not options.dry_run and not settings.service.embedded:
        if synced.SyncRecord(journal.directory).needs_sync(service, terms):
            terminology = terms
    # What the configuration finds is the project reuse draws on: found once, not walked again for it.
    project = None if options.paths else tuple(sorted({*found.paths, *found.read_only}))
    inputs = RunInputs(settings, options, service, fingerprint, skips, tuple(paths), terminology, started, project)
    return inputs, ledger, journal


def unsettled(
    settings: Settings,
    options: RunOptions,
    journal: Journal,
    marks: tuple[tuple[str, ...], str],
    paths: list[Path],
    ledger: Ledger,
) -> list[Path]:
    """The catalogs of ``paths`` an earlier run did not settle; the settled ones go into the report as that
    run left them. A refresh skips only what a refresh settled (:func:`~pipeline.run.journal.stale_hash`)."""
    wanted = locales.selection((*settings.target_langs, *options.target_langs))
    found = skip_unchanged(journal, settings.root, wanted, options.frozen, marks, paths)
    for display, record in found.settled:
        ledger.unchanged(display, record)
    return found.left


def finish(inputs: RunInputs, ledger: Ledger) -> RunReport:
    """The run's report: its counters summed, its time and exit code."""
    return ledger.finish(inputs.started, lambda report: exit_code(report, inputs.options.frozen))
