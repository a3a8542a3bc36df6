"""How a caller's value appears in an error message: as ``repr`` shows it, cut to a readable length.

A message quotes the value it refuses so the caller sees what was wrong, but never the whole of
a 60,000-character field: past :data:`MAX_ECHO_CHARS` the quotation ends with an ellipsis.
"""

from __future__ import annotations

MAX_ECHO_CHARS = 100
ELLIPSIS = "\u2026"


def echo(value: object) -> str:
    """``repr(value)``, cut after :data:`MAX_ECHO_CHARS` characters with an ellipsis."""
    shown = repr(value)
    return shown if len(shown) <= MAX_ECHO_CHARS else shown[:MAX_ECHO_CHARS] + ELLIPSIS
