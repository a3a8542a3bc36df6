"""The app's life: opened by its lifespan, the embedded transport or its first request; closed with nothing left.

"Nothing left" is checked directly: no thread the app started is still alive, and its database
connection refuses statements.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.types import Message

from pipeline.service.app import ServiceApp, ServiceStartError, create_app
from pipeline.service.config import AccountSpec, ServiceConfig
from pipeline.service.embedded import embedded_transport
from pipeline.service.engine.base import EngineRequest, Translation
from pipeline.service.engine.pseudo import PseudoEngine
from pipeline.service.store.resources import Resources
from tests.unit.service.documents_support import JobsEnded

KEY = "lifecycle-key"
HEADERS = {"Authorization": f"Service-Auth-Key {KEY}"}
BASE = "http://embedded.invalid"


class StuckEngine(PseudoEngine):
    """Never finishes an engine request (until cancelled)."""

    def __init__(self) -> None:
        self.started = threading.Event()

    async def translate(self, request: EngineRequest) -> Sequence[Translation]:
        self.started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


def config(**fields: Any) -> ServiceConfig:
    return ServiceConfig(accounts=(AccountSpec("paid", (KEY,)),), **fields)


def assert_released(app: ServiceApp, threads_before: set[threading.Thread]) -> None:
    """No thread started since ``threads_before`` is alive, and the database is closed."""
    started = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
    assert started == []
    assert not app.is_open
    with pytest.raises(sqlite3.ProgrammingError):
        app.state.service.db.query("SELECT 1")


def test_closing_the_embedded_client_stops_a_running_document_job_and_closes_the_database(tmp_path: Path) -> None:
    engine = StuckEngine()
    threads_before = set(threading.enumerate())

    async def scenario() -> tuple[ServiceApp, dict[str, str]]:
        transport = embedded_transport(config(engine=engine, data_dir=tmp_path))
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
            files = {"file": ("a.txt", b"Hello\n")}
            answer = await client.post("/v2/document", files=files, data={"target_lang": "DE"}, headers=HEADERS)
            assert answer.status_code == 200, answer.text
            assert await asyncio.to_thread(engine.started.wait, 10)
        return transport.service, answer.json()

    app, handle = asyncio.run(scenario())
    assert_released(app, threads_before)

    # The job cut off mid-translation is finished by the next start.
    async def resumed() -> dict[str, object]:
        ended = JobsEnded()
        transport = embedded_transport(config(data_dir=tmp_path, on_document_ended=ended))
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
            body = {"document_key": handle["document_key"]}
            path = f"/v2/document/{handle['document_id']}"
            await client.post(path, json=body, headers=HEADERS)  # opens the app: its worker resumes the job
            await asyncio.to_thread(ended.wait, handle["document_id"])
            answer: dict[str, object] = (await client.post(path, json=body, headers=HEADERS)).json()
            return answer

    assert asyncio.run(resumed())["status"] == "done"


async def serve_lifespan(app: ServiceApp, while_up: Callable[[], Awaitable[None]]) -> list[str]:
    """Drive the ASGI lifespan as a server does: startup, ``while_up()``, shutdown; the messages sent."""
    inbox: asyncio.Queue[Message] = asyncio.Queue()
    sent: list[str] = []
    started = asyncio.Event()

    async def send(message: Message) -> None:
        sent.append(message["type"])
        if message["type"].startswith("lifespan.startup."):
            started.set()

    await inbox.put({"type": "lifespan.startup"})
    task = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, inbox.get, send))
    await started.wait()
    await while_up()
    await inbox.put({"type": "lifespan.shutdown"})
    await task
    return sent


def test_the_lifespan_opens_and_closes_the_app() -> None:
    app = create_app(config())
    threads_before = set(threading.enumerate())

    async def while_up() -> None:
        assert app.is_open
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as client:
            assert (await client.get("/v2/usage", headers=HEADERS)).status_code == 200

    sent = asyncio.run(serve_lifespan(app, while_up))
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert_released(app, threads_before)


def test_an_app_nobody_opened_answers_503_and_opens_only_when_asked() -> None:
    app = create_app(config())
    threads_before = set(threading.enumerate())

    async def scenario() -> tuple[int, int]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as client:
            before = (await client.get("/v2/usage", headers=HEADERS)).status_code
            assert not app.is_open  # a request never opens the app: its lifespan or its owner does
            await app.open()
            after = (await client.get("/v2/usage", headers=HEADERS)).status_code
        await app.aclose()
        await app.aclose()  # idempotent
        return before, after

    assert asyncio.run(scenario()) == (503, 200)
    assert_released(app, threads_before)


def test_a_closed_app_answers_503_and_cannot_reopen() -> None:
    app = create_app(config())

    async def scenario() -> httpx.Response:
        async with app.running():
            pass
        with pytest.raises(RuntimeError, match="closed"):
            await app.open()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as client:
            return await client.get("/v2/usage", headers=HEADERS)

    answer = asyncio.run(scenario())
    assert answer.status_code == 503
    assert answer.json() == {"message": "the local service is shut down"}


def test_an_unusable_data_directory_is_a_start_error(tmp_path: Path) -> None:
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("x")
    app = create_app(config(data_dir=not_a_directory))
    with pytest.raises(ServiceStartError):
        asyncio.run(app.open())
    assert not app.is_open


def _tables(app: ServiceApp) -> set[str]:
    return {row[0] for row in app.state.service.db.query("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_an_app_with_a_data_directory_makes_every_resource_table_when_it_opens(tmp_path: Path) -> None:
    async def scenario() -> set[str]:
        async with create_app(config(data_dir=tmp_path)).running() as app:
            return _tables(app)

    assert {"glossaries", "glossary_dictionaries", "style_rule_lists", "translation_memory_versions"} <= asyncio.run(
        scenario()
    )


def test_an_in_memory_app_opens_its_glossary_and_style_stores_at_their_first_use_from_any_thread() -> None:
    async def scenario() -> tuple[set[str], set[str], int]:
        async with create_app(config()).running() as app:
            before = _tables(app)
            resources = app.state.service.lookups
            assert isinstance(resources, Resources)
            stores = await asyncio.gather(*(asyncio.to_thread(lambda: resources.glossaries) for _ in range(8)))
            return before, _tables(app), len({id(store) for store in stores})

    before, after, distinct = asyncio.run(scenario())
    assert "glossaries" not in before and "style_rule_lists" not in before
    assert {"glossaries", "glossary_dictionaries"} <= after and "style_rule_lists" not in after
    assert distinct == 1  # one store, however many threads asked at once
