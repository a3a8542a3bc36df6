"""Where each line of a PO file starts, as the reader records it, against a walk over its newlines."""

from __future__ import annotations

from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from pipeline.catalogs import po_lines


@given(st.binary(max_size=80).map(lambda raw: raw.replace(b"\r", b"")), st.booleans(), st.integers(1, 9))
def test_the_line_starts_are_after_each_newline_and_at_the_end(raw: bytes, crlf: bool, slice_size: int) -> None:
    raw = raw.replace(b"\n", b"\r\n") if crlf else raw  # a CR anywhere: the lines are found otherwise
    oracle = [0, *(at + 1 for at, byte in enumerate(raw) if byte == ord("\n"))]
    if raw and not raw.endswith(b"\n"):
        oracle.append(len(raw))
    with mock.patch.object(po_lines, "_SLICE", slice_size):  # lines split a few at a time, across slices
        assert list(po_lines.Lines(raw).starts) == oracle
