"""A latency-bound run against a service with an in-flight limit the pipeline is not told; prints JSON.

The local service (the app ``pipeline serve`` serves) runs behind a stand-in middleware (this
script started again with ``--stand-in``) that makes every request take LATENCY seconds (the
service's own work included unless it takes longer: ``service_seconds_max`` says), and answers
429 with ``Retry-After: 1`` (after the same latency) to any request arriving while LIMIT others
are in flight. The workload is Django's
English catalogs translated into six languages (bench/_workload.py). The pipeline runs in this
process with ``[service] concurrency`` at CEILING, above LIMIT.

Figures: wall time of the run against the physical bound ``ceil(requests / LIMIT) x LATENCY``
(target <= 1.25), requests sent vs the batching lower bound, 429s answered, the most requests the
stand-in saw in flight at once, and ``python -c pass`` on this machine.
Usage: python bench/latency_bound.py [LIMIT] [CEILING]
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

LATENCY = 0.2
RETRY_AFTER = "1"
STATS_PATH = "/_stand-in/stats"


def stand_in(auth_key: str, latency: float, limit: int, refuse_share: float = 0.0) -> None:
    """Serve the local service behind the latency/limit middleware until killed; prints its URL first.

    ``refuse_share``: besides the limit, that share of translate requests is refused at random
    (429 with the same Retry-After, a seeded generator): refusals that do not grow with the
    requests in flight.

    The middleware wraps the same app ``pipeline serve`` serves, in one process: a proxy in
    front of ``pipeline serve`` would add a second HTTP hop to every request on a busy machine.
    """
    import random

    import uvicorn

    from pipeline.service.app import create_app
    from pipeline.service.config import AccountSpec, ServiceConfig
    from pipeline.service.server import bind

    app = create_app(ServiceConfig(accounts=(AccountSpec("paid", (auth_key,)),)))
    stats = {"answered": 0, "rejected": 0, "max_in_flight": 0, "paths": {}, "service_seconds_max": 0.0}
    in_flight = 0
    chance = random.Random(26)

    async def reply(send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def middleware(scope, receive, send) -> None:
        nonlocal in_flight
        if scope["type"] != "http":  # the lifespan: the app opens its database in it
            await app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        if scope["path"] == STATS_PATH:
            await reply(send, 200, [(b"content-type", b"application/json")], json.dumps(stats).encode())
            return
        noise = scope["path"].endswith("/translate") and chance.random() < refuse_share
        if in_flight >= limit or noise:  # refused at the edge, but the answer still travels back
            stats["rejected"] += 1
            await asyncio.sleep(latency)
            await reply(
                send,
                429,
                [(b"content-type", b"application/json"), (b"retry-after", RETRY_AFTER.encode())],
                b'{"message": "Too many requests"}',
            )
            return
        in_flight += 1
        stats["max_in_flight"] = max(stats["max_in_flight"], in_flight)
        started = loop.time()
        held: list[dict] = []

        async def hold(message: dict) -> None:  # the answer leaves once the latency has passed
            held.append(message)

        try:
            await app(scope, receive, hold)
            took = loop.time() - started
            stats["service_seconds_max"] = max(stats["service_seconds_max"], round(took, 3))
            await asyncio.sleep(latency - took)  # the service's own work is part of its latency
        finally:
            in_flight -= 1
        stats["answered"] += 1
        stats["paths"][scope["path"]] = stats["paths"].get(scope["path"], 0) + 1
        for message in held:
            await send(message)

    sock = bind("127.0.0.1", 0)  # as `pipeline serve` binds (asyncio sets TCP_NODELAY on such sockets)
    print(f"http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(middleware, lifespan="on", access_log=False, log_level="warning")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


class TimedTransport:
    """An httpx transport that records how long each request took as the pipeline saw it."""

    def __init__(self) -> None:
        import httpx

        self.inner = httpx.AsyncHTTPTransport()
        self.seconds: list[float] = []

    async def handle_async_request(self, request):  # noqa: ANN001, ANN201
        started = time.perf_counter()
        response = await self.inner.handle_async_request(request)
        await response.aread()
        self.seconds.append(time.perf_counter() - started)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def start(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """Start a server process and return it with the URL from its first stdout line."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    line = process.stdout.readline() if process.stdout else ""
    url = line.strip().rsplit(" ", 1)[-1]
    if not url.startswith("http"):
        process.kill()
        raise SystemExit(f"server did not start: {argv}")
    return process, url


