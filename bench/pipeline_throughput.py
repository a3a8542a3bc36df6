"""The pipeline's own cost: segments per second end to end with the embedded service; prints JSON.

The workload of bench/latency_bound.py (Django's English catalogs into six languages), translated
from scratch in-process by the embedded service (no network, no latency), so what is measured is
scan, protect, pack, the in-process service, restore, gate and write. Target: >= 8,000 segments/s.
The modules a run needs are imported before the clock starts (their cost is bench/noop.py's
subject); CPU time is printed beside wall time, which a busy machine inflates.
``--profile`` also prints where the time went (cProfile, by own time) to stderr.
Usage: python bench/pipeline_throughput.py [--profile]
"""

from __future__ import annotations

import cProfile
import io
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _workload import python_startup_seconds, write_corpus  # noqa: E402

from pipeline.config import ServiceSettings, Settings  # noqa: E402
from pipeline.run.orchestrate import RunOptions, run_translate  # noqa: E402


def main() -> None:
    """Run the measurement and print it."""
    profile = "--profile" in sys.argv
    with tempfile.TemporaryDirectory(prefix="throughput-bench-") as tmp:
        root = Path(tmp)
        workload = write_corpus(root / "src")
        settings = Settings(
            root=root, catalogs=("src/**/*.po",), cache_dir=root / ".cache", service=ServiceSettings(url="embedded")
        )
        # The run's lazy imports, done before timing (pipeline.client is a lazy package: its modules
        # are named one by one; babel is what the plural rules of a catalog without a header load).
        import concurrent.futures.thread  # noqa: F401

        import babel.messages.plurals  # noqa: F401

        import pipeline.catalogs.po  # noqa: F401
        import pipeline.client.aio  # noqa: F401, E401
        import pipeline.resources.attach  # noqa: F401
        import pipeline.run.cached  # noqa: F401, E401
        import pipeline.run.gate
        import pipeline.run.plan
        import pipeline.run.scan
        import pipeline.run.send  # noqa: F401, E401
        import pipeline.run.write
        import pipeline.service.app  # noqa: F401, E401
        import pipeline.service.embedded  # noqa: F401  the embedded transport

        profiler = cProfile.Profile() if profile else None
        started, cpu = time.perf_counter(), time.process_time()
        if profiler:
            profiler.enable()
        report = run_translate(settings, RunOptions(), log=lambda m: None)
        if profiler:
            profiler.disable()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    segments = report.totals.segments_translated + report.totals.segments_copied
    print(
        json.dumps(
            {
                **workload,
                "exit_code": report.exit_code,
                "segments": segments,
                "requests": report.totals.requests,
                "wall_seconds": round(wall, 3),
                "segments_per_second": round(segments / wall),
                "cpu_seconds": round(cpu, 3),  # steadier than wall time on a shared machine
                "segments_per_cpu_second": round(segments / cpu),
                "timings": report.timings,
                "profiled": profile,
                "python_c_pass_seconds": python_startup_seconds(),
                "load_average": round(os.getloadavg()[0], 2),
            },
            indent=2,
        )
    )
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(35)
        print(out.getvalue(), file=sys.stderr)


if __name__ == "__main__":
    main()
