"""A PO catalog's units, kept as columns: each :class:`~pipeline.catalogs.base.Unit` is made when asked for.

A run holds the units of every catalog of a window until it is written. As records, a unit cost
about 230 bytes besides its strings: the record, its position and line as int objects, a tuple
for its one source (31 MiB for a 10 MB catalog of 144,000 entries). As columns (a reference per
field, the lines in an array, the state in a byte) it costs about 50, and the record made on
demand lives only as long as its caller keeps it.
"""

from __future__ import annotations

import copy
import functools
import operator
from array import array
from collections.abc import Iterator, Mapping, Sequence
from itertools import compress, product, repeat
from operator import add, contains
from typing import overload

from pipeline.catalogs.base import Unit, UnitState
from pipeline.catalogs.po_scan import Entry, fields
from pipeline.catalogs.po_scan.defaults import default_of
from pipeline.plural_rules import PluralRule

__all__ = ["PoUnits", "untranslated"]

_STATES = tuple(UnitState)
_CODES = {state: code for code, state in enumerate(_STATES)}


def _state(obsolete: bool, translated: bool, fuzzy: bool, complete: bool) -> UnitState:
    """An entry's state from what it holds (``complete``: every form a translation, a singular one's msgstr)."""
    if obsolete:
        return UnitState.OBSOLETE
    if not translated:
        return UnitState.UNTRANSLATED
    if fuzzy:
        return UnitState.FUZZY
    return UnitState.TRANSLATED if complete else UnitState.PARTIAL


#: An entry's state's code by (obsolete, translated, fuzzy, complete): looked up for every entry, in C.
_STATE_OF = {facts: _CODES[_state(*facts)] for facts in product((False, True), repeat=4)}
_MSGID, _MSGSTR, _PLURAL_ID, _FORMS = map(fields, ("msgid", "msgstr", "msgid_plural", "msgstr_plural"))
_FLAGS, _OBSOLETE, _MSGID_LINE = map(fields, ("flags", "obsolete", "msgid_line"))
_CONTEXT, _COMMENT = map(fields, ("msgctxt", "comment"))


@functools.cache
def untranslated(forms: int) -> tuple[str, ...]:
    """Empty targets: one tuple shared by every untranslated unit of that many forms."""
    return ("",) * forms


