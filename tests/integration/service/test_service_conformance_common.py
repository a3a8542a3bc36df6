"""Conformance over HTTP: common rules, authentication, body handling, error shape."""

from __future__ import annotations

import gzip
import json
import socket
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.integration.conftest import LiveService
from tests.integration.service.conftest import Keys

pytestmark = pytest.mark.integration

TRANSLATE = "/v2/translate"
BASIC = {"text": ["Hello"], "target_lang": "DE"}


def test_unknown_path_is_404_json(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    assert "not found" in error(http.get("/v2/nothing-here", headers=keys.paid), 404)
    assert "not found" in error(http.post("/v9/translate", headers=keys.paid), 404)


def test_trailing_slash_is_an_unknown_path(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    assert "not found" in error(http.post("/v2/translate/", json=BASIC, headers=keys.paid), 404)


def test_wrong_method_is_405_with_allow(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    response = http.get(TRANSLATE, headers=keys.paid)
    assert "method GET not allowed" in error(response, 405)
    assert response.headers["allow"] == "POST"
    assert "not allowed" in error(http.delete("/v3/languages", headers=keys.paid), 405)


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("OPTIONS", "/v3/glossaries", "GET, HEAD, POST"),
        ("PUT", "/v3/glossaries/00000000-0000-0000-0000-000000000000", "DELETE, GET, HEAD, PATCH"),
        ("GET", "/v3/glossaries/00000000-0000-0000-0000-000000000000/dictionaries", "DELETE, PUT"),
        ("DELETE", "/v3/style_rules", "GET, HEAD, POST"),
        ("POST", "/v3/style_rules/x/custom_instructions/y", "DELETE, GET, HEAD, PUT"),
        ("PUT", "/v3/translation_memories/x", "DELETE, GET, HEAD"),
    ],
)
def test_a_405_lists_every_method_of_the_path_in_allow(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], method: str, path: str, allowed: str
) -> None:
    # Found by driving the service with the real service's OpenAPI description (schemathesis): Allow
    # named the methods of one handler of the path only (OPTIONS or DELETE /v3/glossaries answered
    # "Allow: POST", though GET is served).
    response = http.request(method, path, headers=keys.paid)
    assert "not allowed" in error(response, 405)
    assert sorted(m.strip() for m in response.headers["allow"].split(",")) == allowed.split(", ")


def test_every_answer_carries_a_trace_id(http: httpx.Client, keys: Keys) -> None:
    # The real service's OpenAPI description: X-Trace-ID, "a unique identifier for the request that
    # can be included in bug reports"; the official clients log it with every request.
    answers = [
        http.post(TRANSLATE, json=BASIC, headers=keys.paid),
        http.post(TRANSLATE, json=BASIC, headers=keys.paid),
        http.post(TRANSLATE, json={"text": []}, headers=keys.paid),
        http.get("/v3/languages?resource=translate_text"),
        http.get("/v2/nothing-here", headers=keys.paid),
    ]
    traces = [a.headers.get("x-trace-id", "") for a in answers]
    assert all(len(t) == 32 and all(c in "0123456789abcdef" for c in t) for t in traces), traces
    assert len(set(traces)) == len(traces)


def test_missing_authorization_is_403(http: httpx.Client, error: Callable[[httpx.Response, int], str]) -> None:
    assert "missing Authorization header" in error(http.post(TRANSLATE, json=BASIC), 403)
    assert "missing Authorization header" in error(http.get("/v3/languages?resource=glossary"), 403)


@pytest.mark.parametrize("value", ["Bearer abc", "Service-Auth-Key", "DeepL-Auth-Key abc", "abc"])
def test_malformed_authorization_is_403(
    http: httpx.Client, value: str, error: Callable[[httpx.Response, int], str]
) -> None:
    message = error(http.post(TRANSLATE, json=BASIC, headers={"Authorization": value}), 403)
    assert message == "malformed Authorization header; expected 'Service-Auth-Key <key>'"


