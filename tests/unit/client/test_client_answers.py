"""Answer handling: error mapping, messages, Retry-After, key hygiene, malformed answers."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import httpx
import pytest
import respx

from pipeline.client.reception import error_from_answer, parse_retry_after
from pipeline.client.retry import NO_RETRY
from pipeline.client.sync import Client
from pipeline.errors import (
    AuthenticationError,
    BadRequestError,
    NotFoundError,
    PayloadTooLargeError,
    QuotaExceededError,
    RateLimitedError,
    ServerError,
    ServiceError,
    TransportError,
    redact,
)
from tests.unit.client.client_fakes import BASE_URL, KEY


@pytest.mark.parametrize(
    ("status", "cls", "should_retry"),
    [
        (400, BadRequestError, False),
        (403, AuthenticationError, False),
        (404, NotFoundError, False),
        (413, PayloadTooLargeError, False),
        (429, RateLimitedError, True),
        (456, QuotaExceededError, False),
        (500, ServerError, True),
        (503, ServerError, True),
    ],
)
def test_status_maps_to_the_error_tree(status: int, cls: type, should_retry: bool) -> None:
    error = error_from_answer(status, {}, b'{"message": "the reason"}', "Reason", ())
    assert type(error) is cls
    assert (error.status_code, error.message, error.should_retry) == (status, "the reason", should_retry)


def test_message_falls_back_to_body_text_then_reason() -> None:
    assert error_from_answer(502, {}, b"<html>Bad gateway</html>", "Bad Gateway", ()).message == "Bad gateway"
    assert error_from_answer(502, {}, b"", "Bad Gateway", ()).message == "Bad Gateway"
    assert error_from_answer(502, {}, b'{"detail": 1}', "Bad Gateway", ()).message == '{"detail": 1}'
    assert len(error_from_answer(500, {}, b"x" * 5000, "", ()).message) == 300


def test_message_is_redacted() -> None:
    error = error_from_answer(403, {}, f'{{"message": "key {KEY} refused"}}'.encode(), "", (KEY,))
    assert error.message == "key *** refused"
    assert KEY not in str(error)


def test_retry_after_seconds_and_http_date() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("Sun, 01 Mar 2026 12:00:09 GMT", now=now) == 9.0
    assert error_from_answer(429, {"Retry-After": "4"}, b"", "", ()).retry_after == 4.0


def test_key_never_in_repr_logs_or_errors(
    client: Client, router: respx.Router, caplog: pytest.LogCaptureFixture
) -> None:
    router.get("/v2/usage").mock(
        side_effect=[
            httpx.Response(503, json={"message": f"echo {KEY}"}),
            httpx.ConnectError(f"cannot connect with {KEY}"),
            httpx.Response(403, json={"message": f"bad key {KEY}"}),
        ]
    )
    caplog.set_level(logging.DEBUG)
    with pytest.raises(AuthenticationError) as caught:
        client.usage()
    assert "***" in caught.value.message
    texts = [repr(client), str(caught.value), repr(caught.value), caplog.text]
    assert caplog.text  # the retries were logged
    assert all(KEY not in text for text in texts)
    assert repr(client) == f"Client(base_url='{BASE_URL}', auth_key='***')"


def test_transport_error_message_is_redacted(router: respx.Router) -> None:
    route = router.get("/v2/usage").mock(side_effect=httpx.ConnectError(f"oops {KEY}"))
    transport = httpx.MockTransport(router.handler)
    with Client(BASE_URL, KEY, transport=transport, retry=NO_RETRY) as c, pytest.raises(TransportError) as caught:
        c.usage()
    assert route.call_count == 1
    assert str(caught.value) == "service unreachable: ConnectError: oops ***"


def test_empty_key_and_schemeless_url_are_refused() -> None:
    with pytest.raises(ValueError, match="auth_key is empty"):
        Client(BASE_URL, "  ")
    with pytest.raises(ValueError, match="must start with http:// or https://, not 'localhost:8000'"):
        Client("localhost:8000", KEY)


@pytest.mark.parametrize("key", ["sk-attack-9f2c\r", "sk-attack\nInjected: x", "sk-attack\x7f", "sk-attack-\u00fc"])
def test_a_key_no_http_header_can_hold_is_refused_without_showing_it(key: str) -> None:
    with pytest.raises(ValueError, match="cannot be sent in an HTTP header") as caught:
        Client(BASE_URL, key)
    assert "attack" not in str(caught.value)


def test_a_secret_is_starred_in_its_escaped_spellings_too() -> None:
    key = "sk-attack\nInjected: x"
    shown = redact(f"Illegal header value {key.encode()!r} ({key!r})", [key])
    assert "attack" not in shown, shown


def test_malformed_success_answer_is_a_service_error(client: Client, router: respx.Router) -> None:
    route = router.get("/v2/usage").respond(200, text="not json")
    with pytest.raises(ServiceError, match="unexpected answer to GET /v2/usage") as caught:
        client.usage()
    assert caught.value.status_code == 200 and not caught.value.should_retry
    assert route.call_count == 1
    router.post("/v2/translate").respond(200, json={"translations": [{"no_text": 1}]})
    with pytest.raises(ServiceError, match="KeyError"):
        client.translate(["a"], target_lang="DE")


def test_more_translations_than_texts_is_refused(client: Client, router: respx.Router) -> None:
    # No way to tell which answer belongs to which text: the whole answer is refused, not written.
    router.post("/v2/translate").respond(200, json={"translations": [{"text": "A"}, {"text": "B"}]})
    with pytest.raises(ServiceError, match="2 translations for 1 texts"):
        client.translate(["a"], target_lang="DE")


def test_languages_features_both_shapes(client: Client, router: respx.Router) -> None:
    router.get("/v3/languages").respond(
        json=[
            {
                "lang": "de",
                "name": "German",
                "usable_as_source": True,
                "usable_as_target": True,
                "status": "stable",
                "features": {"formality": {"status": "stable"}, "tag_handling": {"status": "beta"}},
            },
            {
                "lang": "fr",
                "name": "French",
                "usable_as_source": True,
                "usable_as_target": True,
                "status": "stable",
                "features": ["glossary"],
            },
        ]
    )
    german, french = client.languages()
    assert dict(german.features) == {"formality": "stable", "tag_handling": "beta"}
    assert german.supports("formality") and not german.supports("glossary")
    assert dict(french.features) == {"glossary": "stable"}
    with pytest.raises(TypeError):
        german.features["x"] = "y"  # type: ignore[index]  # read-only on purpose: the assignment must fail


def test_http_client_uses_pooled_keep_alive(client: Client, router: respx.Router) -> None:
    route = router.get("/v2/usage").respond(json={"character_count": 0})
    client.usage()
    assert route.calls.last.request.headers["Connection"] == "keep-alive"
    with Client(BASE_URL, KEY) as default:
        transport = default._http._transport
        assert isinstance(transport, httpx.HTTPTransport)
        pool = transport._pool  # the default transport is a pooled httpcore pool
        assert pool._max_keepalive_connections == 10 and pool._keepalive_expiry == 30.0


def test_a_page_that_is_not_the_services_answer_is_quoted_as_its_words_on_one_line() -> None:
    page = (
        b'<?xml version="1.0"?>\n<html>\n<head><title>401 Unauthorized</title></head>\n'
        b"<body>\n<h1>Unauthorized</h1>\n<p>The administrator of this proxy\n  has not allowed you.</p>\n</body></html>"
    )
    error = error_from_answer(401, {}, page, "Unauthorized", [KEY])
    assert str(error) == (
        "service answered 401: 401 Unauthorized Unauthorized The administrator of this proxy has not allowed you."
    )


def test_a_key_at_the_cut_of_a_long_quoted_body_leaves_no_piece_of_itself() -> None:
    body = ("x" * 290 + KEY + "y" * 50).encode()
    message = str(error_from_answer(502, {}, body, "Bad Gateway", [KEY]))
    assert message == "service answered 502: " + "x" * 290 + "***" + "y" * 7
    assert KEY[:6] not in message


def test_a_quoted_page_drops_its_scripts_styles_and_comments_and_reads_its_entities() -> None:
    page = (
        b"\xef\xbb\xbf <html><head><style>body { color: red }</style><script>var a = 1 > 0;</script>"
        b"<!-- built by a > b --></head><body><h1>502 Bad Gateway</h1><p>1 &lt; 2 &amp; a < b</p></body></html>"
    )
    assert error_from_answer(502, {}, page, "Bad Gateway", [KEY]).message == "502 Bad Gateway 1 < 2 & a < b"


def test_a_quoted_page_carries_no_terminal_escape() -> None:
    page = b"<p>proxy \x1b[2J\x1b]0;title\x07 down</p>"
    assert error_from_answer(502, {}, page, "Bad Gateway", [KEY]).message == "proxy [2J ]0;title down"


def test_a_key_a_page_writes_as_entities_or_splits_with_tags_is_not_quoted() -> None:
    escaped = "".join(f"&#x{ord(c):x};" for c in KEY).encode()
    split = f"<p>key {KEY[:8]}<b>{KEY[8:]}</b></p>".encode()
    assert error_from_answer(502, {}, b"<p>key " + escaped + b"</p>", "Bad Gateway", [KEY]).message == "key ***"
    assert error_from_answer(502, {}, split, "Bad Gateway", [KEY]).message == "Bad Gateway"


def test_an_unclosed_script_hides_the_rest_of_the_page() -> None:
    body = (b"<html><script>" + b"<script <!-- <a " * 4000)[:65536]
    assert error_from_answer(502, {}, body, "Bad Gateway", [KEY]).message == "Bad Gateway"
