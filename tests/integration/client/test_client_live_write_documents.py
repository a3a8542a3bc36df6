"""The client's Write and document methods against ``pipeline serve`` on 127.0.0.1 (issue 5)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.client.aio import AsyncClient
from pipeline.client.api_data import DocumentStatus, Improvement
from pipeline.client.retry import PollPolicy
from pipeline.client.sync import Client
from pipeline.errors import AuthenticationError, BadRequestError, DocumentTranslationError, NotFoundError
from pipeline.service.engine.pseudo import transliterate
from tests import document_samples as samples
from tests.integration.conftest import LiveService

pytestmark = pytest.mark.integration


def de(text: str) -> str:
    """The pseudo engine's German for ``text``."""
    return transliterate(text, "DE")


FAST_POLL = PollPolicy(initial=0.02, maximum=0.2, max_wait=30.0)


@pytest.fixture
def real_client(live_service: LiveService) -> Iterator[Client]:
    with Client(live_service.url, live_service.auth_key, timeout=30.0) as c:
        yield c


def test_rephrase(client: Client) -> None:
    improved = client.rephrase(["this is  the the plan"], target_lang="en-GB", writing_style="prefer_business")
    assert improved == (Improvement("This is the plan", "en-GB", "en"),)


def test_rephrase_style_rules_reach_the_service(client: Client) -> None:
    with pytest.raises(BadRequestError, match="Language ja does not support setting a tone"):
        client.rephrase(["x"], target_lang="ja", tone="friendly")


def test_correct(client: Client) -> None:
    improved = client.correct(["bonjour ,  monde !"], target_lang="fr")
    assert improved[0].text == "Bonjour, monde\u202f!"
    assert improved[0].target_language == "fr"


def test_write_is_paid_only(live_service: Any) -> None:
    with Client(live_service.url, live_service.free_auth_key) as free, pytest.raises(AuthenticationError):
        free.correct(["x"])


def test_upload_status_download(real_client: Client) -> None:
    handle = real_client.upload_document(b"Hello\n", "a.txt", target_lang="DE", source_lang="EN")
    status = real_client.document_status(handle)
    assert status.document_id == handle.document_id and status.status in ("queued", "translating", "done")
    done = real_client.translate_document(b"World\n", "b.txt", target_lang="DE", poll=FAST_POLL)
    assert done.content == f"{de('World')}\n".encode() and done.status.billed_characters == 5
    for _ in range(200):
        if real_client.document_status(handle).status == "done":
            break
    assert real_client.download_document(handle) == f"{de('Hello')}\n".encode()
    with pytest.raises(NotFoundError):
        real_client.download_document(handle)


def test_translate_document_docx(real_client: Client) -> None:
    import docx as python_docx

    result = real_client.translate_document(samples.docx(1), "notes.docx", target_lang="DE", poll=FAST_POLL)
    assert result.status == DocumentStatus(result.status.document_id, "done", billed_characters=50_000)
    assert python_docx.Document(io.BytesIO(result.content)).paragraphs[0].text == f"{de('Release')} {de('notes')}"


def test_translate_document_failure_is_an_error(real_client: Client) -> None:
    with pytest.raises(DocumentTranslationError, match="Source and target language are equal"):
        real_client.translate_document(b"Hallo\n", "a.txt", target_lang="DE", source_lang="DE", poll=FAST_POLL)


def test_upload_refusals_are_bad_requests(real_client: Client) -> None:
    with pytest.raises(BadRequestError, match="PDF documents are not supported"):
        real_client.upload_document(b"%PDF-1.7", "scan.pdf", target_lang="DE")


@pytest.mark.anyio
async def test_async_write_and_documents(live_service: Any) -> None:
    async with AsyncClient(live_service.url, live_service.auth_key) as client:
        improved = await client.correct(["hello  world"], target_lang="en-US")
        assert improved[0].text == "Hello world"
        result = await client.translate_document(samples.srt(1), "a.srt", target_lang="DE", poll=FAST_POLL)
        assert f"{de('Hello')} <i>{de('world')}</i>".encode() in result.content
