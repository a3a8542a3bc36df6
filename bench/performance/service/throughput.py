"""Throughput of the local service for 50-text translate requests, printed as JSON.

Two paths, each with 1 and 8 concurrent clients:

- ``in-process``: ``httpx.AsyncClient`` over ``httpx.ASGITransport`` (the pipeline's embedded mode);
- ``loopback``: ``pipeline serve --port 0`` in a child process, over HTTP on 127.0.0.1.

Requests look like the pipeline's: ``source_lang``, ``target_lang``, ``tag_handling=xml``,
``ignore_tags=x``, placeholders as ``<x id="N"/>``, ``show_billed_characters``.

Usage: ``python -m bench.performance.service.throughput [--requests N] [--concurrency 1,8]
[--modes in-process,loopback]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from pipeline.service.config import AccountSpec, ServiceConfig
from pipeline.service.embedded import embedded_transport

ROOT = Path(__file__).resolve().parents[3]

KEY = "bench-key"
TEXTS_PER_REQUEST = 50
READY_PREFIX = "pipeline serve: listening on "


def request_body(batch: int) -> dict[str, object]:
    """One translate body of 50 short segments, a third of them with placeholders."""
    texts = []
    for i in range(TEXTS_PER_REQUEST):
        n = batch * TEXTS_PER_REQUEST + i
        if i % 3 == 0:
            texts.append(f'Delete <x id="1"/> files from folder {n}?')
        else:
            texts.append(f"Open the settings page {n} and save your changes.")
    return {
        "text": texts,
        "source_lang": "EN",
        "target_lang": "DE",
        "tag_handling": "xml",
        "ignore_tags": ["x"],
        "show_billed_characters": True,
    }


async def run_load(client: httpx.AsyncClient, requests: int, concurrency: int) -> dict[str, object]:
    """Send ``requests`` translate requests from ``concurrency`` workers; figures of the run."""
    headers = {"Authorization": f"Service-Auth-Key {KEY}"}
    bodies = [request_body(i) for i in range(64)]
    latencies: list[float] = []
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < requests:
            index = next_index
            next_index += 1
            started = time.perf_counter()
            response = await client.post("/v2/translate", json=bodies[index % len(bodies)], headers=headers)
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200:
                raise RuntimeError(f"translate answered {response.status_code}: {response.text}")

    for _ in range(5):
        await client.post("/v2/translate", json=bodies[0], headers=headers)
    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "concurrency": concurrency,
        "requests": len(latencies),
        "seconds": round(elapsed, 3),
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "segments_per_s": round(len(latencies) * TEXTS_PER_REQUEST / elapsed, 1),
        "p50_ms": round(statistics.median(ordered) * 1000, 3),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 3),
    }


async def in_process(requests: int, concurrency: int) -> dict[str, object]:
    """Load through the embedded transport (httpx.ASGITransport, app closed with the client)."""
    transport = embedded_transport(ServiceConfig(accounts=(AccountSpec("paid", (KEY,)),)))
    async with httpx.AsyncClient(transport=transport, base_url="http://embedded.invalid") as client:
        return await run_load(client, requests, concurrency)


def start_server() -> tuple[subprocess.Popen[str], str, float]:
    """``pipeline serve --port 0`` in a child process, its URL, and seconds until it listened."""
    env = {**os.environ, "PIPELINE_SERVE_AUTH_KEYS": KEY, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "serve", "--host", "127.0.0.1", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    startup = time.perf_counter() - started
    if not line.startswith(READY_PREFIX):
        process.kill()
        raise RuntimeError(f"pipeline serve did not start: {line!r}")
    return process, line[len(READY_PREFIX) :].strip(), startup


async def loopback(url: str, requests: int, concurrency: int) -> dict[str, object]:
    """Load over HTTP on 127.0.0.1."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as client:
        return await run_load(client, requests, concurrency)


def main() -> int:
    """Run the benchmark and print its JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="requests per run (default: %(default)s)")
    parser.add_argument("--concurrency", default="1,8", help="comma-separated client counts (default: %(default)s)")
    parser.add_argument("--modes", default="in-process,loopback", help="comma-separated (default: %(default)s)")
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]
    modes = [m.strip() for m in args.modes.split(",")]
    results: list[dict[str, object]] = []
    startup: float | None = None

    def record(mode: str, run: Callable[[int], dict[str, object]]) -> None:
        for level in levels:
            results.append({"mode": mode, **run(level)})

    if "in-process" in modes:
        record("in-process", lambda c: asyncio.run(in_process(args.requests, c)))
    if "loopback" in modes:
        process, url, startup = start_server()
        try:
            record("loopback", lambda c: asyncio.run(loopback(url, args.requests, c)))
        finally:
            process.terminate()
            process.wait(timeout=10)
    report = {
        "benchmark": "POST /v2/translate, 50 short segments per request",
        "texts_per_request": TEXTS_PER_REQUEST,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "serve_startup_seconds": None if startup is None else round(startup, 3),
        "results": results,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
