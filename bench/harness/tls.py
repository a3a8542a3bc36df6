"""A throwaway certificate authority for benches that reach the service over TLS, as users reach the real one.

:func:`authority` writes, with the ``openssl`` command, a self-signed CA (``ca.pem``) and a server
certificate it signed for ``127.0.0.1`` and ``localhost`` (``server.pem``, ``server.key``). A command
trusts it through ``SSL_CERT_FILE`` (:func:`trusting`), the variable users behind a corporate CA set:
the command then verifies the service's certificate exactly as it verifies the real service's, and
pays what it pays there (loading a bundle of roots, the handshake), which a row over plain http never
shows. The bundle is the CA followed by certifi's roots, so that it costs what certifi's costs to load.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import certifi

from bench.harness.process import require

_SERVER_EXTENSIONS = (
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
)


def _openssl(*args: str | Path, cwd: Path) -> None:
    subprocess.run(["openssl", *map(str, args)], cwd=cwd, check=True, capture_output=True)


def authority(folder: Path) -> Path:
    """``folder`` holding a new CA, a server certificate it signed for loopback, and ``bundle.pem``; returned."""
    require("openssl")
    folder.mkdir(parents=True, exist_ok=True)
    _openssl(
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=pipeline bench CA",
        "-keyout", "ca.key", "-out", "ca.pem",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=folder,
    )  # fmt: skip
    _openssl(
        "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr",
        cwd=folder,
    )  # fmt: skip
    (folder / "server.ext").write_text(_SERVER_EXTENSIONS)
    _openssl(
        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
        "-extfile", "server.ext", "-out", "server.pem",
        cwd=folder,
    )  # fmt: skip
    roots = Path(certifi.where()).read_text(encoding="ascii")
    (folder / "bundle.pem").write_text((folder / "ca.pem").read_text(encoding="ascii") + roots, encoding="ascii")
    return folder


def trusting(folder: Path) -> dict[str, str]:
    """The environment a command needs to trust ``folder``'s CA (and certifi's roots) and nothing else."""
    return {"SSL_CERT_FILE": str(folder / "bundle.pem")}
