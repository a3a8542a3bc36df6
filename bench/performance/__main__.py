"""Issue 37's rows as whole commands over published projects (``make bench``): each row printed as JSON.

``python -m bench.performance [ROW ...] [--projects a,b] [--out FILE]``: every row by default; each
row's projects unless ``--projects`` names others; ``--out`` also saves the rows, with the commit and
the date, as one JSON file. The corpus is fetched on first use into ``$PIPELINE_BENCH_CORPUS`` (else
the user's cache folder): ``python -m bench.harness.corpus``.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path
from typing import Any

from bench.harness.rows import Row, run_row
from bench.harness.serve import commit, render
from bench.performance import embedded, https_start, many_catalogs, memory, merge, one_string, slow_service, storm

ROWS: tuple[Row, ...] = (
    one_string.ROW,
    many_catalogs.TRANSLATE,
    many_catalogs.REFRESH,
    slow_service.SMALL,
    storm.ROW,
    merge.LITTLE_ROW,
    merge.MUCH_ROW,
    memory.ROW,
    slow_service.LARGE,
    embedded.ROW,
    https_start.ONE_STRING,
    https_start.SLOW,
)


def main() -> int:
    """Run the rows asked for, print each, save them all if asked."""
    parser = argparse.ArgumentParser(prog="python -m bench.performance", description=__doc__)
    parser.add_argument("rows", nargs="*", metavar="ROW", help=f"default: all of {', '.join(r.name for r in ROWS)}")
    parser.add_argument("--projects", help="comma-separated corpus projects instead of each row's own")
    parser.add_argument("--out", type=Path, help="also write every row to this JSON file")
    args = parser.parse_args()
    by_name = {row.name: row for row in ROWS}
    unknown = [name for name in args.rows if name not in by_name]
    if unknown:
        parser.error(f"unknown rows: {', '.join(unknown)}")
    projects = tuple(args.projects.split(",")) if args.projects else None
    saved: dict[str, Any] = {
        "commit": commit(),
        "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "rows": [],
    }
    for name in args.rows or list(by_name):
        figures = run_row(by_name[name], projects)
        print(render(figures), flush=True)
        saved["rows"].append(figures)
        if args.out:  # after each row, so a long bench stopped half-way keeps what it measured
            args.out.write_text(render(saved) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