def test_unknown_key_is_403_and_not_echoed(http: httpx.Client, error: Callable[[httpx.Response, int], str]) -> None:
    response = http.post(TRANSLATE, json=BASIC, headers={"Authorization": "Service-Auth-Key secret-guess-123"})
    assert error(response, 403) == "unknown authentication key"
    assert "secret-guess-123" not in response.text


@pytest.mark.parametrize("tier", ["paid", "free"])
def test_legacy_query_auth_is_refused_on_both_tiers(
    http: httpx.Client, live_service: LiveService, tier: str, error: Callable[[httpx.Response, int], str]
) -> None:
    key = live_service.auth_key if tier == "paid" else live_service.free_auth_key
    response = http.post(TRANSLATE, params={"auth_key": key}, json=BASIC)
    assert "legacy authentication" in error(response, 403)
    assert key not in response.text
    # Even with a valid header, the legacy parameter is refused.
    headers = {"Authorization": f"Service-Auth-Key {key}"}
    assert "legacy authentication" in error(http.get("/v2/usage", params={"auth_key": key}, headers=headers), 403)


@pytest.mark.parametrize("tier", ["paid", "free"])
def test_legacy_body_auth_is_refused_on_both_tiers(
    http: httpx.Client,
    live_service: LiveService,
    post_form: Callable[..., httpx.Response],
    tier: str,
    error: Callable[[httpx.Response, int], str],
) -> None:
    key = live_service.auth_key if tier == "paid" else live_service.free_auth_key
    headers = {"Authorization": f"Service-Auth-Key {key}"}
    in_form = post_form(TRANSLATE, [("auth_key", key), ("text", "Hello"), ("target_lang", "DE")], headers)
    assert "legacy authentication" in error(in_form, 403)
    body = http.post(TRANSLATE, json={**BASIC, "auth_key": key}, headers=headers)
    assert "legacy authentication" in error(body, 403)
    # Without any header the refusal still names the header to use.
    bare = post_form(TRANSLATE, [("auth_key", key), ("text", "Hello"), ("target_lang", "DE")], {})
    assert "Service-Auth-Key" in error(bare, 403)


def test_admin_key_cannot_translate(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    assert "admin keys are valid for the admin endpoints only" in error(
        http.post(TRANSLATE, json=BASIC, headers=keys.admin), 403
    )


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v2/write/rephrase"),
        ("POST", "/v2/write/correct"),
        ("GET", "/v3/style_rules"),
        ("POST", "/v3/style_rules"),
        ("DELETE", "/v3/style_rules/0b0c1c52-5bd5-4b1e-9c4c-111111111111"),
    ],
)
def test_free_tier_is_refused_write_and_style_rules(
    http: httpx.Client, keys: Keys, method: str, path: str, error: Callable[[httpx.Response, int], str]
) -> None:
    response = http.request(method, path, json={"text": ["Hi"]}, headers=keys.free)
    assert error(response, 403) == "this endpoint is available to paid-tier accounts only"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v2/admin/developer-keys"),
        ("POST", "/v2/admin/developer-keys"),
        ("PUT", "/v2/admin/developer-keys/deactivate"),
        ("PUT", "/v2/admin/developer-keys/label"),
        ("PUT", "/v2/admin/developer-keys/limits"),
        ("GET", "/v2/admin/analytics/custom-tags?start_date=2026-01-01&end_date=2026-01-02"),
    ],
)
def test_free_tier_and_developer_keys_are_refused_admin(
    http: httpx.Client, keys: Keys, method: str, path: str, error: Callable[[httpx.Response, int], str]
) -> None:
    free = http.request(method, path, json={}, headers=keys.free)
    assert error(free, 403) == "the admin interface is available to paid-tier accounts only"
    developer = http.request(method, path, json={}, headers=keys.paid)
    assert "needs an admin key" in error(developer, 403)


