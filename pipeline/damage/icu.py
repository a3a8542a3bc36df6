"""ICU MessageFormat's complex arguments (plural, selectordinal, select), found by counting braces.

From the ICU user guide: ``{name, plural, [offset:N] selector {message} ...}`` where a selector is
``=N`` or a keyword, and each message is text that may hold further arguments; ``#`` in a plural
message stands for the number. The argument's name and type are code; for ``select`` the keywords
are code too (the program passes them), while plural keywords are the target language's CLDR
categories and differ between languages by design. The messages are translatable text, scanned
again for tokens by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

_HEAD = re.compile(r"\{\s*([\w.]+)\s*,\s*(plural|selectordinal|select)\s*,\s*(offset\s*:\s*\d+\s*)?")
_SELECTOR = re.compile(r"\s*(=\s*-?\d+(?:\.\d+)?|[\w-]+)\s*\{")
_CLOSE = re.compile(r"\s*\}")


class Branch(NamedTuple):
    """One message of a complex argument: where its text is, and where its ``#`` stand."""

    start: int
    end: int
    counts: tuple[int, ...] = ()  # offsets of '#' (plural only) relative to start


@dataclass(frozen=True)
class Construct:
    """One complex argument: its span, the (text, key, start) of its code, and its messages."""

    start: int
    end: int
    heads: list[tuple[str, str, int]] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)


def constructs(text: str) -> Iterator[Construct]:
    """The top-level complex arguments of ``text`` that parse, left to right."""
    at = 0
    while (brace := text.find("{", at)) >= 0:
        found = _parse(text, brace)
        if found is None:
            at = brace + 1
            continue
        yield found
        at = found.end


def _parse(text: str, start: int) -> Construct | None:
    head = _HEAD.match(text, start)
    if head is None:
        return None
    name, kind, offset = head.group(1), head.group(2), _spaceless(head.group(3) or "")
    key = "{" + ",".join(p for p in (name, kind, offset) if p) + "}"
    heads = [(head.group(), key, start)]
    branches: list[Branch] = []
    at = head.end()
    while (selector := _SELECTOR.match(text, at)) is not None:
        end = _matching_brace(text, selector.end())
        if end is None:
            return None
        if kind == "select":
            heads.append((selector.group(1), f"{name}:{_spaceless(selector.group(1))}", selector.start(1)))
        body = text[selector.end() : end]
        counts = tuple(i for i in _top_level(body, "#")) if kind != "select" else ()
        branches.append(Branch(selector.end(), end, counts))
        at = end + 1
    close = _CLOSE.match(text, at)
    if close is None or not branches:
        return None
    return Construct(start, close.end(), heads, branches)


def _matching_brace(text: str, at: int) -> int | None:
    """The index of the ``}`` closing a message that starts at ``at``, or None."""
    depth = 0
    for index in range(at, len(text)):
        char = text[index]
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return index
            depth -= 1
    return None


def _top_level(body: str, char: str) -> Iterator[int]:
    """Offsets of ``char`` in ``body`` outside any nested braces."""
    depth = 0
    for index, c in enumerate(body):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == char and depth == 0:
            yield index


def _spaceless(text: str) -> str:
    return re.sub(r"\s+", "", text)