class PoUnits(Sequence[Unit]):
    """The units of a PO catalog's entries, in file order, made from columns as they are asked for.

    A unit's sources are a string (one source) or a (singular, plural) pair; its targets the one
    msgstr ("" when untranslated) or the tuple of plural forms. Its flags are one tuple per
    distinct flags line, shared.
    """

    __slots__ = (
        "_sources",
        "_targets",
        "_lines",
        "_flags",
        "_contexts",
        "_notes",
        "_states",
        "_nplurals",
        "_keys",
        "undecided",
    )

    def __init__(self, entries: Sequence[Entry], plural: PluralRule | None) -> None:
        # Each column is made from the entries a field at a time, the loops in C: only the plural entries,
        # few in most catalogs, take a Python step of their own.
        nplurals = self._nplurals = plural.nplurals if plural else 2  # every plural unit's number of target forms
        count = len(entries)
        self._sources: list[str | tuple[str, str]] = list(map(_MSGID, entries))
        self._targets: list[str | tuple[str, ...]] = list(map(_MSGSTR, entries))
        translated = list(map(bool, self._targets))  # and complete, as a singular entry is with its msgstr
        complete = translated.copy()
        plurals = set(compress(range(count), map(_PLURAL_ID, entries)))  # msgid_plural "" has forms too (msgfmt's)
        plurals.update(compress(range(count), map(_FORMS, entries)))
        for position in plurals:
            entry = entries[position]
            forms = entry.msgstr_plural
            targets = tuple(forms.get(i, "") for i in range(max(nplurals, len(forms))))
            translated[position], complete[position] = any(targets), all(targets[:nplurals])
            self._sources[position] = (entry.msgid, entry.msgid_plural)
            self._targets[position] = targets if translated[position] else untranslated(len(targets))
        flags = list(map(_FLAGS, entries))
        fuzzy = map(contains, flags, repeat("fuzzy"))
        self._states = bytearray(
            map(_STATE_OF.__getitem__, zip(map(_OBSOLETE, entries), translated, fuzzy, complete, strict=True))
        )
        self._lines = array("q", map(add, map(_MSGID_LINE, entries), repeat(1)))  # 1-based line of each msgid
        shared: dict[tuple[str, ...], tuple[str, ...]] = {}  # one tuple per distinct flags line, not one per unit
        self._flags: list[tuple[str, ...]] = list(map(shared.setdefault, flags, flags))
        self._contexts: list[str | None] = list(map(_CONTEXT, entries))
        self._notes: list[str] = list(map(_COMMENT, entries))
        # Zope's message ids (:mod:`~pipeline.catalogs.po_scan.defaults`): the source is the Default, the id its key.
        self._keys: dict[int, str] = {}
        #: The units whose ids have two Default texts: which one a translation is for cannot be told.
        self.undecided: frozenset[int] = frozenset()
        named = list(compress(range(count), map(contains, self._notes, repeat("Default:"))))
        if named:
            self._read_defaults(named)

    def _read_defaults(self, positions: list[int]) -> None:
        """Make the Default text of each unit of ``positions`` that has one its source."""
        undecided: set[int] = set()
        for position in positions:
            source = self._sources[position]
            if not isinstance(source, str):
                continue  # a plural entry: a Default would be the singular's alone
            found = default_of(self._notes[position], source)
            if found is None:
                continue
            self._keys[position], self._sources[position] = source, found.text
            if found.undecided:
                undecided.add(position)
        self.undecided = frozenset(undecided)

    def texts_by_id(self) -> dict[tuple[str | None, str], str]:
        """The text of each singular unit by its msgctxt and msgid: its Default (a Zope message id's) or its msgid;
        none for an id with two Defaults."""
        keys, undecided = self._keys, self.undecided
        return {
            (context, keys.get(position, source)): source
            for position, (source, context) in enumerate(zip(self._sources, self._contexts, strict=True))
            if isinstance(source, str) and position not in undecided
        }

    def with_template_texts(self, texts: Mapping[tuple[str | None, str], str]) -> PoUnits | None:
        """These units with the text a template gives each (``texts``: its :meth:`texts_by_id`) where that is
        another, or None where none is. msgmerge writes a template's extracted comments over a catalog's, so a
        Default a translator changed in the catalog is not the text; nor is one the template no longer has."""
        changed: dict[int, tuple[str, str]] = {}  # position -> (msgid, text)
        contexts, keys = self._contexts, self._keys
        for position, source in enumerate(self._sources):
            if isinstance(source, str):  # a Default is a singular's text
                msgid = keys.get(position, source)
                text = texts.get((contexts[position], msgid))
                if text is not None and text != source:
                    changed[position] = (msgid, text)
        if not changed:
            return None
        units = copy.copy(self)
        units._sources, units._keys = list(self._sources), dict(self._keys)
        for position, (msgid, text) in changed.items():
            units._sources[position] = text
            if text == msgid:  # no Default in the template: the msgid is the text
                del units._keys[position]
            else:
                units._keys[position] = msgid
        units.undecided = self.undecided - changed.keys()
        return units

    def _unit(self, position: int) -> Unit:
        source, target = self._sources[position], self._targets[position]
        plural = not isinstance(source, str)
        if isinstance(target, tuple):  # a plural unit's forms
            targets = target
        else:
            targets = (target,) if target else untranslated(1)
        # Unit's fields in order (position, line, sources, targets, nforms, plural, flags, context, notes, state,
        # key): passed by keyword, eleven arguments cost a third more, and units are made often.
        return Unit(
            position,
            self._lines[position],
            source if plural else (source,),  # type: ignore[arg-type]  # plural: the (singular, plural) pair
            targets,
            self._nplurals if plural else 1,
            plural,
            self._flags[position],
            self._contexts[position],
            self._notes[position],
            _STATES[self._states[position]],
            self._keys.get(position) if self._keys else None,
        )

    @overload
    def __getitem__(self, index: int) -> Unit: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Unit, ...]: ...

    def __getitem__(self, index: int | slice) -> Unit | tuple[Unit, ...]:
        count = len(self._sources)
        if isinstance(index, slice):
            return tuple(map(self._unit, range(*index.indices(count))))
        if not -count <= index < count:
            raise IndexError(f"unit {index} of {count}")
        return self._unit(index + count if index < 0 else index)

    def __len__(self) -> int:
        return len(self._sources)

    # One field of a unit, read from its column: for the stages that need no more of it than that.

    def flags_of(self, position: int) -> tuple[str, ...]:
        """The flags of unit ``position``."""
        return self._flags[position]

    def plural_at(self, position: int) -> bool:
        """Whether unit ``position`` is a plural one."""
        return not isinstance(self._sources[position], str)

    def nforms_of(self, position: int) -> int:
        """How many target forms unit ``position`` needs."""
        return self._nplurals if self.plural_at(position) else 1

    def state_of(self, position: int) -> UnitState:
        """The state of unit ``position``."""
        return _STATES[self._states[position]]

    def positions(self, *states: UnitState) -> list[int]:
        """The positions of the units in any of ``states``, in file order: found in the state column, no unit made."""
        codes = {_CODES[state] for state in states}
        return [position for position, code in enumerate(self._states) if code in codes]

    def __iter__(self) -> Iterator[Unit]:
        return map(self._unit, range(len(self._sources)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(other) == len(self) and all(map(operator.eq, self, other))

    __hash__ = None  # type: ignore[assignment]  # equal by content, as a tuple of the units would be; nothing hashes one

    def __repr__(self) -> str:
        return f"PoUnits({len(self)} units)"
