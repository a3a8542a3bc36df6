"""Fuzzy matching of a text against the segments of a translation memory.

The score of a memory segment for a text is a normalized Levenshtein similarity in percent::

    score = 100 * (1 - d / max(len(a), len(b)))

where ``a`` and ``b`` are the text and the segment's source after normalization (Unicode NFC,
every run of whitespace turned into one space, leading and trailing whitespace removed), lengths
count code points, and ``d`` is the Levenshtein distance between them: the least number of
single code-point insertions, deletions and substitutions turning one into the other. Case and
punctuation count (``Save`` vs ``save`` is one edit). Identical texts score 100; two empty texts
score 100. A segment is applied when its score is at or above ``translation_memory_threshold``
(compared exactly, in integers: ``100 * d <= (100 - threshold) * max(len(a), len(b))``). Among
segments with the best score the first one of the memory wins; an exact match (after
normalization) is found without scanning.

The unit of matching is one ``text`` of a translation request; the Levenshtein computation is
rapidfuzz's (C++), so a memory of 100,000 segments costs milliseconds per text.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pipeline.patterns import lazy_regex

# rapidfuzz is imported where a text is matched: a service that never looks a memory up (the
# pipeline's embedded one, translating catalogs) does not load it.

_SPACE = lazy_regex(r"\s+")


def normalize(text: str) -> str:
    """NFC, whitespace runs as one space, no edge whitespace: the form segments are compared in."""
    return _SPACE().sub(" ", unicodedata.normalize("NFC", text)).strip()


def _rapidfuzz() -> tuple[Any, Any]:
    """rapidfuzz's ``Levenshtein`` and ``process``: the front door of the matcher's library, loaded on the first
    fuzzy match (a service whose requests name no memory never loads it)."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    return Levenshtein, process


def score(a: str, b: str) -> float:
    """The fuzzy-match score (0..100) of two texts, as documented above."""
    levenshtein, _ = _rapidfuzz()
    a, b = normalize(a), normalize(b)
    longest = max(len(a), len(b))
    if longest == 0:
        return 100.0
    distance: int = levenshtein.distance(a, b)
    return 100.0 * (1 - distance / longest)


def passes(a: str, b: str, threshold: int) -> bool:
    """Whether normalized ``a`` and ``b`` score at or above ``threshold`` (exact integer test)."""
    levenshtein, _ = _rapidfuzz()
    longest = max(len(a), len(b))
    distance: int = levenshtein.distance(a, b)
    return 100 * distance <= (100 - threshold) * longest


class Match(NamedTuple):
    """The memory segment applied to a text, and its score."""

    source: str
    target: str
    score: float


@dataclass(frozen=True)
class MemoryIndex:
    """The segments of one memory for one language pair (base languages), ready for matching."""

    source_lang: str
    target_lang: str
    segments: tuple[tuple[str, str], ...]
    _normalized: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _exact: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        normalized = tuple(normalize(source) for source, _ in self.segments)
        exact: dict[str, int] = {}
        for position, key in enumerate(normalized):
            exact.setdefault(key, position)
        object.__setattr__(self, "_normalized", normalized)
        object.__setattr__(self, "_exact", exact)

    def best_match(self, text: str, threshold: int) -> Match | None:
        """The best segment for ``text`` scoring at least ``threshold``, or None."""
        query = normalize(text)
        position = self._exact.get(query)
        if position is None:
            if not self._normalized:
                return None
            levenshtein, process = _rapidfuzz()
            # The cutoff is a float bound that lets borderline candidates through; `passes` decides.
            found = process.extractOne(
                query,
                self._normalized,
                scorer=levenshtein.normalized_similarity,
                score_cutoff=max(0.0, threshold / 100 - 1e-9),
            )
            if found is None or not passes(query, found[0], threshold):
                return None
            position = found[2]
        source, target = self.segments[position]
        return Match(source, target, score(text, source))
