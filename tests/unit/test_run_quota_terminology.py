"""A run spends only what the account has (usage read first), and edited terminology reaches the service."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.config import load_settings
from pipeline.errors import ExitCode
from pipeline.run import write
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.quota import UNLIMITED
from pipeline.run.report import to_json
from pipeline.workflows.refresh import refresh
from tests.resources_fake import FakeResources
from tests.run_fakes import FakeService, cache_dir, project, run, usage
from tests.unit.test_resources_run import BODY, HEADER, TM
from tests.unit.test_resources_run import CONFIG as RESOURCE_CONFIG
from tests.unit.test_resources_run import project as resource_project
from tests.unit.test_resources_run import run as resource_run

DE_PATH = "locale/de/LC_MESSAGES/app.po"

# --- the quota check ----------------------------------------------------------------------------


def texts(service: FakeService) -> list[str]:
    return [t for r in service.requests for t in r["text"]]


def everything(tmp_path: Path) -> int:
    """What a run of the test project bills, measured on a copy."""
    service = FakeService()
    run(project(tmp_path / "reference"), service)
    return sum(len(t) for t in texts(service))


def test_a_key_whose_limit_cannot_cover_the_run_stops_before_any_translate_request(tmp_path: Path) -> None:
    need = everything(tmp_path)
    settings = project(tmp_path)
    service = FakeService(
        usage={
            "character_count": 0,
            "character_limit": None,
            "api_key_character_count": 3,
            "api_key_character_limit": 8,
        }
    )
    report = run(settings, service)
    assert report.exit_code == ExitCode.QUOTA and service.requests == [] and service.usage_calls == 1
    assert str(report.stopped) == (
        f"the key has 5 characters left this period and this run needs {need}: nothing "
        f"was sent; pass --max-characters 5 to translate part of it now"
    )
    # Only what needed no request is written (a text that is all placeholder, copied as is).
    assert 'msgid "Hello %(name)s"\nmsgstr ""' in (tmp_path / DE_PATH).read_text(encoding="utf-8")
    assert report.totals.segments_translated == 0 and report.totals.segments_copied == 1
    assert report.remaining is not None and report.remaining.characters == need
    assert to_json(report)["usage"]["before"] == {
        "account_count": 0,
        "account_limit": None,
        "key_count": 3,
        "key_limit": 8,
        "left": 5,
    }


def test_the_account_limit_counts_too_and_a_budget_within_it_is_a_partial_run(tmp_path: Path) -> None:
    left = everything(tmp_path) - 1
    settings = project(tmp_path)
    usage = {"character_count": 1_000 - left, "character_limit": 1_000}
    stopped = run(settings, FakeService(usage=usage))
    assert stopped.exit_code == ExitCode.QUOTA and f"the account has {left} characters left" in str(stopped.stopped)
    service = FakeService(usage=usage)
    partial = run(settings._replace(max_characters=left), service)
    assert partial.exit_code == ExitCode.QUOTA and str(partial.stopped).startswith(f"budget of {left}")
    assert 0 < sum(len(t) for t in texts(service)) <= left


def test_the_estimate_is_what_will_be_billed_after_the_cache_and_deduplication(tmp_path: Path) -> None:
    settings = project(tmp_path, langs=("de", "pl"))
    run(settings, FakeService())
    for lang in ("de", "pl"):  # the same catalogs again, plus one new text in each: the rest is cached
        path = tmp_path / DE_PATH.replace("/de/", f"/{lang}/")
        text = path.read_text(encoding="utf-8")
        path.write_text(text.split("\n\n", 1)[0] + '\n\nmsgid "Brand new"\nmsgstr ""\n', encoding="utf-8")
    exact = FakeService(usage={"character_count": 0, "character_limit": 18})  # "Brand new" for DE and PL
    report = run(settings, exact)
    assert report.exit_code == ExitCode.OK, report.stopped
    assert sorted(texts(exact)) == ["Brand new", "Brand new"]


def test_without_a_limit_or_without_an_answer_the_run_goes_on_and_says_so(tmp_path: Path) -> None:
    unlimited = FakeService(
        usage={
            "character_count": 5,
            "character_limit": UNLIMITED,
            "api_key_character_count": 5,
            "api_key_character_limit": UNLIMITED,
        }
    )
    messages: list[str] = []
    report = run_translate(
        project(tmp_path / "a"), RunOptions(), log=messages.append, client_factory=unlimited.factory()
    )
    assert report.exit_code == ExitCode.OK and texts(unlimited)
    assert report.usage is not None
    assert "no character limit" in (report.usage.note or "") and any("no character limit" in m for m in messages)
    billed = report.totals.billed_characters
    assert usage(report).account_count == 5 and usage(report, "after").account_count == 5 + billed

    failing = FakeService(usage=500)
    report = run(project(tmp_path / "b"), failing)
    assert report.exit_code == ExitCode.OK and texts(failing)
    assert report.usage is not None
    assert "usage could not be read" in (report.usage.note or "") and report.usage.before is None
    assert json.dumps(to_json(report))  # the report still writes


def test_a_dry_run_and_a_run_with_nothing_to_send_read_no_usage(tmp_path: Path) -> None:
    settings = project(tmp_path)
    service = FakeService(usage={"character_count": 0, "character_limit": 0})
    assert run(settings, service, dry_run=True).exit_code == ExitCode.OK and service.usage_calls == 0
    assert run(settings, FakeService()).exit_code == ExitCode.OK
    assert run(settings, service).exit_code == ExitCode.OK and service.usage_calls == 0


class UsageDuringTheWrite(FakeService):
    """Takes the usage read after the translate requests and answers it once the catalogs are written."""

    def __init__(self, arrived: threading.Event, written: threading.Event) -> None:
        super().__init__()
        self.arrived, self.written = arrived, written
        self.answered_once_written: bool | None = None

    async def answer(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/usage" and self.requests:
            self.arrived.set()
            self.answered_once_written = await asyncio.to_thread(self.written.wait, 10)
        return self.handler(request)


def test_the_usage_after_the_requests_is_read_while_the_catalogs_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    arrived, written = threading.Event(), threading.Event()
    write_catalogs = write.write_catalogs
    read_out: list[bool] = []  # per write: whether the usage read was out when it began

    def writing(*args: Any, **kwargs: Any) -> object:
        # Read after the write, or with no turn for the loop before it, it would not be out: 10 s, then False.
        read_out.append(arrived.wait(10))
        outcome = write_catalogs(*args, **kwargs)
        written.set()
        return outcome

    monkeypatch.setattr(write, "write_catalogs", writing)
    service = UsageDuringTheWrite(arrived, written)
    report = run(project(tmp_path), service)
    assert report.exit_code == ExitCode.OK and service.usage_calls == 2
    assert read_out == [True] and service.answered_once_written is True
    assert usage(report, "after").account_count == report.totals.billed_characters > 0


# --- terminology edits reach the service --------------------------------------------------------


def test_an_edited_glossary_is_synced_although_every_catalog_is_settled_and_left_unread(tmp_path: Path) -> None:
    settings = resource_project(tmp_path)
    fake = FakeResources(memories=[TM])
    assert resource_run(settings, fake).exit_code == ExitCode.OK
    (gid,) = fake.glossaries
    fake.reset_log()
    assert resource_run(settings, fake).exit_code == ExitCode.OK and fake.requests == []  # offline, as before

    (tmp_path / "de.tsv").write_text("file\tDatei\nfolder\tVerzeichnis\n", encoding="utf-8")
    report = resource_run(settings, fake)
    assert report.exit_code == ExitCode.OK and report.unchanged_catalogs == 3  # not one catalog read
    assert fake.writes() == [("PUT", f"/v3/glossaries/{gid}/dictionaries"), ("PATCH", f"/v3/glossaries/{gid}")]
    assert fake.translations == [] and list(fake.glossaries) == [gid]  # in place: nothing duplicated
    assert fake.glossaries[gid]["dictionaries"]["en", "de"] == {"file": "Datei", "folder": "Verzeichnis"}

    fake.reset_log()
    assert resource_run(settings, fake).exit_code == ExitCode.OK and fake.requests == []  # the sync is recorded


def test_an_edited_style_list_is_synced_and_a_dry_run_syncs_nothing(tmp_path: Path) -> None:
    settings = resource_project(tmp_path)
    fake = FakeResources(memories=[TM])
    resource_run(settings, fake)
    config = (tmp_path / "pipeline.toml").read_text(encoding="utf-8")
    (tmp_path / "pipeline.toml").write_text(
        config.replace('prompt = "Use du."', 'prompt = "Use Sie."'), encoding="utf-8"
    )
    settings = load_settings(tmp_path / "pipeline.toml")
    fake.reset_log()
    dry = run_translate(settings, RunOptions(dry_run=True), log=lambda m: None, client_factory=fake.factory())
    assert dry.exit_code == ExitCode.OK and fake.requests == []
    resource_run(settings, fake)
    assert fake.writes() and all(path.startswith("/v3/style_rules") for _, path in fake.writes())
    assert fake.translations == []
    fake.reset_log()
    resource_run(settings, fake)
    assert fake.requests == []


def test_refresh_retranslates_only_untouched_machine_translations_with_a_changed_term(tmp_path: Path) -> None:
    settings = resource_project(tmp_path, langs=("de",))
    (tmp_path / "locale" / "messages.pot").write_text(HEADER.format(lang="") + BODY, encoding="utf-8")
    settings = settings._replace(refresh_template=tmp_path / "locale" / "messages.pot")
    fake = FakeResources(memories=[TM])
    _, first = refresh(settings, client_factory=fake.factory())
    assert first is not None
    assert first.exit_code == ExitCode.OK, first.issues
    path = tmp_path / "locale" / "de.po"
    po = path.read_text(encoding="utf-8")
    machine = po.split('msgid "Open file"\nmsgstr "', 1)[1].split('"', 1)[0]
    human = "Datei öffnen"
    path.write_text(
        po.replace(f'#, fuzzy\nmsgid "Open file"\nmsgstr "{machine}"', f'msgid "Open file"\nmsgstr "{human}"'),
        encoding="utf-8",
    )
    assert human in path.read_text(encoding="utf-8")

    fake.reset_log()
    (tmp_path / "de.tsv").write_text("file\tAkte\nfolder\tVerzeichnis\n", encoding="utf-8")
    _, report = refresh(settings, client_factory=fake.factory())
    assert report is not None
    assert report.exit_code == ExitCode.OK, report.issues
    # "Delete folder" has the changed term; "Open file" too, but a human owns it now; the rest has none.
    assert [t for b in fake.translations for t in b["text"]] == ["Delete folder"]
    assert (report.totals.segments_translated, report.totals.segments_from_cache) == (1, 0)
    after = path.read_text(encoding="utf-8")
    assert f'msgid "Open file"\nmsgstr "{human}"' in after and "Verzeichnis" in after


def test_the_embedded_service_keeps_nothing_between_runs_so_an_edit_there_syncs_nothing(tmp_path: Path) -> None:
    settings = resource_project(
        tmp_path, langs=("de",), config=RESOURCE_CONFIG.replace('url = "http://fake.invalid"', 'url = "embedded"')
    )
    assert run_translate(settings, RunOptions(), log=lambda m: None).exit_code == ExitCode.OK
    (tmp_path / "de.tsv").write_text("file\tAkte\n", encoding="utf-8")
    messages: list[str] = []
    report = run_translate(settings, RunOptions(), log=messages.append)
    assert report.exit_code == ExitCode.OK and report.unchanged_catalogs == 1 and messages == []
    assert not (cache_dir(settings) / "synced.json").exists()
