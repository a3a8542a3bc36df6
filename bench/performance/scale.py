"""Scale: one generated catalog of N entries (dry run and real run), and a corpus of such catalogs; prints JSON.

Each figure comes from a fresh process (``--child``) that reports its wall and CPU time (CPU
time is the steadier on a shared machine), its peak RSS (``resource.getrusage``) and its RSS
before the run (imports done): the run's own memory is the difference. Two sizes show whether
time and memory grow linearly; a corpus of CORPUS catalogs of the smaller size shows whether a
run's peak memory is bounded by its largest catalog (ideal ratio to the single catalog: 1) or
grows with the corpus.
Usage: python -m bench.performance.scale [SMALL] [LARGE] [CORPUS]   (defaults: 100000 500000 4)
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness.generated import one_catalog
from bench.harness.process import fresh_env, python_c_pass


def child(mode: str, root: Path) -> None:
    """Run once in this fresh process and print seconds, peak RSS and RSS before the run."""
    from pipeline.config import ServiceSettings, Settings
    from pipeline.run.orchestrate import RunOptions, run_translate

    # A one-entry run of the same mode first: whatever a run imports is then in the RSS before the run.
    warm = root.parent / f"{root.name}-warm-up"
    one_catalog(warm / "de" / "messages.po", 1, salt="warm-up")
    run_translate(
        Settings(root=warm, catalogs=("**/*.po",), cache_dir=warm / ".cache", service=ServiceSettings(url="embedded")),
        RunOptions(dry_run=mode == "dry"),
        log=lambda m: None,
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    settings = Settings(
        root=root, catalogs=("**/*.po",), cache_dir=root / ".cache", service=ServiceSettings(url="embedded")
    )
    started, cpu = time.perf_counter(), time.process_time()
    report = run_translate(settings, RunOptions(dry_run=mode == "dry"), log=lambda m: None)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "seconds": round(seconds, 2),
                "cpu_seconds": round(cpu, 2),
                "peak_rss_mib": round(peak / 1024, 1),
                "rss_before_run_mib": round(before / 1024, 1),
                "run_rss_mib": round((peak - before) / 1024, 1),
                "exit_code": report.exit_code,
                "requests": report.totals.requests or getattr(report.would_send, "requests", 0),
                "segments_translated": report.totals.segments_translated,
            }
        )
    )


def measure(mode: str, root: Path) -> dict[str, Any]:
    """The child's figures for one run."""
    env = fresh_env(root.parent)
    done = subprocess.run(
        [sys.executable, "-m", "bench.performance.scale", "--child", mode, str(root)],
        capture_output=True,
        text=True,
        env=env,
    )
    if done.returncode:
        raise SystemExit(f"{mode} run of {root.name} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    print(f"# {root.name} {mode}: {done.stdout.strip()}", file=sys.stderr, flush=True)  # a long bench shows progress
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def main() -> None:
    """Run every measurement and print them."""
    small = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    large = int(sys.argv[2]) if len(sys.argv) > 2 else 500_000
    corpus = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    figures: dict[str, Any] = {
        "python_c_pass": python_c_pass(dict(os.environ)),
        "load_average": round(os.getloadavg()[0], 2),
    }
    with tempfile.TemporaryDirectory(prefix="scale-bench-") as tmp:
        for size in (small, large):
            root = Path(tmp) / f"one-{size}"
            one_catalog(root / "de" / "messages.po", size)
            figures[f"entries_{size}"] = {
                "catalog_mib": round((root / "de" / "messages.po").stat().st_size / 2**20, 1),
                "dry_run": measure("dry", root),
                "real_run": measure("real", root),
            }
        root = Path(tmp) / "corpus"
        for n in range(corpus):
            one_catalog(root / f"part{n}" / "de" / "messages.po", small, salt=f"p{n}-")
        figures[f"corpus_{corpus}x{small}"] = {"real_run": measure("real", root)}
    one, many = figures[f"entries_{small}"], figures[f"corpus_{corpus}x{small}"]
    big = figures[f"entries_{large}"]
    ratio = large / small
    figures["size_ratio"] = ratio
    for mode in ("dry_run", "real_run"):
        for figure, key in (("time", "seconds"), ("cpu", "cpu_seconds"), ("memory", "run_rss_mib")):
            figures[f"{mode}_{figure}_ratio"] = round(big[mode][key] / one[mode][key], 2)
    figures["corpus_vs_largest_catalog_memory"] = round(
        many["real_run"]["run_rss_mib"] / one["real_run"]["run_rss_mib"], 2
    )
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], Path(sys.argv[3]))
    else:
        main()
