"""The client's direct in-process path (``AsyncClient(app=...)``) against the transport path.

The embedded service is called without httpx's request and response objects; these tests pin
that the app sees the very request httpx would give it, and that the answers, the errors and the
billing are the same as through ``httpx.ASGITransport``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from typing import Any

import httpx
import pytest

from pipeline.client import AsyncClient
from pipeline.errors import QuotaExceededError, ServiceError
from pipeline.service import AccountSpec, ServiceConfig, create_app
from pipeline.service.embedded import EmbeddedTransport

BASE = "http://embedded.invalid"
KEY, ADMIN = "direct-dev-key", "direct-admin-key"


class Recorder:
    """An ASGI app that records each request (scope and body) and answers 400 with a fixed message."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.seen.append(
            {
                "method": scope["method"],
                "path": scope["path"],
                "raw_path": scope["raw_path"],
                "query_string": scope["query_string"],
                "scheme": scope["scheme"],
                "server": scope["server"],
                "root_path": scope["root_path"],
                "headers": sorted(scope["headers"]),
                "body": body,
            }
        )
        answer = json.dumps({"message": "recorded"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": answer})


async def _calls(client: AsyncClient) -> list[str]:
    """A spread of calls (JSON bodies, no body, a query, a quoted path segment); the error each meets."""
    calls = [
        client.translate(
            ['Hello <x id="1"/>', "Grüße"], target_lang="DE", tag_handling="xml", ignore_tags=["x"], context="a button"
        ),
        client.usage(),
        client.languages("translate_text", include=("beta",)),
        client.delete_glossary("id with/slash?&"),
        client.custom_tag_usage("2026-01-01", "2026-01-31", aggregate_by="day", page=2),
        client.deactivate_developer_key("k 1"),
    ]
    errors = []
    for call in calls:
        with pytest.raises(ServiceError) as caught:
            await call
        errors.append(f"{type(caught.value).__name__}: {caught.value}")
    return errors


def test_the_app_sees_the_request_httpx_would_give_it():
    direct_app, transport_app = Recorder(), Recorder()

    async def run() -> tuple[list[str], list[str]]:
        direct = AsyncClient(
            BASE, KEY, transport=httpx.ASGITransport(app=direct_app), app=direct_app, reporting_tag="nightly"
        )
        over_httpx = AsyncClient(BASE, KEY, transport=httpx.ASGITransport(app=transport_app), reporting_tag="nightly")
        try:
            return await _calls(direct), await _calls(over_httpx)
        finally:
            await direct.aclose()
            await over_httpx.aclose()

    direct_errors, transport_errors = asyncio.run(run())
    assert len(direct_app.seen) == len(transport_app.seen) == 6
    for got, expected in zip(direct_app.seen, transport_app.seen, strict=True):
        assert got == expected
    assert direct_errors == transport_errors
    assert direct_errors[0] == "BadRequestError: service answered 400: recorded"


def _service() -> Any:
    clock = lambda: dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)  # noqa: E731
    return create_app(ServiceConfig(accounts=(AccountSpec("paid", (KEY,), (ADMIN,)),), clock=clock))


async def _session(client: AsyncClient, admin: AsyncClient) -> list[Any]:
    """Translations, a refused request and a key limit reached; every answer, error and usage figure."""
    out: list[Any] = []
    texts = ['Open <x id="1"/> files', "  Save  ", "%d items"]
    out.append(await client.translate(texts, target_lang="FR", tag_handling="xml", ignore_tags=["x"]))
    out.append(await client.translate(["Bonjour"], target_lang="DE", model_type="quality_optimized"))
    for bad in ({"target_lang": "XX"}, {"target_lang": "DE", "source_lang": "EN", "glossary_id": "no-such-glossary"}):
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


def test_answers_errors_and_billing_match_the_transport_path():
    async def run(direct: bool) -> list[Any]:
        app = _service()
        transport = EmbeddedTransport(app)
        client = AsyncClient(BASE, KEY, transport=transport, app=app if direct else None)
        admin = AsyncClient(BASE, ADMIN, transport=transport, app=app if direct else None)
        try:
            return await _session(client, admin)
        finally:
            await client.aclose()

    direct, over_httpx = asyncio.run(run(True)), asyncio.run(run(False))
    assert direct == over_httpx
    assert direct[-1].character_count == direct[4].character_count + len("four")  # billed: the refused one was not


def test_a_closed_client_refuses_calls_on_either_path():
    async def run(direct: bool) -> str:
        app = _service()
        client = AsyncClient(BASE, KEY, transport=EmbeddedTransport(app), app=app if direct else None)
        await client.usage()
        await client.aclose()
        with pytest.raises(RuntimeError) as refused:
            await client.usage()
        return str(refused.value)

    assert asyncio.run(run(True)) == asyncio.run(run(False))
