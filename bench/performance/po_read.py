"""Reading one PO catalog in a warm process: ``read_catalog`` beside ``polib.pofile``, the median of RUNS.

``python -m bench.performance.po_read [--gc-as-cli] FILE.po [FILE.po ...]`` prints one JSON line per
file: the median wall and CPU milliseconds of :func:`pipeline.catalogs.read_catalog` and of
``polib.pofile`` on the same file, and their ratio. The modules are imported and each reader run
once before the timed runs, so this is the per-catalog cost, not start-up. ``--gc-as-cli`` sets the
garbage collector's thresholds as the ``pipeline`` command does (:data:`pipeline.cli.GC_THRESHOLDS`);
without it they are Python's defaults, as in a program that uses the library. Run it from two
worktrees in turn to compare two versions of the reader in one sitting.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polib

from pipeline.catalogs import read_catalog
from pipeline.cli import GC_THRESHOLDS

RUNS = 5


def _median_ms(read: Callable[[], object]) -> tuple[float, float]:
    """The median wall and CPU milliseconds of RUNS calls of ``read`` (after one untimed call)."""
    read()
    wall, cpu = [], []
    for _ in range(RUNS):
        w, c = time.perf_counter(), time.process_time()
        read()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return round(statistics.median(wall) * 1000, 1), round(statistics.median(cpu) * 1000, 1)


def measure(path: Path) -> dict[str, object]:
    """The figures of one file."""
    ours = _median_ms(lambda: read_catalog(path))
    theirs = _median_ms(lambda: polib.pofile(str(path)))
    return {
        "file": str(path),
        "bytes": path.stat().st_size,
        "read_ms": ours[0],
        "read_cpu_ms": ours[1],
        "polib_ms": theirs[0],
        "polib_cpu_ms": theirs[1],
        "ratio_cpu": round(ours[1] / theirs[1], 2) if theirs[1] else None,
        "gc_thresholds": gc.get_threshold(),
        "load": round(os.getloadavg()[0], 2),
    }


def main(argv: list[str]) -> int:
    """Measure every file named."""
    if argv[:1] == ["--gc-as-cli"]:
        gc.set_threshold(*GC_THRESHOLDS)
        argv = argv[1:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    for name in argv:
        print(json.dumps(measure(Path(name))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
