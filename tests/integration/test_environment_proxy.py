"""A service reached over the network goes through the proxy the environment names (``HTTP_PROXY``,
``HTTPS_PROXY``, ``ALL_PROXY``, less ``NO_PROXY``'s hosts); a service on this machine never does; a proxy
setting that cannot be used is a clear error, not a traceback.

The proxy here is a small forward proxy on 127.0.0.1 that records each request line and passes the
request on to ``pipeline serve``. The service's host, ``mt.example.invalid``, resolves nowhere: only a
request that went through the proxy can be answered.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import importlib.util
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.client.sync import Client
from pipeline.errors import TransportError
from tests.integration.conftest import LiveService
from tests.sample_project import copy_sample_project

pytestmark = pytest.mark.integration

REMOTE = "http://mt.example.invalid"
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
_NOT_FORWARDED = {"host", "content-length", "connection", "proxy-connection", "transfer-encoding"}


@dataclass
class ForwardProxy:
    """A running proxy: its URL, and the request lines it was sent (``POST http://host/path``)."""

    url: str
    upstream: str
    seen: list[str] = field(default_factory=list)
    #: Answer 407 with a page quoting the request's headers, as some proxies' error pages do.
    refuse: bool = False


def _handler(proxy: ForwardProxy) -> type[BaseHTTPRequestHandler]:
    class Forward(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            proxy.seen.append(f"{self.command} {self.path}")
            if proxy.refuse:
                self._refuse()
                return
            target = urlsplit(self.path)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _NOT_FORWARDED}
            url = f"{proxy.upstream}{target.path}" + (f"?{target.query}" if target.query else "")
            with httpx.Client(trust_env=False) as upstream:
                answer = upstream.request(self.command, url, headers=headers, content=body)
            self.send_response(answer.status_code)
            for name, value in answer.headers.items():
                if name.lower() not in _NOT_FORWARDED | {"content-encoding"}:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        def _refuse(self) -> None:
            page = f"<p>Proxy authentication failed for {dict(self.headers)}</p>".encode()
            self.send_response(407)
            self.send_header("Proxy-Authenticate", 'Basic realm="proxy"')
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward  # noqa: N815 - http.server's names

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
            """Quiet."""

    return Forward


@pytest.fixture
def forward_proxy(live_service: LiveService, monkeypatch: pytest.MonkeyPatch) -> Iterator[ForwardProxy]:
    """A forward proxy to ``live_service``; the environment names no proxy until a test sets one."""
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    proxy = ForwardProxy(url="", upstream=live_service.url)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(proxy))
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _usage(base_url: str, key: str) -> int:
    async def read() -> int:
        async with AsyncClient(base_url, key, retry=RetryPolicy(max_attempts=1)) as client:
            return (await client.usage()).character_count

    return asyncio.run(read())


