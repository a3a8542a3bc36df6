"""Which services a network client sends through the environment's proxy, and what it says of a proxy
setting it cannot use. Building a client opens no socket."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from pipeline.client.base import behind_proxy, on_this_machine
from pipeline.client.retry import RetryPolicy
from pipeline.client.sync import Client
from pipeline.errors import ExitCode, ProxyRefusedError, TransportError
from tests.unit.client.client_fakes import FakeTime

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def no_proxy_named(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "127.0.0.1",
        "127.0.0.2",
        "127.255.0.9",
        "::1",
        "0:0:0:0:0:0:0:1",
        "::ffff:127.0.0.1",
        "0.0.0.0",
        "::",
    ],
)
def test_localhost_loopback_and_unspecified_addresses_are_this_machine(host: str) -> None:
    assert on_this_machine(host)


@pytest.mark.parametrize(
    "host", ["mt.example.com", "localhost.example.com", "10.0.0.1", "128.0.0.1", "::2", "::ffff:10.0.0.1", "127.1"]
)
def test_other_hosts_are_not_this_machine(host: str) -> None:
    assert not on_this_machine(host)


def test_a_remote_service_is_behind_the_proxy_and_one_on_this_machine_never_is(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not behind_proxy("https://mt.example.com")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    assert behind_proxy("https://mt.example.com")
    assert not behind_proxy("http://127.0.0.2:8000")
    assert not behind_proxy("http://[::ffff:127.0.0.1]:8000")
    assert not behind_proxy("http://0.0.0.0:8000")


@pytest.mark.parametrize("no_proxy", ["[::1]", "fe80::/10", "localhost,fd00::/8"])
def test_no_proxy_is_not_read_when_no_proxy_is_named(monkeypatch: pytest.MonkeyPatch, no_proxy: str) -> None:
    monkeypatch.setenv("NO_PROXY", no_proxy)
    Client("https://mt.example.com", "key").close()


def test_a_no_proxy_entry_httpx_cannot_parse_is_a_value_error_naming_no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "fe80::/10")
    with pytest.raises(ValueError, match=r"the proxy the environment names \(.*NO_PROXY\) cannot be used"):
        Client("https://mt.example.com", "key")


# --- a proxy's refusal ---------------------------------------------------------------------------


def _client_through(handler: Callable[[httpx.Request], httpx.Response], fake_time: FakeTime) -> Client:
    return Client(
        "https://mt.example.com",
        "key-1234",
        transport=httpx.MockTransport(handler),
        retry=RetryPolicy(),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
    )


def test_a_proxy_asking_for_credentials_is_answered_once_and_named_as_the_proxy(fake_time: FakeTime) -> None:
    calls = []

    def proxy_page(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(407, text="Proxy Authentication Required")

    with _client_through(proxy_page, fake_time) as client, pytest.raises(ProxyRefusedError) as refused:
        client.usage()
    assert len(calls) == 1 and refused.value.attempts == 1
    assert refused.value.exit_code == ExitCode.UNAVAILABLE
    assert str(refused.value) == (
        "the proxy answered 407: Proxy Authentication Required; "
        "check the user and password of the proxy in HTTPS_PROXY, HTTP_PROXY or ALL_PROXY"
    )


def test_a_tunnel_the_proxy_refuses_for_credentials_is_not_retried_but_one_it_cannot_open_is(
    fake_time: FakeTime,
) -> None:
    calls = []

    def tunnel(refusal: str) -> Callable[[httpx.Request], httpx.Response]:
        def handler(request: httpx.Request) -> httpx.Response:
            calls.append(request)
            raise httpx.ProxyError(refusal, request=request)

        return handler

    with _client_through(tunnel("407 Proxy Authentication Required"), fake_time) as client:
        with pytest.raises(ProxyRefusedError, match="^the proxy answered 407: Proxy Authentication Required; "):
            client.usage()
    assert len(calls) == 1
    calls.clear()
    with _client_through(tunnel("502 Bad Gateway"), fake_time) as client:
        with pytest.raises(TransportError, match="^service unreachable: ProxyError: 502 Bad Gateway$"):
            client.usage()
    assert len(calls) == RetryPolicy().max_attempts
