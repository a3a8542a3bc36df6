"""Cutting a window's segments into parts (run/plan.parts): nothing lost, nothing twice, no unit cut apart."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pipeline.model import Segment, SegmentKey
from pipeline.run.plan import parts
from pipeline.run.window import ScannedCatalog


def scanned(name: str, forms: list[int], fallbacks: list[int]) -> ScannedCatalog:
    """A catalog whose unit ``i`` has ``forms[i]`` segments and ``fallbacks[i]`` plural fallbacks."""

    def segments(counts: list[int], first: int) -> tuple[Segment, ...]:
        return tuple(
            Segment(SegmentKey(name, unit, first + form), f"{name} {unit} {form}", unit + 1)
            for unit, count in enumerate(counts)
            for form in range(count)
        )

    return ScannedCatalog(Path(name), name, None, "de", "DE", segments(forms, 0), {}, 0, {}, segments(fallbacks, 10))  # type: ignore[arg-type]


catalogs = st.lists(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), max_size=30).map(
        lambda units: ([f for f, _ in units], [b for _, b in units])
    ),
    max_size=4,
)


@given(catalogs, st.integers(1, 12))
def test_parts_hold_every_segment_once_in_order_and_keep_each_unit_whole(shapes, most):
    window = [scanned(f"c{n}.po", forms, spare) for n, (forms, spare) in enumerate(shapes)]
    cut = parts(window, most)
    for kind in ("segments", "fallbacks"):
        assert [seg for part in cut for s in part for seg in getattr(s, kind)] == [
            seg for s in window for seg in getattr(s, kind)
        ]
    where = {}
    for number, part in enumerate(cut):
        for s in part:
            for seg in (*s.segments, *s.fallbacks):
                assert where.setdefault((s.display, seg.key.unit), number) == number  # a unit in one part
    largest_unit = max((max(forms, default=0) for forms, _ in shapes), default=0)
    assert all(sum(len(s.segments) for s in part) <= max(most, largest_unit) for part in cut)


@given(catalogs)
def test_a_window_within_the_limit_is_one_part_of_its_catalogs_as_scanned(shapes):
    window = [scanned(f"c{n}.po", forms, spare) for n, (forms, spare) in enumerate(shapes)]
    assert parts(window, 10**6) == [window]
