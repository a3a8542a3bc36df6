"""PO string literals: escaped and wrapped as GNU gettext writes them, unescaped as msgfmt reads them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from unicodedata import category, east_asian_width

from pipeline.patterns import lazy_regex

__all__ = ["NO_WRAP", "WRAP_WIDTH", "escape", "flags_in", "format_field", "unescape", "wrap_width_of"]

WRAP_WIDTH = 79  # GNU gettext's default page width
NO_WRAP = 1 << 30  # msgcat --no-wrap's width: a string is split after a \n only
#: How many unwrapped string lines make a file one written without wrapping: a line or two is a hand's edit.
UNWRAPPED_LINES = 3

#: Where a string line's string starts: after its keyword's quote, or its own first quote.
_STRING_START = lazy_regex(r'(?:msg\w+(?:\[[0-9]+\])?[ ])?"')


def wrap_width_of(raw: bytes, encoding: str) -> int:
    """The width a catalog's strings are wrapped at, as its lines show (the header's aside: Transifex
    leaves them long). :data:`NO_WRAP` where string lines well past :data:`WRAP_WIDTH` that a wrapper
    would have cut (WordPress's, msgcat --no-wrap's) outnumber the lines cut at a space, and are at
    least :data:`UNWRAPPED_LINES` (a line or two is a hand's edit); else the widest line cut at a space
    where that is well past :data:`WRAP_WIDTH` (a tool wrapping at 100); else :data:`WRAP_WIDTH`.

    ``raw`` is the catalog's bytes in ``encoding`` (a PO file's encodings all write ASCII as ASCII, and
    no character in fewer bytes than one). Only the lines past :data:`WRAP_WIDTH` bytes are decoded and
    looked at, found by a search that jumps from newline to newline (a catalog wrapped at 79 has few):
    neither the catalog's text nor its lines are made."""
    stop = raw.find(b"\n", _SLICE)
    first = raw[: len(raw) if stop == -1 else stop].decode(encoding, "replace")  # where a header is
    header = _HEADER().search(first)
    pos = len(first[: header.end()].encode(encoding, "replace")) if header else 0
    cuts = raw.count(b' "\n"', pos) + raw.count(b' "\r\n"', pos)
    unwrapped = widest = 0
    for start, end in _long_lines(raw, pos):
        line = raw[start:end].decode(encoding, "replace").rstrip("\r")
        opened = _STRING_START().match(line)  # a string line (not a comment's, nor an obsolete entry's)
        if opened is None or len(line) <= WRAP_WIDTH:
            continue
        # Columns as a wrapper counts them: an escape as one character (Transifex's).
        if line.endswith(' "') and raw[end + 1 : end + 2] == b'"':  # a string line follows: cut there
            if line[0] == '"' and len(line) > WRAP_WIDTH + 3:  # cut at a space: wrapped, at a greater width
                widest = max(widest, _columns(_ESCAPE().sub("x", line)))
            continue
        # The cut line keeps its closing quote; a cut falls after a word, not in a string's leading spaces.
        line = _ESCAPE().sub("x", line)
        cut = _CUT().search(line, opened.end())
        if cut and _columns(line[: cut.end()]) < WRAP_WIDTH and _columns(line) > WRAP_WIDTH + _SLACK:
            unwrapped += 1
            if unwrapped >= UNWRAPPED_LINES and unwrapped > cuts:
                return NO_WRAP
    return widest if widest > WRAP_WIDTH + _SLACK else WRAP_WIDTH


def _long_lines(raw: bytes, pos: int) -> Iterator[tuple[int, int]]:
    """Where each line of more than :data:`WRAP_WIDTH` bytes from ``pos`` (where a line starts) on starts and
    ends (before its newline)."""
    if pos == 0:  # the first line, which no newline comes before
        end = raw.find(b"\n")
        end = len(raw) if end == -1 else end
        if end > WRAP_WIDTH:
            yield 0, end
    for found in _LONG_LINE().finditer(raw, max(pos - 1, 0)):
        yield found.start() + 1, found.end()


def _columns(text: str) -> int:
    """The columns ``text`` takes, as gettext counts them: a mark or format character none, a wide one two."""
    if not text or max(text) < "\u0300":  # below the combining marks and wide characters: one column each
        return len(text)
    return sum(0 if category(c) in _NO_COLUMN else 2 if east_asian_width(c) in "WF" else 1 for c in text)


