"""Glossaries and style lists against a real ``pipeline serve``: the right terms in the right locales,
one dictionary replaced per edited file, zero writes on a second sync, one glossary after an
interrupted sync, style rules visible in the output.

Each test uses its own project name: the session's server is shared, and a project's glossary
and style lists are found by name.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pipeline.catalogs import read_catalog
from pipeline.cli import main
from pipeline.client.aio import AsyncClient
from pipeline.client.api_data import Glossary
from pipeline.client.retry import RetryPolicy
from pipeline.config import load_settings
from pipeline.errors import ExitCode
from pipeline.protocol import TEST_FAULT_HEADER
from pipeline.resources.glossary_sync import SyncOutcome, find_glossaries, sync_glossary
from pipeline.resources.targets import ResourcePlan
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import RunReport
from tests.integration.conftest import LiveService

pytestmark = pytest.mark.integration

HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {lang}\\n"\n\n'
TEXTS = ("Open the file", "Delete this folder", "Don't share it", "Settings")


class Recording(httpx.AsyncBaseTransport):
    """Records every request; can add a test fault header to, or crash after, chosen requests."""

    def __init__(
        self,
        fault_on: Callable[[httpx.Request], bool] | None = None,
        fault: str = "",
        crash_after: Callable[[httpx.Request], bool] | None = None,
    ) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self.requests: list[tuple[str, str]] = []
        self._fault_on, self._fault, self._crash_after = fault_on, fault, crash_after

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append((request.method, request.url.path))
        if self._fault_on and self._fault_on(request):
            request.headers[TEST_FAULT_HEADER] = self._fault
        response = await self._inner.handle_async_request(request)
        if self._crash_after and self._crash_after(request):
            await response.aread()
            raise KeyboardInterrupt  # the process dies right after the service did the work
        return response

    def writes(self) -> list[tuple[str, str]]:
        return [r for r in self.requests if r[0] != "GET" and r[1].startswith("/v3/")]

    async def aclose(self) -> None:
        await self._inner.aclose()


@pytest.fixture
def endpoints(live_service: LiveService) -> LiveService:
    """Skip (with the reason) when the server has no v3 glossary or style rule endpoints yet."""
    headers = {"Authorization": f"Service-Auth-Key {live_service.auth_key}"}
    for path in ("/v3/glossaries", "/v3/style_rules"):
        if httpx.get(live_service.url + path, headers=headers).status_code == 404:
            pytest.skip(f"the local service answers 404 for GET {path}: its resource endpoints are not there yet")
    return live_service


def make_project(tmp_path: Path, url: str, langs: tuple[str, ...] = ("de", "fr", "pl")) -> Path:
    project = f"it-{secrets.token_hex(4)}"
    (tmp_path / "locale").mkdir(parents=True)
    (tmp_path / "de.tsv").write_text("file\tDatei\nfolder\tOrdner\n", encoding="utf-8")
    (tmp_path / "terms.csv").write_text("en,fr\nfile,fichier\n", encoding="utf-8")
    (tmp_path / "pipeline.toml").write_text(
        f"""source_lang = "en"
