"""Where a key of a TOML text sits, and the known key a misspelt one meant: what a configuration error says.

:mod:`tomllib` gives the values and no positions, so the line is found in the text: table headers
(``[service]``, ``[tool.pipeline]``, ``[[x]]``) set the table the following ``key = value`` lines
belong to, and a dotted key (``service.url = ...``) is followed down. Lines inside a multi-line
string or a multi-line array are skipped. A key the text holds only inside an inline table
(``service = { url = 5 }``) is found at its table's line. Only an error path reads this: the text is a few kilobytes.
"""

from __future__ import annotations

import re

#: A table header: ``[name]`` or ``[[name]]``, a comment after it allowed.
_HEADER = re.compile(r"^\s*\[\[?\s*(?P<name>[^\]]+?)\s*\]\]?\s*(?:#.*)?$")
#: The key of a ``key = value`` line: bare, quoted and dotted parts.
_KEY = re.compile(
    r"""^\s*(?P<key>(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*="""
)
#: One part of a dotted key.
_PART = re.compile(r""""([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+)""")
_MULTILINE_QUOTES = ('"""', "'''")
#: A one-line string, whose brackets are text.
_STRING = re.compile(r""""(?:[^"\\]|\\.)*"|'[^']*'""")


def _brackets(text: str) -> int:
    """How many more arrays ``text`` opens than it closes (brackets inside strings and comments not counted)."""
    code = _STRING.sub("", text).split("#", 1)[0]
    return code.count("[") - code.count("]")


def _parts(dotted: str) -> tuple[str, ...]:
    return tuple(next(group for group in match.groups() if group is not None) for match in _PART.finditer(dotted))


def _defined(text: str) -> dict[tuple[str, ...], int]:
    """Every table and key ``text`` defines, as its path of parts, with the line (1-based) where it first does."""
    found: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    open_quote: str | None = None  # inside a multi-line string opened by this quote
    arrays = 0  # inside this many arrays a value opened on an earlier line
    for number, line in enumerate(text.splitlines(), 1):
        if open_quote is not None:
            if line.count(open_quote) % 2:
                open_quote = None
            continue
        if arrays > 0:
            arrays = max(0, arrays + _brackets(line))
            continue
        header = _HEADER.match(line)
        if header is not None:
            table = _parts(header.group("name"))
            found.setdefault(table, number)
            continue
        key = _KEY.match(line)
        if key is None:
            continue
        path = table + _parts(key.group("key"))
        for end in range(len(table) + 1, len(path) + 1):  # a dotted key defines its tables too
            found.setdefault(path[:end], number)
        rest = line[key.end() :]
        open_quote = next((q for q in _MULTILINE_QUOTES if rest.count(q) % 2), None)
        if open_quote is None:
            arrays = max(0, _brackets(rest))
    return found


def key_line(text: str, key: tuple[str, ...]) -> int | None:
    """The line where ``key`` (its path of parts from the document's root) is set, or its nearest table; None."""
    found = _defined(text)
    for depth in range(len(key), 0, -1):
        line = found.get(key[:depth])
        if line is not None:
            return line
    return None


def did_you_mean(name: str, known: list[str] | tuple[str, ...] | frozenset[str]) -> str:
    """``"; did you mean 'x'?"`` for the known key closest to a misspelt ``name``, or "" when none is close."""
    import difflib  # an error path only: not loaded by every run that reads its configuration

    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return f"; did you mean {close[0]!r}?" if close else ""
