"""Garbage collection while a run works: less often, and the process's settings put back afterwards.

A run allocates a few hundred thousand small records that all live until it ends (units,
segments, protected texts, verdicts). At CPython's default threshold (a young collection every
700 allocations) the collector went over them about 150 times, and once over every object of the
process: 5 % of the Django workload (bench/pipeline_throughput.py). Cycles are still collected.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator

__all__ = ["GC_YOUNG_THRESHOLD", "fewer_collections", "window"]

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


@contextlib.contextmanager
def window(collect: bool = False) -> Iterator[Callable[[], None]]:
    """One window of catalogs: no collection while its records are built, and none over them after.

    Reading and planning a window builds its units, segments and protected texts, none of them in
    a cycle; each full collection meanwhile went over all of them again, a cost that grew faster
    than the catalog (500,000 entries took 5.8 times the CPU of 100,000, 5.1 times without
    collections). The block calls the callback it is given once those records are built: the
    collector is on again, and what exists then is frozen (:func:`gc.freeze`) until the window
    ends, so later collections go over what the window makes afterwards only. Objects frozen
    are still freed when nothing refers to them; a process that froze objects itself is left as
    it is.

    ``collect`` (every window after the first): a full collection first, so that what the last
    window left in cycles is freed now, not frozen with this window's records until it ends.
    """
    if collect:
        gc.collect()
    enabled, ours = gc.isenabled(), gc.get_freeze_count() == 0
    frozen = False
    gc.disable()

    def built() -> None:
        nonlocal frozen
        if enabled:
            gc.enable()
        if ours and not frozen:
            gc.freeze()
            frozen = True

    try:
        yield built
    finally:
        if enabled:
            gc.enable()
        if frozen:
            gc.unfreeze()
