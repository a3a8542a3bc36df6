"""``pipeline serve`` as a process: start line, clean stop, restart with ``--data-dir``, bad starts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.integration.conftest import LiveService

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Service-Auth-Key {key}"}


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_stops_cleanly_on_signal(launch_service: Callable[..., LiveService], sig: signal.Signals) -> None:
    service = launch_service()
    assert httpx.get(f"{service.url}/v2/usage", headers=auth(service.auth_key)).status_code == 200
    service.process.send_signal(sig)
    assert service.process.wait(timeout=10) == 0
    stdout = service.stdout()
    assert stdout == f"pipeline serve: listening on {service.url}\n"
    assert "Traceback" not in service.stderr()
    for key in (service.auth_key, service.admin_key, service.free_auth_key):
        assert key not in stdout and key not in service.stderr()


def test_dropped_connection_is_not_logged_as_a_crash(launch_service: Callable[..., LiveService]) -> None:
    service = launch_service()
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.get(f"{service.url}/v2/usage", headers={**auth(service.auth_key), "X-Test-Fault": "drop"})
    assert service.stop() == 0
    assert service.stderr() == ""


def test_state_survives_restart_with_data_dir(launch_service: Callable[..., LiveService], tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = launch_service(data_dir=data)
    admin = auth(first.admin_key)
    with httpx.Client(base_url=first.url, timeout=30) as client:  # a fresh server's first translate loads the engine
        created = client.post("/v2/admin/developer-keys", json={"label": "kept"}, headers=admin).json()
        secret, key_id = created["api_key"], created["key_id"]
        client.put("/v2/admin/developer-keys/limits", json={"key_id": key_id, "characters": 1000}, headers=admin)
        gone = client.post("/v2/admin/developer-keys", json={"label": "gone"}, headers=admin).json()
        client.put("/v2/admin/developer-keys/deactivate", json={"key_id": gone["key_id"]}, headers=admin)
        body = {"text": ["Hello there"], "target_lang": "DE"}
        assert client.post("/v2/translate", json=body, headers=auth(secret)).status_code == 200
        assert client.post("/v2/translate", json=body, headers=auth(first.auth_key)).status_code == 200
        keys_before = client.get("/v2/admin/developer-keys", headers=admin).json()
    assert first.stop() == 0
    assert (data / "service.sqlite3").exists()

    second = launch_service(
        data_dir=data, auth_key=first.auth_key, admin_key=first.admin_key, free_auth_key=first.free_auth_key
    )
    with httpx.Client(base_url=second.url, timeout=30) as client:
        assert client.get("/v2/admin/developer-keys", headers=admin).json() == keys_before
        usage = client.get("/v2/usage", headers=auth(secret)).json()
        assert usage["api_key_character_count"] == 11 and usage["api_key_character_limit"] == 1000
        assert usage["character_count"] == 22
        assert client.post("/v2/translate", json=body, headers=auth(secret)).status_code == 200
        refused = client.post("/v2/translate", json=body, headers=auth(gone["api_key"]))
        assert refused.status_code == 403


def test_admin_keys_follow_the_configuration(launch_service: Callable[..., LiveService], tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = launch_service(data_dir=data)
    first.stop()
    second = launch_service(data_dir=data, auth_key=first.auth_key)  # a new admin key this time
    old_admin = httpx.get(f"{second.url}/v2/admin/developer-keys", headers=auth(first.admin_key))
    assert old_admin.status_code == 403
    new_admin = httpx.get(f"{second.url}/v2/admin/developer-keys", headers=auth(second.admin_key))
    assert new_admin.status_code == 200 and len(new_admin.json()) == 1


def _run_serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_SERVE_")}
    environment["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "serve", *args],
        capture_output=True,
        text=True,
        timeout=30,
        env={**environment, **(env or {})},
        cwd=ROOT,
    )


def test_no_keys_is_a_usage_error() -> None:
    result = _run_serve("--port", "0")
    assert result.returncode == 2
    assert "no keys" in result.stderr and result.stdout == ""


def test_busy_port_is_a_usage_error() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _run_serve("--port", str(port), env={"PIPELINE_SERVE_AUTH_KEYS": "secret-k"})
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "secret-k" not in result.stderr + result.stdout


def test_unusable_data_dir_is_a_usage_error(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    result = _run_serve("--port", "0", "--data-dir", str(not_a_dir), env={"PIPELINE_SERVE_AUTH_KEYS": "secret-k"})
    assert result.returncode == 2
    assert f"cannot start the service with data directory {not_a_dir}" in result.stderr
    assert result.stdout == ""


def test_help_mentions_environment() -> None:
    result = _run_serve("--help")
    assert result.returncode == 0
    for name in ("PIPELINE_SERVE_AUTH_KEYS", "PIPELINE_SERVE_ADMIN_KEYS", "PIPELINE_SERVE_FREE_AUTH_KEYS", "ps"):
        assert name in result.stdout
