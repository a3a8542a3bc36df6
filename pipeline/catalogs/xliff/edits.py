"""Where a unit lives in an XLIFF file's text, and the edits that write a reviewer's decision there.

What a decision leaves (1.2 on the ``target``, 2.x on the ``segment``), every other byte as read:

=====================  ==========================================  ===========================================
decision               1.2                                         2.x
=====================  ==========================================  ===========================================
accepted               ``state="signed-off"``, the run's           ``state="reviewed"``, ``subState`` removed
                       ``<note from="pipeline">`` removed
edited                 the same, the new target, and no            the same, and the new target
                       ``state-qualifier`` (the text is the
                       reviewer's now)
rejected               target emptied, ``state="needs-             target emptied, ``state="initial"``,
                       translation"``, no ``state-qualifier``,     ``subState`` removed
                       the run's note removed
kept for another look  state as it was; ``<note from="review">``   state as it was; ``<note category="review">``
                       after the target                            in the unit's ``<notes>`` (made where it has
                                                                   none: before its ``originalData`` or first
                                                                   segment, as the 2.0 schema orders them)
=====================  ==========================================  ===========================================

``signed-off`` and ``reviewed`` are the states each version names for a translation a reviewer
approved; the reader (:mod:`pipeline.catalogs.xliff.catalog`) counts both as finished, as other tools do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from lxml import etree

from pipeline.catalogs.base import Reviewed
from pipeline.catalogs.xliff.xmltext import Span, escape_text, leading_indent, set_attributes

#: The ``from`` of the note a reviewer leaves on a 1.2 unit kept for another look.
REVIEW_NOTE_FROM = "review"
ACCEPTED_12, REJECTED_12 = "signed-off", "needs-translation"
ACCEPTED_2, REJECTED_2 = "reviewed", "initial"
#: The ``category`` of the note a reviewer leaves on a 2.x unit kept for another look.
REVIEW_NOTE_CATEGORY = "review"
#: What may follow ``<notes>`` in a 2.x unit: a new ``<notes>`` goes before the first of them.
_AFTER_NOTES_2 = frozenset({"originalData", "segment", "ignorable"})

#: One change to the text: (start, end, new text) replaces ``text[start:end]``.
Edit = tuple[int, int, str]


class Place(NamedTuple):
    """Where one unit lives in the text, and what write-back needs to know about it."""

    source: Span
    target: Span | None
    segment: Span | None  # 2.x: the segment, which carries the state; None in 1.2
    insert_at: int  # where a new target goes
    indent: str  # line break and indentation of the source, repeated before a new target
    space: str | None  # the source's xml:space, copied onto a new target
    namespaces: tuple[tuple[str, str], ...]  # (prefix or "", uri) in scope at the source
    inline: tuple[tuple[str, str], ...]  # sorted (element, id) of the source's inline markup
    run_notes: tuple[Span, ...] = ()  # 1.2: the unit's ``<note from="pipeline">``, the run's words to the reviewer
    notes_at: NotesAt | None = None  # 2.x: where a reviewer's note goes


class NotesAt(NamedTuple):
    """Where a note goes in a 2.x unit: after its last ``<note>``, or in a new ``<notes>`` before ``offset``."""

    offset: int
    indent: str  # the line break and indentation of what the note is written beside
    inside: bool  # within the unit's ``<notes>`` (else a ``<notes>`` element is made)


def notes_at(segment: etree._Element, located: Mapping[etree._Element, Span], text: str) -> NotesAt | None:
    """Where a reviewer's note goes in the 2.x unit of ``segment`` (None: nowhere the schema allows)."""
    unit = segment.getparent()
    if unit is None:
        return None
    notes = [child for child in unit if isinstance(child.tag, str) and etree.QName(child).localname == "notes"]
    if notes:
        last = [n for n in notes[0] if isinstance(n.tag, str) and etree.QName(n).localname == "note"]
        if last:
            span = located[last[-1]]
            return NotesAt(span.end, leading_indent(text, span.start), True)
        return None  # an empty <notes>, which the schema does not allow: nothing added to it
    for child in unit:
        if isinstance(child.tag, str) and etree.QName(child).localname in _AFTER_NOTES_2:
            start = located[child].start
            return NotesAt(start, leading_indent(text, start), False)
    return None


def reviewed_edits(text: str, place: Place, decision: Reviewed, content: str | None) -> list[Edit]:
    """The edits that write ``decision`` for the unit at ``place``; ``content`` is the new target's inner
    XML (None: the target stays as it is). Raises ValueError for a unit with no target."""
    target = place.target
    if target is None or target.empty:
        raise ValueError("the unit has no translation to review")
    rejected = decision.targets is not None and not any(decision.targets)
    edits: list[Edit] = []
    if place.segment is None:
        if decision.pending:
            name = f"{place.source.prefix}note"
            note = escape_text(decision.note or "")
            edits.append((target.end, target.end, f'{place.indent}<{name} from="{REVIEW_NOTE_FROM}">{note}</{name}>'))
        else:
            state: dict[str, str | None] = {"state": REJECTED_12 if rejected else ACCEPTED_12}
            if decision.targets is not None:
                state["state-qualifier"] = None
            edits.append((target.start, target.open_end, set_attributes(text[target.start : target.open_end], state)))
            # Decided: the run's note to the reviewer goes, with the line it stood on (a person's notes stay).
            edits.extend((note.start - len(leading_indent(text, note.start)), note.end, "") for note in place.run_notes)
    else:
        if decision.pending:
            return [_note_2(place, escape_text(decision.note or ""))]
        segment = place.segment
        values: dict[str, str | None] = {"state": REJECTED_2 if rejected else ACCEPTED_2, "subState": None}
        edits.append((segment.start, segment.open_end, set_attributes(text[segment.start : segment.open_end], values)))
    if content is not None:
        edits.append((target.open_end, target.close_start, content))
    return edits


def _note_2(place: Place, note: str) -> Edit:
    """The edit that adds a reviewer's ``note`` to the 2.x unit at ``place`` (in a new ``<notes>`` if need be)."""
    at = place.notes_at
    if at is None:
        raise ValueError("the unit has no place for a note")
    prefix = place.source.prefix
    element = f'<{prefix}note category="{REVIEW_NOTE_CATEGORY}">{note}</{prefix}note>'
    if at.inside:
        return (at.offset, at.offset, f"{at.indent}{element}")
    step = "  " if at.indent else ""
    return (at.offset, at.offset, f"<{prefix}notes>{at.indent}{step}{element}{at.indent}</{prefix}notes>{at.indent}")
