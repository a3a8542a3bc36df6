"""Workflows as repositories run them, against a real ``pipeline serve``: ``--frozen`` as a CI check, the
quota check before spending, and terminology edits that reach the service (write calls counted).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pipeline.catalogs import read_catalog
from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.client.sync import Client
from pipeline.config import load_settings
from pipeline.errors import ExitCode
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import RunReport
from pipeline.workflows.refresh import refresh
from tests.integration.conftest import LiveService
from tests.integration.test_resources_live import Recording, client
from tests.run_fakes import usage

pytestmark = pytest.mark.integration

HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {lang}\\n"\n\n'
TEXTS = ("Open the file", "Delete this folder", "Settings", "Share the file with everyone")


def make_project(root: Path, url: str, langs: tuple[str, ...] = ("de", "fr"), glossary: bool = False) -> Path:
    (root / "locale").mkdir(parents=True)
    body = "".join(f'msgid "{t}"\nmsgstr ""\n\n' for t in TEXTS)
    for lang in langs:
        (root / "locale" / f"{lang}.po").write_text(HEADER.format(lang=lang) + body, encoding="utf-8")
    (root / "locale" / "messages.pot").write_text(HEADER.format(lang="") + body, encoding="utf-8")
    resources = ""
    if glossary:
        (root / "de.tsv").write_text("file\tDatei\nfolder\tOrdner\n", encoding="utf-8")
        resources = f'[resources]\nproject = "wf-{secrets.token_hex(4)}"\n[locales.de]\nglossaries = ["de.tsv"]\n'
    (root / "pipeline.toml").write_text(
        f'source_lang = "en"\ncatalogs = ["locale/*.po"]\n[service]\nurl = "{url}"\n'
        f'[refresh]\ntemplate = "locale/messages.pot"\n{resources}',
        encoding="utf-8",
    )
    return root


def cli(root: Path, key: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    if key is not None:
        env["PIPELINE_AUTH_KEY"] = key
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args, "--config", str(root / "pipeline.toml")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def files(*folders: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for folder in folders if folder.exists() for p in folder.rglob("*") if p.is_file()}


class TextRecording(Recording):
    """Records every request, and the texts of every translate request."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/translate":
            self.texts.extend(json.loads(request.content)["text"])
        return await super().handle_async_request(request)


def client_with(url: str, key: str, transport: Recording) -> AsyncClient:
    return AsyncClient(url, key, transport=transport, retry=RetryPolicy(max_attempts=1))


def translate_requests(transport: Recording) -> int:
    return sum(1 for _, path in transport.requests if path == "/v2/translate")


# --- --frozen -----------------------------------------------------------------------------------


def test_frozen_before_and_after_a_run(live_service: LiveService, tmp_path: Path, user_cache_home: Path) -> None:
    root = make_project(tmp_path / "project", live_service.url)
    before = files(root, user_cache_home)
    check = cli(root, None, "translate", "--frozen")  # a CI check needs no key
    assert check.returncode == ExitCode.PENDING, check.stdout + check.stderr
    assert "locale/de.po" in check.stdout and "locale/fr.po" in check.stdout
    assert files(root, user_cache_home) == before

    done = cli(root, live_service.auth_key, "translate", "--quiet")
    assert done.returncode == 0, done.stderr
    after = files(root, user_cache_home)
    check = cli(root, None, "translate", "--frozen")
    assert check.returncode == ExitCode.OK, check.stdout + check.stderr
    check = cli(root, None, "refresh", "--frozen")
    assert check.returncode == ExitCode.OK, check.stdout + check.stderr
    assert files(root, user_cache_home) == after


# --- the quota check ----------------------------------------------------------------------------


@pytest.fixture
def limited_key(live_service: LiveService) -> Iterator[str]:
    """A developer key of the session's account whose own limit is 20 characters; deactivated afterwards."""
    with Client(live_service.url, live_service.admin_key) as admin:
        key = admin.create_developer_key(f"limited-{secrets.token_hex(3)}")
        assert key.api_key is not None  # given once, when the key is made
        admin.set_developer_key_limits(key.key_id, 20)
        try:
            yield key.api_key
        finally:
            admin.deactivate_developer_key(key.key_id)


def test_a_key_whose_own_limit_is_far_below_the_need_stops_before_sending_anything(
    live_service: LiveService, limited_key: str, tmp_path: Path
) -> None:
    root = make_project(tmp_path / "project", live_service.url)
    before = files(root / "locale")
    transport = Recording()
    settings = load_settings(root / "pipeline.toml")
    report = run_translate(
        settings,
        RunOptions(),
        log=lambda m: None,
        client_factory=lambda: client_with(live_service.url, limited_key, transport),
    )
    assert report.exit_code == ExitCode.QUOTA
    assert "the key has 20 characters left" in str(report.stopped) and "--max-characters 20" in str(report.stopped)
    assert translate_requests(transport) == 0
    # No sync, nothing else: the usage read, and the listing of languages sent with it (a listing bills nothing).
    assert sorted(path for _, path in transport.requests) == ["/v2/usage", "/v3/languages"]
    assert files(root / "locale") == before
    assert usage(report).key_limit == 20 and usage(report).left == 20

    done = cli(root, limited_key, "translate")
    assert done.returncode == ExitCode.QUOTA, done.stderr
    assert "20 characters left" in done.stderr and "--max-characters 20" in done.stderr
    assert limited_key not in done.stdout + done.stderr
    with Client(live_service.url, limited_key) as own:
        assert own.usage().extra["api_key_character_count"] == 0  # not one character billed


