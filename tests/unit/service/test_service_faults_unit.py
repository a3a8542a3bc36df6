"""The X-Test-Fault grammar, its counters, and the mangle modes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from pipeline.protocol import TEST_FAULT_HEADER
from pipeline.service.engine.base import MarkupOptions
from pipeline.service.engine.pseudo import transliterate
from pipeline.service.testing import mangle
from pipeline.service.testing.faults import FaultBook, FaultMiddleware, FaultSpec, FaultSyntaxError, parse
from tests.unit.service.conftest import Headers, InProcess
from tests.virtual_time import VirtualTime

XML = MarkupOptions("xml", frozenset({"x"}))


def test_parse_full_grammar() -> None:
    assert parse("status=429; times=2; retry_after=1; id=abc") == FaultSpec(
        id="abc", times=2, status=429, retry_after=1
    )
    assert parse("drop;times=1") == FaultSpec(id="drop;times=1", times=1, drop=True)
    assert parse("delay=0.25") == FaultSpec(id="delay=0.25", delay=0.25)
    assert parse("quota_after=100;id=q").quota_after == 100
    assert parse("mangle=attribute").mangle == "attribute"


@pytest.mark.parametrize(
    "header",
    [
        "status=99",
        "status=600",
        "times=-1",
        "delay=-1",
        "delay=x",
        "mangle=",
        "nope",
        "drop=1;x=2",
        "retry_after=a",
        "every=0",
        "every=x",
    ],
)
def test_parse_rejects(header: str) -> None:
    with pytest.raises(FaultSyntaxError):
        parse(header)


def test_a_delay_waits_its_seconds_before_the_request_is_handled_or_failed() -> None:
    time_ = VirtualTime()
    handled_at: list[float] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        handled_at.append(time_.clock())
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    middleware = FaultMiddleware(app, FaultBook(), sleep=time_.sleep)

    async def scenario() -> list[tuple[int, float]]:
        answers = []
        async with httpx.AsyncClient(transport=httpx.ASGITransport(middleware), base_url="http://fault.test") as c:
            for fault in (None, "delay=0.3;id=a", "delay=2;status=503;id=b", "delay=0.3;times=1;id=a"):
                headers = {TEST_FAULT_HEADER: fault} if fault else {}
                answers.append(((await c.get("/", headers=headers)).status_code, time_.clock()))
        return answers

    assert asyncio.run(scenario()) == [(200, 0.0), (200, 0.3), (503, 2.3), (200, 2.3)]
    assert handled_at == [0.0, 0.3, 2.3]  # after the delay; the failed one never reached the app


def test_times_counts_per_id() -> None:
    book = FaultBook()
    spec = parse("status=503;times=2;id=a")
    other = parse("status=503;times=2;id=b")
    assert [book.hit(spec), book.hit(spec), book.hit(other), book.hit(spec)] == [True, True, True, False]
    assert all(book.hit(parse("status=500;id=c")) for _ in range(5))


def test_quota_after_is_per_id_and_all_or_nothing() -> None:
    book = FaultBook()
    spec = parse("quota_after=10;id=q")
    assert book.consume(spec, 6) and not book.consume(spec, 5) and book.consume(spec, 4)
    assert not book.consume(spec, 1)
    assert book.consume(parse("quota_after=10;id=r"), 10)


def test_mangle_move_to_sentence_start() -> None:
    assert mangle.move('One. Two <x id="1"/> three.', XML) == 'One. <x id="1"/>Two three.'
    assert mangle.move('Line one\nLine <x id="1"/>', XML) == 'Line one\n<x id="1"/>Line'
    assert mangle.move('<x id="1"/>Start <x id="2"/> end', XML) == '<x id="2"/><x id="1"/>Start end'
    assert mangle.move("No tags.", XML) == "No tags."
    assert mangle.move("Keep <x>in side</x> it", XML) == "<x>in side</x>Keep it"


def test_mangle_drop_duplicate_attribute() -> None:
    assert mangle.drop("a <b>c</b>") == "a c</b>"
    assert mangle.duplicate('a <x id="1"/>') == 'a <x id="1"/><x id="1"/>'
    assert mangle.attribute('a <x id="1"/>', "\u0308") == 'a <x id="1\u0308"/>'
    assert mangle.attribute("a <b>c</b>", "\u0308") == "a <b>c</b>"
    assert mangle.apply("drop", "a <b>", None, "\u0308") == "a <b>"


def test_mangle_swap_and_any() -> None:
    assert mangle.swap('<x id="1"/> a <x id="2"/> b') == '<x id="2"/> a <x id="1"/> b'
    assert mangle.swap('<x id="1"/> a <x id="1"/>') == '<x id="1"/> a <x id="1"/>'  # nothing different to swap
    assert mangle.apply("any", 'a <x id="1"/> b', XML, "\u0308") == "a  b"
    html = MarkupOptions("html", frozenset())
    assert mangle.apply("any", 'a <span translate="no" id="p1"></span>', html, "") == "a </span>"
    assert mangle.apply("any", "Hello XQ1Z and XQ2Z", None, "") == "Hello  and XQ2Z"  # plain text too
    assert mangle.apply("any", "No codes, 3rd place", None, "") == "No codes, 3rd place"
    assert mangle.apply("swap", '<x id="1"/><x id="2"/>', None, "") == '<x id="1"/><x id="2"/>'


def test_mangle_every_second_text_of_a_request(client: InProcess, headers: type[Headers]) -> None:
    body = {
        "text": ['A <x id="1"/>', 'B <x id="1"/>', 'C <x id="1"/>', 'D <x id="1"/>'],
        "source_lang": "EN",
        "target_lang": "DE",
        "tag_handling": "xml",
        "ignore_tags": "x",
    }
    out = client.post("/v2/translate", json=body, headers={**headers.paid, "X-Test-Fault": "mangle=drop;every=2"})
    texts = [t["text"] for t in out.json()["translations"]]
    assert ['<x id="1"/>' in t for t in texts] == [True, False, True, False]
    assert parse("mangle=swap;every=2") == FaultSpec(id="mangle=swap;every=2", mangle="swap", every=2)


def test_mangle_through_the_endpoint(client: InProcess, headers: type[Headers]) -> None:
    body = {
        "text": ['Hi <x id="1"/>'],
        "source_lang": "EN",
        "target_lang": "DE",
        "tag_handling": "xml",
        "ignore_tags": "x",
    }
    out = client.post("/v2/translate", json=body, headers={**headers.paid, "X-Test-Fault": "mangle=duplicate"})
    assert out.json()["translations"][0]["text"] == transliterate("Hi", "DE") + ' <x id="1"/><x id="1"/>'


def test_drop_in_process_raises_transport_error(
    client: InProcess, headers: type[Headers], caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        client.get("/v2/usage", headers={**headers.paid, "X-Test-Fault": "drop;id=d1"})
    assert [r for r in caplog.records if r.name.startswith("pipeline")] == []


def test_fault_header_ignored_when_disabled(make_client: Callable[..., InProcess], headers: type[Headers]) -> None:
    quiet = make_client(test_faults=False)
    response = quiet.get("/v2/usage", headers={**headers.paid, "X-Test-Fault": "status=503"})
    assert response.status_code == 200
    assert quiet.get("/v2/usage", headers={**headers.paid, "X-Test-Fault": "bad grammar"}).status_code == 200


def test_mangle_glue_removes_the_spaces_after_the_first_tag() -> None:
    assert (
        mangle.apply("glue", 'Lies <x id="1"/>  und <x id="2"/> mehr', XML, "")
        == 'Lies <x id="1"/>und <x id="2"/> mehr'
    )
    assert mangle.apply("glue", "no tags here", XML, "") == "no tags here"
