"""Issue 37 row 2: many catalogs, as the whole command.

- ``many_catalogs``: 100 apps x 10 languages built from a published project's template (each app 50 of
  its messages, in order, wrapping round), translated once (not timed); then one new string in each
  app (so in each of its 10 catalogs) and ``pipeline translate`` as a fresh process, RUNS times; then
  once more with nothing new (what a pre-commit hook or a second ``make translate`` costs). Target:
  <= 80x ``python -c pass``.
- ``refresh_noop``: 70 catalogs (70 languages) of one Sphinx-sized template, brought up to date by
  ``pipeline refresh`` (not timed), then ``pipeline refresh`` again with nothing to do, RUNS times.
  Target: <= 40x ``python -c pass``.

Ratios are medians of pairs (``python -c pass`` timed just before each command).
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import polib

from bench.harness.process import Pair, paired, pipeline_argv, timed
from bench.harness.rows import Row, Target, main
from bench.harness.workloads import MANY, TEN, add_string, read_report, template, write_config, write_project

RUNS = 3
APPS, PER_APP = 100, 50
REFRESH_LANGUAGES = 70


def summary(pairs: list[Pair]) -> dict[str, Any]:
    """The median ratio and times of a list of pairs."""
    return {
        "ratio_to_python": round(statistics.median(p.ratio for p in pairs), 2),
        "ratios": [round(p.ratio, 2) for p in pairs],
        "cpu_ratio_to_python": round(statistics.median(p.cpu_ratio for p in pairs), 2),
        "wall_seconds": round(statistics.median(p.command.wall_seconds for p in pairs), 3),
        "cpu_seconds": round(statistics.median(p.command.cpu_seconds for p in pairs), 3),
        "peak_rss_mib": round(max(p.command.peak_rss_mib for p in pairs), 1),
        "python_seconds": round(statistics.median(p.python.wall_seconds for p in pairs), 4),
    }


def write_apps(root: Path, project: str) -> list[Path]:
    """APPS apps x TEN languages of PER_APP messages each from ``project``; every catalog's path."""
    source = template(project)
    entries = [entry for domain in source.domains for entry in source.entries(domain)]
    paths = []
    for app in range(APPS):
        start = app * PER_APP
        chosen = [entries[(start + i) % len(entries)] for i in range(PER_APP)]
        for lang in TEN:
            catalog = polib.POFile()
            catalog.metadata = {"Content-Type": "text/plain; charset=UTF-8", "Language": lang}
            seen = set()
            for entry in chosen:
                if (entry.msgctxt, entry.msgid) not in seen:  # a small project wraps round onto itself
                    seen.add((entry.msgctxt, entry.msgid))
                    catalog.append(entry)
            path = root / "apps" / f"app{app:03d}" / "locale" / lang / "LC_MESSAGES" / "django.po"
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog.save(str(path))
            paths.append(path)
    write_config(root)
    return paths


def measure_translate(project: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """1,000 settled catalogs, one new string in each app, RUNS times; then nothing new."""
    paths = write_apps(root, project)
    timed(pipeline_argv("translate", "--quiet"), root, env)  # the project as the last run left it
    pairs, reports = [], []
    for run in range(RUNS):
        for path in paths:
            add_string(path, f"New string {run} of {path.parts[-5]}")
        pairs.append(paired(pipeline_argv("translate", "--quiet"), root, env))
        reports.append(read_report(root)["totals"])
    nothing_new = [paired(pipeline_argv("translate", "--quiet"), root, env) for _ in range(RUNS)]
    return {
        "catalogs": len(paths),
        **summary(pairs),
        "segments_translated": [r["segments_translated"] for r in reports],
        "segments_failed": [r["segments_failed"] for r in reports],
        "requests": [r["requests"] for r in reports],
        "nothing_new": summary(nothing_new),
    }


def measure_refresh(project: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """REFRESH_LANGUAGES catalogs of ``project``'s largest template, settled, then refreshed RUNS times."""
    counts = write_project(root, template(project).largest(), MANY[:REFRESH_LANGUAGES])
    for _ in range(2):  # translate everything; the second settles what the first left (it should be nothing)
        timed(pipeline_argv("refresh", "--quiet"), root, env)
    pairs = [paired(pipeline_argv("refresh", "--quiet"), root, env) for _ in range(RUNS)]
    totals = read_report(root)["totals"]
    return {**counts, **summary(pairs), "requests": totals["requests"], "segments_failed": totals["segments_failed"]}


TRANSLATE = Row(
    name="many_catalogs",
    what="100 apps x 10 languages (1,000 catalogs), one new string in each app: pipeline translate, fresh process",
    projects=("django", "wordpress", "gcc"),
    targets=(Target("ratio_to_python", 80),),
    measure=measure_translate,
)
REFRESH = Row(
    name="refresh_noop",
    what="pipeline refresh with nothing to do, 70 catalogs of one Sphinx-sized template, fresh process",
    projects=("sphinx", "gnome-shell", "dpkg"),
    targets=(Target("ratio_to_python", 40),),
    measure=measure_refresh,
)

if __name__ == "__main__":
    main("bench.performance.many_catalogs", TRANSLATE, REFRESH)
