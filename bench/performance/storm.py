"""Issue 37 row 4: 429 storms, as the whole command.

A Sphinx-sized project in six languages translated from scratch by ``pipeline translate`` (a fresh
process) against ``bench.harness.stand_in`` with 100 ms a request and no in-flight limit: once clean,
then once per seed with 20 % of translate requests refused at random (429, ``Retry-After: 1``).
Figures: the extra seconds of the worst seed over Retry-After (target <= 4), and the segments left
failed by any seed (target: 0; a 429 with Retry-After is a reason to wait, not to give up).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.harness.process import SOME_FAILED, pipeline_argv, timed
from bench.harness.rows import Row, Target, main
from bench.harness.stand_in import RETRY_AFTER, StandIn
from bench.harness.workloads import SIX, read_report, template, write_project

LATENCY, SHARE, SEEDS = 0.1, 0.2, (1, 2, 3)
NO_LIMIT = 10_000


def one_run(root: Path, project: str, env: dict[str, str], share: float, seed: int) -> dict[str, Any]:
    """``project`` translated from scratch in ``root`` against the stand-in refusing ``share`` of requests."""
    with StandIn(LATENCY, NO_LIMIT, share, seed) as service:
        write_project(root, template(project), SIX, url=service.url)
        run = timed(pipeline_argv("translate", "--quiet"), root, {**env, "PIPELINE_AUTH_KEY": service.key}, SOME_FAILED)
        stats = service.stats()
    report = read_report(root)
    totals = report["totals"]
    return {
        **run.as_json(),
        "requests": totals["requests"],
        "segments_translated": totals["segments_translated"],
        "segments_failed": totals["segments_failed"],
        "answered_429": stats["rejected"],
        "stopped": report["stopped"],
    }


def measure(project: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """A clean run, then one storm per seed; the worst extra seconds and failed segments."""
    clean = one_run(root / "clean", project, env, 0.0, 0)
    storms = {f"seed_{seed}": one_run(root / f"seed-{seed}", project, env, SHARE, seed) for seed in SEEDS}
    extra = {name: run["wall_seconds"] - clean["wall_seconds"] for name, run in storms.items()}
    return {
        "clean": clean,
        **storms,
        "extra_seconds": {name: round(seconds, 3) for name, seconds in extra.items()},
        "extra_vs_retry_after": round(max(extra.values()) / float(RETRY_AFTER), 2),
        "segments_failed": max(run["segments_failed"] for run in storms.values()),
    }


ROW = Row(
    name="storm",
    what="100 ms a request, 20 % refused at random (429, Retry-After 1), three seeds, against the run clean",
    projects=("sphinx", "dpkg", "gnome-shell"),
    targets=(Target("extra_vs_retry_after", 4), Target("segments_failed", 0)),
    measure=measure,
)

if __name__ == "__main__":
    main("bench.performance.storm", ROW)
