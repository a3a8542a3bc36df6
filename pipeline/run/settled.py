"""Settled catalogs: skip those an earlier run finished and nobody changed since; settle the ones this run finishes.

A run with nothing new (the pre-commit hook's usual case) stops after :func:`skip_unchanged`: it
imports neither asyncio nor the catalog parsers nor the client. What is remembered between runs,
and how, is :mod:`pipeline.run.journal`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline import locales
from pipeline.catalog_paths import display_path
from pipeline.model import Cause, Issue, Severity
from pipeline.run.context import RunContext
from pipeline.run.journal import Settled
from pipeline.run.records import CatalogReport, Fingerprint

if TYPE_CHECKING:
    from pipeline.run.window import ScannedCatalog

__all__ = ["settle", "settle_unread", "skip_unchanged"]


def skip_unchanged(run: RunContext, paths: list[Path]) -> list[Path]:
    """Drop the catalogs an earlier run settled and nobody changed since; replay their notices into the report."""
    report = run.report
    wanted = locales.selection((*run.settings.target_langs, *run.options.target_langs))
    left: list[Path] = []
    for path in paths:
        display = display_path(run.settings, path)
        record = run.journal.unchanged(display, path, run.fingerprint, report.service)
        if record is None or record.awaiting is None or (record.retry and not run.options.frozen):
            left.append(path)
            continue
        if record.locale and not locales.selected(wanted, record.locale, record.target_lang):
            continue  # as scan does: not part of this run at all
        cat = run.per_catalog[display] = CatalogReport(display, record.target_lang, unchanged=True)
        cat.counters.segments_skipped = record.skipped
        cat.counters.awaiting_review = record.awaiting
        report.issues.extend(
            Issue(
                display, reason, line, record.target_lang or None, Severity(severity), Cause(cause) if cause else None
            )
            for line, reason, severity, cause in record.notices
        )
        report.unchanged_catalogs += 1
    return left


def settle(run: RunContext, s: ScannedCatalog, data: Fingerprint | None, written: dict[int, tuple[str, ...]]) -> None:
    """Remember ``s`` as settled when nothing is left to do in it, so the next run skips it unread.

    Nothing left means every unit was written, or failed for a reason no rerun can change (an
    :class:`~pipeline.model.Issue` with a ``cause``: an input error, a language the service does
    not offer); it is then settled with those errors, which every skipping run reports again.
    Units refused for a reason a rerun may change (the gate refused what the service answered)
    settle the catalog for a check only (``retry``): a real run sends them again, ``--frozen``
    reports what this run refused and exits as it did, instead of listing them as work to do.
    ``data`` fingerprints what was parsed (read before parsing) or what was written: if the file changed in
    between, its hash no longer matches and the next run parses it again, which is always safe.
    """
    issues = [i for i in run.report.issues if i.catalog == s.display]
    refused = {i.line for i in issues if i.severity is Severity.ERROR and i.cause is None}
    if data is None or None in refused or (refused and run.report.stopped is not None):
        run.journal.unsettle(s.display)  # the catalog as a whole failed, or the run stopped: nothing to replay
        return
    lasting = {i.line for i in issues if i.cause is not None} | refused
    # No set of every unit index (two, for a large catalog, at the run's peak): only the few unwritten.
    unwritten = {s.catalog.units[index].line for index in s.source_forms if index not in written}
    if not (None in lasting or unwritten <= lasting):
        run.journal.unsettle(s.display)
        return
    awaiting = run.per_catalog[s.display].counters.awaiting_review
    record = _record(run, s.path, data, issues, s.locale, s.target_lang, s.skipped, awaiting)
    if record is None:
        run.journal.unsettle(s.display)
    else:
        run.journal.settle(s.display, replace(record, retry=bool(refused)))


def settle_unread(run: RunContext, path: Path, data: Fingerprint | None) -> None:
    """Remember a catalog that could not be used at all (unreadable, no language) while its bytes stay the same."""
    display = display_path(run.settings, path)
    issues = [i for i in run.report.issues if i.catalog == display]
    record = None
    if data is not None and issues and not any(i.severity is Severity.ERROR and i.cause is None for i in issues):
        record = _record(run, path, data, issues)
    if record is None:
        run.journal.unsettle(display)
    else:
        run.journal.settle(display, record)


def _record(
    run: RunContext,
    path: Path,
    data: Fingerprint,
    issues: list[Issue],
    locale: str = "",
    target: str = "",
    skipped: int = 0,
    awaiting: int = 0,
) -> Settled | None:
    """The settled record of a catalog whose bytes ``data`` fingerprints, or None when it cannot be settled now."""
    try:
        stat = path.stat()
    except OSError:
        return None
    if stat.st_size != data.size:
        return None
    languages = None
    if any(i.cause is Cause.LANGUAGE for i in issues):
        languages = run.report.service_languages
        if languages is None:  # not offered, but by a list we did not see: nothing to compare with later
            return None
    notices = tuple((i.line, i.reason, str(i.severity), i.cause.value if i.cause else None) for i in issues)
    return Settled(
        stat.st_size,
        stat.st_mtime_ns,
        data.sha256,
        run.fingerprint,
        locale,
        target,
        skipped,
        notices,
        languages,
        awaiting=awaiting,
    )
