"""The TLS context of an https service's client: the roots httpx would use, as strict, made once per process for
the same roots, started in a worker thread, and roots that cannot be loaded said by name. No socket is opened."""

from __future__ import annotations

import os
import shutil
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import certifi
import httpx
import pytest

import pipeline.connect
from pipeline.client import tls
from pipeline.client.sync import Client
from pipeline.config import ServiceSettings

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No roots and no proxies named by the environment, unless a test names them."""
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", *_PROXY_VARIABLES, *(v.upper() for v in _PROXY_VARIABLES)):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str | None]]:
    """The cafile of every context ``ssl.create_default_context`` makes during the test."""
    calls: list[str | None] = []
    real = ssl.create_default_context

    def counting(*args: object, cafile: str | None = None, **kwargs: object) -> ssl.SSLContext:
        calls.append(cafile)
        return real(*args, cafile=cafile, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl, "create_default_context", counting)
    yield calls


def _bundle(tmp_path: Path, name: str = "roots.pem") -> Path:
    """A bundle of roots of its own: certifi's, copied."""
    path = tmp_path / name
    shutil.copyfile(certifi.where(), path)
    return path


def _roots_of(context: ssl.SSLContext) -> list[str]:
    """The context's root certificates, in an order of their own."""
    return sorted(repr(sorted(cert.items())) for cert in context.get_ca_certs())


def test_the_roots_are_those_httpx_would_use_ssl_cert_file_then_ssl_cert_dir_then_certifi(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert tls.roots()[:3] == (certifi.where(), None, "certifi")
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    assert tls.roots()[:3] == (None, str(tmp_path), "SSL_CERT_DIR")
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "roots.pem"))
    assert tls.roots()[:3] == (str(tmp_path / "roots.pem"), None, "SSL_CERT_FILE")
    monkeypatch.setenv("SSL_CERT_FILE", "")  # empty: not named, as httpx reads it
    assert tls.roots()[:3] == (None, str(tmp_path), "SSL_CERT_DIR")


def test_the_context_verifies_as_strictly_as_httpxs_own_with_the_same_roots(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    context = tls.verifying()
    httpx_own = httpx.create_ssl_context()  # what a transport given verify=True makes
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname
    assert context.minimum_version == httpx_own.minimum_version
    assert context.options == httpx_own.options
    assert context.cert_store_stats() == httpx_own.cert_store_stats()
    # As sets: OpenSSL sorts a store's certificates at its first lookup, so a context that verified a server (the
    # process's one, in an earlier test) lists them in another order.
    assert _roots_of(context) == _roots_of(httpx_own)
    bundle = _bundle(tmp_path)
    bundle.write_text(bundle.read_text().split("-----END CERTIFICATE-----")[0] + "-----END CERTIFICATE-----\n")
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))  # one root only: the one both trust
    assert tls.verifying().get_ca_certs() == httpx.create_ssl_context().get_ca_certs()
    assert len(tls.verifying().get_ca_certs()) == 1


def test_the_context_is_made_once_per_process_for_the_same_roots(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, made: list[str | None]
) -> None:
    bundle = _bundle(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    first = tls.verifying()
    assert tls.verifying() is first and made == [str(bundle)]
    other = _bundle(tmp_path, "other.pem")
    monkeypatch.setenv("SSL_CERT_FILE", str(other))  # other roots: a context of their own
    assert tls.verifying() is not first and made == [str(bundle), str(other)]
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    assert tls.verifying() is first
    with bundle.open("a") as out:  # the bundle changed: loaded again
        out.write("\n")
    assert tls.verifying() is not first and made == [str(bundle), str(other), str(bundle)]


def test_a_client_behind_proxies_loads_its_roots_once_for_all_its_transports(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, made: list[str | None]
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(_bundle(tmp_path)))
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("ALL_PROXY", "http://proxy.example:3128")
    Client("https://mt.example.com", "key").close()
    Client("https://mt.example.com", "key").close()
    assert made == [str(tmp_path / "roots.pem")]


def test_a_context_started_in_a_worker_thread_is_the_one_the_client_gets(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, made: list[str | None]
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(_bundle(tmp_path)))
    threads: list[str] = []
    real = ssl.create_default_context

    def noting_the_thread(*args: object, **kwargs: object) -> ssl.SSLContext:
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl, "create_default_context", noting_the_thread)
    tls.start()
    tls.start()  # on its way: not started twice
    context = tls.verifying()
    assert threads == ["tls-context"]
    assert tls.verifying() is context


