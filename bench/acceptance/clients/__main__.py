"""The official clients' own test suites (deepl-node, deepl-python) against ``pipeline serve``; prints JSON.

Each suite runs unchanged, in its "real server" mode, against ``pipeline serve`` on a free loopback
port, through a loopback proxy that renames the authorization scheme the clients send
(``DeepL-Auth-Key``) to the contract's (``Service-Auth-Key``); nothing else of a request or an
answer changes (``bench/acceptance/clients/authproxy.py``). Left out: the tests that compare with the real
service's machine translation or rephrasing, each named with its reason
(``bench/acceptance/clients/leftout.py``). Skipped by the suites themselves: the tests that need the vendor's
mock server. Prints, per client: the snapshot's commit, passed / failed / skipped / left-out
counts, each failure with its first message line, each skip and each left-out test with its
reason. Exit status 1 when a test failed.

The suites come from snapshots of their repositories (``--node-repo``, ``--python-repo``: a git
checkout or git directory; the defaults are where the search tool's ``fetch`` puts
DeepLcom/deepl-node and DeepLcom/deepl-python), exported into ``--work`` (outside this
repository), with dependencies from the npm registry and PyPI. Needs node, npm and network, so it
is not part of ``make test``; skipped (prints {"skipped": ...}) unless BENCH_CLIENTS=1 or --run.

Usage: BENCH_CLIENTS=1 .venv/bin/python -m bench.acceptance.clients [--clients node,python]
       [--node-repo DIR] [--python-repo DIR] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.acceptance.clients.authproxy import AuthProxy
from bench.acceptance.clients.leftout import node_left_out, python_left_out
from bench.acceptance.clients.suites import (
    export_snapshot,
    install_node_suite,
    install_python_suite,
    run_node_suite,
    run_python_suite,
)

ROOT = Path(__file__).resolve().parents[3]
MIRRORS = Path("/work/.mirror")
READY_PREFIX = "pipeline serve: listening on "


def log(message: str) -> None:
    """Progress goes to stderr; stdout carries the one JSON document."""
    print(f"[official_clients] {message}", file=sys.stderr, flush=True)


class Service:
    """``pipeline serve`` on a free loopback port with one paid key, for the length of a ``with``."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.key, self.url = folder, f"clients-{secrets.token_hex(8)}", ""

    def __enter__(self) -> Service:
        env = {**os.environ, "PIPELINE_SERVE_AUTH_KEYS": self.key, "PYTHONPATH": str(ROOT)}
        out = self.folder / "serve.out"
        with out.open("w") as stdout, (self.folder / "serve.err").open("w") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pipeline", "serve", "--host", "127.0.0.1", "--port", "0"],
                env=env,
                stdout=stdout,
                stderr=stderr,
                cwd=ROOT,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            first = out.read_text().split("\n", 1)
            if len(first) == 2 and first[0].startswith(READY_PREFIX):
                self.url = first[0][len(READY_PREFIX) :].strip()
                return self
            time.sleep(0.05)
        self.__exit__()
        raise RuntimeError(f"pipeline serve did not start: {(self.folder / 'serve.err').read_text()[-500:]}")

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def run_node(repository: Path, work: Path, proxy: AuthProxy, key: str) -> dict[str, object]:
    """deepl-node's suite; ``localhost`` in the URL, since its nock tests intercept only that host name."""
    if shutil.which("npx") is None:
        return {"error": "node and npm are needed (apt-get install nodejs npm)"}
    tree, commit = export_snapshot(repository, work, "deepl-node")
    install_node_suite(tree, log)
    left_out = node_left_out()
    outcome = run_node_suite(tree, f"http://localhost:{proxy.port}", key, left_out, log)
    return outcome.report(commit, left_out)


def run_python(repository: Path, work: Path, proxy: AuthProxy, key: str) -> dict[str, object]:
    """deepl-python's suite, testing the client source of the same snapshot."""
    tree, commit = export_snapshot(repository, work, "deepl-python")
    python = install_python_suite(work / "python-suite-venv", log)
    left_out = python_left_out()
    outcome = run_python_suite(tree, python, f"http://127.0.0.1:{proxy.port}", key, left_out, log)
    return outcome.report(commit, left_out)


RUNNERS = {"node": run_node, "python": run_python}


def main() -> int:
    """Run the chosen suites and print the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run even without BENCH_CLIENTS=1")
    parser.add_argument("--clients", default="node,python", help="comma-separated (default: %(default)s)")
    parser.add_argument("--node-repo", type=Path, default=MIRRORS / "DeepLcom+deepl-node" / "repo")
    parser.add_argument("--python-repo", type=Path, default=MIRRORS / "DeepLcom+deepl-python" / "repo")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "pipeline-official-clients")
    args = parser.parse_args()
    if not (args.run or os.environ.get("BENCH_CLIENTS") == "1"):
        print(json.dumps({"skipped": "needs node, npm and the registries; set BENCH_CLIENTS=1 or pass --run"}))
        return 0
    repositories = {"node": args.node_repo, "python": args.python_repo}
    args.work.mkdir(parents=True, exist_ok=True)
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="official-clients-") as tmp, Service(Path(tmp)) as service:
        with AuthProxy(service.url) as proxy:
            for client in args.clients.split(","):
                repository = repositories[client]
                if not (repository / "HEAD").exists() and not (repository / ".git").exists():
                    results[client] = {"error": f"no git snapshot at {repository}; pass --{client}-repo"}
                    continue
                log(f"{client}: suite from {repository}")
                results[client] = RUNNERS[client](repository, args.work, proxy, service.key)
    print(json.dumps({"service": "pipeline serve on 127.0.0.1 behind the scheme-renaming proxy", "clients": results}))
    failed = any(isinstance(r, dict) and (r.get("failed") or r.get("error")) for r in results.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
