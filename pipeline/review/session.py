"""A review session: the project's catalogs, the entries awaiting review in them, and the reviewer's decisions.

The catalogs are the ones a run would find (:func:`pipeline.catalog_paths.find_catalogs`, the same
configuration, writable ones only); a request names an entry by the id this session gave it,
never a path, so nothing but those catalogs can be written.

Every decision is written at once, atomically, and only over the bytes the session read
(:func:`pipeline.files.swap.write_over`: the check and the replacement are one
step). A catalog saved by another program meanwhile is read again first: a decision on an entry
the other program did not touch is written into the new bytes (its change is kept); one on an
entry it changed is refused as a :class:`Conflict` carrying the entry as it is now, for the
reviewer to look at again. Nothing is sent anywhere.

Each decision is read and written under its catalog's lock (:func:`pipeline.run.catalog_lock.one_catalog`),
as a translation run writes it: one made while a run holds the catalog waits a few seconds, then is
refused naming the run (the run would otherwise find its catalog changed and write nothing), and
what a session killed while writing left is removed by the next holder. A server waits through
:meth:`Session.turn`, which leaves its event loop free to answer other requests meanwhile.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from pipeline import locales
from pipeline.catalog_paths import catalog_locale, display_path, find_catalogs
from pipeline.catalogs import Catalog, Reviewed, Unit, UnitState, read_catalog
from pipeline.catalogs.keyed import translated_from
from pipeline.catalogs.po import PoCatalog
from pipeline.catalogs.po_template import TemplateTexts
from pipeline.catalogs.xliff.catalog import XliffCatalog
from pipeline.config import Settings
from pipeline.errors import CatalogError
from pipeline.files.lockfile import state_lock, state_lock_path
from pipeline.files.swap import ChangedMeanwhile, write_over
from pipeline.files.untrusted import read_regular
from pipeline.model import Severity
from pipeline.plural_rules import PluralRule, plural_rule_for
from pipeline.review import entries
from pipeline.review.entries import Details, Origin, Status
from pipeline.run.catalog_lock import CatalogsBusy, one_catalog, one_catalog_awaited
from pipeline.run.provenance import PROVENANCE_FILE, Provenance, Rejections

#: Times a decision is tried again when the catalog changes between reading it and writing it.
WRITE_TRIES = 3
#: Seconds a decision waits for a catalog another run holds (at most ``lock_wait``): the page waits meanwhile.
DECISION_WAIT = 5.0
MAX_NOTE = 1000  # characters
#: The order entries are listed in, within a catalog: machine translations first.
ORIGIN_ORDER = {Origin.MACHINE: 0, Origin.REUSED: 1, Origin.FUZZY: 2}
#: What each decision is called in the summary.
DECIDED = (Status.ACCEPTED, Status.EDITED, Status.REJECTED, Status.NOTED)


class Refused(Exception):
    """A decision that cannot be written as asked (it breaks a check, the format cannot hold it): the reasons."""

    def __init__(self, reasons: Sequence[str]) -> None:
        super().__init__("; ".join(reasons))
        self.reasons = list(reasons)


class Conflict(Exception):
    """The entry changed in the file (or went) since the page showed it: nothing was written."""

    def __init__(self, reason: str, entry: Entry | None) -> None:
        super().__init__(reason)
        self.reason, self.entry = reason, entry


@dataclass(frozen=True, slots=True)
class Entry:
    """A unit awaiting review (or decided in this session), as the page lists it."""

    id: str
    catalog: int  # the session's number for the catalog
    key: str  # its identity in the catalog (:func:`entries.identity`)
    index: int  # the unit's index in the catalog as last read
    line: int
    origin: Origin
    reused_from: str | None
    level: str  # the checks' verdict on its translation: error, warning or ok
    version: str
    status: Status = Status.PENDING


@dataclass
class Loaded:
    """One catalog of the session: the bytes read, their parse, and what the page needs of it."""

    number: int
    path: Path
    display: str
    language: str
    raw: bytes
    catalog: Catalog
    rule: PluralRule | None
    target: str | None  # the service's code for its language: what a run translates it into
    details: dict[int, Details] = field(default_factory=dict)  # PO: per unit index
    keys: dict[str, int] = field(default_factory=dict)  # unit identity -> index
    # Key-based XLIFF (Symfony's ``post.edit``): per unit index, the key as written. The catalog's units
    # have the text the key stands for as their source, as a run translates and checks them
    # (:func:`pipeline.catalogs.keyed.translated_from`).
    key_of: dict[int, str] = field(default_factory=dict)


class Outcome(NamedTuple):
    """What a decision did: the entry as written, and the entries of its catalog when another program changed it."""

    entry: Entry
    warnings: tuple[str, ...] = ()
    reloaded: tuple[Entry, ...] = ()


class Session:
    """The catalogs of one review, their entries, and the decisions made; one request at a time."""

    def __init__(self, settings: Settings, paths: Sequence[Path] = (), warn: Callable[[str], None] = print) -> None:
        self.settings = settings
        self.warn = warn
        self.catalogs: list[Loaded] = []
        self.entries: dict[str, Entry] = {}
        self.decided: Counter[tuple[str, Status]] = Counter()  # (language, decision)
        self._serial = 0
        self._held: int | None = None  # the catalog whose lock :meth:`turn` holds, for the decision it awaits
        self._provenance = Provenance(settings.cache_dir, warn)
        self._rejections = Rejections(settings.cache_dir)
        self._templates = TemplateTexts()  # a Zope id's text: its template's, as translate and check read it
        found = find_catalogs(settings, paths, writing=True)
        for issue in found.refused:
            warn(f"{issue.where()}: {issue.reason}")
        for path in found.paths:
            loaded = self._load(path, warn)
            if loaded is not None:
                self.catalogs.append(loaded)
                self._index(loaded)

    # -- reading ----------------------------------------------------------------------------

    def _load(self, path: Path, warn: Callable[[str], None]) -> Loaded | None:
        display = display_path(self.settings.root, path)
        if path.suffix.lower() == ".pot":
            return None
        try:
            raw = path.read_bytes()
            catalog = self._templates.apply(read_catalog(path, raw), path, self.settings.refresh_template)
        except OSError as exc:
            warn(f"{display}: cannot read: {exc.strerror}")
            return None
        except CatalogError as exc:
            warn(f"{display}:{exc.line}: {exc.reason}" if exc.line else f"{display}: {exc.reason}")
            return None
        language = catalog_locale(self.settings, path, catalog.language)
        if language is None:
            warn(f"{display}: names no language (add it to [translate] languages): shown as '?'")
        rule = catalog.plural or (plural_rule_for(language) if language else None)
        target = locales.service_target(language, dict(self.settings.locale_map)) if language else None
        loaded = Loaded(len(self.catalogs), path, display, language or "?", raw, catalog, rule, target)
        self._parsed(loaded)
        return loaded

    def _parsed(self, loaded: Loaded) -> None:
        """What the page needs of ``loaded``'s catalog as just parsed, beyond its units."""
        catalog = loaded.catalog
        loaded.details = _details(catalog)
        loaded.key_of = {}
        if isinstance(catalog, XliffCatalog) and loaded.language != "?":
            texts = translated_from(catalog, loaded.language, self.settings.source_lang)
            if texts:
                loaded.key_of = {index: catalog.units[index].sources[0] for index in texts}
                loaded.catalog = catalog.with_sources(texts)

    def _index(self, loaded: Loaded) -> list[Entry]:
        """(Re)build the entries of ``loaded`` from its units; those gone from review meanwhile are marked so."""
        previous = {e.key: e for e in self.entries.values() if e.catalog == loaded.number}
        seen: dict[str, int] = {}
        fresh: list[Entry] = []
        loaded.keys = {}
        for unit in loaded.catalog.units:
            key = entries.identity(unit, seen)
            loaded.keys[key] = unit.position
            if unit.state is not UnitState.FUZZY:
                continue
            details = loaded.details.get(unit.position, Details())
            machine = self._provenance.machine_written(loaded.display, unit) is not None
            origin, reused_from = entries.origin(unit, details, machine)
            found = entries.problems(loaded.catalog, unit, entries.current_targets(unit))
            old = previous.pop(key, None)
            if old is None:
                self._serial += 1
            entry_id = f"e{self._serial}" if old is None else old.id
            entry = Entry(
                entry_id,
                loaded.number,
                key,
                unit.position,
                unit.line,
                origin,
                reused_from,
                entries.level(found),
                entries.version(unit),
                Status.NOTED if old is not None and old.status is Status.NOTED else Status.PENDING,
            )
            self.entries[entry_id] = entry
            fresh.append(entry)
        for old in previous.values():
            if old.status is Status.PENDING:  # another program reviewed it or removed it
                self.entries[old.id] = replace(old, status=Status.ELSEWHERE)
            fresh.append(self.entries[old.id])
        self._keep_carried()
        return fresh

    def _keep_carried(self) -> None:
        """Save what the provenance file held before a read found it damaged and set it aside: the provenance
        carries those rows for its next save, and a review, which records none of its own, makes no other."""
        directory = self.settings.cache_dir
        if directory is None or not self._provenance.changed:
            return
        try:
            with state_lock(state_lock_path(directory)):
                self._provenance.save()
        except OSError as exc:
            self.warn(f"cannot save into a new {directory / PROVENANCE_FILE} what the damaged one held: {exc.strerror}")

    def ordered(self) -> list[Entry]:
        """Every entry, grouped by language and catalog, machine translations first, then in file order."""
        catalogs = self.catalogs
        return sorted(
            self.entries.values(),
            key=lambda e: (catalogs[e.catalog].language, catalogs[e.catalog].display, ORIGIN_ORDER[e.origin], e.line),
        )

    def unit(self, entry: Entry) -> Unit | None:
        """The unit ``entry`` stands for in its catalog as last read (None when it is gone)."""
        loaded = self.catalogs[entry.catalog]
        index = loaded.keys.get(entry.key)
        return None if index is None else loaded.catalog.units[index]

    def details(self, entry: Entry) -> Details:
        """The PO details of ``entry`` (nothing for XLIFF)."""
        return self.catalogs[entry.catalog].details.get(entry.index, Details())

    # -- decisions --------------------------------------------------------------------------

    def accept(self, entry_id: str, seen: str) -> Outcome:
        """Accept the translation as it is: refused when the checks find an error in it."""
        return self._decide(entry_id, seen, lambda loaded, unit: _accepted(loaded, unit))

    def edit(self, entry_id: str, seen: str, targets: Sequence[str]) -> Outcome:
        """Replace the translation with ``targets`` (every form) and accept it, if the checks pass it."""
        return self._decide(entry_id, seen, lambda loaded, unit: _edited(loaded, unit, targets))

    def reject(self, entry_id: str, seen: str) -> Outcome:
        """Empty the translation, so that the next run translates the entry again, and remember what was rejected.

        The next run does not write the same text for the entry again (:mod:`pipeline.run.provenance`).
        """
        rejected: list[tuple[Loaded, Unit]] = []

        def decision(loaded: Loaded, unit: Unit) -> tuple[Reviewed, Status, tuple[str, ...]]:
            rejected[:] = [(loaded, unit)]
            return Reviewed(targets=("",) * unit.nforms), Status.REJECTED, ()

        outcome = self._decide(entry_id, seen, decision)
        loaded, unit = rejected[0]
        problem = self._remember(loaded, unit)
        return outcome if problem is None else outcome._replace(warnings=(*outcome.warnings, problem))

    def _remember(self, loaded: Loaded, unit: Unit) -> str | None:
        """Record the rejection of ``unit``'s translation (as read before the reject); what went wrong, if anything."""
        forms = entries.current_targets(unit)
        if not any(forms):
            return None
        if loaded.target is None:
            return "the catalog's language has no code on the translation service: the rejection is not remembered"
        try:
            self._rejections.record((loaded.target, unit.context, unit.sources), forms)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            return f"the rejection could not be remembered ({reason}): the next run may write the same translation"
        return None

    def keep(self, entry_id: str, seen: str, note: str) -> Outcome:
        """Leave the entry awaiting review, with the reviewer's ``note``."""
        return self._decide(entry_id, seen, lambda loaded, unit: _kept(note))

    @contextlib.asynccontextmanager
    async def turn(self, entry_id: str) -> AsyncIterator[None]:
        """Hold the lock of ``entry_id``'s catalog while the body makes one decision on it (without awaiting).

        For a server: the wait for a run that holds the catalog lets its event loop answer other requests,
        and two decisions on one catalog take turns. KeyError for no such entry; :class:`Refused` when it
        is decided already, or the run held the catalog longer than the wait, as :meth:`accept` is.
        """
        loaded = self._decidable(entry_id)
        async with contextlib.AsyncExitStack() as stack:
            try:
                await stack.enter_async_context(
                    one_catalog_awaited(self.settings.cache_dir, loaded.path, loaded.display, self._wait(), self.warn)
                )
            except CatalogsBusy as exc:
                raise _busy(loaded, exc) from None
            self._held = loaded.number
            try:
                yield
            finally:
                self._held = None

    def _decidable(self, entry_id: str) -> Loaded:
        """The catalog of the entry a decision is about; KeyError for no such entry, Refused when it is decided."""
        entry = self.entries.get(entry_id)
        if entry is None:
            raise KeyError(entry_id)
        if entry.status not in (Status.PENDING, Status.NOTED):
            raise Refused([f"already {entry.status.value} in this review"])
        return self.catalogs[entry.catalog]

    def _wait(self) -> float:
        return min(self.settings.lock_wait, DECISION_WAIT)

    def _decide(self, entry_id: str, seen: str, decision: _Decision) -> Outcome:
        """Write ``decision`` for the entry the page saw as version ``seen``, over the catalog's current bytes."""
        loaded = self._decidable(entry_id)
        if self._held == loaded.number:  # taken by :meth:`turn`
            return self._written(entry_id, seen, decision, loaded)
        try:
            with one_catalog(self.settings.cache_dir, loaded.path, loaded.display, self._wait(), self.warn):
                return self._written(entry_id, seen, decision, loaded)
        except CatalogsBusy as exc:
            raise _busy(loaded, exc) from None

    def _written(self, entry_id: str, seen: str, decision: _Decision, loaded: Loaded) -> Outcome:
        """:meth:`_decide`'s decision written, under the catalog's lock."""
        entry = self.entries[entry_id]
        reloaded: list[Entry] = []
        for _ in range(WRITE_TRIES):
            try:  # never through a link: the catalog's links were resolved when the session found it
                current = read_regular(loaded.path, follow=False)
            except OSError as exc:
                if os.path.islink(loaded.path):
                    raise Refused([_made_a_link(loaded)]) from None
                raise Refused([f"cannot read {loaded.display}: {exc.strerror}"]) from None
            if current != loaded.raw:  # saved by another program since it was read: read it again
                reloaded = self._reread(loaded, current)
            entry = self.entries[entry_id]
            unit = self.unit(entry)
            if unit is None or entry.status is Status.ELSEWHERE:
                raise Conflict("another program changed this entry in the catalog since the page showed it", entry)
            if entries.version(unit) != seen:
                raise Conflict("the catalog was saved with a change to this entry since the page showed it", entry)
            reviewed, status, warnings = decision(loaded, unit)
            try:
                data = loaded.catalog.render_reviewed({unit.position: reviewed})
            except ValueError as exc:  # what the checks let through and the format cannot hold
                raise Refused([str(exc)]) from None
            try:
                write_over(loaded.path, data, current)
            except ChangedMeanwhile as exc:
                if exc.linked:  # on purpose, not a save of the moment: left, with the file it leads to, as they are
                    raise Refused([_made_a_link(loaded)]) from None
                continue  # saved at the very moment: read again and try once more
            except OSError as exc:
                raise Refused([f"cannot write {loaded.display}: {exc.strerror}"]) from None
            self._reread(loaded, data)
            decided = self.entries[entry_id] = replace(self.entries[entry_id], status=status)
            self.decided[(loaded.language, status)] += 1
            return Outcome(decided, warnings, tuple(reloaded))
        raise Conflict("the catalog kept changing while the decision was being written: nothing was written", entry)

    def _reread(self, loaded: Loaded, data: bytes) -> list[Entry]:
        """Parse ``data`` as ``loaded``'s new bytes and rebuild its entries; the entries as rebuilt."""
        try:
            catalog = self._templates.apply(
                read_catalog(loaded.path, data), loaded.path, self.settings.refresh_template
            )
        except CatalogError as exc:
            line = f" (line {exc.line})" if exc.line else ""
            reason = f"{loaded.display} was changed by another program and cannot be read now{line}: {exc.reason}"
            raise Refused([reason]) from None
        loaded.raw, loaded.catalog = data, catalog
        self._parsed(loaded)
        return self._index(loaded)

    # -- the summary ------------------------------------------------------------------------

    def awaiting(self) -> int:
        """Entries still awaiting review (not decided in this session, or kept with a note)."""
        return sum(1 for e in self.entries.values() if e.status in (Status.PENDING, Status.NOTED))

    def summary(self) -> list[str]:
        """One line per language with decisions: how many entries were accepted, edited, rejected and kept."""
        lines = []
        for language in sorted({language for language, _ in self.decided}):
            counts = ", ".join(f"{self.decided[(language, s)]} {_SAID[s]}" for s in DECIDED)
            lines.append(f"{language}: {counts}")
        return lines


