"""Garbage collection while a run works: less often, and the process's settings put back afterwards.

A run allocates a few hundred thousand small records that all live until it ends (units,
segments, protected texts, verdicts). At CPython's default threshold (a young collection every
700 allocations) the collector went over them about 150 times, and once over every object of the
process: 5 % of the Django workload (bench/pipeline_throughput.py). Cycles are still collected.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["GC_YOUNG_THRESHOLD", "fewer_collections"]

#: Allocations between two young-generation collections while a run works.
GC_YOUNG_THRESHOLD = 10_000


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the young generation's threshold for the ``with`` block (never lower it); restore it after."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], GC_YOUNG_THRESHOLD), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
