"""A PO file's lines: offsets into its bytes, sliced when asked for, and decoded all at once; where they end."""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator, Sequence
from itertools import accumulate
from pathlib import Path
from typing import overload

from pipeline.errors import CatalogError
from pipeline.patterns import lazy_regex

__all__ = ["Lines", "TextLines", "as_read", "decoded", "lone_crs", "offsets"]

_END = re.Match.end  # mapped over a file's newlines: no Python frame per line
_SLICE = 1 << 20  # the bytes of whole lines Lines splits at a time


def offsets(largest: int) -> str:
    """The array type code that holds numbers up to ``largest``: 4 bytes each below 2 GiB (every catalog
    but an absurd one), else 8. A run holds a large catalog's offsets for as long as its units."""
    return "i" if largest < 2**31 else "q"


class Lines(Sequence[bytes]):
    """A file's lines (each ends after its newline), sliced from its bytes when asked for: a bytes
    object per line, all at once, would cost more than the text itself."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.starts = array(offsets(len(raw)), [0])
        if b"\r" in raw:  # bytes.splitlines would end a line at a lone CR too, which a PO file does not
            self.starts.extend(map(_END, re.finditer(b"\n", raw)))
            if raw and not raw.endswith(b"\n"):
                self.starts.append(len(raw))
            return
        # The lines' lengths, added up: fewer instructions than a match object per newline. A slice
        # of whole lines at a time, so that the lines split at once never hold much more than _SLICE bytes.
        at = 0
        while at < len(raw):
            end = raw.find(b"\n", at + _SLICE) + 1 or len(raw)
            lengths = map(len, raw[at:end].splitlines(keepends=True))
            self.starts.extend(list(accumulate(lengths, initial=at))[1:])  # from a list: array takes one faster
            at = end

    def __len__(self) -> int:
        return len(self.starts) - 1

    @overload
    def __getitem__(self, index: int) -> bytes: ...

    @overload
    def __getitem__(self, index: slice) -> list[bytes]: ...

    def __getitem__(self, index: int | slice) -> bytes | list[bytes]:
        count = len(self.starts) - 1  # len(self), without a Python call: the header's reading asks line by line
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(count))]
        if not -count <= index < count:
            raise IndexError(index)
        index %= count
        return self.raw[self.starts[index] : self.starts[index + 1]]


def decoded(path: Path, lines: Lines, encoding: str) -> tuple[str, TextLines]:
    """The file's text, each line ended by a newline (the last one too), and its lines without their
    newlines (the scanner strips every line); the first line that is not valid in ``encoding`` is refused.

    The lines are split from the text only when asked for: the scan reads a well-formed catalog from
    the text alone, and splitting every catalog of a run into a string per line cost it several
    milliseconds per hundred catalogs.
    """
    try:
        text = lines.raw.decode(encoding)
    except UnicodeDecodeError:
        for i, line in enumerate(lines):
            try:
                line.decode(encoding)
            except UnicodeDecodeError as exc:
                raise CatalogError(str(path), f"not valid {encoding}: {exc.reason}", i + 1) from None
        raise
    if text and not text.endswith("\n"):
        text += "\n"  # after the last newline: the last line, ended as the others are
    if text.count("\n") != len(lines):  # a codec that reads a newline elsewhere: decoded line by line, as written
        split = [line.decode(encoding).rstrip("\n") for line in lines]
        return "\n".join(split) + "\n", TextLines("", split)
    return text, TextLines(text, len(lines))


class TextLines(Sequence[str]):
    """The lines of a text each ended by a newline, without their newlines, split on first use: ``text``
    and the number of its lines, or the lines themselves."""

    def __init__(self, text: str, lines: int | list[str]) -> None:
        self._text = text
        self._split = lines if isinstance(lines, list) else None
        self._count = len(lines) if isinstance(lines, list) else lines

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        return self.as_list()[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_list())

    def as_list(self) -> list[str]:
        """The lines, as a list (split now if they were not yet)."""
        if self._split is None:
            self._split = self._text.split("\n")
            self._split.pop()  # after the last newline: no line
        return self._split


#: A CR that ends a line by itself (old Mac line endings), not as part of a CRLF.
_LONE_CR = lazy_regex(rb"\r(?!\n)")
#: A line that starts a comment to msgfmt, which runs on to the next line feed: "#", "#,", "#:", "#|" ... but
#: not "#~", an obsolete entry's line, whose marker msgfmt reads as a mode (that also lasts to the line feed).
_COMMENT = lazy_regex(rb"[ \t\f\v]*#")
_OBSOLETE = lazy_regex(rb"[ \t\f\v]*#~")


def lone_crs(raw: bytes) -> bool:
    """Whether ``raw``'s lines end with a CR alone (old Mac line endings): its first line does (as write-back
    takes its newline from the first line), and lone CRs outnumber line feeds. Lone CRs in a file of LF or
    CRLF lines are read as msgfmt reads them, as blanks: ``# note\\r# more`` is one comment, even on the first
    line, and so is a CR before a CRLF (CR CR LF, a CRLF file converted again)."""
    cr = raw.find(b"\r")
    if cr == -1 or raw[cr + 1 : cr + 2] == b"\n" or raw.find(b"\n", 0, cr) != -1:
        return False
    return raw.count(b"\r") - raw.count(b"\r\n") > raw.count(b"\n")


def as_read(path: Path, raw: bytes) -> bytes:
    """``raw`` as the reader reads it: where its lines end with a lone CR (:func:`lone_crs`), each lone CR made
    a line feed (the same offsets: write-back copies the file's own bytes) if msgfmt reads the file alike, else a
    :class:`CatalogError`.

    msgfmt reads a lone CR as a blank, so a comment ended by one runs on to the next line feed, and
    the entries in between are not there for it (an obsolete entry's ``#~`` makes what follows
    obsolete alike). Such a file is refused: what a run wrote there would never reach the compiled catalog.
    Comments that only hide comments are no loss.
    """
    if not lone_crs(raw):
        return raw
    line = 0
    for chunk in raw.split(b"\n"):  # a line to msgfmt
        parts = chunk.split(b"\r")
        for at, part in enumerate(parts[:-1]):
            if not _COMMENT().match(part):
                continue
            marker = _OBSOLETE() if _OBSOLETE().match(part) else _COMMENT()  # what may follow it unharmed
            if any(p.strip() and not marker.match(p) for p in parts[at + 1 :]):
                raise CatalogError(
                    str(path),
                    "a comment ended by a lone CR (old Mac line endings): msgfmt reads everything after it up to "
                    "the next line feed as part of the comment, and misses the entries there; convert the line "
                    "endings to LF (tr '\\r' '\\n')",
                    line + at + 1,
                )
        line += len(parts) - (1 if chunk.endswith(b"\r") else 0)
    return _LONE_CR().sub(b"\n", raw)
