"""The fuzzy match of a merge against its naive oracle: every source scored, the first best kept.

:func:`~pipeline.catalogs.similar.most_similar` tries only the sources whose longest common
subsequence could beat the best ratio found so far; it must pick what scoring all of them picks,
ties and the exact threshold included (short texts over a small alphabet make both common).
"""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.catalogs.similar import FUZZY_THRESHOLD, contained_ratio, most_similar, similarity

TEXTS = st.text(alphabet="abcde fg", max_size=12)


def oracle(text: str, sources: list[str]) -> int | None:
    best, best_ratio = None, FUZZY_THRESHOLD
    for k, source in enumerate(sources):
        ratio = similarity(text, source)
        if ratio > best_ratio or (ratio == best_ratio and best is None):
            best, best_ratio = k, ratio
    return best


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.lists(TEXTS, max_size=30))
def test_the_bounded_search_picks_what_scoring_every_source_picks(text: str, sources: list[str]) -> None:
    assert most_similar(text, sources) == oracle(text, sources)


def test_a_ratio_of_exactly_the_threshold_lends() -> None:
    assert similarity("Cloud", "Close") == FUZZY_THRESHOLD
    assert most_similar("Cloud", ["Other", "Close"]) == 1


@settings(max_examples=600, deadline=None)
@given(TEXTS, TEXTS, TEXTS, st.booleans())
def test_a_text_held_in_the_other_has_the_matchers_ratio(held: str, before: str, after: str, swap: bool) -> None:
    a, b = (before + held + after, held) if not swap else (held, before + held + after)
    expected = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
    assert contained_ratio(a, b) == expected  # the same float: the matcher's own expression


@given(TEXTS, TEXTS)
def test_texts_neither_holds_are_left_to_the_matcher(a: str, b: str) -> None:
    assert (contained_ratio(a, b) is None) == (a not in b and b not in a)
