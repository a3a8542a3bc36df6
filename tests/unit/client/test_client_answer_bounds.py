"""Every answer is read up to a bound its request allows: an endless body fails the call, memory stays small."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator

import httpx
import pytest

from pipeline.client.aio import AsyncClient
from pipeline.client.api_data import DocumentHandle
from pipeline.client.requests import (
    ANSWER_BYTES,
    ANSWER_FLOOR_BYTES,
    DOCUMENT_ANSWER_BYTES,
    ERROR_ANSWER_BYTES,
    answer_bound,
)
from pipeline.client.retry import NO_RETRY
from pipeline.client.sync import Client
from pipeline.errors import AnswerTooLargeError, ServerError
from tests.unit.client.client_fakes import BASE_URL, KEY

CHUNK = b"x" * 65536


class Endless:
    """A body that never ends; counts what the client pulled."""

    def __init__(self, start: bytes = b'{"translations": [{"text": "') -> None:
        self.start, self.pulled = start, 0

    def __iter__(self) -> Iterator[bytes]:
        yield self.start
        while True:
            self.pulled += len(CHUNK)
            yield CHUNK

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self:
            yield chunk


def _sync(handler: Callable[[httpx.Request], httpx.Response]) -> Client:
    return Client(BASE_URL, KEY, transport=httpx.MockTransport(handler), retry=NO_RETRY)


def test_answer_bounds_grow_with_the_request_above_a_floor() -> None:
    assert answer_bound(10) == ANSWER_FLOOR_BYTES
    assert answer_bound(128 * 1024) == 16 * 128 * 1024
    assert ANSWER_BYTES < DOCUMENT_ANSWER_BYTES


def test_an_endless_translate_answer_fails_the_call_after_its_bound() -> None:
    body = Endless()
    with _sync(lambda request: httpx.Response(200, content=body)) as client:
        with pytest.raises(AnswerTooLargeError, match=r"POST /v2/translate passed 262144 bytes") as info:
            client.translate(["Hello"], target_lang="DE")
    assert not info.value.should_retry
    assert body.pulled <= ANSWER_FLOOR_BYTES + len(CHUNK)


def test_the_async_client_stops_at_the_same_bound() -> None:
    body = Endless()

    async def main() -> None:
        async with AsyncClient(
            BASE_URL,
            KEY,
            transport=httpx.MockTransport(lambda r: httpx.Response(200, content=body.__aiter__())),
            retry=NO_RETRY,
        ) as client:
            await client.translate(["Hello"], target_lang="DE")

    with pytest.raises(AnswerTooLargeError):
        asyncio.run(main())
    assert body.pulled <= ANSWER_FLOOR_BYTES + len(CHUNK)


def test_a_declared_length_over_the_bound_fails_before_reading() -> None:
    body = Endless()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"Content-Length": str(ANSWER_BYTES + 1)})

    with _sync(handler) as client, pytest.raises(AnswerTooLargeError, match="GET /v2/usage"):
        client.usage()
    assert body.pulled == 0


def test_an_endless_error_answer_is_cut_and_still_an_error_of_its_status() -> None:
    body = Endless(b'{"message": "overloaded"}')
    with _sync(lambda request: httpx.Response(503, content=body)) as client, pytest.raises(ServerError) as info:
        client.usage()
    assert info.value.status_code == 503
    assert body.pulled <= ERROR_ANSWER_BYTES + len(CHUNK)


def test_a_large_legitimate_answer_is_read_whole() -> None:
    text = "é" * 20_000  # a long target in a request of a few bytes: still under the floor

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"translations": [{"text": text, "detected_source_language": "EN"}]})

    with _sync(handler) as client:
        assert client.translate(["Hi"], target_lang="FR").translations[0].text == text


def test_a_document_may_be_bigger_than_any_other_answer() -> None:
    document = b"d" * (ANSWER_BYTES + 1)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=document)

    with _sync(handler) as client:
        assert client.download_document(DocumentHandle("doc-1", "key-1")) == document
        with pytest.raises(AnswerTooLargeError):
            client.usage()


def test_an_answer_read_by_the_async_client_is_freed_at_once_not_left_to_the_garbage_collector() -> None:
    import gc
    import weakref

    answers: list[weakref.ref[httpx.Response]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        response = httpx.Response(200, json={"translations": [{"text": "Hallo", "detected_source_language": "EN"}]})
        answers.append(weakref.ref(response))
        return response

    async def main() -> None:
        async with AsyncClient(BASE_URL, KEY, transport=httpx.MockTransport(handler), retry=NO_RETRY) as client:
            await client.translate(["Hello"], target_lang="DE")
            assert answers and answers[0]() is None  # a reference cycle would keep it until a collection

    gc.disable()
    try:
        asyncio.run(main())
    finally:
        gc.enable()
