"""Peak memory of a run whose shared cache holds huge values, printed as JSON (issue 24, item 7).

Whoever can write the shared Redis can put a value of any size under an entry's key. A generated
corpus is translated once with the embedded service and a throw-away ``redis-server`` (the shared
cache); then ``HUGE`` of its entries are replaced by values of ``MB`` megabytes each, and a fresh copy
of the untranslated corpus with an empty local cache (a new runner) is translated by
``pipeline translate`` in a child process. Its peak RSS (``ru_maxrss``) is printed beside the same
run over the untouched entries and beside ``python -c pass``, with the bytes Redis sent to it (the
server's ``total_net_output_bytes``).

Usage: python -m bench.acceptance.cache_redis_huge [HUGE] [MB]   (default: 40 values of 20 MB)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import redis

from bench.harness.generated import many_catalogs
from bench.performance.cache_redis import INSTALL_HINT, start_redis

CONFIG = (
    'source_lang = "en"\ncatalogs = ["*/*/LC_MESSAGES/*.po"]\n[service]\nurl = "embedded"\n'
    '[cache]\ndir = ".cache"\n[report]\ndir = "report"\n'
)


def peak_rss_mb(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Peak RSS of a child process in MB (alone: each child is waited for before the next starts), and its exit code."""
    code = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env, check=True)
    kib, returncode = out.stdout.split()
    return round(int(kib) / 1024, 1), int(returncode)


def translate(root: Path, url: str) -> tuple[float, int, int]:
    """Peak RSS (MB), exit code, and the bytes Redis sent during one ``pipeline translate`` in ``root``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    env["PIPELINE_CACHE_URL"] = url
    sent = _net_output(url)
    rss, code = peak_rss_mb(
        [sys.executable, "-m", "pipeline", "translate", "--quiet", "--config", str(root / "pipeline.toml")], env
    )
    return rss, code, _net_output(url) - sent


def _net_output(url: str) -> int:
    return int(redis.Redis.from_url(url).info("stats")["total_net_output_bytes"])


def main() -> None:
    if shutil.which("redis-server") is None:
        print(json.dumps({"skipped": INSTALL_HINT}))
        return
    huge = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    mb = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        pristine = base / "pristine"
        many_catalogs(pristine, 10, 60)
        (pristine / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
        server, url = start_redis(base)
        try:

            def fresh(name: str) -> Path:
                return Path(shutil.copytree(pristine, base / name))

            first_rss, first_code, _ = translate(fresh("first"), url)
            normal_rss, normal_code, normal_sent = translate(fresh("normal"), url)
            client = redis.Redis.from_url(url)
            keys = sorted(client.scan_iter(match="pipeline:*", count=1000))[:huge]
            value = b"x" * (mb * 1024 * 1024)
            for key in keys:
                client.set(key, value)
            huge_rss, huge_code, huge_sent = translate(fresh("huge"), url)
        finally:
            server.terminate()
            server.wait()
        python_rss, _ = peak_rss_mb([sys.executable, "-c", "pass"], dict(os.environ))
    print(
        json.dumps(
            {
                "huge_values": len(keys),
                "huge_value_mb": mb,
                "exit_codes": {"fill": first_code, "normal": normal_code, "huge": huge_code},
                "peak_rss_mb_fill_run": first_rss,
                "peak_rss_mb_over_normal_entries": normal_rss,
                "peak_rss_mb_over_huge_entries": huge_rss,
                "peak_rss_mb_python_c_pass": python_rss,
                "huge_over_normal_ratio": round(huge_rss / normal_rss, 2),
                "redis_bytes_sent_normal_run": normal_sent,
                "redis_bytes_sent_huge_run": huge_sent,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
