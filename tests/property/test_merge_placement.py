"""Where a merge puts the entries it adds, against its naive oracle: one search of the whole list per entry.

Each new entry goes after the last block that comes before it in the template, first when none
does. The blocks kept from the catalog are in the catalog's order, which need not be the
template's, and obsolete ones (no template position) never count.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.catalogs.merge import _Block, _placed


def oracle(blocks: list[_Block], new: list[_Block]) -> list[_Block]:
    out = list(blocks)
    for block in new:
        assert block.position is not None  # a new block is where the template has it
        at = 0
        for k, other in enumerate(out):
            if other.position is not None and other.position < block.position:
                at = k + 1
        out.insert(at, block)
    return out


@st.composite
def layouts(draw: st.DrawFn) -> tuple[list[_Block], list[_Block]]:
    positions = draw(st.permutations(range(draw(st.integers(0, 12)))))
    taken = draw(st.lists(st.booleans(), min_size=len(positions), max_size=len(positions)))
    kept = [p for p, old in zip(positions, taken, strict=True) if old]  # in the catalog's order
    added = sorted(p for p, old in zip(positions, taken, strict=True) if not old)
    blocks = [_Block(p, 0, 0, [f"kept {p}"]) for p in kept]
    for _ in range(draw(st.integers(0, 3))):  # obsolete entries, anywhere
        blocks.insert(draw(st.integers(0, len(blocks))), _Block(None, 0, 0, ["obsolete"]))
    return blocks, [_Block(p, 0, 0, [f"new {p}"]) for p in added]


@given(layouts())
def test_new_entries_go_where_one_search_per_entry_puts_them(layout: tuple[list[_Block], list[_Block]]) -> None:
    blocks, new = layout
    assert [b.lines for b in _placed(blocks, new)] == [b.lines for b in oracle(blocks, new)]
