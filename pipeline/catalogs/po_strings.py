"""PO string literals as GNU gettext writes them: escaped, and wrapped at its page width."""

from __future__ import annotations

import re

__all__ = ["WRAP_WIDTH", "escape", "format_field"]

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
