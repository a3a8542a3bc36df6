"""Issue 37's rows from saved runs as one Markdown table: ``python -m bench.performance.table RUN.json ...``.

Each file is what ``python -m bench.performance --out FILE`` saved. Per row and target: each project's
figure in every run (runs separated by " / "), the worst over all runs, the target and whether the
worst meets it; then ``python -c pass`` and the load average of each run.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def figure(value: float) -> str:
    """A figure as printed in the table: three significant digits at most."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def table(runs: list[dict[str, Any]]) -> str:
    """The Markdown table of the rows in ``runs`` (same rows, same targets in each)."""
    lines = ["| row | target | " + "per project (each run) | worst | met |", "|---|---|---|---|---|"]
    by_name: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        for row in run["rows"]:
            by_name.setdefault(row["row"], []).append(row)
    for name, rows in by_name.items():
        measured = [r for r in rows if "per_project" in r]
        if not measured:
            lines.append(f"| {name} | skipped: {rows[0].get('skipped', '')} | | | |")
            continue
        for index, target in enumerate(measured[0]["targets"]):
            key = target["target"].split()[0]
            projects = list(measured[0]["per_project"])
            cells = []
            for project in projects:
                values = [r["per_project"][project][key] for r in measured if project in r["per_project"]]
                cells.append(f"{project} " + " / ".join(figure(v) for v in values))
            worst = [r["targets"][index] for r in measured]
            higher_is_worse = "<=" in target["target"]
            pick = max if higher_is_worse else min
            bad = pick(worst, key=lambda t: t["worst"])
            lines.append(
                f"| {name} | {target['target']} | {'; '.join(cells)} | {figure(bad['worst'])} ({bad['worst_project']}) "
                f"| {'met' if all(t['met'] for t in worst) else 'not met'} |"
            )
    lines += ["", "| run | commit | started | row | python -c pass best / median (s) | load average start -> end |"]
    lines.append("|---|---|---|---|---|---|")
    for number, run in enumerate(runs, start=1):
        for row in run["rows"]:
            if "python_c_pass" in row and "load_average_start" in row:
                python = row["python_c_pass"]
                load = f"{row['load_average_start'][0]} -> {row.get('load_average_end', ['?'])[0]}"
                lines.append(
                    f"| {number} | {run['commit']} | {run['started']} | {row['row']} "
                    f"| {python['best_seconds']} / {python['median_seconds']} | {load} |"
                )
    return "\n".join(lines)


def main() -> None:
    """Print the table of the files named on the command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.performance.table", description=__doc__)
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN.json")
    args = parser.parse_args()
    print(table([json.loads(path.read_text(encoding="utf-8")) for path in args.runs]))


if __name__ == "__main__":
    main()
