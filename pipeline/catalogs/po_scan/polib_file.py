"""polib's reading of a catalog, for what only polib gives (the review's comments and previous strings):
the text handed over so that polib can neither mistake it for a path nor split it elsewhere than a file
is split, plural forms numbered as polib reads them, and its refusals without what it quoted."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.catalogs.po_scan.polib_rules import polib_line
from pipeline.catalogs.po_strings import WRAP_WIDTH
from pipeline.errors import CatalogError
from pipeline.patterns import lazy_regex

if TYPE_CHECKING:
    import polib

_POLIB_LINE = lazy_regex(r"\(line (\d+)\)")
# A plural form numbered with blanks or leading zeros (``msgstr[ 0 ]``, ``msgstr[01]``, ``msgstr [0]``), which
# msgfmt and the scanner read and polib does not (it takes the one character after the bracket for the number,
# and "msgstr" followed by a blank for a plain msgstr).
_LOOSE_FORM = lazy_regex(r"^([ \t]*(?:\#~[ \t]*)?msgstr)[ \t]*\[([ \t]*\d+[ \t]*)\]", re.MULTILINE)


def polib_file(path: Path, text: str, encoding: str) -> polib.POFile:
    """polib's reading of ``text``, the catalog at ``path`` as read; a :class:`CatalogError` where polib refuses it."""
    import polib  # the front door of polib's reading of a catalog: only the review session asks for it

    try:
        return polib.pofile(_PoText(text), encoding=encoding, wrapwidth=WRAP_WIDTH)
    except (OSError, ValueError) as exc:
        found = _POLIB_LINE().search(str(exc))
        raise CatalogError(str(path), _polib_reason(str(exc)), int(found.group(1)) if found else None) from None


class _PoText(str):
    """PO text that :func:`polib.pofile` can never mistake for a path, split into lines as a file is read.

    ``polib.pofile`` takes a path or a text and tells them apart with ``os.path.isfile``: a catalog
    that vanished mid-run would have its path parsed as PO text, and a text naming an existing file
    would read that file instead. So the value polib tests is a NUL byte, which no path can hold
    (``os.path.isfile`` answers False), and the lines it parses come from :meth:`splitlines`:
    split where a text-mode file splits (``\n``, ``\r\n``, ``\r``), not where ``str.splitlines``
    also does (U+0085, U+2028, ... are text inside a PO string).
    """

    lines: list[str]

    def __new__(cls, text: str) -> _PoText:
        value = super().__new__(cls, "\0")
        # universal newlines, as open() reads, each line as polib is given it
        value.lines = [_polib_line(line) for line in io.StringIO(text, newline=None)]
        return value

    def splitlines(self, keepends: bool = False) -> list[str]:
        """The PO text's lines (polib strips their ends itself)."""
        return list(self.lines)


def _polib_line(line: str) -> str:
    """``line`` with its plural form numbered as polib reads them (``msgstr[0]``), and what polib refuses and
    msgfmt reads given as polib reads it (:func:`polib_line`): polib's entries are given the scanner's strings
    anyway (``po._match``), and a line's length is all that changes."""
    return polib_line(_LOOSE_FORM().sub(lambda found: f"{found[1]}[{int(found[2])}]", line))


def _polib_reason(message: str) -> str:
    """polib's reason for refusing a file, without anything it quoted from the file."""
    reason = message.rpartition("): ")[2] if "): " in message else ""
    if reason.startswith("unknown keyword"):
        return "unknown keyword"
    return reason if reason in ("unescaped double quote found", "invalid continuation line") else "syntax error"
