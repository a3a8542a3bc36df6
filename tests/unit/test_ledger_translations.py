"""The ledger's translations of a window: kept by catalog and unit, read as the dict by segment they replace."""

from __future__ import annotations

import pytest

from pipeline.run.ledger import Translations
from pipeline.segments import SegmentKey


def test_translations_read_as_the_dict_of_the_same_segments() -> None:
    pairs = {
        SegmentKey("a.po", 300, 0): "Öffnen",
        SegmentKey("a.po", 2, 0): "",
        SegmentKey("a.po", 7, 1): "zwei Dateien",
        SegmentKey("b.po", 0, 0): "Schließen",
    }
    done = Translations()
    done.update(pairs)
    assert dict(done.items()) == pairs and len(done) == 4 and set(done) == set(pairs)
    assert done[SegmentKey("a.po", 2, 0)] == "" and SegmentKey("a.po", 2, 0) in done
    assert done.get(SegmentKey("a.po", 3, 0)) is None and SegmentKey("a.po", 301, 0) not in done
    assert SegmentKey("a.po", 7, 0) not in done and SegmentKey("c.po", 0, 0) not in done
    assert done.pop(SegmentKey("a.po", 300, 0)) == "Öffnen" and done.pop(SegmentKey("a.po", 300, 0), None) is None
    with pytest.raises(KeyError):
        done[SegmentKey("a.po", 300, 0)]
    with pytest.raises(KeyError):
        del done[SegmentKey("a.po", 5, 0)]
    done.release(["a.po"])
    assert dict(done.items()) == {SegmentKey("b.po", 0, 0): "Schließen"}


def test_a_segment_of_no_unit_is_refused() -> None:
    with pytest.raises(KeyError):
        Translations()[SegmentKey("a.po", -1, 0)] = "nie"
    assert SegmentKey("a.po", -1, 0) not in Translations()
