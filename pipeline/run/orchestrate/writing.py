"""A window's catalogs written: through the gate, their provenance recorded, atomically, settled, the state saved."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path

from pipeline.catalog_paths import display_path
from pipeline.catalogs import Unit
from pipeline.files.lockfile import state_lock, state_lock_path
from pipeline.model import Issue
from pipeline.run import gate, plan, settled, write
from pipeline.run.ledger import Ledger
from pipeline.run.orchestrate.context import RunContext
from pipeline.run.provenance import Provenance
from pipeline.run.records import Fingerprint
from pipeline.run.send import length
from pipeline.run.window import Admission, ScannedCatalog, WindowFiles

__all__ = ["save_carried", "write_window"]


async def write_window(run: RunContext, files: WindowFiles, scanned: list[ScannedCatalog]) -> None:
    """Admit each catalog's translations through the gate, record their provenance, write them, settle, save.

    The loop gets a turn after each catalog's admission, before anything is written: the usage
    read after the window's requests goes out meanwhile, and its round trip overlaps the rest. While
    a later window's requests are in flight, the catalogs are rendered and written in a worker thread
    (they are this window's alone), so that the loop sends and receives meanwhile instead of leaving
    the service idle.
    """
    await _write(run, files, scanned)
    _save(run)  # once the admissions are let go: a large catalog's translations are held once, as recorded


async def _write(run: RunContext, files: WindowFiles, scanned: list[ScannedCatalog]) -> None:
    inputs, ledger = run.inputs, run.ledger
    settings = inputs.settings
    displays = {s.display for s in scanned}
    ledger.kept_shorter(displays)
    over = length.over_length(scanned, ledger.done, ledger.window.reused, settings.over_length == "refuse")
    for display, index, note in over.review:
        ledger.over_length(display, index, note)
    for keys, issue in over.refused:
        ledger.refused_for_length(keys, issue)
    if ledger.report.service_languages is not None:
        run.journal.note_languages(inputs.service, ledger.report.service_languages)
    admissions = []
    for s in scanned:
        admissions.append(gate.admit(settings.mark_fuzzy, s, ledger.done, ledger.window.notes))
        await asyncio.sleep(0)
    ledger.release_translations(displays)  # what is written is in the admissions now: room for the rendering
    _record(run, scanned, admissions)
    jobs = [(s, a.translations, files.snapshots.get(s.path)) for s, a in zip(scanned, admissions, strict=True)]
    review = {s.display: ledger.window.review[s.display] for s in scanned if s.display in ledger.window.review}
    if run.connections.limiter.idle():
        outcomes = write.write_catalogs(settings.mark_fuzzy, jobs, review)
    else:  # a later window's requests are in flight: rendered in a worker thread, the loop keeps its turns for them
        outcomes = await asyncio.to_thread(write.write_catalogs, settings.mark_fuzzy, jobs, review)
    for s, admission, outcome in zip(scanned, admissions, outcomes, strict=True):
        ledger.admitted(s.display, admission.issues, admission.failed, admission.skipped)
        _written(run, s, admission.translations, outcome, files.snapshots.get(s.path))
    used = {s.path for s in scanned}
    for path in files.paths:  # unreadable, or of no known language: settled with that error
        if path not in used:
            display = display_path(settings.root, path)
            unread = settled.Outcome(
                ledger.issues_of(display), ledger.stopped is not None, 0, ledger.report.service_languages
            )
            settled.settle_unread(
                run.journal, inputs.fingerprint, display, path, _fingerprint(files.snapshots.get(path)), unread
            )


def _written(
    run: RunContext,
    s: ScannedCatalog,
    admitted: Mapping[int, tuple[str, ...]],
    outcome: tuple[Fingerprint | None, str | None],
    snapshot: bytes | None,
) -> None:
    """What a catalog's write came to: the report, the catalog settled."""
    inputs, ledger = run.inputs, run.ledger
    written_as, problem = outcome
    ledger.left_rejected(s.display, s.target_lang)
    if problem:
        ledger.add_issues([Issue(s.display, problem, None, s.target_lang)])
    written = admitted if written_as is not None else {}
    if written_as is not None:
        review = ledger.window.review.get(s.display, {})
        ledger.written(s.display, write.awaiting_review(s.catalog, written, inputs.settings.mark_fuzzy, review))
    else:  # taken from the cache, reused or copied, and then not written: the report does not say otherwise
        ledger.not_written([s.display])
    languages, awaiting = ledger.report.service_languages, ledger.counters(s.display).awaiting_review
    result = settled.Outcome(ledger.issues_of(s.display), ledger.stopped is not None, awaiting, languages)
    settled.settle(run.journal, inputs.fingerprint, s, written_as or _fingerprint(snapshot), written, result)


def _record(run: RunContext, scanned: list[ScannedCatalog], admissions: list[Admission]) -> None:
    """Record the provenance of what the window is about to write, and save it before the first catalog is
    written: a run killed at any moment leaves no machine translation of its own in a catalog without its
    record (it would be taken for a human's). A catalog then left as it was (changed meanwhile) keeps rows
    whose texts it does not hold: a record counts only while the unit holds exactly its text."""
    of = plan.Inputs(run.inputs.settings.source_lang, run.connections.resources)
    for s, admission in zip(scanned, admissions, strict=True):
        human = run.ledger.window.reused.get(s.display, set())  # a human's text: never recorded as the pipeline's
        if admission.translations:
            run.provenance.record(s.display, _Recorded(s, admission.translations, human, of))
    if run.provenance.changed:
        _under_state_lock(run.journal.directory, run.ledger, run.provenance.save)


class _Recorded:
    """A catalog's units about to be written, as provenance records them (unit, targets, inputs hash).

    Made again each time they are iterated, so that they are never all held
    (:meth:`~pipeline.run.provenance.Provenance.record`).
    """

    __slots__ = ("_s", "_translations", "_human", "_inputs")

    def __init__(
        self, s: ScannedCatalog, translations: Mapping[int, tuple[str, ...]], human: Collection[int], of: plan.Inputs
    ) -> None:
        self._s, self._translations, self._human, self._inputs = s, translations, human, of

    def __iter__(self) -> Iterator[tuple[Unit, tuple[str, ...], str]]:
        units, target = self._s.catalog.units, self._s.target_lang
        for index, forms in self._translations.items():
            if index not in self._human:
                unit = units[index]
                yield unit, forms, self._inputs.of_unit(target, unit)


def _save(run: RunContext) -> None:
    """Save what the run remembers (the provenance of what was written is saved before the writes: _record)."""
    if run.journal.changed:
        _under_state_lock(run.journal.directory, run.ledger, run.journal.save)


def save_carried(directory: Path | None, provenance: Provenance, ledger: Ledger) -> None:
    """At the run's end, save what its provenance still holds: the rows it carried from a file it found damaged and
    set aside when no save came after (a dry run writes no catalog, so saves none), and the records of a save that
    failed."""
    if provenance.changed:
        _under_state_lock(directory, ledger, provenance.save)


def _under_state_lock(directory: Path | None, ledger: Ledger, save: Callable[[], None]) -> None:
    """``save`` under the state's lock; a failure is a warning (the next run just parses more)."""
    if directory is None:
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with state_lock(state_lock_path(directory)):
            save()
    except OSError as exc:
        ledger.warn(directory, f"cannot save the run state: {exc.strerror}")


def _fingerprint(data: bytes | None) -> Fingerprint | None:
    return None if data is None else Fingerprint.of(data)
