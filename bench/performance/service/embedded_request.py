"""The CPU one embedded translate request costs, with the engine and without it; prints JSON.

A request as a run sends it (the pipeline's own client, its request parameters, 15 texts of six
words and a placeholder each: the embedded row averages 14.9 texts a request) goes through the
whole seam: the client builds it, httpx sends it to the embedded transport, the app routes it,
authenticates, bills and parses it, the engine translates, and the answer comes back the same way.
``seam`` replaces the pseudo engine by one that returns its texts, so what is left is the cost of
the transport seam and the service around the engine. CPU microseconds per request, best of
``--rounds`` rounds (the machine may be shared; ``python -c pass`` and the load average are printed
beside). For a figure that does not move with the load, count instructions of two request counts:
``valgrind --tool=callgrind python -m bench.performance.service.embedded_request --rounds 1 --requests 50`` and
``--requests 150`` with ``--only whole`` (or ``seam``); the difference over 100 is one request.

Usage: python -m bench.performance.service.embedded_request [--requests N] [--rounds R] [--only whole|seam]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections.abc import Sequence

from bench.harness.process import python_c_pass
from pipeline.client.aio import AsyncClient
from pipeline.connect import EMBEDDED_BASE_URL
from pipeline.run.keys import request_params
from pipeline.segments import TranslationOptions
from pipeline.service.config import AccountSpec, ServiceConfig
from pipeline.service.embedded import embedded_transport
from pipeline.service.engine.base import Engine, EngineRequest, Translation

KEY = "bench-key"
WORDS = "the quick brown fox jumps over lazy dog save changes delete item user name password".split()


class Returned:
    """An engine that gives every text back: what is measured with it is everything but the engine."""

    async def translate(self, request: EngineRequest) -> Sequence[Translation]:
        """Each text as it came."""
        return [Translation(text, request.source_lang or "EN") for text in request.texts]


def texts(count: int = 15) -> list[str]:
    """``count`` texts of six words and a placeholder tag, different from each other."""
    return [" ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(6)) + ' <x id="1"/>' for i in range(count)]


async def per_request(engine: Engine | None, requests: int, rounds: int) -> float:
    """Best CPU microseconds per request over ``rounds`` rounds of ``requests`` requests."""
    transport = embedded_transport(ServiceConfig(accounts=(AccountSpec("paid", (KEY,)),), engine=engine))
    params = request_params(TranslationOptions(source_lang="EN", target_lang="DE", context="a menu item"))
    batch = texts()
    async with AsyncClient(EMBEDDED_BASE_URL, KEY, transport=transport) as client:
        await client.translate(batch, **params)  # the app opens with its first request
        best = float("inf")
        for _ in range(rounds):
            started = time.process_time()
            for _ in range(requests):
                await client.translate(batch, **params)
            best = min(best, time.process_time() - started)
    return round(best / requests * 1e6, 1)


def main() -> None:
    """Measure both and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", choices=("whole", "seam"), help="measure one of the two (for callgrind)")
    args = parser.parse_args()
    whole = asyncio.run(per_request(None, args.requests, args.rounds)) if args.only != "seam" else None
    seam = asyncio.run(per_request(Returned(), args.requests, args.rounds)) if args.only != "whole" else None
    print(
        json.dumps(
            {
                "texts_per_request": len(texts()),
                "cpu_us_per_request": whole,
                "seam_cpu_us_per_request": seam,
                "engine_cpu_us_per_request": round(whole - seam, 1) if whole and seam else None,
                "python_c_pass": python_c_pass(dict(os.environ)),
                "load_average": round(os.getloadavg()[0], 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
