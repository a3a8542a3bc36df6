"""What the scan reads of an entry: its strings, and where it lives in the file."""

from operator import itemgetter
from typing import Any, NamedTuple

from pipeline.catalogs.po_strings import unescape
from pipeline.errors import CatalogError


class Entry(NamedTuple):
    """One entry as read: its strings, and where it lives in the file (0-based line indexes).

    A named tuple rather than a frozen dataclass: one is made per entry of every catalog a run
    reads, and a frozen dataclass sets each of its 16 fields through ``object.__setattr__``.
    """

    first: int
    msgid_line: int
    flags_line: int | None
    insert_flags_at: int
    msgstr_start: int
    msgstr_end: int  # exclusive
    obsolete: bool
    msgctxt: str | None
    msgid: str
    msgid_plural: str
    msgstr: str
    msgstr_plural: dict[int, str]
    flags: tuple[str, ...]
    comment: str  # the ``#.`` lines
    #: (msgctxt, msgid) as polib reads them, where that differs (an escape polib does not know: \\a,
    #: octal, hex); the strings above are msgfmt's reading.
    polib_key: tuple[str | None, str] | None = None


class Scanned(NamedTuple):
    """Every entry of a file (the header entry included), and what polib refuses in it, if anything.

    The scanner's own refusals are raised at once; polib's are kept for the reader to raise after
    its other checks, in the order the two parsers used to run.
    """

    entries: list[Entry]
    polib_refusal: CatalogError | None


def polib_key(raw_ctxt: str | None, raw_id: str) -> tuple[str | None, str] | None:
    """(msgctxt, msgid) as polib reads them, when that is not as msgfmt does; else None."""
    if "\\" not in raw_id and (raw_ctxt is None or "\\" not in raw_ctxt):
        return None
    import polib  # the front door of polib's reading of a key with escapes: most catalogs never need it

    ours = (unescape(raw_ctxt) if raw_ctxt is not None else None, unescape(raw_id))
    theirs = (polib.unescape(raw_ctxt) if raw_ctxt is not None else None, polib.unescape(raw_id))
    return theirs if theirs != ours else None


def fields(*names: str) -> Any:
    """A getter of ``names`` of an :class:`Entry` (one value, or a tuple of them), by index: mapped over every
    entry of a catalog, an attribute getter costs twice as much (a named tuple's fields are descriptors)."""
    return itemgetter(*map(Entry._fields.index, names))
