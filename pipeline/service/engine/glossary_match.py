"""Finding glossary source phrases in a text, fast enough for a 10 MB dictionary.

A phrase matches where it occurs case-insensitively as a whole word: not preceded and not followed
by a word character (``\\w``), the longest phrase winning at each position, scanning left to
right. Instead of one regular expression with hundreds of thousands of alternatives (which takes
seconds to compile and scans slowly), phrases are indexed by their first word (or first
character when they start with a non-word character), so each position of the text only tries
the lengths of the phrases that can start there: one dictionary look-up per distinct length.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Iterator


def _is_word(char: str) -> bool:
    # The same characters as the re module's \w for str patterns.
    return char.isalnum() or char == "_"


def _fold(text: str) -> str:
    """Lower case, character by character, keeping the length (so positions stay valid)."""
    lowered = text.lower()
    if len(lowered) == len(text):  # no character grew (none ever shrinks), the usual case
        return lowered
    return "".join(low if len(low := char.lower()) == 1 else char for char in text)


def _key(folded: str, start: int) -> str:
    if not _is_word(folded[start]):
        return folded[start]
    end = start + 1
    while end < len(folded) and _is_word(folded[end]):
        end += 1
    return folded[start:end]


class TermIndex:
    """The source phrases of one dictionary, indexed for whole-word, case-insensitive search."""

    def __init__(self, entries: tuple[tuple[str, str], ...]) -> None:
        self._targets: dict[str, str] = {}
        for source, target in entries:
            self._targets[_fold(source)] = target
        lengths: dict[str, set[int]] = {}
        for folded in self._targets:
            lengths.setdefault(_key(folded, 0), set()).add(len(folded))
        self._lengths = {key: sorted(sizes, reverse=True) for key, sizes in lengths.items()}

    def replace(self, text: str, gap: Callable[[str], str]) -> str:
        """``text`` with every matched phrase replaced by its target and ``gap`` applied to the rest."""
        out: list[str] = []
        done = 0
        for start, end, target in self._matches(text):
            out.append(gap(text[done:start]))
            out.append(target)
            done = end
        out.append(gap(text[done:]))
        return "".join(out)

    def targets_in(self, text: str) -> set[str]:
        """The target phrases that :meth:`replace` puts into ``text``."""
        return {target for _, _, target in self._matches(text)}

    def _matches(self, text: str) -> Iterator[tuple[int, int, str]]:
        """``(start, end, target)`` of each matched phrase, left to right, the longest at each position."""
        folded = _fold(text)
        size = len(text)
        position = 0
        while position < size:
            if position == 0 or not _is_word(text[position - 1]):
                for length in self._lengths.get(_key(folded, position), ()):
                    end = position + length
                    target = self._targets.get(folded[position:end]) if end <= size else None
                    if target is not None and (end == size or not _is_word(text[end])):
                        yield position, end, target
                        position = end
                        break
                else:
                    position += 1
                continue
            position += 1


_BY_IDENTITY: OrderedDict[int, tuple[tuple[tuple[str, str], ...], TermIndex]] = OrderedDict()
_BY_IDENTITY_SIZE = 16


@functools.lru_cache(maxsize=16)
def _by_value(entries: tuple[tuple[str, str], ...]) -> TermIndex:
    return TermIndex(entries)


def term_index(entries: tuple[tuple[str, str], ...]) -> TermIndex:
    """The index of a dictionary's entries, built once per distinct dictionary.

    The same tuple object (the service caches parsed dictionaries) is found by identity, since
    hashing a dictionary of 300,000 entries for every text would cost more than the search.
    """
    found = _BY_IDENTITY.get(id(entries))
    if found is not None and found[0] is entries:
        return found[1]
    index = _by_value(entries)
    _BY_IDENTITY[id(entries)] = (entries, index)  # holding `entries` keeps its id from being reused
    while len(_BY_IDENTITY) > _BY_IDENTITY_SIZE:
        _BY_IDENTITY.popitem(last=False)
    return index
