"""The shared cache on Redis, in figures printed as JSON: round trips, and a fully cached run's time.

A generated corpus (``bench.harness.generated.many_catalogs``) is translated once with the embedded service
and a throw-away ``redis-server`` on a free loopback port as the shared cache. Then, on fresh copies
of the untranslated corpus (so no catalog is skipped as unchanged and every segment is looked up):

* over Redis: an empty local cache, so every translation comes from Redis;
* local: the local cache of the first run, without Redis;
* near: the same local cache with Redis configured (what a second run on one runner costs).

Round trips are counted where they happen, in redis-py's connection (one packed send is one round
trip: a pipeline of MGETs is one, so is the connection's handshake); commands are counted by the
server (INFO commandstats). ``python -c pass`` is timed beside them, in a fresh process each.
Usage: python -m bench.performance.cache_redis [CATALOGS] [MESSAGES]
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from redis.connection import AbstractConnection

from bench.harness.generated import many_catalogs
from bench.harness.process import fresh_env, python_c_pass
from pipeline.config import ServiceSettings, Settings
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import RunReport

INSTALL_HINT = "redis-server is not installed: apt-get install redis-server"


class Counting:
    """Counts packed sends (round trips) made by every redis-py connection of this process."""

    def __init__(self) -> None:
        self.sends = 0
        real: Callable[[AbstractConnection, object, bool], None] = AbstractConnection.send_packed_command

        def counted(conn: AbstractConnection, command: object, check_health: bool = True) -> None:
            self.sends += 1
            real(conn, command, check_health)

        AbstractConnection.send_packed_command = counted  # type: ignore[method-assign]  # every connection counts


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_redis(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    server = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(200):
        try:
            if redis.Redis.from_url(url).ping():
                return server, url
        except redis.RedisError:
            time.sleep(0.05)
    server.kill()
    raise SystemExit("redis-server did not start")


def commands(url: str) -> dict[str, int]:
    """Calls per command so far, as the server counts them (this probe's own INFO and handshake left out)."""
    stats = redis.Redis.from_url(url).info("commandstats")
    return {
        k.removeprefix("cmdstat_"): v["calls"]
        for k, v in stats.items()
        if k not in ("cmdstat_info", "cmdstat_client|setinfo", "cmdstat_hello")
    }


def delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: n - before.get(k, 0) for k, n in sorted(after.items()) if n != before.get(k, 0)}


def timed_run(root: Path, url: str | None, cache: Path) -> tuple[float, RunReport]:
    settings = Settings(
        root=root,
        catalogs=("*/*/LC_MESSAGES/*.po",),
        service=ServiceSettings(url="embedded"),
        cache_dir=cache,
        cache_url=url,
    )
    started = time.perf_counter()
    report = run_translate(settings, RunOptions(), log=lambda m: print(m, file=sys.stderr))
    return time.perf_counter() - started, report


def main() -> None:
    if shutil.which("redis-server") is None:
        print(json.dumps({"skipped": INSTALL_HINT}))
        return
    catalogs = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    messages = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    counting = Counting()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        pristine = base / "pristine"
        many_catalogs(pristine, catalogs, messages)
        server, url = start_redis(base)
        try:

            def fresh(name: str) -> Path:
                return Path(shutil.copytree(pristine, base / name))

            before = commands(url)
            sends = counting.sends  # after the probe: its own round trips are not the run's
            _, first = timed_run(fresh("first"), url, base / "first-cache")
            fill: dict[str, Any] = {"round_trips": counting.sends - sends}  # before the probe's own round trips
            fill["commands"] = delta(commands(url), before)
            segments = first.totals.segments_translated + first.totals.segments_copied

            before = commands(url)
            sends = counting.sends  # after the probe: its own round trips are not the run's
            over_redis_s, over_redis = timed_run(fresh("over-redis"), url, base / "empty-cache")
            read: dict[str, Any] = {"round_trips": counting.sends - sends}
            read["commands"] = delta(commands(url), before)

            local_s, local = timed_run(fresh("local"), None, base / "first-cache")
            sends = counting.sends
            near_s, near = timed_run(fresh("near"), url, base / "first-cache")
            near_trips = counting.sends - sends
        finally:
            server.terminate()
            server.wait()
        python = python_c_pass(fresh_env(base))
    per_k = 1000 / segments
    print(
        json.dumps(
            {
                "catalogs": catalogs,
                "messages_per_catalog": messages,
                "segments": segments,
                "first_run_requests": first.totals.requests,
                "fill_round_trips": fill["round_trips"],
                "fill_round_trips_per_1000_segments": round(fill["round_trips"] * per_k, 2),
                "fill_redis_commands": fill["commands"],
                "cached_over_redis_round_trips": read["round_trips"],
                "cached_over_redis_round_trips_per_1000_segments": round(read["round_trips"] * per_k, 2),
                "cached_over_redis_redis_commands": read["commands"],
                "cached_over_redis_requests": over_redis.totals.requests,
                "cached_over_redis_seconds": round(over_redis_s, 3),
                "cached_local_seconds": round(local_s, 3),
                "cached_local_requests": local.totals.requests,
                "cached_near_with_redis_configured_seconds": round(near_s, 3),
                "cached_near_round_trips": near_trips,
                "cached_near_requests": near.totals.requests,
                "python_c_pass": python,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