def _busy(loaded: Loaded, exc: CatalogsBusy) -> Refused:
    """The refusal of a decision on ``loaded`` that a run held longer than a decision waits."""
    reason = f"another run holds {loaded.display}: {exc}; nothing was written: decide again once it has finished"
    return Refused([reason])


_SAID = {Status.ACCEPTED: "accepted", Status.EDITED: "edited", Status.REJECTED: "rejected", Status.NOTED: "kept"}
_Decision = Callable[[Loaded, Unit], tuple[Reviewed, Status, tuple[str, ...]]]


def _accepted(loaded: Loaded, unit: Unit) -> tuple[Reviewed, Status, tuple[str, ...]]:
    found = entries.problems(loaded.catalog, unit, entries.current_targets(unit))
    errors = [p.reason for p in found if p.severity is Severity.ERROR]
    if errors:
        raise Refused([f"cannot accept: {reason}" for reason in errors] + ["edit the translation, or reject it"])
    return Reviewed(), Status.ACCEPTED, tuple(p.reason for p in found)


def _edited(loaded: Loaded, unit: Unit, targets: Sequence[str]) -> tuple[Reviewed, Status, tuple[str, ...]]:
    forms = tuple(targets)
    if len(forms) != unit.nforms:
        raise Refused([f"this entry has {unit.nforms} forms, the edit {len(forms)}"])
    empty = [n for n, form in enumerate(forms) if not form.strip()]
    if empty:
        which = "the translation is" if unit.nforms == 1 else f"form {empty[0]} is"
        raise Refused([f"{which} empty: to have the entry translated again, reject it"])
    found = entries.problems(loaded.catalog, unit, forms)
    errors = [p.reason for p in found if p.severity is Severity.ERROR]
    if errors:
        raise Refused(errors)
    status = Status.ACCEPTED if forms == entries.current_targets(unit) else Status.EDITED
    return Reviewed(targets=None if status is Status.ACCEPTED else forms), status, tuple(p.reason for p in found)


