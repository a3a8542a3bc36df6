"""Settled catalogs: skip those an earlier run finished and nobody changed since; settle the ones this run finishes.

A run with nothing new (the pre-commit hook's usual case) stops after :func:`skip_unchanged`: it
imports neither asyncio nor the catalog parsers nor the client. What is remembered between runs,
and how, is :mod:`pipeline.run.journal`.
"""

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pipeline import locales
from pipeline.catalog_paths import display_path
from pipeline.model import Cause, Issue, Severity
from pipeline.run.journal import Journal, Settled
from pipeline.run.records import Fingerprint

if TYPE_CHECKING:  # a run with nothing new settles nothing: the window's records are loaded with the work
    from pipeline.run.window import ScannedCatalog

__all__ = ["Outcome", "Unchanged", "settle", "settle_unread", "skip_unchanged"]


class Unchanged(NamedTuple):
    """The catalogs an earlier run settled and nobody changed since (skipped unread), and the others."""

    left: list[Path]  # to read
    settled: list[tuple[str, Settled]]  # (display, its record): the report replays them


def skip_unchanged(
    journal: Journal,
    root: Path,
    wanted: set[str],
    frozen: bool,
    marks: tuple[tuple[str, ...], str],
    paths: list[Path],
) -> Unchanged:
    """Drop the catalogs an earlier run settled and nobody changed since.

    ``wanted``: the target locales the run selects (:func:`pipeline.locales.selection`); ``marks``:
    the fingerprints of the settings a record may hold (:attr:`~pipeline.run.records.RunInputs.skips`)
    and the service's name; a record settled for a check only (``retry``) is skipped by a check
    (``frozen``) alone.
    """
    fingerprints, service = marks
    left: list[Path] = []
    settled: list[tuple[str, Settled]] = []
    for path in paths:
        display = display_path(root, path)
        record = journal.unchanged(display, path, fingerprints, service)
        if record is None or record.awaiting is None or (record.retry and not frozen):
            left.append(path)
            continue
        if record.locale and not locales.selected(wanted, record.locale, record.target_lang):
            continue  # as scan does: not part of this run at all
        settled.append((display, record))
    return Unchanged(left, settled)


class Outcome(NamedTuple):
    """What a catalog's run came to, as settling it needs: its issues, whether the run stopped, what awaits review."""

    issues: list[Issue]
    stopped: bool
    awaiting: int = 0
    languages: str | None = None  # the hash of the service's language list, when this run read it


def settle(
    journal: Journal,
    fingerprint: str,
    s: "ScannedCatalog",
    data: Fingerprint | None,
    written: Collection[int],
    outcome: Outcome,
) -> None:
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
    issues = outcome.issues
    refused = {i.line for i in issues if i.severity is Severity.ERROR and i.cause is None}
    if data is None or None in refused or (refused and outcome.stopped):
        journal.unsettle(s.display)  # the catalog as a whole failed, or the run stopped: nothing to replay
        return
    lasting = {i.line for i in issues if i.cause is not None} | refused
    # No set of every unit index (two, for a large catalog, at the run's peak): only the few unwritten.
    unwritten = {s.catalog.units[index].line for index in s.source_forms if index not in written}
    if not (None in lasting or unwritten <= lasting):
        journal.unsettle(s.display)
        return
    record = _record(s.path, data, outcome, fingerprint, (s.locale, s.target_lang, s.skipped))
    if record is None:
        journal.unsettle(s.display)
    else:
        journal.settle(s.display, record._replace(retry=bool(refused)))


def settle_unread(
    journal: Journal, fingerprint: str, display: str, path: Path, data: Fingerprint | None, outcome: Outcome
) -> None:
    """Remember a catalog that could not be used at all (unreadable, no language) while its bytes stay the same."""
    issues = outcome.issues
    record = None
    if data is not None and issues and not any(i.severity is Severity.ERROR and i.cause is None for i in issues):
        record = _record(path, data, outcome, fingerprint, ("", "", 0))
    if record is None:
        journal.unsettle(display)
    else:
        journal.settle(display, record)


def _record(
    path: Path, data: Fingerprint, outcome: Outcome, fingerprint: str, language: tuple[str, str, int]
) -> Settled | None:
    """The settled record of a catalog whose bytes ``data`` fingerprints (``language``: its locale, target and
    units skipped), or None when it cannot be settled now."""
    try:
        stat = path.stat()
    except OSError:
        return None
    if stat.st_size != data.size:
        return None
    languages = None
    if any(i.cause is Cause.LANGUAGE for i in outcome.issues):
        languages = outcome.languages
        if languages is None:  # not offered, but by a list we did not see: nothing to compare with later
            return None
    notices = tuple((i.line, i.reason, str(i.severity), i.cause.value if i.cause else None) for i in outcome.issues)
    locale, target, skipped = language
    return Settled(
        stat.st_size,
        stat.st_mtime_ns,
        data.sha256,
        fingerprint,
        locale,
        target,
        skipped,
        notices,
        languages,
        awaiting=outcome.awaiting,
    )
