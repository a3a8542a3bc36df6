"""The checks that judge every placeholder of a text against the others do it in linear time, and answer
what the plain quadratic comparisons they replaced answer, written out here as oracles."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pipeline.placeholders import grammar, kinds
from pipeline.placeholders.glue import _moved_head
from pipeline.placeholders.runs import Disjoint

IDS = st.sampled_from([str(n) for n in range(1, 9)])


def _moved_head_plainly(heads: set[str], line: list[str], got: list[str]) -> str | None:
    for at, ident in enumerate(line):
        if ident in heads and ident in got and set(got[: got.index(ident)]) != set(line[:at]) & set(got):
            return ident
    return None


@given(
    st.lists(IDS, unique=True, max_size=8),  # a synopsis line's ids, each once
    st.lists(IDS, max_size=10),  # an answer's ids (repeated, left out, added)
    st.sets(IDS, max_size=4),
)
def test_a_moved_command_is_found_as_comparing_sets_per_command_found_it(
    line: list[str], answer: list[str], heads: set[str]
) -> None:
    got = [ident for ident in answer if ident in line]
    assert _moved_head(heads, line, got) == _moved_head_plainly(heads, line, got)


SPANS = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 6)), max_size=8).map(
    lambda pairs: [(start, start + length) for start, length in pairs]
)


@given(SPANS, st.integers(0, 36), st.integers(0, 6))
def test_overlaps_and_holders_are_found_as_testing_each_span_found_them(
    spans: list[tuple[int, int]], start: int, length: int
) -> None:
    end = start + length
    kept: list[tuple[int, int]] = []  # spans added as _directives adds them: those that overlap none before
    disjoint = Disjoint()
    for s, e in spans:
        overlapping = any(a < e and s < b for a, b in kept)
        assert disjoint.overlaps(s, e) == overlapping
        if not overlapping:
            kept.append((s, e))
            disjoint.add(s, e)
    assert disjoint.overlaps(start, end) == any(a < end and start < b for a, b in kept)
    if length > 0:  # what holding is asked of: a directive, never empty
        for given in (sorted(kept), spans):  # apart and in order (by bisection), or as they come (each tested)
            placed = Disjoint.of(given)
            holder = next((i for i, (a, b) in enumerate(given) if a <= start and end <= b), None)
            assert placed.holding(start, end) == holder
            assert placed.overlaps(start, end) == any(a < end and start < b for a, b in given)
    assert not Disjoint.of([(0, 5), (4, 9)]).indexed and Disjoint.of([(0, 5), (5, 9)]).indexed


#: The identifier holding "$" as it was written before it stopped starting after a "$" (which a $name
#: always took first): on "$a$a..." each search of it ran on to the end.
_PLAIN_CODE_IDENTIFIER = r"""\b[A-Za-z_][A-Za-z0-9_]*\$[A-Za-z0-9_$]*"""


def _every_kind(code_identifier: str) -> re.Pattern[str]:
    patterns = {**kinds._KIND_PATTERNS, "code-identifier": code_identifier}
    return re.compile("|".join(f"(?P<{k.replace('-', '_')}>{p})" for k, p in patterns.items()), re.VERBOSE | re.DOTALL)


@given(
    st.lists(
        st.sampled_from(["$", "a", "b1", "_", "$a", "!$omp", "x", " ", "-", "%", "{", "}", "$(", ")", "[", "]", "'"])
        | st.sampled_from(["é", "í", "lí", "%1$s", "$5", ".", "@", "OMP", ":", "/", "SYS$LOGIN", "foo$bar$"]),
        max_size=12,
    ).map("".join)
)
def test_the_placeholder_kinds_find_what_they_found_before_the_identifier_with_a_dollar_was_narrowed(
    text: str,
) -> None:
    before = [(m.span(), m.lastgroup) for m in _every_kind(_PLAIN_CODE_IDENTIFIER).finditer(text)]
    assert [(m.span(), m.lastgroup) for m in _every_kind(grammar.CODE_IDENTIFIER).finditer(text)] == before
