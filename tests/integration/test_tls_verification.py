"""TLS is always verified: a client of an https service checks its certificate (against ``SSL_CERT_FILE`` when
set), and the rootless context a client of an http service gets refuses any TLS server rather than trusting it."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
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


@pytest.fixture
def tls_service(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An https server on 127.0.0.1 with a self-signed certificate: its base URL and the certificate's file."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
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