@pytest.mark.parametrize("threaded", [False, True])
def test_roots_that_cannot_be_loaded_are_a_value_error_naming_the_variable_and_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, threaded: bool
) -> None:
    missing = tmp_path / "nowhere.pem"
    monkeypatch.setenv("SSL_CERT_FILE", str(missing))
    if threaded:
        tls.start()
    said = "^cannot load the TLS roots {} names \\({}\\): {}"
    with pytest.raises(ValueError, match=said.format("SSL_CERT_FILE", missing, "No such file")):
        tls.verifying()
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    monkeypatch.setenv("SSL_CERT_FILE", str(garbage))
    with pytest.raises(ValueError, match=said.format("SSL_CERT_FILE", garbage, ".*NO_CERTIFICATE")):
        tls.verifying()
    monkeypatch.delenv("SSL_CERT_FILE")
    monkeypatch.setenv("SSL_CERT_DIR", str(missing))
    with pytest.raises(ValueError, match=said.format("SSL_CERT_DIR", missing, "not a folder")):
        tls.verifying()


@pytest.mark.parametrize("threaded", [False, True])
def test_a_fifo_named_as_the_roots_is_refused_without_waiting_for_a_writer(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, threaded: bool
) -> None:
    # OpenSSL opened it and waited for a writer that never comes: in the worker thread, while the run waited for
    # the context deaf to SIGINT and SIGTERM (it signals the main thread only), for ever.
    fifo = tmp_path / "roots.pem"
    os.mkfifo(fifo)
    monkeypatch.setenv("SSL_CERT_FILE", str(fifo))
    outcome: list[BaseException | ssl.SSLContext] = []

    def made() -> None:
        if threaded:
            tls.start()
        try:
            outcome.append(tls.verifying())
        except ValueError as exc:
            outcome.append(exc)

    waiting = threading.Thread(target=made, daemon=True)
    waiting.start()
    waiting.join(10)
    if waiting.is_alive():  # let the open that waits go on: a writer opens the FIFO and leaves at once
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        waiting.join(10)
    assert len(outcome) == 1 and isinstance(outcome[0], ValueError), outcome
    assert str(outcome[0]) == f"cannot load the TLS roots SSL_CERT_FILE names ({fifo}): not a regular file (a FIFO)"


def test_roots_that_failed_are_loaded_again_once_mended(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bundle = tmp_path / "roots.pem"
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    with pytest.raises(ValueError):
        tls.verifying()
    _bundle(tmp_path)
    assert tls.verifying().verify_mode is ssl.CERT_REQUIRED


def test_a_client_of_an_https_service_says_which_roots_cannot_be_loaded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "nowhere.pem"))
    with pytest.raises(ValueError, match="^cannot load the TLS roots SSL_CERT_FILE names"):
        Client("https://mt.example.com", "key")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")  # not said to be the proxy's fault
    with pytest.raises(ValueError, match="^cannot load the TLS roots SSL_CERT_FILE names"):
        Client("https://mt.example.com", "key")
    Client("http://127.0.0.1:8000", "key").close()  # plain http loads no roots


@pytest.mark.parametrize(
    ("url", "key", "started"),
    [
        ("https://mt.example.com", "a-key", 1),
        ("HTTPS://mt.example.com/v2", "a-key", 1),
        ("http://127.0.0.1:8000", "a-key", 0),  # plain http: no roots to load
        ("https://mt.example.com", "", 0),  # no key: the run stops before any request
        ("embedded", "a-key", 0),
    ],
)
def test_a_run_prepares_the_tls_roots_of_an_https_service_it_has_a_key_for(
    monkeypatch: pytest.MonkeyPatch, url: str, key: str, started: int
) -> None:
    starts: list[None] = []
    monkeypatch.setattr(tls, "start", lambda: starts.append(None))
    monkeypatch.setenv("PIPELINE_AUTH_KEY", key)
    pipeline.connect.prepare(ServiceSettings(url=url))
    assert len(starts) == started