def test_malformed_json_is_400(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    headers = {**keys.paid, "Content-Type": "application/json"}
    assert "not valid JSON" in error(http.post(TRANSLATE, content=b'{"text": ["a"', headers=headers), 400)
    assert "not valid UTF-8" in error(http.post(TRANSLATE, content=b'{"text": ["\xff"]}', headers=headers), 400)
    assert "must be a JSON object" in error(http.post(TRANSLATE, content=b'["a"]', headers=headers), 400)
    deep = b"[" * 60_000 + b"]" * 60_000
    assert "not valid JSON" in error(http.post(TRANSLATE, content=deep, headers=headers), 400)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"text": "Hello", "target_lang": "DE"}, "parameter 'text' must be an array of strings"),
        ({"text": ["Hello", 3], "target_lang": "DE"}, "parameter 'text' must be an array of strings"),
        ({"text": ["Hello"], "target_lang": 7}, "parameter 'target_lang' must be a string"),
        (
            {"text": ["Hello"], "target_lang": "DE", "show_billed_characters": "yes"},
            "parameter 'show_billed_characters' must be a boolean (true or false)",
        ),
        (
            {"text": ["Hello"], "target_lang": "DE", "translation_memory_threshold": "80"},
            "parameter 'translation_memory_threshold' must be an integer",
        ),
        (
            {"text": ["Hello"], "target_lang": "DE", "ignore_tags": [1]},
            "parameter 'ignore_tags' must be a comma-separated string or an array of strings",
        ),
        (
            {"text": ["Hello"], "target_lang": "DE", "custom_instructions": "be short"},
            "parameter 'custom_instructions' must be an array of strings",
        ),
    ],
)
def test_wrong_json_types_are_400(
    http: httpx.Client,
    keys: Keys,
    body: dict[str, object],
    message: str,
    error: Callable[[httpx.Response, int], str],
) -> None:
    assert error(http.post(TRANSLATE, json=body, headers=keys.paid), 400) == message


def test_form_body_rules(
    http: httpx.Client,
    keys: Keys,
    post_form: Callable[..., httpx.Response],
    error: Callable[[httpx.Response, int], str],
) -> None:
    pairs = [
        ("text", "Hello"),
        ("text", "World"),
        ("target_lang", "DE"),
        ("show_billed_characters", "1"),
        ("tag_handling", "xml"),
        ("ignore_tags", "x,y"),
        ("preserve_formatting", "0"),
    ]
    response = post_form(TRANSLATE, pairs, keys.paid)
    assert response.status_code == 200, response.text
    assert len(response.json()["translations"]) == 2
    assert response.json()["billed_characters"] == 10
    bad_bool = post_form(
        TRANSLATE, [("text", "Hi"), ("target_lang", "DE"), ("show_billed_characters", "true")], keys.paid
    )
    assert error(bad_bool, 400) == "parameter 'show_billed_characters' must be 1 or 0"
    twice = post_form(TRANSLATE, [("text", "Hi"), ("target_lang", "DE"), ("target_lang", "FR")], keys.paid)
    assert error(twice, 400) == "parameter 'target_lang' may be given only once"


def test_json_without_content_type(http: httpx.Client, keys: Keys) -> None:
    response = http.post(TRANSLATE, content=b'{"text": ["Hello"], "target_lang": "DE"}', headers=keys.paid)
    assert response.status_code == 200, response.text
    assert len(response.json()["translations"]) == 1


