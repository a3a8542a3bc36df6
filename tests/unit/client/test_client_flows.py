"""Multi-step helpers: document translation (poll with back-off, download once) and the analytics iterator."""

from __future__ import annotations

from datetime import date

import httpx
import pytest
import respx

from pipeline.client.aio import AsyncClient
from pipeline.client.retry import PollPolicy
from pipeline.client.sync import Client
from pipeline.errors import DocumentTranslationError, ServerError
from tests.unit.client.client_fakes import FakeTime


def status(state: str, **extra: object) -> httpx.Response:
    return httpx.Response(200, json={"document_id": "d1", "status": state, **extra})


def test_translate_document_polls_with_backoff_and_downloads_once(
    client: Client, router: respx.Router, fake_time: FakeTime
) -> None:
    upload = router.post("/v2/document").respond(json={"document_id": "d1", "document_key": "dk"})
    poll = router.post("/v2/document/d1").mock(
        side_effect=[
            status("queued"),
            status("translating", seconds_remaining=3),
            httpx.Response(503),  # a failed poll is retried, not fatal
            status("translating", seconds_remaining=1),
            status("translating"),
            status("translating"),
            status("done", billed_characters=1234),
        ]
    )
    result_route = router.post("/v2/document/d1/result").respond(content=b"translated bytes")

    result = client.translate_document(b"hello", "a.txt", target_lang="DE", poll=PollPolicy(initial=1.0, maximum=4.0))

    assert result.content == b"translated bytes"
    assert (result.status.status, result.status.billed_characters) == ("done", 1234)
    assert upload.call_count == 1 and poll.call_count == 7 and result_route.call_count == 1
    assert result_route.calls.last.request.content == b'{"document_key":"dk"}'
    poll_sleeps = [s for s in fake_time.sleeps]
    # back-off 1, 2, (retry of the 503, jittered <= 0.5), 4, 4, 4
    assert poll_sleeps[:2] == [1.0, 2.0] and 0 <= poll_sleeps[2] <= 0.5 and poll_sleeps[3:] == [4.0, 4.0, 4.0]


def test_translate_document_job_error_raises(client: Client, router: respx.Router) -> None:
    router.post("/v2/document").respond(json={"document_id": "d1", "document_key": "dk"})
    router.post("/v2/document/d1").mock(return_value=status("error", message="Source and target language are equal"))
    result_route = router.post("/v2/document/d1/result").respond(content=b"")
    with pytest.raises(
        DocumentTranslationError, match="document d1: translation failed: Source and target language are equal"
    ):
        client.translate_document(b"x", "a.txt", target_lang="EN")
    assert result_route.call_count == 0


def test_translate_document_gives_up_after_max_wait(client: Client, router: respx.Router, fake_time: FakeTime) -> None:
    router.post("/v2/document").respond(json={"document_id": "d1", "document_key": "dk"})
    router.post("/v2/document/d1").mock(return_value=status("translating"))
    with pytest.raises(DocumentTranslationError, match=r"still translating after 7s \(max_wait=10s\)"):
        client.translate_document(
            b"x", "a.txt", target_lang="DE", poll=PollPolicy(initial=1.0, maximum=8.0, max_wait=10.0)
        )
    assert fake_time.sleeps == [1.0, 2.0, 4.0]


def test_translate_document_upload_failure_propagates(client: Client, router: respx.Router) -> None:
    router.post("/v2/document").respond(500, json={"message": "boom"})
    with pytest.raises(ServerError, match="boom"):
        client.translate_document(b"x", "a.txt", target_lang="DE")


def page(next_page: int | None, *tags: str) -> httpx.Response:
    usage = [
        {
            "custom_tag": t,
            "breakdown": {"total_characters": 1, "text_translation_characters": 1, "text_improvement_characters": 0},
        }
        for t in tags
    ]
    report = {
        "aggregate_by": "period",
        "start_date": "2026-01-01",
        "end_date": "2026-01-31",
        "next_page": next_page,
        "usage": usage,
    }
    return httpx.Response(200, json={"custom_tag_usage_report": report})


def test_iter_custom_tag_usage_follows_next_page(client: Client, router: respx.Router) -> None:
    route = router.get("/v2/admin/analytics/custom-tags").mock(
        side_effect=[page(1, "a", "b"), page(2, "c"), page(None)]
    )
    tags = [u.custom_tag for u in client.iter_custom_tag_usage(date(2026, 1, 1), date(2026, 1, 31))]
    assert tags == ["a", "b", "c"]
    pages = [dict(call.request.url.params).get("page") for call in route.calls]
    assert pages == [None, "1", "2"]


@pytest.mark.anyio
async def test_async_shell_has_the_same_flows(aclient: AsyncClient, router: respx.Router, fake_time: FakeTime) -> None:
    router.get("/v2/admin/analytics/custom-tags").mock(side_effect=[page(5, "a"), page(None, "b")])
    router.post("/v2/document").respond(json={"document_id": "d1", "document_key": "dk"})
    router.post("/v2/document/d1").mock(side_effect=[status("queued"), status("done", billed_characters=5)])
    router.post("/v2/document/d1/result").respond(content=b"out")
    async with aclient:
        tags = [u.custom_tag async for u in aclient.iter_custom_tag_usage("2026-01-01", "2026-01-31")]
        result = await aclient.translate_document(b"in", "a.txt", target_lang="DE")
    assert tags == ["a", "b"]
    assert result.content == b"out" and result.status.billed_characters == 5
    assert fake_time.sleeps == [1.0]


def test_sync_and_async_offer_the_same_methods() -> None:
    def public(cls: type) -> set[str]:
        return {n for n in dir(cls) if not n.startswith("_")}

    # A run paces its own requests (the send stage's limiter): only the async shell has the seam.
    assert public(Client) - {"close"} == public(AsyncClient) - {"aclose", "with_pacing"}
    assert {"translate", "languages", "translate_document", "iter_custom_tag_usage", "create_glossary"} <= public(
        Client
    )
