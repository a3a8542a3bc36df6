"""Which services a network client sends through the environment's proxy, and what it says of a proxy
setting it cannot use. Building a client opens no socket."""

from __future__ import annotations

import pytest

from pipeline.client import Client
from pipeline.client.base import behind_proxy, on_this_machine

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def no_proxy_named(monkeypatch) -> None:
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


def test_a_remote_service_is_behind_the_proxy_and_one_on_this_machine_never_is(monkeypatch) -> None:
    assert not behind_proxy("https://mt.example.com")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    assert behind_proxy("https://mt.example.com")
    assert not behind_proxy("http://127.0.0.2:8000")
    assert not behind_proxy("http://[::ffff:127.0.0.1]:8000")
    assert not behind_proxy("http://0.0.0.0:8000")


@pytest.mark.parametrize("no_proxy", ["[::1]", "fe80::/10", "localhost,fd00::/8"])
def test_no_proxy_is_not_read_when_no_proxy_is_named(monkeypatch, no_proxy: str) -> None:
    monkeypatch.setenv("NO_PROXY", no_proxy)
    Client("https://mt.example.com", "key").close()


def test_a_no_proxy_entry_httpx_cannot_parse_is_a_value_error_naming_no_proxy(monkeypatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "fe80::/10")
    with pytest.raises(ValueError, match=r"the proxy the environment names \(.*NO_PROXY\) cannot be used"):
        Client("https://mt.example.com", "key")
