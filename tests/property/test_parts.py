"""Cutting a window's units into parts (run/plan.parts): nothing lost, nothing twice, no unit cut apart."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from pipeline.catalogs.base import Unit, UnitState
from pipeline.run.plan import parts
from pipeline.run.plurals import UnitPlan
from pipeline.run.window import ScannedCatalog, UnitForms
from pipeline.segments import Segment, SegmentKey


def scanned(name: str, shapes: list[tuple[int, int]]) -> ScannedCatalog:
    """A catalog whose unit ``i`` is sent as ``shapes[i][0]`` segments (0: not wanted), ``shapes[i][1]`` fallbacks."""
    units = tuple(
        Unit(i, i + 1, (f"{name} {i}",), ("",), 1, False, (), None, "", UnitState.UNTRANSLATED)
        for i in range(len(shapes))
    )
    wanted = [i for i, (count, _) in enumerate(shapes) if count]
    plans = {
        i: UnitPlan((), {f: f"{name} {i} {f}" for f in range(count)})
        for i, (count, _) in enumerate(shapes)
        if count > 1
    }
    fallbacks = tuple(
        Segment(SegmentKey(name, i, 10 + f), f"{name} {i} fallback {f}", i + 1)
        for i in wanted
        if i in plans
        for f in range(shapes[i][1])
    )
    catalog = SimpleNamespace(units=units)
    forms = UnitForms.of((i, tuple(range(shapes[i][0]))) for i in wanted)
    return ScannedCatalog(Path(name), name, catalog, "de", "DE", (), forms, 0, plans, fallbacks)


catalogs = st.lists(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), max_size=30), max_size=4)


def every_segment(s: ScannedCatalog) -> list[Segment]:
    return [segment for index in s.source_forms for segment in s.unit_segments(index)]


@given(catalogs, st.integers(1, 12))
def test_parts_hold_every_segment_once_in_order_and_keep_each_unit_whole(
    shapes: list[list[tuple[int, int]]], most: int
) -> None:
    window = [scanned(f"c{n}.po", units) for n, units in enumerate(shapes)]
    cut = list(parts(window, most))
    assert [seg for part in cut for s in part for seg in s.segments] == [
        seg for s in window for seg in every_segment(s)
    ]
    assert [seg for part in cut for s in part for seg in s.fallbacks] == [seg for s in window for seg in s.fallbacks]
    where: dict[tuple[str, int], int] = {}
    for number, part in enumerate(cut):
        for s in part:
            for seg in (*s.segments, *s.fallbacks):
                assert where.setdefault((s.display, seg.key.unit), number) == number  # a unit in one part
    # A part stops at the unit that reaches the limit: over it by less than a unit's segments.
    assert all(sum(len(s.segments) for s in part) < most + 3 for part in cut)
    assert all(part for part in cut[:-1])


@given(catalogs)
def test_a_window_within_the_limit_is_one_part_of_all_its_catalogs(shapes: list[list[tuple[int, int]]]) -> None:
    window = [scanned(f"c{n}.po", units) for n, units in enumerate(shapes)]
    (part,) = parts(window, 10**6)
    assert [s.display for s in part] == [s.display for s in window]
    assert [seg for s in part for seg in s.segments] == [seg for s in window for seg in every_segment(s)]
