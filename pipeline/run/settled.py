"""Settled catalogs: skip those an earlier run finished and nobody changed since; settle the ones this run finishes.

A run with nothing new (the pre-commit hook's usual case) stops after :func:`skip_unchanged`: it
imports neither asyncio nor the catalog parsers nor the client. What is remembered between runs,
and how, is :mod:`pipeline.run.state`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from pipeline import locales
from pipeline.catalog_paths import display_path
from pipeline.config import Settings
from pipeline.model import Cause, Issue, Severity
from pipeline.run.records import CatalogReport, RunReport, ScannedCatalog
from pipeline.run.state import RunState, Settled

__all__ = ["settle", "settle_unread", "skip_unchanged"]


def skip_unchanged(
    settings: Settings,
    state: RunState,
    fingerprint: str,
    paths: list[Path],
    target_filter: Sequence[str],
    report: RunReport,
    per_catalog: dict[str, CatalogReport],
) -> list[Path]:
    """Drop the catalogs an earlier run settled and nobody changed since; replay their notices into the report."""
    wanted = locales.selection((*settings.target_langs, *target_filter))
    left: list[Path] = []
    for path in paths:
        display = display_path(settings, path)
        record = state.unchanged(display, path, fingerprint, report.service)
        if record is None:
            left.append(path)
            continue
        if record.locale and not locales.selected(wanted, record.locale, record.target_lang):
            continue  # as scan does: not part of this run at all
        cat = per_catalog[display] = CatalogReport(display, record.target_lang, unchanged=True)
        cat.counters.segments_skipped = record.skipped
        report.issues.extend(
            Issue(
                display, reason, line, record.target_lang or None, Severity(severity), Cause(cause) if cause else None
            )
            for line, reason, severity, cause in record.notices
        )
        report.unchanged_catalogs += 1
    return left


def settle(
    state: RunState,
    s: ScannedCatalog,
    fingerprint: str,
    data: bytes | None,
    written: dict[int, tuple[str, ...]],
    report: RunReport,
) -> None:
    """Remember ``s`` as settled when nothing is left to do in it, so the next run skips it unread.

    Nothing left means every unit was written, or failed for a reason no rerun can change (an
    :class:`~pipeline.model.Issue` with a ``cause``: an input error, a language the service does
    not offer); it is then settled with those errors, which every skipping run reports again.
    ``data`` is what was parsed (read before parsing) or what was written: if the file changed in
    between, its hash no longer matches and the next run parses it again, which is always safe.
    """
    issues = [i for i in report.issues if i.catalog == s.display]
    if data is None or any(i.severity is Severity.ERROR and i.cause is None for i in issues):
        state.unsettle(s.display)
        return
    lasting = {i.line for i in issues if i.cause is not None}
    unwritten = {s.catalog.units[index].line for index in set(s.source_forms) - set(written)}
    if not (None in lasting or unwritten <= lasting):
        state.unsettle(s.display)
        return
    _settle(state, s.display, s.path, data, fingerprint, s.locale, s.target_lang, s.skipped, issues, report)


def settle_unread(
    state: RunState, display: str, path: Path, fingerprint: str, data: bytes | None, report: RunReport
) -> None:
    """Remember a catalog that could not be used at all (unreadable, no language) while its bytes stay the same."""
    issues = [i for i in report.issues if i.catalog == display]
    if data is None or not issues or any(i.severity is Severity.ERROR and i.cause is None for i in issues):
        state.unsettle(display)
        return
    _settle(state, display, path, data, fingerprint, "", "", 0, issues, report)


def _settle(
    state: RunState,
    display: str,
    path: Path,
    data: bytes,
    fingerprint: str,
    locale: str,
    target_lang: str,
    skipped: int,
    issues: list[Issue],
    report: RunReport,
) -> None:
    try:
        stat = path.stat()
    except OSError:
        state.unsettle(display)
        return
    if stat.st_size != len(data):
        state.unsettle(display)
        return
    languages = None
    if any(i.cause is Cause.LANGUAGE for i in issues):
        languages = report.service_languages
        if languages is None:  # not offered, but by a list we did not see: nothing to compare with later
            state.unsettle(display)
            return
    notices = tuple((i.line, i.reason, str(i.severity), i.cause.value if i.cause else None) for i in issues)
    state.settle(
        display,
        Settled(
            stat.st_size,
            stat.st_mtime_ns,
            hashlib.sha256(data).hexdigest(),
            fingerprint,
            locale,
            target_lang,
            skipped,
            notices,
            languages,
        ),
    )
