"""The embedded service as an httpx transport: opened by the app's lifespan, closed with the client.

The transport is the one seam between the pipeline and the in-process service: these tests pin
that it opens the app once through its ASGI lifespan, closes it with the client, and answers as
the same app does behind a plain ``httpx.ASGITransport`` opened by hand.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.client.aio import AsyncClient
from pipeline.errors import QuotaExceededError, ServiceError
from pipeline.service.app import create_app
from pipeline.service.config import AccountSpec, ServiceConfig
from pipeline.service.embedded import EmbeddedTransport

BASE = "http://embedded.invalid"
KEY, ADMIN = "direct-dev-key", "direct-admin-key"


def _service() -> Any:
    clock = lambda: dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)  # noqa: E731
    return create_app(ServiceConfig(accounts=(AccountSpec("paid", (KEY,), (ADMIN,)),), clock=clock))


async def _session(client: AsyncClient, admin: AsyncClient) -> list[Any]:
    """Translations, a refused request and a key limit reached; every answer, error and usage figure."""
    out: list[Any] = []
    texts = ['Open <x id="1"/> files', "  Save  ", "%d items"]
    out.append(await client.translate(texts, target_lang="FR", tag_handling="xml", ignore_tags=["x"]))
    out.append(await client.translate(["Bonjour"], target_lang="DE", model_type="quality_optimized"))
    wrong: tuple[dict[str, Any], ...] = (
        {"target_lang": "XX"},
        {"target_lang": "DE", "source_lang": "EN", "glossary_id": "no-such-glossary"},
    )
    for bad in wrong:
        with pytest.raises(ServiceError) as caught:
            await client.translate(["x"], **bad)
        out.append((type(caught.value).__name__, str(caught.value), caught.value.status_code))
    out.append(await client.usage())
    key_id = (await admin.list_developer_keys())[0].key_id
    await admin.set_developer_key_limits(key_id, (await client.usage()).character_count + 5)
    with pytest.raises(QuotaExceededError) as refused:
        await client.translate(["more than five characters"], target_lang="DE")
    out.append(str(refused.value))
    out.append(await client.translate(["four"], target_lang="DE"))
    out.append(await client.usage())
    return out


def test_answers_errors_and_billing_match_an_app_opened_by_hand() -> None:
    async def embedded() -> list[Any]:
        transport = EmbeddedTransport(_service())
        client, admin = AsyncClient(BASE, KEY, transport=transport), AsyncClient(BASE, ADMIN, transport=transport)
        try:
            return await _session(client, admin)
        finally:
            await client.aclose()

    async def by_hand() -> list[Any]:
        app = _service()
        async with app.running():
            transport = httpx.ASGITransport(app=app)
            client, admin = AsyncClient(BASE, KEY, transport=transport), AsyncClient(BASE, ADMIN, transport=transport)
            return await _session(client, admin)

    through_transport, opened_by_hand = asyncio.run(embedded()), asyncio.run(by_hand())
    assert through_transport == opened_by_hand
    assert through_transport[-1].character_count == through_transport[4].character_count + len("four")


def test_the_lifespan_opens_the_app_once_for_concurrent_first_requests_and_the_client_closes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def run() -> tuple[bool, list[bool], bool]:
        app = _service()
        opened: list[bool] = []
        original = app.open

        async def counting_open() -> None:
            opened.append(app.is_open)
            await original()

        monkeypatch.setattr(app, "open", counting_open)
        client = AsyncClient(BASE, KEY, transport=EmbeddedTransport(app))
        before = app.is_open
        await asyncio.gather(*(client.translate(["Hello"], target_lang="DE") for _ in range(5)))
        during = app.is_open
        await client.aclose()
        return before, [*opened, during], app.is_open

    before, (first_open, during), after = asyncio.run(run())
    assert (before, first_open, during, after) == (False, False, True, False)


def test_a_request_to_an_app_nobody_opened_is_answered_503() -> None:
    async def run() -> int:
        transport = httpx.ASGITransport(app=_service())
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
            return (await client.get("/v2/usage", headers={"Authorization": f"Service-Auth-Key {KEY}"})).status_code

    assert asyncio.run(run()) == 503


def test_an_app_that_cannot_start_raises_its_own_error_from_the_first_request(tmp_path: Path) -> None:
    from pipeline.service.app import ServiceStartError

    (tmp_path / "data").write_text("a file where the data folder should be")
    config = ServiceConfig(accounts=(AccountSpec("paid", (KEY,)),), data_dir=tmp_path / "data")

    async def run() -> None:
        client = AsyncClient(BASE, KEY, transport=EmbeddedTransport(create_app(config)))
        try:
            await client.usage()
        finally:
            await client.aclose()

    with pytest.raises(ServiceStartError):
        asyncio.run(run())


def test_a_closed_client_refuses_calls() -> None:
    async def run() -> None:
        client = AsyncClient(BASE, KEY, transport=EmbeddedTransport(_service()))
        await client.usage()
        await client.aclose()
        await client.usage()

    with pytest.raises(RuntimeError):
        asyncio.run(run())