_NO_COLUMN = frozenset({"Mn", "Me", "Cf"})
#: The header entry and the blank line after it.
_HEADER = lazy_regex(r'^msgid ""\r?\nmsgstr ""\r?\n(?:"[^\r\n]*\r?\n)*', re.M)
_ESCAPE = lazy_regex(r"\\.")
#: A word and the space after it, where a wrapper may cut.
_CUT = lazy_regex(r"[^ ] ")
#: Columns past WRAP_WIDTH that other wrappers allow themselves (80, an escape counted as one).
_SLACK = 8
#: The bytes of whole lines :func:`wrap_width_of` looks for a header in.
_SLICE = 1 << 16
#: A newline and a line of more than WRAP_WIDTH bytes after it: sre finds each newline as memchr would.
_LONG_LINE = lazy_regex(rb"\n.{%d,}" % (WRAP_WIDTH + 1))


_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\n": "\\n",
    "\t": "\\t",
    "\r": "\\r",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\v": "\\v",
}
_NEEDS_ESCAPE = re.compile(r'[\\"\x01-\x1f\x7f]')


#: A flag of a ``#,`` line as gettext reads them (po_parse_comment_special): words apart at commas and blanks
#: alike, but "range:" and the word after it (``range: 0..10``), which are one flag.
_FLAG = re.compile(r"range:[\n \t\r\f\v,]+([^\n \t\r\f\v,]+)|[^\n \t\r\f\v,]+")


def flags_in(text: str) -> tuple[str, ...]:
    """The flags of a ``#,`` line, ``text`` what follows its marker, split as gettext splits them: at commas and
    at blanks (``#, fuzzy c-format`` is fuzzy and c-format to msgfmt), a range written ``range: 0..10``."""
    return tuple(f"range: {found[1]}" if found[1] else found[0] for found in _FLAG.finditer(text))


def escape(text: str) -> str:
    """``text`` escaped for a PO string literal: control characters without a name as three octal digits."""
    return _NEEDS_ESCAPE.sub(lambda m: _ESCAPES.get(m.group()) or f"\\{ord(m.group()):03o}", text)


def format_field(keyword: str, value: str, width: int = WRAP_WIDTH) -> list[str]:
    """The lines of ``keyword "value"`` as GNU gettext writes them (wrapped at ``width``)."""
    escaped = escape(value)
    single = f'{keyword} "{escaped}"'
    if len(single) <= width and "\n" not in value[:-1]:
        return [single]
    lines = [f'{keyword} ""']
    for chunk in re.split(r"(?<=\\n)", escaped):
        if chunk:
            lines.extend(f'"{part}"' for part in _wrap(chunk, width - 2))
    return lines


def _wrap(chunk: str, limit: int) -> list[str]:
    """Split after spaces so that each part fits in ``limit`` columns where possible."""
    parts: list[str] = []
    while len(chunk) > limit:
        cut = chunk.rfind(" ", 0, limit)
        if cut <= 0:
            cut = chunk.find(" ", limit)
            if cut < 0:
                break
        parts.append(chunk[: cut + 1])
        chunk = chunk[cut + 1 :]
    if chunk:
        parts.append(chunk)
    return parts


_NAMED = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\", '"': '"'}
_READ_ESCAPE = re.compile(r"\\(?:([ntrabfv\\\"])|([0-7]{1,3})|x([0-9A-Fa-f]+))")


def unescape(text: str) -> str:
    """A PO string's content as msgfmt reads it: named escapes, octal (up to three digits) and hex numbers.

    A number is one byte (hex digits are read as long as they last, as C does, the value kept to a
    byte); bytes above 127 that follow each other are decoded together as UTF-8 (``\\303\\251`` is é),
    falling back to Latin-1.
    """
    if "\\" not in text:
        return text
    out: list[str] = []
    pending = bytearray()
    last = 0
    for m in _READ_ESCAPE.finditer(text):
        if m.start() != last or m.group(1) is not None:
            _flush(pending, out)
        out.append(text[last : m.start()])
        last = m.end()
        named, octal, hexa = m.groups()
        if named is not None:
            out.append(_NAMED[named])
            continue
        value = (int(octal, 8) if octal else int(hexa, 16)) & 0xFF
        if value < 0x80:
            _flush(pending, out)
            out.append(chr(value))
        else:
            pending.append(value)
    _flush(pending, out)
    out.append(text[last:])
    return "".join(out)


def _flush(pending: bytearray, out: list[str]) -> None:
    if pending:
        try:
            out.append(pending.decode("utf-8"))
        except UnicodeDecodeError:
            out.append(pending.decode("latin-1"))
        pending.clear()
