"""PO string literals: escaped and wrapped as GNU gettext writes them, unescaped as msgfmt reads them."""

from __future__ import annotations

import re

__all__ = ["WRAP_WIDTH", "escape", "format_field", "unescape"]

WRAP_WIDTH = 79  # GNU gettext's default page width

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
