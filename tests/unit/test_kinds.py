"""The placeholder kinds' scan, and the markup scan before it: what they rely on of their patterns."""

from __future__ import annotations

import re

import pytest

from pipeline.placeholders import kinds, markup


@pytest.mark.parametrize(("kind", "pattern", "needs"), kinds._SCANNED)
def test_no_placeholder_kind_matches_the_empty_string(kind: str, pattern: str, needs: tuple[str, ...]) -> None:
    # The kinds' scan takes the leftmost match as one alternation would; an alternation's finditer passes
    # over an empty match and tries again, which the scan does not do: no kind may match empty anywhere.
    # The regex parser's width bounds say so for every context (sre_parse, public until Python 3.11).
    parsed = re._parser.parse(pattern, re.VERBOSE | re.DOTALL)  # type: ignore[attr-defined]
    assert parsed.getwidth()[0] > 0


def test_a_kind_searched_as_its_alternatives_is_their_alternation() -> None:
    # The scan searches each alternative on its own, in order: together they must be the kind's pattern.
    for kind, alternatives in kinds._ALTERNATIVES.items():
        assert "|".join(pattern for pattern, _ in alternatives) == kinds._KIND_PATTERNS[kind]
        assert [k for k, _, _ in kinds._SCANNED].count(kind) == len(alternatives)


@pytest.mark.parametrize("xliff", [False, True])
def test_no_markup_alternative_matches_the_empty_string(xliff: bool) -> None:
    # The markup scan goes on from the end of each match, as finditer does only for a match that is not empty.
    pattern = markup._outer(xliff)
    assert re._parser.parse(pattern.pattern, pattern.flags).getwidth()[0] > 0  # type: ignore[attr-defined]