def test_both_clients_reach_a_remote_service_through_the_proxy_the_environment_names(
    forward_proxy: ForwardProxy, live_service: LiveService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", forward_proxy.url)
    assert _usage(REMOTE, live_service.auth_key) >= 0
    with Client(REMOTE, live_service.auth_key, retry=RetryPolicy(max_attempts=1)) as client:
        assert client.usage().character_count >= 0
    assert forward_proxy.seen == [f"GET {REMOTE}/v2/usage"] * 2


def test_no_proxy_sends_its_hosts_direct(
    forward_proxy: ForwardProxy, live_service: LiveService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", forward_proxy.url)
    monkeypatch.setenv("NO_PROXY", "example.invalid")
    with pytest.raises(TransportError, match="ConnectError"):  # direct: the name resolves nowhere
        _usage(REMOTE, live_service.auth_key)
    assert forward_proxy.seen == []


def test_a_service_on_this_machine_is_reached_direct_whatever_proxy_is_named(
    forward_proxy: ForwardProxy, live_service: LiveService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALL_PROXY", forward_proxy.url)
    monkeypatch.setenv("HTTP_PROXY", forward_proxy.url)
    port = urlsplit(live_service.url).port
    for base in (live_service.url, f"http://localhost:{port}"):
        assert _usage(base, live_service.auth_key) >= 0
    assert forward_proxy.seen == []


def test_no_address_of_this_machine_is_sent_to_the_proxy(
    forward_proxy: ForwardProxy, live_service: LiveService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", forward_proxy.url)
    port = urlsplit(live_service.url).port
    for host in ("127.0.0.2", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "0.0.0.0"):
        with contextlib.suppress(TransportError):  # direct: nothing may listen on that spelling of this machine
            _usage(f"http://{host}:{port}", live_service.auth_key)
    assert forward_proxy.seen == []


def test_no_proxy_alone_is_not_read_so_a_form_httpx_cannot_parse_changes_nothing(
    forward_proxy: ForwardProxy, live_service: LiveService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_PROXY", "fe80::/10,[::1]")
    with pytest.raises(TransportError, match="ConnectError"):  # direct, as without NO_PROXY
        _usage(REMOTE, live_service.auth_key)


def _translate(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "translate", "--config", str(root / "pipeline.toml")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_") and k.lower() not in _PROXY_VARIABLES}
    return {**env, **extra}


def test_a_run_translates_through_the_proxy_and_says_nothing_of_the_key(
    forward_proxy: ForwardProxy, live_service: LiveService, tmp_path: Path
) -> None:
    root = copy_sample_project(tmp_path, REMOTE)
    done = _translate(root, _environment(PIPELINE_AUTH_KEY=live_service.auth_key, HTTP_PROXY=forward_proxy.url))
    assert done.returncode == 0, done.stderr
    assert f"POST {REMOTE}/v2/translate" in forward_proxy.seen
    assert all(line.startswith(("GET ", "POST ")) and REMOTE in line for line in forward_proxy.seen)
    assert live_service.auth_key not in done.stdout + done.stderr


def test_a_proxy_that_refuses_and_quotes_its_credentials_shows_neither_password_nor_token(
    forward_proxy: ForwardProxy, live_service: LiveService
) -> None:
    forward_proxy.refuse = True
    proxy = forward_proxy.url.replace("http://", "http://corp%5Cuser:hunter2%21@")
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "usage", "--service-url", REMOTE],
        capture_output=True,
        text=True,
        env=_environment(PIPELINE_AUTH_KEY=live_service.auth_key, HTTP_PROXY=proxy),
        timeout=60,
    )
    assert done.returncode == 4, done.stderr  # refused, as a wrong key is; not retried
    assert "the proxy answered 407" in done.stderr and "Basic ***" in done.stderr
    token = base64.b64encode(b"corp\\user:hunter2!").decode()
    for secret in ("hunter2", token, live_service.auth_key):
        assert secret not in done.stdout + done.stderr
    assert forward_proxy.seen == [f"GET {REMOTE}/v2/usage"]


@pytest.mark.parametrize(
    ("setting", "why"),
    [("ftp://user:hunter2@proxy.example:21", "Unknown scheme for proxy URL"), ("socks5://127.0.0.1:1080", "socksio")],
)
def test_a_proxy_setting_that_cannot_be_used_stops_the_run_with_exit_2_and_says_why(
    forward_proxy: ForwardProxy, live_service: LiveService, tmp_path: Path, setting: str, why: str
) -> None:
    if why == "socksio" and importlib.util.find_spec("socksio") is not None:
        pytest.skip("socksio is installed: httpx can use a SOCKS proxy")
    root = copy_sample_project(tmp_path, REMOTE)
    done = _translate(
        root, _environment(PIPELINE_AUTH_KEY=live_service.auth_key, HTTPS_PROXY=setting, HTTP_PROXY=setting)
    )
    assert done.returncode == 2, done.stderr
    assert "the proxy the environment names" in done.stderr and why in done.stderr
    assert "Traceback" not in done.stderr and "hunter2" not in done.stderr
    assert forward_proxy.seen == []
