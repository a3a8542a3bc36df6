"""Conformance over HTTP: scripted test faults (``X-Test-Fault``), as the reliability tests use them."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import httpx
import pytest

from pipeline.service.engine.pseudo import mark_of, transliterate
from tests.integration.conftest import LiveService
from tests.integration.service.conftest import Keys

pytestmark = pytest.mark.integration

BODY = {"text": ["Hello world"], "source_lang": "EN", "target_lang": "DE"}


def fault(spec: str) -> dict[str, str]:
    """A fault header with a fresh id, so tests never share counters."""
    return {"X-Test-Fault": f"{spec};id={secrets.token_hex(6)}"}


def test_429_with_retry_after_for_n_requests(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    headers = {**keys.paid, **fault("status=429;times=2;retry_after=1")}
    for _ in range(2):
        response = http.post("/v2/translate", json=BODY, headers=headers)
        assert error(response, 429) == "test fault: scripted status 429"
        assert response.headers["retry-after"] == "1"
    assert http.post("/v2/translate", json=BODY, headers=headers).status_code == 200


def test_5xx_n_times(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    headers = {**keys.paid, **fault("status=503;times=1")}
    response = http.post("/v2/translate", json=BODY, headers=headers)
    assert error(response, 503) == "test fault: scripted status 503"
    assert "retry-after" not in response.headers
    assert http.post("/v2/translate", json=BODY, headers=headers).status_code == 200
    other = {**keys.paid, **fault("status=500")}
    assert [http.get("/v2/usage", headers=other).status_code for _ in range(3)] == [500, 500, 500]


def test_dropped_connection(http: httpx.Client, keys: Keys) -> None:
    headers = {**keys.paid, **fault("drop;times=1")}
    with pytest.raises(httpx.RemoteProtocolError):
        http.post("/v2/translate", json=BODY, headers=headers)
    assert http.post("/v2/translate", json=BODY, headers=headers).status_code == 200


def test_quota_after_n_characters(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    headers = {**keys.paid, **fault("quota_after=25")}
    assert http.post("/v2/translate", json={**BODY, "text": ["0123456789"]}, headers=headers).status_code == 200
    assert http.post("/v2/translate", json={**BODY, "text": ["0123456789"]}, headers=headers).status_code == 200
    response = http.post("/v2/translate", json={**BODY, "text": ["0123456789"]}, headers=headers)
    assert error(response, 456) == (
        "quota exceeded: the character limit of this key for the current period is reached (test fault quota_after)"
    )
    assert http.post("/v2/translate", json={**BODY, "text": ["01234"]}, headers=headers).status_code == 200


def de(text: str) -> str:
    return transliterate(text, "DE")


def mangled(http: httpx.Client, keys: Keys, mode: str, text: str, ignore: str = "x") -> str:
    body = {"text": [text], "source_lang": "EN", "target_lang": "DE", "tag_handling": "xml", "ignore_tags": [ignore]}
    response = http.post("/v2/translate", json=body, headers={**keys.paid, **fault(f"mangle={mode}")})
    assert response.status_code == 200, response.text
    result: str = response.json()["translations"][0]["text"]
    return result


def test_mangle_move(http: httpx.Client, keys: Keys) -> None:
    out = mangled(http, keys, "move", 'First one. Then press <x id="1"/> now.')
    assert out == f'{de("First one.")} <x id="1"/>{de("Then press now.")}'


def test_mangle_drop(http: httpx.Client, keys: Keys) -> None:
    out = mangled(http, keys, "drop", 'Press <x id="1"/> and <x id="2"/> now.')
    assert out == f'{de("Press")}  {de("and")} <x id="2"/> {de("now.")}'


def test_mangle_duplicate(http: httpx.Client, keys: Keys) -> None:
    out = mangled(http, keys, "duplicate", 'Press <x id="1"/> now.')
    assert out == f'{de("Press")} <x id="1"/><x id="1"/> {de("now.")}'


def test_mangle_attribute(http: httpx.Client, keys: Keys) -> None:
    out = mangled(http, keys, "attribute", 'Press <x id="1"/> now.')
    assert out == f'{de("Press")} <x id="1{mark_of("DE")}"/> {de("now.")}'
    out = mangled(http, keys, "attribute", '<a title="Open file">Go</a>', ignore="none")
    assert out == f'<a title="O{mark_of("DE")}pen file">{de("Go")}</a>'


def test_mangle_times(http: httpx.Client, keys: Keys) -> None:
    headers = {**keys.paid, **fault("mangle=drop;times=1")}
    body = {**BODY, "text": ['Hi <x id="1"/>'], "tag_handling": "xml", "ignore_tags": ["x"]}
    first = http.post("/v2/translate", json=body, headers=headers).json()["translations"][0]["text"]
    second = http.post("/v2/translate", json=body, headers=headers).json()["translations"][0]["text"]
    assert '<x id="1"/>' not in first and '<x id="1"/>' in second


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("status=abc", "bad X-Test-Fault header: status must be an integer"),
        ("status=200", "bad X-Test-Fault header: status must be between 400 and 599"),
        (
            "mangle=shuffle",
            "bad X-Test-Fault header: mangle must be one of move, drop, duplicate, swap, attribute, glue, any, "
            "inject, inject-beside",
        ),
        ("delay=99", "bad X-Test-Fault header: delay must be between 0 and 30 seconds"),
        ("explode=1", "bad X-Test-Fault header: unknown item 'explode'"),
        ("times", "bad X-Test-Fault header: item 'times' must be 'key=value' or 'drop'"),
    ],
)
def test_bad_fault_header(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], header: str, message: str
) -> None:
    assert error(http.post("/v2/translate", json=BODY, headers={**keys.paid, "X-Test-Fault": header}), 400) == message


def test_faults_are_off_unless_enabled(launch_service: Callable[..., LiveService]) -> None:
    service = launch_service(test_faults=False)
    headers = {"Authorization": f"Service-Auth-Key {service.auth_key}", "X-Test-Fault": "status=503"}
    response = httpx.post(f"{service.url}/v2/translate", json=BODY, headers=headers)
    assert response.status_code == 200
