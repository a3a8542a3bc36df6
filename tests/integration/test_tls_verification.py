"""TLS is always verified: a client of an https service checks its certificate (against ``SSL_CERT_FILE`` when
set), and the rootless context a client of an http service gets refuses any TLS server rather than trusting it.
A run against an https service it cannot trust, or with roots it cannot load, stops with a clear error, no
traceback, no key in what it prints or writes, and no catalog changed."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from pipeline.client.aio import AsyncClient
from pipeline.client.base import tls_verify
from pipeline.client.retry import RetryPolicy
from pipeline.errors import TransportError
from tests.integration.conftest import LiveService
from tests.sample_project import copy_sample_project

pytestmark = pytest.mark.integration


class _Usage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = b'{"character_count": 7, "character_limit": 100}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
        """Quiet."""


def _self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1, signed by its own key: the certificate's file and the key's."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture
def tls_service(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An https server on 127.0.0.1 with a self-signed certificate: its base URL and the certificate's file."""
    cert, key = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Usage)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", cert
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _usage(base_url: str) -> int:
    async def read() -> int:
        async with AsyncClient(base_url, "secret-key", retry=RetryPolicy(max_attempts=1)) as client:
            return (await client.usage()).character_count

    return asyncio.run(read())


def test_an_https_service_is_verified_against_the_roots_ssl_cert_file_names(
    tls_service: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, cert = tls_service
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    with pytest.raises(TransportError, match="CERTIFICATE_VERIFY_FAILED"):
        _usage(url)  # certifi's roots do not hold a self-signed certificate
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    assert _usage(url) == 7


def test_the_context_of_an_http_service_refuses_every_tls_server_even_one_the_environment_trusts(
    tls_service: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, cert = tls_service
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))

    async def over_tls() -> None:
        transport = httpx.AsyncHTTPTransport(verify=tls_verify("http://127.0.0.1:1"))
        async with httpx.AsyncClient(transport=transport) as client:
            await client.get(f"{url}/v2/usage")

    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        asyncio.run(over_tls())


# --- a whole run over https ----------------------------------------------------------------------


@pytest.fixture
def https_service(live_service: LiveService, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``pipeline serve`` behind TLS on another loopback port (each connection's bytes forwarded as they
    come): its https URL and the self-signed certificate's file."""
    cert, key = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    upstream = live_service.url.rsplit(":", 1)[1]
    loop = asyncio.new_event_loop()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    async def forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", int(upstream))
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = loop.run_until_complete(asyncio.start_server(forward, "127.0.0.1", 0, ssl=context))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}", cert
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        server.close()
        loop.close()


def _translate(root: Path, key: str, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIPELINE_", "SSL_CERT_"))}
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "translate", "--config", str(root / "pipeline.toml")],
        capture_output=True,
        text=True,
        env={**env, "PIPELINE_AUTH_KEY": key, **environment},
        timeout=120,
    )


def _catalogs(root: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in sorted((root / "sample_locales").rglob("*.po"))}


def test_a_run_over_https_trusts_the_roots_ssl_cert_file_names(
    https_service: tuple[str, Path], live_service: LiveService, tmp_path: Path
) -> None:
    url, cert = https_service
    root = copy_sample_project(tmp_path, url)
    before = _catalogs(root)
    done = _translate(root, live_service.auth_key, SSL_CERT_FILE=str(cert))
    assert done.returncode == 0, done.stderr
    assert f"using the translation service at {url}" in done.stderr
    report = (root / "report" / "report.json").read_text()
    assert live_service.auth_key not in done.stdout + done.stderr + report
    assert json.loads(report)["totals"]["requests"] > 0
    assert all(_catalogs(root)[path] != text for path, text in before.items())


@pytest.mark.parametrize(
    ("host", "trusted", "said"),
    [
        ("127.0.0.1", False, "self-signed certificate"),  # certifi's roots: not this certificate's
        ("localhost", True, "Hostname mismatch"),  # trusted, but made for 127.0.0.1 only
    ],
)
def test_a_run_against_a_certificate_it_does_not_trust_stops_clearly_and_changes_no_catalog(
    https_service: tuple[str, Path], live_service: LiveService, tmp_path: Path, host: str, trusted: bool, said: str
) -> None:
    url, cert = https_service
    root = copy_sample_project(tmp_path, url.replace("127.0.0.1", host))
    before = _catalogs(root)
    done = _translate(root, live_service.auth_key, **({"SSL_CERT_FILE": str(cert)} if trusted else {}))
    assert done.returncode == 4, done.stderr
    assert "service unreachable" in done.stderr and "CERTIFICATE_VERIFY_FAILED" in done.stderr
    assert said in done.stderr
    assert "Traceback" not in done.stderr
    assert live_service.auth_key not in done.stdout + done.stderr + (root / "report" / "report.json").read_text()
    assert _catalogs(root) == before


@pytest.mark.parametrize("variable", ["SSL_CERT_FILE", "SSL_CERT_DIR"])
def test_a_run_whose_roots_cannot_be_loaded_says_which_and_changes_no_catalog(
    https_service: tuple[str, Path], live_service: LiveService, tmp_path: Path, variable: str
) -> None:
    url, _ = https_service
    root = copy_sample_project(tmp_path, url)
    before = _catalogs(root)
    missing = tmp_path / "no-such-roots"
    done = _translate(root, live_service.auth_key, **{variable: str(missing)})
    assert done.returncode == 2, done.stderr
    assert f"pipeline: error: cannot load the TLS roots {variable} names ({missing}): " in done.stderr
    assert "Traceback" not in done.stderr and live_service.auth_key not in done.stdout + done.stderr
    assert _catalogs(root) == before
