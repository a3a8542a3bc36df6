"""What every catalog format offers the run: units with their sources, targets and state."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class UnitState(enum.Enum):
    """Where a unit stands; only UNTRANSLATED units are sent for translation."""

    UNTRANSLATED = "untranslated"
    PARTIAL = "partial"  # some plural forms filled by a human, others empty: left for a human
    FUZZY = "fuzzy"  # has a translation awaiting review: never overwritten
    TRANSLATED = "translated"
    OBSOLETE = "obsolete"


@dataclass(frozen=True, slots=True)
class Unit:
    """One PO entry or XLIFF unit, format-neutral."""

    index: int
    line: int
    sources: tuple[str, ...]  # (text,) or (singular, plural)
    targets: tuple[str, ...]
    nforms: int  # how many target forms the catalog needs for this unit
    plural: bool
    flags: tuple[str, ...]
    context: str | None  # msgctxt
    notes: str  # extracted comments / notes for translators
    state: UnitState
