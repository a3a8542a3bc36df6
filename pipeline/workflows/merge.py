"""The merge step of ``pipeline refresh``: every PO catalog of the project updated from its template.

Each catalog is merged by :mod:`pipeline.catalogs.merge` (msgmerge semantics, only the affected
entries edited) and written atomically when it changed. The run state (:mod:`pipeline.run.journal`)
remembers what each merge left: a catalog whose bytes and template are as the last merge left them
is not merged again. ``pipeline refresh --merge-only`` is this step alone, and loads nothing of a
translation run.

Which template belongs to a catalog: :func:`pipeline.catalogs.po_template.find_template`.

A catalog is merged and written under its lock (:func:`pipeline.run.catalog_lock.one_catalog`), as a
translation run writes it: a merge waits for a run that holds the catalog (up to ``lock_wait``), then
merges what the run wrote, and what a merge killed while writing leaves is removed by the next holder.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from pipeline.catalog_paths import CATALOG_SUFFIXES, display_path, find_catalogs
from pipeline.catalogs.merge import MergeResult, Template, merge_read, read_template
from pipeline.catalogs.po_template import find_template
from pipeline.config import Settings
from pipeline.errors import CatalogError
from pipeline.files.lockfile import state_lock, state_lock_path
from pipeline.files.swap import ChangedMeanwhile, write_over
from pipeline.files.untrusted import read_regular
from pipeline.model import Issue, Severity
from pipeline.run.catalog_lock import CatalogsBusy, one_catalog
from pipeline.run.journal import Journal, Merged


class MergeSummary(NamedTuple):
    """What the merge step did to one catalog."""

    path: str
    template: str
    written: bool  # the merge changed it (and wrote it, unless the refresh was --frozen)
    added: int
    fuzzy: int
    obsoleted: int
    revived: int
    removed: int


class MergeOutcome:
    """The merge step over every catalog: what changed and what could not be merged."""

    def __init__(self) -> None:
        self.catalogs: list[MergeSummary] = []
        self.issues: list[Issue] = []
        self.merged_paths: list[Path] = []


def merge_catalogs(
    settings: Settings,
    paths: Sequence[Path],
    template: Path | None,
    log: Callable[[str], None],
    write: bool = True,
    journal: Journal | None = None,
) -> MergeOutcome:
    """Update every PO catalog of ``paths`` from its template; write those that changed (unless not ``write``),
    each under its lock (the cache folder's, waiting up to ``settings.lock_wait`` for a run that holds it).

    With a ``journal``, a catalog whose bytes and template hash as the last merge left them is not
    merged again (merging would change nothing), and what each merge leaves is noted in it.
    """
    root = settings.root
    outcome = MergeOutcome()
    merging = _Merging(settings, write, journal, log)
    for path in paths:
        display = display_path(root, path)
        if path.suffix.lower() != ".po":
            outcome.issues.append(
                Issue(
                    display, "only PO catalogs are merged from a template; translated as is", severity=Severity.SKIPPED
                )
            )
            outcome.merged_paths.append(path)
            continue
        found = find_template(path, template)
        if found is None:
            outcome.issues.append(
                Issue(
                    display,
                    "no template found: pass --template or set [refresh] template "
                    "(or put <domain>.pot next to the locale folders)",
                )
            )
            continue
        summary = merging.catalog(path, display, found)
        if isinstance(summary, Issue):
            outcome.issues.append(summary)
            continue
        outcome.catalogs.append(summary)
        outcome.merged_paths.append(path)
        if summary.written:
            log(
                f"{display}: {summary.added} added, {summary.fuzzy} fuzzy, {summary.obsoleted} obsolete, "
                f"{summary.revived} revived, {summary.removed} removed (from {summary.template})"
            )
    return outcome


class _Merging:
    """The merge step's catalogs, one by one: each template read once, and parsed only when a catalog of it
    is merged; a catalog the journal knows as its last merge left it is skipped unparsed."""

    def __init__(self, settings: Settings, write: bool, journal: Journal | None, log: Callable[[str], None]) -> None:
        self.root, self.write, self.journal, self.log = settings.root, write, journal, log
        self.cache_dir, self.lock_wait = settings.cache_dir, settings.lock_wait
        # What is left of lock_wait: a run holds a window of catalogs at once, and the merge waits lock_wait in all
        # for the catalogs runs hold, not once for each of them.
        self._wait_left = settings.lock_wait
        self._templates: dict[Path, tuple[bytes, str] | CatalogError] = {}  # path -> (bytes, SHA-256)
        self._parsed: dict[Path, Template | CatalogError] = {}

    def catalog(self, path: Path, display: str, template: Path) -> MergeSummary | Issue:
        """What merging ``path`` with ``template`` did, or the issue that stopped it."""
        template_display = display_path(self.root, template)
        try:
            raw = read_regular(path)
        except OSError as exc:
            return Issue(display, f"not merged: cannot read: {exc.strerror}")
        try:
            template_digest = self._template(template)[1]
            found = self._merged(path, display, template, raw)
            if found is not None and found[1].changed and self.write:
                found = self._written(path, display, template, raw, found)
        except CatalogError as exc:
            return Issue(display_path(self.root, Path(exc.path)), f"not merged: {exc.reason}", exc.line)
        except CatalogsBusy as exc:
            return Issue(
                display,
                f"not merged: another run held it longer than lock_wait ({self.lock_wait:g} s): {exc}; "
                f"run again once it has finished",
            )
        except ChangedMeanwhile as exc:
            if exc.linked:
                return Issue(display, "not merged: the catalog was made a symbolic link during the run; run again")
            return Issue(display, f"not merged: the catalog was changed during the run; run again{exc.kept_note}")
        except OSError as exc:
            return Issue(display, f"cannot write the catalog: {exc.strerror}")
        if found is None:  # as the last merge left it
            return MergeSummary(display, template_display, False, 0, 0, 0, 0, 0)
        digest, result = found
        if self.journal is not None and (self.write or not result.changed):
            left = hashlib.sha256(result.data).hexdigest() if result.changed else digest
            self.journal.note_merged(display, Merged(template_display, template_digest, left))
        counts = (result.added, result.fuzzy, result.obsoleted, result.revived, result.removed)
        return MergeSummary(display, template_display, result.changed, *counts)

    def _merged(self, path: Path, display: str, template: Path, raw: bytes) -> tuple[str, MergeResult] | None:
        """``raw`` (the catalog's bytes) merged with ``template``, and their SHA-256; None when the journal knows them
        as what the last merge with this template left."""
        digest = hashlib.sha256(raw).hexdigest()
        journal = self.journal
        if journal is not None:
            template_display, template_digest = display_path(self.root, template), self._template(template)[1]
            if journal.merged(display, template_display, template_digest, digest):
                return None
        return digest, merge_read(path, raw, self._parsed_template(template))

    def _written(
        self, path: Path, display: str, template: Path, raw: bytes, found: tuple[str, MergeResult]
    ) -> tuple[str, MergeResult] | None:
        """Write ``found`` (the merge of ``raw``) under the catalog's lock; what was written (None: nothing was).

        Only over ``raw``: a catalog written since it was read (by a run that held it, which the lock
        waited for) is read and merged again under the lock, once; changed again, it is left as it is
        (:class:`ChangedMeanwhile`).
        """
        with self._locked(path, display):
            try:
                write_over(path, found[1].data, raw)  # only while it holds what was merged: a save is never lost
                return found
            except ChangedMeanwhile as exc:
                # Two saves in an instant (both kept, for the user to look at), or a link put in its place (not
                # read through: it is left as it is, and what it leads to would be refused at the write anyway).
                if exc.kept is not None or exc.linked:
                    raise
                try:
                    raw = read_regular(path)
                except OSError:  # removed meanwhile: left so
                    raise exc from None
            again = self._merged(path, display, template, raw)
            if again is not None and again[1].changed:
                write_over(path, again[1].data, raw)
            return again

    @contextlib.contextmanager
    def _locked(self, path: Path, display: str) -> Iterator[None]:
        """``path``'s lock (:func:`one_catalog`), its wait taken from what is left of ``lock_wait``."""
        started, entered = time.monotonic(), False
        try:
            with one_catalog(self.cache_dir, path, display, self._wait_left, self.log):
                entered = True
                self._wait_left = max(0.0, self._wait_left - (time.monotonic() - started))
                yield
        finally:
            if not entered:  # waited the rest out (CatalogsBusy)
                self._wait_left = max(0.0, self._wait_left - (time.monotonic() - started))

    def _template(self, path: Path) -> tuple[bytes, str]:
        """The template's bytes and their SHA-256; CatalogError when it cannot be read."""
        if path not in self._templates:
            try:
                data = read_regular(path)
                self._templates[path] = (data, hashlib.sha256(data).hexdigest())
            except OSError as exc:
                self._templates[path] = CatalogError(str(path), f"cannot read: {exc.strerror}")
        found = self._templates[path]
        if isinstance(found, CatalogError):
            raise found
        return found

    def _parsed_template(self, path: Path) -> Template:
        """The template as the strict reader reads it; CatalogError, with its line, when it is broken."""
        if path not in self._parsed:
            try:
                self._parsed[path] = read_template(path, self._template(path)[0])
            except CatalogError as exc:
                self._parsed[path] = exc
        found = self._parsed[path]
        if isinstance(found, CatalogError):
            raise found
        return found


def merge_templates(
    settings: Settings,
    paths: Sequence[Path] = (),
    template: Path | None = None,
    *,
    log: Callable[[str], None] = lambda message: None,
    frozen: bool = False,
) -> MergeOutcome:
    """Merge every catalog of the project (or of ``paths``) with its template, and save what the merges left.

    ``frozen``: merge in memory, write nothing, log nothing (the caller lists what would change).
    """
    found = find_catalogs(settings, paths, writing=not frozen)  # a frozen refresh writes nothing
    catalogs = [p for p in found.paths if p.suffix.lower() in CATALOG_SUFFIXES]
    # A frozen refresh lists what the merge would do itself; a log of merges that did not happen would mislead.
    merge_log = (lambda message: None) if frozen else log
    journal = Journal(settings.cache_dir)
    outcome = merge_catalogs(settings, catalogs, template or settings.refresh_template, merge_log, not frozen, journal)
    outcome.issues[:0] = found.refused
    if not frozen:
        outcome.issues.extend(_save(journal))
    return outcome


def _save(journal: Journal) -> list[Issue]:
    """Save what the merge step left in the journal (under the state's lock); a failure is a warning."""
    directory = journal.directory
    if directory is None or not journal.changed:
        return []
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with state_lock(state_lock_path(directory)):
            journal.save()
    except OSError as exc:  # the next refresh merges again: nothing is lost
        return [Issue(str(directory), f"cannot save the run state: {exc.strerror}", severity=Severity.WARNING)]
    return []