def test_max_characters_within_what_is_left_runs_part_and_records_usage_before_and_after(
    live_service: LiveService, limited_key: str, tmp_path: Path, user_cache_home: Path
) -> None:
    root = make_project(tmp_path / "project", live_service.url)
    done = cli(root, limited_key, "translate", "--max-characters", "20")
    assert done.returncode == ExitCode.QUOTA, done.stderr  # the budget, not the quota check, ends it
    assert "budget of 20" in done.stderr
    report = json.loads(next(user_cache_home.glob("pipeline/*/report/report.json")).read_text())
    assert 0 < report["totals"]["billed_characters"] <= 20
    recorded = report["usage"]
    assert recorded["before"]["key_count"] == 0 and recorded["before"]["key_limit"] == 20
    assert recorded["after"]["key_count"] == report["totals"]["billed_characters"]


def test_without_a_limit_the_run_goes_on_and_says_so(live_service: LiveService, tmp_path: Path) -> None:
    root = make_project(tmp_path / "project", live_service.url)
    done = cli(root, live_service.auth_key, "translate")
    assert done.returncode == 0, done.stderr
    assert "no character limit" in done.stderr


# --- terminology edits reach the service --------------------------------------------------------


def test_refresh_after_a_glossary_edit_rewrites_one_dictionary_and_retranslates_only_its_segments(
    live_service: LiveService, tmp_path: Path
) -> None:
    root = make_project(tmp_path / "project", live_service.url, glossary=True)
    settings = load_settings(root / "pipeline.toml")

    def run_refresh() -> tuple[TextRecording, RunReport]:
        transport = TextRecording()
        _, report = refresh(settings, client_factory=lambda: client(live_service, transport))
        assert report is not None
        assert report.exit_code == 0, report.issues
        return transport, report

    first, _ = run_refresh()
    assert any(path == "/v3/glossaries" and method == "POST" for method, path in first.writes())
    de = {u.sources[0]: u.targets[0] for u in read_catalog(root / "locale" / "de.po").units}
    # A human takes over one translation that contains the term: refresh must never touch it.
    po = (root / "locale" / "de.po").read_text(encoding="utf-8")
    human = "Die Datei mit allen teilen"
    po = po.replace(
        f'#, fuzzy\nmsgid "Share the file with everyone"\nmsgstr "{de["Share the file with everyone"]}"',
        f'msgid "Share the file with everyone"\nmsgstr "{human}"',
    )
    assert human in po
    (root / "locale" / "de.po").write_text(po, encoding="utf-8")

    again, _ = run_refresh()
    assert again.writes() == [] and translate_requests(again) == 0

    (root / "de.tsv").write_text("file\tAkte\nfolder\tOrdner\n", encoding="utf-8")
    edit, report = run_refresh()
    glossary_writes = [(m, p) for m, p in edit.writes() if p.startswith("/v3/glossaries")]
    assert [m for m, _ in glossary_writes] == ["PUT", "PATCH"], glossary_writes  # one dictionary, in place
    with Client(live_service.url, live_service.auth_key) as own:
        project = settings.resources.project
        assert sum(1 for g in own.list_glossaries() if f"pipeline:{project} " in f"{g.name} ") == 1
    assert translate_requests(edit) == 1 and edit.texts == ["Open the file"]  # the one segment with the term
    # ... and the only one taken up again: the others are not stale (not even served from the cache anew).
    assert (report.totals.segments_translated, report.totals.segments_from_cache) == (1, 0)
    after = {u.sources[0]: u.targets[0] for u in read_catalog(root / "locale" / "de.po").units}
    assert "Akte" in after["Open the file"] and after["Open the file"] != de["Open the file"]
    assert after["Delete this folder"] == de["Delete this folder"]  # no changed term: kept
    assert after["Settings"] == de["Settings"]
    assert after["Share the file with everyone"] == human  # a human's text, never re-translated
    fr = {u.sources[0]: u.targets[0] for u in read_catalog(root / "locale" / "fr.po").units}
    assert all(fr.values())

    last, _ = run_refresh()
    assert last.writes() == [] and translate_requests(last) == 0


def test_translate_syncs_an_edited_glossary_without_reading_settled_catalogs(
    live_service: LiveService, tmp_path: Path
) -> None:
    root = make_project(tmp_path / "project", live_service.url, glossary=True)
    settings = load_settings(root / "pipeline.toml")

    def run() -> tuple[Recording, RunReport]:
        transport = Recording()
        report = run_translate(
            settings, RunOptions(), log=lambda m: None, client_factory=lambda: client(live_service, transport)
        )
        assert report.exit_code == 0, report.issues
        return transport, report

    run()
    quiet, report = run()
    assert quiet.requests == [] and report.unchanged_catalogs == 2  # nothing to do: not even a connection
    (root / "de.tsv").write_text("file\tAkte\nfolder\tOrdner\n", encoding="utf-8")
    synced, report = run()
    assert report.unchanged_catalogs == 2  # the catalogs were not read
    assert [m for m, p in synced.writes() if p.startswith("/v3/glossaries")] == ["PUT", "PATCH"]
    assert translate_requests(synced) == 0
    last, _ = run()
    assert last.requests == []
