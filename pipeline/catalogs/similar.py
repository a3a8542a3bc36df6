"""msgmerge's fuzzy matching: which translated entry lends its translation to a new one of the template.

The measure is :class:`difflib.SequenceMatcher`'s ratio, at least :data:`FUZZY_THRESHOLD` (msgmerge's
own threshold for its similar ``fstrcmp`` measure). The search is exhaustive but cheap: rapidfuzz
ranks the lenders by the ratio of their longest common subsequence (``fstrcmp``'s own measure, never
below the matcher's), and the matcher runs only on the best of them, best first, until that bound
falls below the best ratio found. rapidfuzz is loaded by the first search: a merge whose template
brings no new message (references and comments changed) never loads it.
"""

from __future__ import annotations

import difflib
import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

__all__ = ["FUZZY_THRESHOLD", "Lenders", "contained_ratio", "most_similar", "similarity"]

FUZZY_THRESHOLD = 0.6
#: Below any difference between two ways of computing one ratio in floating point (rapidfuzz turns
#: a cutoff of exactly 0.6 into a distance that leaves a ratio of exactly 0.6 out).
_ROUNDING = 1e-4


def similarity(a: str, b: str) -> float:
    """How alike two source texts are, 0..1, as msgmerge's fuzzy matching measures it."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < FUZZY_THRESHOLD or matcher.quick_ratio() < FUZZY_THRESHOLD:
        return 0.0
    return matcher.ratio()


def most_similar(text: str, sources: Sequence[str]) -> int | None:
    """The index of the source most similar to ``text`` by :func:`similarity` (the first among equals), if any
    reaches :data:`FUZZY_THRESHOLD` (:meth:`Lenders.most_similar`)."""
    return Lenders(sources).most_similar(text)


def contained_ratio(a: str, b: str) -> float | None:
    """The matcher's ratio of ``a`` and ``b`` where one holds the other (None where neither does), without running it.

    The longest block two texts share is then the shorter one whole, and nothing is left on either side
    of it to match: the ratio is twice its length over both lengths, the matcher's own expression. A
    message extended by a few words is a common edit, and the matcher's quadratic search took most of
    the fuzzy matching's time on such edits.
    """
    if b not in a and a not in b:
        return None
    length = len(a) + len(b)
    return 2.0 * min(len(a), len(b)) / length if length else 1.0


#: The length ratio below which two texts cannot reach the threshold: their longest common
#: subsequence is at most the shorter one, so its ratio 2 * LCS / (a + b) is at most 2 * b / (a + b).
_LENGTH_RATIO = (FUZZY_THRESHOLD - _ROUNDING) / (2 - (FUZZY_THRESHOLD - _ROUNDING))


def _rapidfuzz() -> tuple[Any, Any]:
    """rapidfuzz's ``process`` and ``Indel``: the front door of the ranking's library, loaded by the first search."""
    from rapidfuzz import process
    from rapidfuzz.distance import Indel

    return process, Indel


class Lenders:
    """The sources a new entry may take its translation from, sorted by length once for every search."""

    def __init__(self, sources: Sequence[str]) -> None:
        lengths = list(map(len, sources))
        self._order = sorted(range(len(sources)), key=lengths.__getitem__)  # -> index in ``sources``
        self._sources = [sources[k] for k in self._order]
        self._lengths = [lengths[k] for k in self._order]

    def most_similar(self, text: str) -> int | None:
        """The index of the source most similar to ``text`` by :func:`similarity` (the first among equals), if
        any reaches :data:`FUZZY_THRESHOLD`.

        Only the sources whose length can reach the threshold are compared (:data:`_LENGTH_RATIO`: a
        third of the searches' time went to the others). The ratio of two texts' longest common
        subsequence bounds the matcher's from above (the matcher's blocks are a common subsequence),
        so the sources are tried in the order of that bound, and none after it falls below the best
        ratio found.
        """
        low = bisect_left(self._lengths, math.floor(len(text) * _LENGTH_RATIO))
        high = bisect_right(self._lengths, math.ceil(len(text) / _LENGTH_RATIO))
        process, indel = _rapidfuzz()
        ranked = process.extract(
            text,
            self._sources[low:high],
            scorer=indel.normalized_similarity,
            score_cutoff=FUZZY_THRESHOLD - _ROUNDING,
            limit=None,
        )
        matcher = None  # made for the first source that neither holds the text nor is held by it
        best, best_ratio = None, FUZZY_THRESHOLD
        for source, bound, j in ranked:
            if bound < best_ratio - _ROUNDING:
                break
            k = self._order[low + j]
            ratio = contained_ratio(text, source)
            if ratio is None:
                if matcher is None:
                    matcher = difflib.SequenceMatcher(None, autojunk=False)
                    matcher.set_seq1(text)
                matcher.set_seq2(source)
                ratio = matcher.ratio()
            if ratio > best_ratio or (ratio == best_ratio and (best is None or k < best)):
                best, best_ratio = k, ratio
        return best