catalogs = ["locale/*.po"]
[service]
url = "{url}"
[cache]
dir = "cache"
[report]
dir = "report"
[resources]
project = "{project}"
multilingual_glossaries = ["terms.csv"]
[locales.de]
glossaries = ["de.tsv"]
formality = "less"
[locales.de.style]
name = "Integration German"
rules = {{ punctuation = {{ apostrophe = "use_curly_apostrophes" }} }}
instructions = [{{ label = "Address", prompt = "Use du." }}]
""",
        encoding="utf-8",
    )
    reset(tmp_path, langs)
    return tmp_path


def reset(root: Path, langs: tuple[str, ...] = ("de", "fr", "pl")) -> None:
    body = "".join(f'msgid "{t}"\nmsgstr ""\n\n' for t in TEXTS)
    for lang in langs:
        (root / "locale" / f"{lang}.po").write_text(HEADER.format(lang=lang) + body, encoding="utf-8")


def translated(root: Path, lang: str) -> dict[str, str]:
    return {u.sources[0]: u.targets[0] for u in read_catalog(root / "locale" / f"{lang}.po").units}


def client(service: LiveService, transport: Recording | None = None, attempts: int = 1) -> AsyncClient:
    return AsyncClient(
        service.url,
        service.auth_key,
        transport=transport or Recording(),
        retry=RetryPolicy(max_attempts=attempts, base_delay=0.01),
    )


def translate(root: Path, service: LiveService, transport: Recording) -> RunReport:
    return run_translate(
        load_settings(root / "pipeline.toml"),
        RunOptions(),
        log=lambda m: None,
        client_factory=lambda: client(service, transport),
    )


def sync(root: Path, service: LiveService, transport: Recording, attempts: int = 1) -> SyncOutcome:
    settings = load_settings(root / "pipeline.toml")
    plan = ResourcePlan(settings)

    async def go() -> SyncOutcome:
        c = client(service, transport, attempts)
        try:
            return await sync_glossary(
                c, plan.project, plan.dictionaries(["DE", "FR", "PL"]), prune=True, log=lambda m: None
            )
        finally:
            await c.aclose()

    return asyncio.run(go())


def ours(root: Path, service: LiveService) -> list[Glossary]:
    project = load_settings(root / "pipeline.toml").resources.project

    async def go() -> list[Glossary]:
        c = client(service)
        try:
            return await find_glossaries(c, project)
        finally:
            await c.aclose()

    return asyncio.run(go())


def test_terms_and_style_rules_appear_in_the_right_locales_only(endpoints: LiveService, tmp_path: Path) -> None:
    root = make_project(tmp_path, endpoints.url)
    report = translate(root, endpoints, Recording())
    assert report.exit_code == ExitCode.OK, report.issues
    de, fr, pl = (translated(root, lang) for lang in ("de", "fr", "pl"))
    assert "Datei" in de["Open the file"] and "Ordner" in de["Delete this folder"]
    assert "fichier" in fr["Open the file"] and "Ordner" not in fr["Delete this folder"]
    assert not any(term in text for text in pl.values() for term in ("Datei", "fichier", "Ordner"))
    assert "\u2019" in de["Don't share it"] and "'" not in de["Don't share it"]  # the style list's rule
    assert "'" in fr["Don't share it"]  # no style list for French in this project
    assert len(ours(root, endpoints)) == 1


def test_second_sync_writes_nothing_and_an_edit_replaces_one_dictionary(endpoints: LiveService, tmp_path: Path) -> None:
    root = make_project(tmp_path, endpoints.url)
    first = Recording()
    translate(root, endpoints, first)
    assert sorted(first.writes()) == [("POST", "/v3/glossaries"), ("POST", "/v3/style_rules")]
    gid = ours(root, endpoints)[0].glossary_id
    for _ in range(2):
        again = Recording()
        assert sync(root, endpoints, again).writes == 0 and again.writes() == []
    (root / "de.tsv").write_text("file\tAkte\nfolder\tOrdner\n", encoding="utf-8")
    edit = Recording()
    sync(root, endpoints, edit)
    assert edit.writes() == [("PUT", f"/v3/glossaries/{gid}/dictionaries"), ("PATCH", f"/v3/glossaries/{gid}")]
    assert [g.glossary_id for g in ours(root, endpoints)] == [gid]
    reset(root)  # the next run uses the new term and re-sends only the one segment that has it
    run = Recording()
    report = translate(root, endpoints, run)
    assert "Akte" in translated(root, "de")["Open the file"]
    assert run.writes() == [] and sum(1 for r in run.requests if r[1] == "/v2/translate") == 1
    assert report.totals.segments_translated == 1 and report.totals.segments_from_cache == 11


def test_an_answer_lost_after_create_leaves_one_glossary(endpoints: LiveService, tmp_path: Path) -> None:
    root = make_project(tmp_path, endpoints.url)
    dropped = Recording(
        fault_on=lambda r: r.method == "POST" and r.url.path == "/v3/glossaries",
        fault=f"drop;times=1;id={secrets.token_hex(6)}",
    )
    outcome = sync(root, endpoints, dropped, attempts=3)  # the client retries the POST: a twin is made
    assert [m for m, p in dropped.requests if p == "/v3/glossaries"].count("POST") == 2
    assert [g.glossary_id for g in ours(root, endpoints)] == [outcome.glossary_id]


def test_an_interrupted_sync_then_a_rerun_leaves_one_glossary(endpoints: LiveService, tmp_path: Path) -> None:
    root = make_project(tmp_path, endpoints.url)
    crash = Recording(crash_after=lambda r: r.method == "POST" and r.url.path == "/v3/glossaries")
    with pytest.raises(KeyboardInterrupt):
        sync(root, endpoints, crash)
    assert len(ours(root, endpoints)) == 1
    rerun = Recording()
    sync(root, endpoints, rerun)
    assert rerun.writes() == [] and len(ours(root, endpoints)) == 1


def test_commands(
    endpoints: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path, endpoints.url)
    monkeypatch.setenv("PIPELINE_AUTH_KEY", endpoints.auth_key)
    monkeypatch.chdir(root)
    assert main(["glossary", "sync"]) == 0
    assert "2 dictionaries, 1 write calls" in capsys.readouterr().out  # en->de and en->fr; pl has none
    assert main(["glossary", "sync"]) == 0 and "0 write calls" in capsys.readouterr().out
    assert main(["glossary", "show", "de"]) == 0 and capsys.readouterr().out == "file\tDatei\nfolder\tOrdner\n"
    assert main(["glossary", "list"]) == 0 and "en->de (2)" in capsys.readouterr().out
    assert main(["style", "sync"]) == 0 and "1 style lists, 1 write calls" in capsys.readouterr().out
    assert main(["style", "sync"]) == 0 and "0 write calls" in capsys.readouterr().out
    assert main(["style", "show", "de"]) == 0 and '"use_curly_apostrophes"' in capsys.readouterr().out
    assert main(["style", "list"]) == 0 and "Integration German" in capsys.readouterr().out
    assert main(["glossary", "delete"]) == 0 and "deleted glossary" in capsys.readouterr().out
    assert ours(root, endpoints) == []
