"""Issue 37 rows 3 and 6: small and large runs against a slow service, as the whole command.

The service is ``bench.harness.stand_in``: 200 ms a request, 4 requests in flight at most (a limit the
pipeline is not told: ``[service] concurrency`` is 16; a fifth request is answered 429 with
``Retry-After: 1``). A project is a published project's templates in six languages, translated from
scratch by ``pipeline translate`` as a fresh process. The figure is its wall time over the bound
``ceil(requests / 4) x 200 ms``.

- ``slow_service``: Sphinx-sized templates (about 108 requests). Target: <= 1.15x the bound.
- ``slow_service_large``: larger projects (Django's 13 catalogs: about 420 requests). Target: <= 1.15x.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from bench.harness.process import pipeline_argv, timed
from bench.harness.rows import Row, Target, main
from bench.harness.stand_in import StandIn
from bench.harness.workloads import SIX, read_report, template, write_project

LATENCY, LIMIT, CEILING = 0.2, 4, 16


def measure(project: str, root: Path, env: dict[str, str], tls: Path | None = None) -> dict[str, Any]:
    """``project`` in six languages translated from scratch against the stand-in (over https with ``tls``'s
    certificate, which ``env`` trusts: :mod:`bench.performance.https_start`)."""
    with StandIn(LATENCY, LIMIT, tls=tls) as service:
        counts = write_project(root, template(project), SIX, url=service.url, concurrency=CEILING)
        run = timed(pipeline_argv("translate", "--quiet"), root, {**env, "PIPELINE_AUTH_KEY": service.key})
        stats = service.stats()
    totals = read_report(root)["totals"]
    bound = math.ceil(totals["requests"] / LIMIT) * LATENCY
    return {
        **counts,
        **run.as_json(),
        "requests": totals["requests"],
        "bound_seconds": round(bound, 3),
        "wall_vs_bound": round(run.wall_seconds / bound, 3),
        "segments_translated": totals["segments_translated"],
        "segments_failed": totals["segments_failed"],
        "answered_429": stats["rejected"],
        "max_in_flight_seen": stats["max_in_flight"],
        "service_seconds_max": stats["service_seconds_max"],
    }


SMALL = Row(
    name="slow_service",
    what="a Sphinx-sized project in 6 languages against 200 ms a request, 4 in flight: wall over the bound",
    projects=("sphinx", "dpkg", "gnome-shell"),
    targets=(Target("wall_vs_bound", 1.15),),
    measure=measure,
)
LARGE = Row(
    name="slow_service_large",
    what="larger projects in 6 languages against 200 ms a request, 4 in flight: wall over the bound",
    projects=("django", "wagtail", "coreutils"),
    targets=(Target("wall_vs_bound", 1.15),),
    measure=measure,
)

if __name__ == "__main__":
    main("bench.performance.slow_service", SMALL, LARGE)
