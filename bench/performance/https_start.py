"""Issue 37, start-up against a real service: the one-string and slow-service rows over https, as users reach it.

Every other row reaches the service over plain http or in-process, so none shows what a user of the
real (https) service pays before the first request leaves: the TLS context and its bundle of roots,
httpcore's and anyio's modules, the handshake. Here the service is the stand-in
(:mod:`bench.harness.stand_in`) over TLS, its certificate signed by a throwaway CA
(:mod:`bench.harness.tls`) that the command trusts through ``SSL_CERT_FILE``, with certifi's roots beside
it, so that the command loads a bundle as large as certifi's and verifies as it would verify the real
service.

- ``one_string_https``: :mod:`bench.performance.one_string`'s workload (a settled one-catalog project, a
  new string added before each run) against the stand-in with no latency. Figures: the whole command
  over ``python -c pass`` (the one-string row's target, though that row is embedded), and
  ``first_request_seconds``: from the command's start to its first request's arrival.
- ``slow_service_https``: :mod:`bench.performance.slow_service`'s small row (200 ms a request, 4 in
  flight) over https: wall over the bound.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from bench.harness.process import Pair, pipeline_argv, python_argv, timed
from bench.harness.rows import Row, main
from bench.harness.stand_in import StandIn
from bench.harness.tls import authority, trusting
from bench.harness.workloads import add_string, catalog_path, read_report, template, write_config, write_template
from bench.performance import one_string as one_string_row
from bench.performance import slow_service

RUNS = 5
#: In flight at most at the stand-in of the one-string row: more than the run sends, so none is refused.
_NO_LIMIT = 64


def one_string(project: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """A one-catalog project of ``project`` settled over https, then RUNS runs with one new string each."""
    source = template(project).largest()
    domain = source.domain
    catalog = source.entries(domain)
    write_template(root / "project" / "locale" / f"{domain}.pot", catalog)
    catalog.metadata["Language"] = "de"
    path = catalog_path(root / "project", domain, "de")
    write_template(path, catalog)
    ca = authority(root / "ca")
    pairs, firsts, reports = [], [], []
    with StandIn(0.0, _NO_LIMIT, tls=ca) as service:
        env = {**env, **trusting(ca), "PIPELINE_AUTH_KEY": service.key}
        write_config(root / "project", service.url)
        timed(pipeline_argv("translate", "--quiet"), root / "project", env)  # the project as the last run left it
        for run in range(RUNS):
            add_string(path, f"A new string, number {run}, for the next release")
            python = timed(python_argv(), root, env)
            started = time.monotonic()  # the stand-in stamps arrivals with the same clock
            command = timed(pipeline_argv("translate", "--quiet"), root / "project", env)
            pairs.append(Pair(command, python))
            firsts.append(min(t for t in service.stats()["arrivals"] if t > started) - started)
            reports.append(read_report(root / "project")["totals"])
    return {
        "messages": len(catalog),
        "ratio_to_python": round(statistics.median(p.ratio for p in pairs), 2),
        "ratios": [round(p.ratio, 2) for p in pairs],
        "cpu_ratio_to_python": round(statistics.median(p.cpu_ratio for p in pairs), 2),
        "wall_seconds": round(statistics.median(p.command.wall_seconds for p in pairs), 3),
        "cpu_seconds": round(statistics.median(p.command.cpu_seconds for p in pairs), 3),
        "first_request_seconds": round(statistics.median(firsts), 3),
        "first_requests": [round(f, 3) for f in firsts],
        "python_seconds": round(statistics.median(p.python.wall_seconds for p in pairs), 4),
        "segments_translated": [r["segments_translated"] for r in reports],
        "requests": [r["requests"] for r in reports],
    }


def _slow(project: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    ca = authority(root / "ca")
    return slow_service.measure(project, root / "project", {**env, **trusting(ca)}, tls=ca)


ONE_STRING = Row(
    name="one_string_https",
    what="one new string in a one-catalog project, against a service over https on loopback: the whole command",
    projects=one_string_row.ROW.projects,
    targets=one_string_row.ROW.targets,
    measure=one_string,
)
SLOW = Row(
    name="slow_service_https",
    what="a Sphinx-sized project in 6 languages against 200 ms a request, 4 in flight, over https: wall over the bound",
    projects=slow_service.SMALL.projects,
    targets=slow_service.SMALL.targets,
    measure=_slow,
)

if __name__ == "__main__":
    main("bench.performance.https_start", ONE_STRING, SLOW)
