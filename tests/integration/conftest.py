"""Fixtures for integration tests: a real ``pipeline serve`` on 127.0.0.1 (port 0).

``live_service`` (session-wide) runs one server with test faults enabled and one key of each
kind, plus a developer key of a second paid-tier account (for isolation tests), passed through the
environment (never argv). Tests that change account-wide state in ways
others could notice (the active-key limit, restarts) start their own server with
``launch_service``. Tests that need a limit or a fresh usage count should create their own
developer key through the admin API and deactivate it afterwards.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.waiting import Lines

ROOT = Path(__file__).resolve().parents[2]
READY_PREFIX = "pipeline serve: listening on "
#: A safety net: the listening line comes within a second or two, later on a loaded machine.
START_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 60.0  # a safety net: a graceful stop takes milliseconds


@dataclass(frozen=True)
class LiveService:
    """A running ``pipeline serve``: its URL, its keys, and its process."""

    url: str
    auth_key: str
    admin_key: str
    free_auth_key: str
    #: Developer key of a second paid-tier account.
    other_paid_auth_key: str
    process: subprocess.Popen[bytes]
    stdout_lines: Lines
    stderr_path: Path

    def stop(self) -> int:
        """SIGTERM, wait, and return the exit status (kills it if it does not stop in time)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def stdout(self) -> str:
        """What the server wrote to stdout (the listening line only): all of it once it exited."""
        return self.stdout_lines.join() if self.process.poll() is not None else self.stdout_lines.text()

    def stderr(self) -> str:
        """What the server wrote to stderr so far."""
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


def _new_key(kind: str) -> str:
    return f"test-{kind}-{secrets.token_hex(8)}"


def start_service(
    workdir: Path,
    *,
    auth_key: str | None = None,
    admin_key: str | None = None,
    free_auth_key: str | None = None,
    other_paid_auth_key: str | None = None,
    data_dir: Path | None = None,
    test_faults: bool = True,
    extra_args: tuple[str, ...] = (),
) -> LiveService:
    """Start ``pipeline serve --port 0`` and wait for its listening line on its stdout pipe."""
    auth_key = auth_key or _new_key("auth")
    admin_key = admin_key or _new_key("admin")
    free_auth_key = free_auth_key or _new_key("free")
    other_paid_auth_key = other_paid_auth_key or _new_key("other-paid")
    workdir.mkdir(parents=True, exist_ok=True)
    stderr_path = workdir / f"serve-{secrets.token_hex(4)}.err"
    argv = [sys.executable, "-m", "pipeline", "serve", "--host", "127.0.0.1", "--port", "0"]
    if test_faults:
        argv.append("--test-faults")
    if data_dir is not None:
        argv += ["--data-dir", str(data_dir)]
    argv += extra_args
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "PIPELINE_SERVE_AUTH_KEYS": auth_key,
        "PIPELINE_SERVE_ADMIN_KEYS": admin_key,
        "PIPELINE_SERVE_FREE_AUTH_KEYS": free_auth_key,
        "PIPELINE_SERVE_OTHER_PAID_AUTH_KEYS": other_paid_auth_key,
    }
    with stderr_path.open("wb") as err:
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, env=env, cwd=ROOT)
    assert process.stdout is not None
    stdout = Lines(process.stdout)
    try:
        line = stdout.first(START_TIMEOUT_SECONDS)
    except AssertionError:
        if process.poll() is None:
            process.kill()
        process.wait()
        stderr = stderr_path.read_text(encoding="utf-8", errors="replace")
        pytest.fail(f"pipeline serve did not start (exit status {process.returncode}); stderr:\n{stderr}")
    if not line.startswith(READY_PREFIX):
        process.kill()
        pytest.fail(f"pipeline serve printed {line!r} instead of the listening line")
    return LiveService(
        url=line[len(READY_PREFIX) :].strip(),
        auth_key=auth_key,
        admin_key=admin_key,
        free_auth_key=free_auth_key,
        other_paid_auth_key=other_paid_auth_key,
        process=process,
        stdout_lines=stdout,
        stderr_path=stderr_path,
    )


@pytest.fixture(scope="session")
def live_service() -> Iterator[LiveService]:
    """One ``pipeline serve`` for the whole session, test faults on, keys from the environment."""
    with tempfile.TemporaryDirectory(prefix="pipeline-serve-") as tmp:
        service = start_service(Path(tmp))
        try:
            yield service
        finally:
            service.stop()


@pytest.fixture
def launch_service(tmp_path: Path) -> Iterator[Callable[..., LiveService]]:
    """A function starting extra servers (same keywords as ``start_service``), stopped after the test."""
    started: list[LiveService] = []

    def launch(**kwargs: Any) -> LiveService:
        service = start_service(tmp_path / "serve", **kwargs)
        started.append(service)
        return service

    yield launch
    for service in started:
        service.stop()
