"""Write-back's reading of a catalog's wrap width looks only at the lines long enough to matter.

:func:`pipeline.catalogs.po_strings.wrap_width_of` decodes only the lines of more than 79 bytes, found
by a search from newline to newline; the oracle splits the whole file into lines.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.catalogs.po_strings import WRAP_WIDTH, _long_lines

LINES = st.lists(
    st.one_of(
        st.text(st.sampled_from('ab "\\é\u4e2d'), max_size=WRAP_WIDTH + 12),
        st.sampled_from(["x" * WRAP_WIDTH, "x" * (WRAP_WIDTH + 1), "é" * 45, "x" * WRAP_WIDTH + "\r"]),
    ),
    max_size=8,
)


@given(LINES, st.sampled_from(["\n", "\r\n"]), st.booleans(), st.integers(0, 3))
def test_the_long_lines_are_every_line_of_more_than_79_bytes(
    lines: list[str], newline: str, ended: bool, skip: int
) -> None:
    raw = (newline.join(lines) + (newline if ended and lines else "")).encode("utf-8")
    split = raw.split(b"\n")
    starts = [sum(len(line) + 1 for line in split[:k]) for k in range(len(split))]
    skip = min(skip, len(split) - 1)  # from a line's start, as after a header
    oracle = [(start, start + len(line)) for start, line in zip(starts, split, strict=True) if len(line) > WRAP_WIDTH]
    assert list(_long_lines(raw, starts[skip])) == [(s, e) for s, e in oracle if s >= starts[skip]]
    # Each line of more than 79 characters is among them.
    assert {s for s, e in oracle} >= {
        s for s, line in zip(starts, split, strict=True) if len(line.decode()) > WRAP_WIDTH
    }