def main() -> None:
    """Run the measurement and print it."""
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    ceiling = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    import httpx
    from _workload import python_startup_seconds, write_corpus

    from pipeline.config import ServiceSettings, Settings
    from pipeline.run.orchestrate import RunOptions, run_translate

    key = secrets.token_urlsafe(16)
    proxy, url = start(
        [sys.executable, __file__, "--stand-in", str(LATENCY), str(limit)], {**os.environ, "STAND_IN_KEY": key}
    )
    try:
        with tempfile.TemporaryDirectory(prefix="latency-bench-") as tmp:
            root = Path(tmp)
            workload = write_corpus(root / "src")
            settings = Settings(
                root=root,
                catalogs=("src/**/*.po",),
                cache_dir=root / ".cache",
                service=ServiceSettings(url=url, concurrency=ceiling),
            )
            os.environ["PIPELINE_AUTH_KEY"] = key
            transport = TimedTransport()

            def timed_client():  # the client open_client builds, with the timing transport
                from pipeline.client.aio import AsyncClient
                from pipeline.client.retry import RetryPolicy

                return AsyncClient(url, key, transport=transport, retry=RetryPolicy(max_attempts=5))

            dry = run_translate(settings, RunOptions(dry_run=True, use_cache=False), log=lambda m: None)
            load = os.getloadavg()[0]
            started = time.perf_counter()
            report = run_translate(settings, RunOptions(), log=lambda m: None, client_factory=timed_client)
            wall = time.perf_counter() - started
        stats = httpx.get(url + STATS_PATH).json()
    finally:
        proxy.terminate()
        proxy.wait()
    requests = report.totals.requests
    bound = math.ceil(requests / limit) * LATENCY
    seen = statistics.mean(transport.seconds)
    seen_bound = math.ceil(requests / limit) * seen
    print(
        json.dumps(
            {
                **workload,
                "latency_seconds": LATENCY,
                "service_in_flight_limit": limit,
                "concurrency_ceiling": ceiling,
                "exit_code": report.exit_code,
                "segments_translated": report.totals.segments_translated,
                "wall_seconds": round(wall, 3),
                "translate_requests": requests,
                "requests_lower_bound": dry.would_send.requests_lower_bound,
                "physical_bound_seconds": round(bound, 3),
                "wall_vs_bound": round(wall / bound, 3) if bound else None,
                # A busy machine stretches every request beyond LATENCY (both processes wait for a core):
                # the bound again with the mean time a request took as the pipeline saw it.
                "request_seconds_seen_mean": round(seen, 4),
                "bound_at_seen_latency_seconds": round(seen_bound, 3),
                "wall_vs_bound_at_seen_latency": round(wall / seen_bound, 3),
                "answered_by_stand_in": stats["answered"],
                "answered_429": stats["rejected"],
                "max_in_flight_seen": stats["max_in_flight"],
                "service_seconds_max": stats["service_seconds_max"],
                "load_average": round(load, 2),
                "requests_by_path": stats["paths"],
                "timings": report.timings,
                "python_c_pass_seconds": python_startup_seconds(),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--stand-in":
        stand_in(
            os.environ["STAND_IN_KEY"],
            float(sys.argv[2]),
            int(sys.argv[3]),
            float(sys.argv[4]) if len(sys.argv) > 4 else 0.0,
        )
    else:
        main()