def _kept(note: str) -> tuple[Reviewed, Status, tuple[str, ...]]:
    if not note.strip():
        raise Refused(["write a note saying what is wrong"])
    if len(note) > MAX_NOTE:
        raise Refused([f"the note has {len(note)} characters; at most {MAX_NOTE}"])
    return Reviewed(pending=True, note=note.strip()), Status.NOTED, ()


def _details(catalog: Catalog) -> dict[int, Details]:
    """Per unit awaiting review, what polib's entry adds (PO only; nothing otherwise)."""
    if not isinstance(catalog, PoCatalog) or not any(u.state is UnitState.FUZZY for u in catalog.units):
        return {}
    found: dict[int, Details] = {}
    for unit, entry in zip(catalog.units, catalog.entries, strict=True):
        if unit.state is not UnitState.FUZZY:
            continue
        previous = tuple(p for p in (entry.previous_msgid, entry.previous_msgid_plural) if p is not None)
        found[unit.position] = Details(
            entry.tcomment or "",
            tuple(f"{path}:{line}" if line else path for path, line in entry.occurrences),
            entry.previous_msgctxt,
            previous if entry.previous_msgid is not None else (),
        )
    return found


def _made_a_link(loaded: Loaded) -> str:
    """Why a decision was refused for a catalog made a link since it was read (the link and its file left alone)."""
    return (
        f"{loaded.display} was made a symbolic link since it was read: nothing was written (start the review again "
        f"to review the file it leads to)"
    )
