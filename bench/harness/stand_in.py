"""A slow, refusing stand-in for the translation service: the local service behind a latency middleware.

Every request takes ``latency`` seconds (the service's own work included unless it takes longer:
``service_seconds_max`` says); a request arriving while ``limit`` others are in flight is answered 429
with ``Retry-After: 1`` (after the same latency), a limit the pipeline is not told; and besides the
limit, ``refuse_share`` of translate requests are refused the same way at random (a generator seeded
with ``seed``): refusals that do not grow with the requests in flight. Over TLS when ``$STAND_IN_TLS``
names a folder made by :func:`bench.harness.tls.authority` (its server certificate and key), as the
real service is reached.

The middleware wraps the app ``pipeline serve`` serves, in one process: a proxy in front of ``pipeline
serve`` would add a second HTTP hop to every request on a busy machine. ``GET /_stand-in/stats`` says
what it counted, and when the latest requests arrived. Run as ``python -m bench.harness.stand_in
LATENCY LIMIT [SHARE] [SEED]`` with the key in ``$STAND_IN_KEY``: it prints its URL, then serves until
terminated; :class:`StandIn` does that for a ``with`` block.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import ssl
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import httpx

RETRY_AFTER = "1"
STATS_PATH = "/_stand-in/stats"

Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]
Receive = Callable[[], Awaitable[Message]]


def serve(auth_key: str, latency: float, limit: int, refuse_share: float = 0.0, seed: int = 26) -> None:
    """Serve the local service behind the middleware until killed; prints its URL first."""
    import uvicorn

    from pipeline.service.app import create_app
    from pipeline.service.config import AccountSpec, ServiceConfig
    from pipeline.service.server import bind

    app = create_app(ServiceConfig(accounts=(AccountSpec("paid", (auth_key,)),)))
    paths: dict[str, int] = {}
    stats: dict[str, Any] = {"answered": 0, "rejected": 0, "max_in_flight": 0, "paths": paths}
    stats["service_seconds_max"] = 0.0
    arrivals: list[float] = stats.setdefault("arrivals", [])  # time.monotonic() of each request, the latest 1,000
    in_flight = 0
    chance = random.Random(seed)

    async def reply(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def middleware(scope: Message, receive: Receive, send: Send) -> None:
        nonlocal in_flight
        if scope["type"] != "http":  # the lifespan: the app opens its database in it
            await app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        if scope["path"] == STATS_PATH:
            await reply(send, 200, [(b"content-type", b"application/json")], json.dumps(stats).encode())
            return
        arrivals.append(time.monotonic())  # the same clock in every process: a bench compares it with its own
        del arrivals[:-1000]
        noise = scope["path"].endswith("/translate") and chance.random() < refuse_share
        if in_flight >= limit or noise:  # refused at the edge, but the answer still travels back
            stats["rejected"] += 1
            await asyncio.sleep(latency)
            headers = [(b"content-type", b"application/json"), (b"retry-after", RETRY_AFTER.encode())]
            await reply(send, 429, headers, b'{"message": "Too many requests"}')
            return
        in_flight += 1
        stats["max_in_flight"] = max(stats["max_in_flight"], in_flight)
        started = loop.time()
        held: list[Message] = []

        async def hold(message: Message) -> None:  # the answer leaves once the latency has passed
            held.append(message)

        try:
            await app(scope, receive, hold)
            took = loop.time() - started
            stats["service_seconds_max"] = max(stats["service_seconds_max"], round(took, 3))
            await asyncio.sleep(latency - took)  # the service's own work is part of its latency
        finally:
            in_flight -= 1
        stats["answered"] += 1
        paths[scope["path"]] = paths.get(scope["path"], 0) + 1
        for message in held:
            await send(message)

    sock = bind("127.0.0.1", 0)  # as `pipeline serve` binds (asyncio sets TCP_NODELAY on such sockets)
    tls = os.environ.get("STAND_IN_TLS")
    print(f"{'https' if tls else 'http'}://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(
        middleware,
        lifespan="on",
        access_log=False,
        log_level="warning",
        ssl_certfile=f"{tls}/server.pem" if tls else None,
        ssl_keyfile=f"{tls}/server.key" if tls else None,
    )
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


class StandIn:
    """The stand-in in a child process for the length of a ``with``; ``url`` and ``key`` to reach it."""

    def __init__(self, latency: float, limit: int, share: float = 0.0, seed: int = 26, tls: Path | None = None) -> None:
        self.argv = [sys.executable, "-m", "bench.harness.stand_in", str(latency), str(limit), str(share), str(seed)]
        self.key = secrets.token_urlsafe(16)
        self.url = ""
        self.tls = tls  # a folder of bench.harness.tls.authority: served over https, its CA trusted by stats()
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> StandIn:
        env = {**os.environ, "STAND_IN_KEY": self.key}
        if self.tls is not None:
            env["STAND_IN_TLS"] = str(self.tls)
        self._process = subprocess.Popen(self.argv, stdout=subprocess.PIPE, text=True, env=env)
        assert self._process.stdout is not None
        self.url = self._process.stdout.readline().strip()
        if not self.url.startswith("http"):
            self._process.kill()
            raise RuntimeError(f"the stand-in did not start: {self.argv}")
        return self

    def stats(self) -> dict[str, Any]:
        """What the stand-in counted so far (answered, 429s, the most in flight)."""
        verify: ssl.SSLContext | bool = True
        if self.tls is not None:
            verify = ssl.create_default_context(cafile=self.tls / "ca.pem")
        answer: dict[str, Any] = httpx.get(self.url + STATS_PATH, trust_env=False, verify=verify).json()
        return answer

    def __exit__(self, *exc_info: object) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait()


if __name__ == "__main__":
    arguments = sys.argv[1:]
    serve(
        os.environ["STAND_IN_KEY"],
        float(arguments[0]),
        int(arguments[1]),
        float(arguments[2]) if len(arguments) > 2 else 0.0,
        int(arguments[3]) if len(arguments) > 3 else 26,
    )
