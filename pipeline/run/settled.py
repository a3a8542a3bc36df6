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
from pipeline.model import Issue
from pipeline.run.records import CatalogReport, RunReport, ScannedCatalog
from pipeline.run.state import RunState, Settled

__all__ = ["settle", "skip_unchanged"]


def skip_unchanged(settings: Settings, state: RunState, fingerprint: str, paths: list[Path],
                   target_filter: Sequence[str], report: RunReport,
                   per_catalog: dict[str, CatalogReport]) -> list[Path]:
    """Drop the catalogs an earlier run settled and nobody changed since; replay their notices into the report."""
    wanted = locales.selection((*settings.target_langs, *target_filter))
    left: list[Path] = []
    for path in paths:
        display = display_path(settings, path)
        record = state.unchanged(display, path, fingerprint)
        if record is None:
            left.append(path)
            continue
        if not locales.selected(wanted, record.locale, record.target_lang):
            continue  # as scan does: not part of this run at all
        cat = per_catalog[display] = CatalogReport(display, record.target_lang, unchanged=True)
        cat.counters.segments_skipped = record.skipped
        report.issues.extend(Issue(display, reason, line, record.target_lang, severity)
                             for line, reason, severity in record.notices)
        report.unchanged_catalogs += 1
    return left


def settle(state: RunState, s: ScannedCatalog, fingerprint: str, data: bytes | None,
           written: dict[int, tuple[str, ...]], failed: bool, report: RunReport) -> None:
    """Remember ``s`` as settled when nothing is left to do in it, so the next run skips it unread.

    ``data`` is what was parsed (read before parsing) or what was written: if the file changed in
    between, its hash no longer matches and the next run parses it again, which is always safe.
    """
    if failed or data is None or set(written) != set(s.source_forms):
        state.unsettle(s.display)
        return
    notices = tuple((i.line, i.reason, i.severity) for i in report.issues if i.catalog == s.display)
    try:
        stat = s.path.stat()
    except OSError:
        state.unsettle(s.display)
        return
    if stat.st_size != len(data):
        state.unsettle(s.display)
        return
    state.settle(s.display, Settled(stat.st_size, stat.st_mtime_ns, hashlib.sha256(data).hexdigest(), fingerprint,
                                    s.locale, s.target_lang, s.skipped, notices))
