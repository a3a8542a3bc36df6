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
kept for another look  state as it was; ``<note from="review">``   refused: 2.x keeps notes per unit, not per
                       after the target                            segment
=====================  ==========================================  ===========================================

``signed-off`` and ``reviewed`` are the states each version names for a translation a reviewer
approved; the reader (:mod:`pipeline.catalogs.xliff`) counts both as finished, as other tools do.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.catalogs.base import Reviewed
from pipeline.catalogs.xmltext import Span, escape_text, leading_indent, set_attributes

#: The ``from`` of the note a reviewer leaves on a 1.2 unit kept for another look.
REVIEW_NOTE_FROM = "review"
ACCEPTED_12, REJECTED_12 = "signed-off", "needs-translation"
ACCEPTED_2, REJECTED_2 = "reviewed", "initial"
NO_NOTES_2 = "XLIFF 2 keeps notes per unit, not per segment: edit the translation or reject it instead"

#: One change to the text: (start, end, new text) replaces ``text[start:end]``.
Edit = tuple[int, int, str]


@dataclass(frozen=True, slots=True)
class Place:
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


def reviewed_edits(text: str, place: Place, decision: Reviewed, content: str | None) -> list[Edit]:
    """The edits that write ``decision`` for the unit at ``place``; ``content`` is the new target's inner
    XML (None: the target stays as it is). Raises ValueError for a unit with no target or a 2.x note."""
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
            raise ValueError(NO_NOTES_2)
        segment = place.segment
        values: dict[str, str | None] = {"state": REJECTED_2 if rejected else ACCEPTED_2, "subState": None}
        edits.append((segment.start, segment.open_end, set_attributes(text[segment.start : segment.open_end], values)))
    if content is not None:
        edits.append((target.open_end, target.close_start, content))
    return edits
