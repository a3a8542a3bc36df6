"""The review app in-process: only the page's own requests, with the token, are answered; the API's answers."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.types import ASGIApp

from pipeline.config import Settings
from pipeline.review.app import create_app
from pipeline.review.session import Session
from tests.review_project import PO, review_project

PORT = 8765
TOKEN = "t0ken-for-the-tests"
BASE = f"http://127.0.0.1:{PORT}"


@pytest.fixture
def project(tmp_path: Path) -> Settings:
    return review_project(tmp_path)


class Client:
    """Synchronous requests to the app in-process (httpx's ASGI transport: no socket), with the token by default."""

    def __init__(self) -> None:
        self.app: ASGIApp | None = None  # set once the app, which calls back into this client, is made
        self.headers = {"X-Review-Token": TOKEN}
        self.quits: list[bool] = []

    def request(self, method: str, path: str, headers: dict[str, str] | None = None, **kwargs: Any) -> httpx.Response:
        async def send() -> httpx.Response:
            assert self.app is not None
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
                return await client.request(method, path, headers={**self.headers, **(headers or {})}, **kwargs)

        return asyncio.run(send())

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, **kwargs)


@pytest.fixture
def client(project: Settings) -> Client:
    client = Client()
    client.app = create_app(Session(project), TOKEN, PORT, lambda: client.quits.append(True))
    return client


def test_a_request_without_the_token_or_with_another_is_refused(client: Client) -> None:
    for headers in ({"X-Review-Token": ""}, {"X-Review-Token": "guess"}):
        assert client.get("/api/entries", headers=headers).status_code == 403
    del client.headers["X-Review-Token"]
    assert client.get("/").status_code == 403
    assert client.get("/static/review.js").status_code == 403
    assert client.get(f"/?token={TOKEN}x").status_code == 403
    page = client.get(f"/?token={TOKEN}")
    assert page.status_code == 200 and f'src="/static/review.js?token={TOKEN}"' in page.text
    assert client.get(f"/static/review.js?token={TOKEN}").headers["content-type"].startswith("text/javascript")


def test_another_host_or_origin_is_refused_even_with_the_token(client: Client) -> None:
    # DNS rebinding: another site's name resolved to 127.0.0.1 still sends its own Host.
    assert client.get("/api/entries", headers={"Host": f"evil.example:{PORT}"}).status_code == 421
    assert client.get("/api/entries", headers={"Host": "127.0.0.1:9"}).status_code == 421
    assert client.get("/api/entries", headers={"Host": f"localhost:{PORT}"}).status_code == 200
    # CSRF: a page of another origin cannot drive the API.
    entry = client.get("/api/entries").json()["entries"][0]
    accept, seen = f"/api/entries/{entry['id']}/accept", {"version": entry["version"]}
    assert client.post(accept, json=seen, headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.post(accept, json=seen, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    same = client.post(accept, json=seen, headers={"Origin": BASE})
    assert same.status_code == 200


def test_every_answer_forbids_framing_scripts_of_others_and_caching(client: Client) -> None:
    for response in (client.get("/api/entries"), client.get("/api/entries", headers={"X-Review-Token": "no"})):
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        assert "script-src 'self'" in response.headers["content-security-policy"]
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["cache-control"] == "no-store"


def test_entries_are_named_by_id_only(client: Client) -> None:
    for name in ("pipeline.toml", "e999"):
        assert client.get(f"/api/entries/{name}").status_code == 404
    for name in ("e999", "..%2Fpipeline.toml", "locale%2Fde%2FLC_MESSAGES%2Fapp.po"):
        assert client.post(f"/api/entries/{name}/accept", json={"version": "x"}).status_code == 404


def test_the_detail_shows_placeholders_forms_with_their_numbers_and_the_previous_source(client: Client) -> None:
    rows = client.get("/api/entries").json()["entries"]
    plural = next(r for r in rows if r["source"] == "{count} person has access")
    entry = client.get(f"/api/entries/{plural['id']}").json()
    assert entry["sources"][0] == [["{count}", "python-brace-format"], [" person has access", None]]
    assert [form["label"] for form in entry["forms"]] == ["n = 1", "n = 0, 2, 3, 4, 5, 6, …"]
    assert entry["forms"][1]["pieces"] == [["{count}", "python-brace-format"], [" Personen können das sehen", None]]
    assert ["can", "removed"] in entry["previous"]["forms"][0] and ["has", "added"] in entry["previous"]["forms"][0]
    assert entry["comments"] == "Glossar: „Zugriff“, nicht „Zugang“." and entry["checks"] == []


def test_decisions_answer_written_refused_or_conflict(client: Client, project: Settings) -> None:
    rows = {r["source"]: r for r in client.get("/api/entries").json()["entries"]}
    upload, uploaded = rows["Upload files"], rows["%(name)s uploaded <b>%(count)d</b> files"]
    bad = client.post(f"/api/entries/{uploaded['id']}/edit", json={"version": uploaded["version"], "targets": ["x"]})
    assert bad.status_code == 422 and bad.json()["errors"]
    assert client.post(f"/api/entries/{upload['id']}/edit", json={"version": upload["version"]}).status_code == 400
    assert client.post(f"/api/entries/{upload['id']}/delete", json={"version": upload["version"]}).status_code == 400
    assert client.post(f"/api/entries/{upload['id']}/accept", content=b"not json").status_code == 400
    path = project.root / PO
    path.write_text(path.read_text(encoding="utf-8").replace("Dateien hochladen", "Dateien senden"), encoding="utf-8")
    conflict = client.post(f"/api/entries/{upload['id']}/accept", json={"version": upload["version"]})
    assert conflict.status_code == 409
    fresh = conflict.json()["entry"]
    assert fresh["target"] == "Dateien senden" and fresh["status"] == "pending"
    done = client.post(f"/api/entries/{upload['id']}/accept", json={"version": fresh["version"]})
    assert done.status_code == 200 and done.json()["entry"]["status"] == "accepted"
    assert done.json()["tally"]["accepted"] == 1


def test_quit_stops_the_server_and_answers_the_summary(client: Client) -> None:
    rows = client.get("/api/entries").json()["entries"]
    client.post(f"/api/entries/{rows[0]['id']}/reject", json={"version": rows[0]["version"]})
    answer = client.post("/api/quit").json()
    assert client.quits == [True]
    assert answer["summary"] == ["de: 0 accepted, 0 edited, 1 rejected, 0 kept"] and answer["tally"]["awaiting"] == 7


PROBE = """
import json, sys
from pathlib import Path
from pipeline.config import load_settings
from pipeline.review import app, views
from pipeline.review.session import Session
session = Session(load_settings(Path(sys.argv[1])))
app.create_app(session, "t", 1, lambda: None)
for entry in list(session.entries.values()):
    views.detail(session, entry)
    session.accept(entry.id, entry.version)
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("pipeline.client", "pipeline.connect",
    "pipeline.service", "pipeline.run.send", "httpx", "httpcore")))))
"""


def test_nothing_that_could_reach_the_translation_service_is_loaded(project: Settings) -> None:
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, str(project.config_path)], capture_output=True, text=True, check=True
    )
    assert json.loads(probe.stdout) == []
