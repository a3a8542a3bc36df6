"""The many_catalogs row's floor on this machine: what its 1,000 catalogs cost at the least, part by part.

``python -m bench.performance.many_floor [--projects gcc,wordpress] [--rounds N]`` builds the row's
catalogs (:func:`bench.performance.many_catalogs.write_apps`, one new string appended to each) and
times, in this process, each thing a run must do for them, with nothing else of a run around it:

- reading their bytes, and parsing them with the pipeline's PO reader (and with polib, for scale);
- writing each atomically as a run must (:func:`pipeline.files.swap.write_over`: a new file beside
  it, flushed, exchanged, the old bytes checked): one at a time, then in :data:`pipeline.run.write.AT_ONCE`
  threads (as a run writes a window's catalogs, all 1,000 at once here), and in those threads again
  while this thread computes in Python meanwhile. The last is what overlapping a window's writes with
  the run's other work costs in CPython: a writer thread takes the interpreter back after each of its
  system calls, and while another thread computes it waits for the switch interval each time.

Each figure is the median of ``--rounds`` (CPU and wall seconds), beside ``python -c pass`` of the
installed venv (:mod:`bench.harness.installed`) and the load average. ``floor_seconds`` adds the
interpreter, one parse and the threaded writes: what the row's 1,000 catalogs cost before anything
else a run does (imports, discovery, locks, the service, the gate, provenance, state, report).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import polib

from bench.harness.process import fresh_env, load_average, python_c_pass
from bench.performance.many_catalogs import write_apps
from pipeline.catalogs.po import read_po
from pipeline.files.swap import write_over
from pipeline.run.write import AT_ONCE

PROJECTS = ("gcc", "wordpress")
ROUNDS = 3


def _timed(work: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds (this process, every thread) of one call of ``work``."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def _median(runs: list[tuple[float, float]]) -> dict[str, float]:
    return {
        "wall_seconds": round(statistics.median(w for w, _ in runs), 3),
        "cpu_seconds": round(statistics.median(c for _, c in runs), 3),
    }


class _Catalogs:
    """The row's catalogs on disk and, for each, the bytes it holds now and the bytes to write next."""

    def __init__(self, paths: list[Path]) -> None:
        self.paths = paths
        self.now = [path.read_bytes() for path in paths]

    def write(self, threads: int, busy: bool = False) -> None:
        """Each catalog written over what it holds (a line more each time), by ``threads`` threads; with ``busy``,
        this thread computes in Python until they are done."""
        new = [data + b"#\n" for data in self.now]
        if threads == 1:
            for path, data, old in zip(self.paths, new, self.now, strict=True):
                write_over(path, data, old)
        else:
            with ThreadPoolExecutor(threads) as pool:
                done = pool.map(write_over, self.paths, new, self.now)
                if busy:
                    waited = threading.Thread(target=lambda: list(done))
                    waited.start()
                    while waited.is_alive():
                        sum(range(1000))  # the event loop's work between two system calls of a writer
                else:
                    list(done)
        self.now = new


def measure(project: str, root: Path, rounds: int) -> dict[str, Any]:
    """The floor's parts for ``project``'s 1,000 catalogs under ``root``."""
    paths = write_apps(root, project)
    for path in paths:  # as the row adds them: one new string in each catalog
        with path.open("a", encoding="utf-8") as out:
            out.write(f'\nmsgid "New string of {path.parts[-5]}"\nmsgstr ""\n')
    catalogs = _Catalogs(paths)
    parts: dict[str, Callable[[], object]] = {
        "read_bytes": lambda: [path.read_bytes() for path in paths],
        "parse_pipeline": lambda: [read_po(path, data) for path, data in zip(paths, catalogs.now, strict=True)],
        "parse_polib": lambda: [polib.pofile(data.decode("utf-8")) for data in catalogs.now],
        "write_one_at_a_time": lambda: catalogs.write(1),
        "write_threads": lambda: catalogs.write(AT_ONCE),
        "write_threads_while_computing": lambda: catalogs.write(AT_ONCE, busy=True),
    }
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in parts}
    for _ in range(rounds):  # the parts in turn, round after round: a load that comes and goes meets each
        for name, work in parts.items():
            os.sync()  # what the set-up (or the part before) left dirty is not this part's to flush
            runs[name].append(_timed(work))
    return {"catalogs": len(paths), **{name: _median(times) for name, times in runs.items()}}


def main() -> int:
    """Print one JSON object per project."""
    parser = argparse.ArgumentParser(prog="python -m bench.performance.many_floor", description=__doc__)
    parser.add_argument("--projects", default=",".join(PROJECTS), help="comma-separated corpus projects")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="many-floor-") as work:
        python = python_c_pass(fresh_env(Path(work)))
        for project in args.projects.split(","):
            root = Path(work) / project
            figures = measure(project, root, args.rounds)
            shutil.rmtree(root)
            pass_seconds = python["median_seconds"]
            floor = pass_seconds + figures["parse_pipeline"]["cpu_seconds"] + figures["write_threads"]["wall_seconds"]
            print(
                json.dumps(
                    {
                        "project": project,
                        **figures,
                        "python_c_pass": python,
                        "floor_seconds": round(floor, 3),
                        "floor_ratio_to_python": round(floor / pass_seconds, 1),
                        "load_average": load_average(),
                    }
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