def test_unsupported_content_type_is_415(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    response = http.post(TRANSLATE, content=b"text=Hello", headers={**keys.paid, "Content-Type": "text/plain"})
    assert "unsupported content type 'text/plain'" in error(response, 415)


def _body_of_size(size: int) -> bytes:
    head = json.dumps({"target_lang": "DE", "text": [""]}, separators=(",", ":")).encode()
    body = json.dumps({"target_lang": "DE", "text": ["a" * (size - len(head))]}, separators=(",", ":")).encode()
    assert len(body) == size
    return body


def test_body_limit_is_128_kib(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    headers = {**keys.paid, "Content-Type": "application/json"}
    at_limit = http.post(TRANSLATE, content=_body_of_size(128 * 1024), headers=headers)
    assert at_limit.status_code == 200, at_limit.text
    over = http.post(TRANSLATE, content=_body_of_size(128 * 1024 + 1), headers=headers)
    assert "request body too large" in error(over, 413)
    huge = http.post(TRANSLATE, content=_body_of_size(3 * 1024 * 1024), headers=headers)
    assert "at most 131072 bytes" in error(huge, 413)


def test_chunked_oversized_body_is_413(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"target_lang":"DE","text":["'
        for _ in range(200):
            yield b"a" * 1024
        yield b'"]}'

    headers = {**keys.paid, "Content-Type": "application/json"}
    assert "request body too large" in error(http.post(TRANSLATE, content=chunks(), headers=headers), 413)


@pytest.mark.parametrize(
    ("method", "path", "who"),
    [
        ("POST", "/v3/glossaries", "paid"),
        ("POST", "/v2/glossaries", "paid"),
        ("POST", "/v3/style_rules", "paid"),
        ("POST", "/v2/admin/developer-keys", "admin"),
        ("POST", "/v2/translate", "paid"),
    ],
)
def test_a_declared_non_json_type_is_415_even_without_a_body(
    http: httpx.Client, keys: Keys, method: str, path: str, who: str, error: Callable[[httpx.Response, int], str]
) -> None:
    # One rule everywhere: the declared media type decides (415), not whether a body follows.
    headers = {**getattr(keys, who), "Content-Type": "text/plain"}
    error(http.request(method, path, content=b"", headers=headers), 415)


#: Whole numbers Python's int() reads, and no wire format writes: Arabic-Indic digits, a sign,
#: spaces around, a digit separator.
LENIENT_INTEGERS = ("\u0665\u0660", "+50", " 50 ", "5_0")


def test_integers_in_forms_and_queries_are_ascii_digits_only(
    http: httpx.Client,
    keys: Keys,
    post_form: Callable[..., httpx.Response],
    error: Callable[[httpx.Response, int], str],
) -> None:
    """Each of these was read as the number 50 and the request went on."""
    base = [("text", "Hello"), ("source_lang", "EN"), ("target_lang", "DE")]
    for value in LENIENT_INTEGERS:
        refused = post_form("/v2/translate", [*base, ("translation_memory_threshold", value)], keys.paid)
        assert "translation_memory_threshold" in error(refused, 400)
        listed = http.get("/v3/style_rules", params={"page": value}, headers=keys.paid)
        assert "page" in error(listed, 400)
        upload = http.post(
            "/v2/document",
            files={"file": ("a.txt", b"Hello\n")},
            data={"target_lang": "DE", "translation_memory_threshold": value},
            headers=keys.paid,
        )
        assert "translation_memory_threshold" in error(upload, 400)
    assert post_form("/v2/translate", [*base, ("translation_memory_threshold", "50")], keys.paid).status_code == 200


def _first_answer_to_a_head(live_service: LiveService, head: bytes) -> bytes:
    """Send a request head alone (no body) and return the head of the first answer."""
    port = int(live_service.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer


def test_an_over_size_body_announced_with_expect_100_continue_is_413_at_once(
    live_service: LiveService,
) -> None:
    # A client that asks first must hear the refusal, not "go on" and then a 413 for a body it sent for nothing.
    head = (
        f"POST {TRANSLATE} HTTP/1.1\r\nHost: localhost\r\n"
        f"Authorization: Service-Auth-Key {live_service.auth_key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {200 * 1024}\r\nExpect: 100-continue\r\n\r\n"
    ).encode()
    answer = _first_answer_to_a_head(live_service, head)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]


def test_a_compressed_body_is_415(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    body = gzip.compress(json.dumps(BASIC).encode())
    headers = {**keys.paid, "Content-Type": "application/json", "Content-Encoding": "gzip"}
    assert "unsupported content encoding 'gzip'" in error(http.post(TRANSLATE, content=body, headers=headers), 415)
    # "identity" is no encoding at all.
    identity = http.post(TRANSLATE, json=BASIC, headers={**keys.paid, "Content-Encoding": "identity"})
    assert identity.status_code == 200, identity.text
