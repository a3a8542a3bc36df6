"""Which argument a printf value in markup reads, whether the text numbers its arguments or not.

glib's ``<key name='%s'> shadows <key name='%s'>`` reads its arguments in order; its Japanese translation
writes ``<key name='%2$s'> … <key name='%1$s'>``. Compared as written, every tag would differ; numbered
alike, a tag holds the same argument in both or another one (a link given another URL).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.patterns import lazy_regex
from pipeline.segments import Placeholder

__all__ = ["numbered_alike"]


#: A printf conversion, numbered (``%2$s``) or not, and ``%%``; its number, if any, in group 1.
_CONVERSION = lazy_regex(r"%(?:([1-9][0-9]*)\$)?[-+ #0']*[0-9]*(?:\.[0-9]+)?(?:hh|h|ll|l|L|j|z|t|q)?[a-zA-Z%]")


def numbered_alike(
    source: Sequence[Placeholder], target: Sequence[Placeholder], markup_kinds: frozenset[str]
) -> tuple[Sequence[Placeholder], Sequence[Placeholder]]:
    """Both texts' placeholders (``markup_kinds``: the markup's), the values in the markup of the one that
    numbers no argument numbered where the other numbers them: glib's ``<key name='%s'> shadows
    <key name='%s'>`` reads its arguments in order, so its Japanese translation's ``<key name='%2$s'>``
    holds what the source's second tag holds."""
    numbered = [any(m.group(1) for ph in side for m in _CONVERSION().finditer(ph.text)) for side in (source, target)]
    if numbered[0] == numbered[1]:
        return source, target
    return (_numbered(source, markup_kinds), target) if numbered[1] else (source, _numbered(target, markup_kinds))


def _numbered(placeholders: Sequence[Placeholder], markup_kinds: frozenset[str]) -> list[Placeholder]:
    """``placeholders`` with each conversion inside a tag given the number of the argument it reads: the
    conversions of a text without numbers read the arguments in their order (``%%`` reads none)."""
    count = 0
    out: list[Placeholder] = []

    def number(match: re.Match[str]) -> str:
        nonlocal count
        if match.group().endswith("%"):
            return match.group()
        count += 1
        return f"%{count}${match.group()[1:]}"

    for ph in placeholders:
        if ph.kind in markup_kinds:
            out.append(ph._replace(text=_CONVERSION().sub(number, ph.text)))
        else:
            count += sum(1 for m in _CONVERSION().finditer(ph.text) if not m.group().endswith("%"))
            out.append(ph)
    return out
