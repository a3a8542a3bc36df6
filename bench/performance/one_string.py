"""Issue 37 row 1: one new string in a one-catalog project, embedded, as the whole command.

Each project's largest catalog, translated once into German by ``pipeline translate`` (not timed), is a
project a developer works on: a new string is added, then ``pipeline translate`` runs as a fresh
process, ``python -c pass`` timed just before it. Repeated RUNS times (a new string each time); the
figure is the median ratio. Target: <= 10x ``python -c pass``.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from bench.harness.process import paired, pipeline_argv, timed
from bench.harness.rows import Row, Target, main
from bench.harness.workloads import add_string, catalog_path, read_report, template, write_config, write_template

RUNS = 5


def measure(project: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """A settled one-catalog project of ``project``, then RUNS runs with one new string each."""
    source = template(project).largest()
    domain = source.domain
    catalog = source.entries(domain)
    write_template(root / "locale" / f"{domain}.pot", catalog)
    catalog.metadata["Language"] = "de"
    path = catalog_path(root, domain, "de")
    write_template(path, catalog)
    write_config(root)
    timed(pipeline_argv("translate", "--quiet"), root, env)  # the project as the last run left it
    pairs, reports = [], []
    for run in range(RUNS):
        add_string(path, f"A new string, number {run}, for the next release")
        pairs.append(paired(pipeline_argv("translate", "--quiet"), root, env))
        reports.append(read_report(root)["totals"])
    return {
        "messages": len(catalog),
        "catalog_mib": round(path.stat().st_size / 2**20, 2),
        "ratio_to_python": round(statistics.median(p.ratio for p in pairs), 2),
        "ratios": [round(p.ratio, 2) for p in pairs],
        "cpu_ratio_to_python": round(statistics.median(p.cpu_ratio for p in pairs), 2),
        "wall_seconds": round(statistics.median(p.command.wall_seconds for p in pairs), 3),
        "cpu_seconds": round(statistics.median(p.command.cpu_seconds for p in pairs), 3),
        "peak_rss_mib": round(max(p.command.peak_rss_mib for p in pairs), 1),
        "python_seconds": round(statistics.median(p.python.wall_seconds for p in pairs), 4),
        "segments_translated": [r["segments_translated"] for r in reports],
        "requests": [r["requests"] for r in reports],
    }


ROW = Row(
    name="one_string",
    what="one new string in a one-catalog project, embedded: pipeline translate as a fresh process",
    projects=("sphinx", "gnome-shell", "coreutils", "netbox"),
    targets=(Target("ratio_to_python", 10),),
    measure=measure,
)

if __name__ == "__main__":
    main("bench.performance.one_string", ROW)
