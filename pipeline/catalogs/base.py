"""What every catalog format offers the run: units with their sources, targets and state."""

import enum
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, Protocol

from pipeline.plural_rules import PluralRule


class UnitState(enum.Enum):
    """Where a unit stands; only UNTRANSLATED units are sent for translation."""

    UNTRANSLATED = "untranslated"
    PARTIAL = "partial"  # some plural forms filled by a human, others empty: left for a human
    FUZZY = "fuzzy"  # has a translation awaiting review: never overwritten
    TRANSLATED = "translated"
    OBSOLETE = "obsolete"


class Unit(NamedTuple):
    """One PO entry or XLIFF unit, format-neutral."""

    position: int  # 0-based, in the catalog's order: the key a run's translations and segments use
    line: int
    sources: tuple[str, ...]  # (text,) or (singular, plural)
    targets: tuple[str, ...]
    nforms: int  # how many target forms the catalog needs for this unit
    plural: bool
    flags: tuple[str, ...]
    context: str | None  # msgctxt
    notes: str  # extracted comments / notes for translators
    state: UnitState
    #: The id as written where the source is the text it names (a Zope message id, whose ``#. Default:``
    #: comment is the source: :mod:`pipeline.catalogs.po_scan.defaults`); None where the source is written as is.
    key: str | None = None


class Reviewed(NamedTuple):
    """What a reviewer decided for one unit awaiting review, as :meth:`Catalog.render_reviewed` writes it.

    Accepted: no ``targets`` (the translation stays), not ``pending``. Edited: the new ``targets``
    (every form). Rejected: empty ``targets``, so the unit is untranslated again. Kept for another
    look: ``pending`` with a ``note``.
    """

    targets: tuple[str, ...] | None = None
    pending: bool = False  # still awaiting review afterwards
    note: str | None = None  # the reviewer's words, written with the unit


class Catalog(Protocol):
    """What the run needs from a catalog of any format (PO, XLIFF)."""

    path: Path
    format: str
    plural: PluralRule | None  # the catalog's own plural rule, if it declares one
    warnings: tuple[str, ...]  # about the file as a whole (a header that misnames its charset)

    @property
    def units(self) -> Sequence[Unit]:
        """The catalog's units, in file order (a unit's ``position`` is its index here)."""

    def positions(self, *states: UnitState) -> list[int]:
        """The positions of the units in any of ``states``, in file order (without making every unit)."""

    def flags_of(self, position: int) -> tuple[str, ...]:
        """The flags of the unit at ``position`` (without making the unit)."""

    @property
    def language(self) -> str | None:
        """The target language the catalog itself declares, if any."""

    @property
    def encoding(self) -> str:
        """The charset the file is read and written in."""

    def write_problem(self, text: str, index: int | None = None) -> str | None:
        """Why ``text`` cannot be written (as unit ``index``'s translation), or None when it can."""

    def render(
        self,
        translations: Mapping[int, tuple[str, ...]],
        mark_fuzzy: bool = True,
        review: Mapping[int, str] | None = None,
    ) -> bytes:
        """The catalog's bytes with ``translations`` (unit index -> target forms) written in; the units
        ``review`` names (unit index -> note) are marked for review whatever ``mark_fuzzy`` says, with the note."""

    def render_pieces(
        self,
        translations: Mapping[int, tuple[str, ...]],
        mark_fuzzy: bool = True,
        review: Mapping[int, str] | None = None,
    ) -> Iterator[bytes | memoryview]:
        """:meth:`render`'s bytes in pieces, each made as it is taken: the translations are checked at
        once, and a large catalog's new bytes are never in memory all together."""

    def render_reviewed(self, decisions: Mapping[int, Reviewed]) -> bytes:
        """The catalog's bytes with a reviewer's ``decisions`` (unit index -> decision) written in; every
        other byte as read. Raises ValueError for a decision the format cannot hold."""
