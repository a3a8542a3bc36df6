"""A performance row: one figure measured per published project, the worst one marked, against a target.

A row module defines a :class:`Row` (what it measures, its projects, its targets, and a ``measure``
function from one project to its figures) and ends with ``main("bench.performance.<module>", ROW)``;
``python -m bench.performance`` runs every row. :func:`run_row` gives every row the same frame: a work
folder, a bytecode cache compiled first, ``python -c pass`` of the same venv and the load average at
the start and the end. Every command runs as users install the package (:mod:`bench.harness.installed`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness import installed
from bench.harness.process import MissingTool, fresh_env, load_average, python_c_pass, warm_bytecode
from bench.harness.serve import render

#: One project's measurement: (project name, a work folder of its own, the fresh processes' environment).
Measure = Callable[[str, Path, dict[str, str]], dict[str, Any]]


@dataclass(frozen=True)
class Target:
    """One figure of every project, the worst of which must stay within ``limit``."""

    figure: str
    limit: float
    higher_is_worse: bool = True

    def met(self, value: float) -> bool:
        """Whether ``value`` is within the target."""
        return value <= self.limit if self.higher_is_worse else value >= self.limit

    def describe(self) -> str:
        """The target as printed: ``figure <= limit``."""
        return f"{self.figure} {'<=' if self.higher_is_worse else '>='} {self.limit:g}"


@dataclass(frozen=True)
class Row:
    """A row of issue 37's table."""

    name: str
    what: str
    projects: tuple[str, ...]
    targets: tuple[Target, ...]
    measure: Measure


def run_row(row: Row, projects: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Measure ``row`` on each of its projects (or those given) and judge the worst against each target."""
    started = time.perf_counter()
    out: dict[str, Any] = {"row": row.name, "what": row.what}
    with tempfile.TemporaryDirectory(prefix=f"bench-{row.name}-") as tmp:
        work = Path(tmp)
        env = fresh_env(work)
        try:
            out["installed"] = {"source": str(installed.source()), "python": str(installed.python())}
            warm_bytecode(work, env)
            out["python_c_pass"] = python_c_pass(env)
        except MissingTool as missing:
            return {**out, "skipped": str(missing)}
        out["load_average_start"] = load_average()
        per_project: dict[str, dict[str, Any]] = {}
        for project in projects or row.projects:
            print(f"# {row.name}: {project}", file=sys.stderr, flush=True)
            try:
                per_project[project] = row.measure(project, work / project, env)
            except MissingTool as missing:
                return {**out, "skipped": str(missing)}
        out["load_average_end"] = load_average()
    out["per_project"] = per_project
    out["targets"] = [judge(target, per_project) for target in row.targets]
    out["met"] = all(t["met"] for t in out["targets"])
    out["bench_seconds"] = round(time.perf_counter() - started, 1)
    return out


def judge(target: Target, per_project: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The worst project's figure for ``target`` and whether it is met."""
    values = {name: float(figures[target.figure]) for name, figures in per_project.items()}
    pick = max if target.higher_is_worse else min
    worst = pick(values, key=lambda name: values[name])
    return {
        "target": target.describe(),
        "worst_project": worst,
        "worst": round(values[worst], 3),
        "met": target.met(values[worst]),
    }


def main(module: str, *rows: Row) -> None:
    """``python -m MODULE [--projects a,b]``: measure the module's rows and print each as JSON."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description="; ".join(r.what for r in rows))
    parser.add_argument("--projects", help="comma-separated corpus projects (default: each row's own)")
    args = parser.parse_args()
    projects = tuple(args.projects.split(",")) if args.projects else None
    for row in rows:
        print(render(run_row(row, projects)), flush=True)
