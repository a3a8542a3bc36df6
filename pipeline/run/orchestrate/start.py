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
from pipeline.run.journal import Journal, settings_hash
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
    journal = Journal(settings.cache_dir)
    service = service_identity(settings.service)
    if options.frozen and not settings.service.url:
        # A CI check names no service: the one the last run used is whose results the cache holds.
        service = journal.last_service() or service
    ledger = Ledger(service, options.dry_run, settings.max_characters, log, clock)
    found = find_catalogs(settings, options.paths)
    ledger.add_issues(found.refused)
    fingerprint = settings_hash(settings)
    paths = unsettled(settings, options, journal, (fingerprint, service), found.paths, ledger)
    terminology = None
    if not options.dry_run and not settings.service.embedded:  # the embedded service keeps nothing between runs
        terms = synced.fingerprint(settings)  # glossary and style files changed since the last sync: offline
        if synced.SyncRecord(journal.directory).needs_sync(service, terms):
            terminology = terms
    return RunInputs(settings, options, service, fingerprint, tuple(paths), terminology, started), ledger, journal


def unsettled(
    settings: Settings,
    options: RunOptions,
    journal: Journal,
    marks: tuple[str, str],
    paths: list[Path],
    ledger: Ledger,
) -> list[Path]:
    """The catalogs of ``paths`` an earlier run did not settle (a refresh looks at every fuzzy unit: all);
    the settled ones go into the report as that run left them."""
    if options.retranslate_stale:
        return paths
    wanted = locales.selection((*settings.target_langs, *options.target_langs))
    found = skip_unchanged(journal, settings.root, wanted, options.frozen, marks, paths)
    for display, record in found.settled:
        ledger.unchanged(display, record)
    return found.left


def finish(inputs: RunInputs, ledger: Ledger) -> RunReport:
    """The run's report: its counters summed, its time and exit code."""
    return ledger.finish(inputs.started, lambda report: exit_code(report, inputs.options.frozen))
