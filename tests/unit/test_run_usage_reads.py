"""Which usage reads a run makes around its windows and parts, and what the report keeps of them."""

from __future__ import annotations

import asyncio
import os
import signal
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import httpx
import pytest

import pipeline.catalog_paths
import pipeline.run.plan
import pipeline.run.scan
from pipeline.config import Settings
from pipeline.errors import ExitCode
from pipeline.model import Issue
from pipeline.run.ledger import Ledger
from pipeline.run.orchestrate.context import Connections
from pipeline.run.provenance import Provenance
from pipeline.run.window import Refused, ScannedCatalog
from tests.run_fakes import FakeService, project, run, usage
from tests.unit.test_run_quota_terminology import texts

LANGS = ("de", "fr", "pl")
LETTER = {"/v2/usage": "U", "/v2/translate": "T", "/v3/languages": "L"}


class Recording(FakeService):
    """The fake service, noting each request's path as one letter: U usage, T translate, L languages."""

    def __init__(self, limit: int) -> None:
        super().__init__(usage={"character_count": 0, "character_limit": limit})
        self.calls = ""

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.calls += LETTER[request.url.path]
        return super().handler(request)


@pytest.mark.parametrize(
    ("window_bytes", "part_segments", "limit", "calls", "code"),
    [
        # One window: its first catalog is a part of its own (sent while the others are scanned), the
        # other two a second part: a read before each, and one after the window.
        (10**9, 16_384, 10**6, "ULTTUTTTTU", ExitCode.OK),
        # A window per catalog: before the first, after each; the read after a window serves the next one's check.
        (1, 16_384, 10**6, "ULTTUTTUTTU", ExitCode.OK),
        (10**9, 3, 10**6, "ULTTUUTTTTUTU", ExitCode.OK),  # parts of 3 segments: before each, after once
        # The second window, started while the first one's requests are answered, reads before its part and
        # finds too little left: no request; the read after the first window's requests, which it owes, last.
        (1, 16_384, 60, "ULTTUU", ExitCode.QUOTA),
        # Over quota from the start: no request but the two reads of a first run, which go out together
        # (the languages, which bill nothing, without waiting for the check).
        (10**9, 16_384, 10, "UL", ExitCode.QUOTA),
    ],
)
def test_a_run_knows_the_usage_before_each_part_and_after_each_window_and_reports_the_first_and_last(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    window_bytes: int,
    part_segments: int,
    limit: int,
    calls: str,
    code: int,
) -> None:
    monkeypatch.setattr(pipeline.catalog_paths, "WINDOW_BYTES", window_bytes)
    monkeypatch.setattr(pipeline.run.plan, "PART_SEGMENTS", part_segments)
    service = Recording(limit)
    report = run(project(tmp_path, langs=LANGS), service)
    # Parts overlap (the next one's requests go out while the last ones of the part before are in
    # flight): the reads and requests are counted, the first read and the read after pinned in place.
    assert report.exit_code == code
    assert (service.calls[:2], service.calls[-1:], Counter(service.calls)) == (calls[:2], calls[-1:], Counter(calls))
    assert usage(report).account_count == 0
    assert report.usage is not None
    after = None if report.usage.after is None else usage(report, "after").account_count
    assert after == (service.billed if service.billed else None)  # no request billed: nothing read after


class Failing(Recording):
    """Answers the first translate request, then fails as ``failure`` does."""

    def __init__(self, failure: str) -> None:
        super().__init__(10**6)
        self.failure = failure

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/translate" and "T" in self.calls:
            self.calls += "T"
            if self.failure == "unreachable":
                raise httpx.ConnectError("connection refused", request=request)
            os.kill(os.getpid(), signal.SIGINT)  # the run's handler takes it: it stops sending
        return super().handler(request)


@pytest.mark.parametrize(
    ("failure", "code"), [("unreachable", ExitCode.UNAVAILABLE), ("interrupted", ExitCode.INTERRUPTED)]
)
def test_a_run_stopped_by_a_signal_or_an_unreachable_service_reads_no_usage_after(
    tmp_path: Path, failure: str, code: int
) -> None:
    service = Failing(failure)
    report = run(project(tmp_path, langs=("de",)), service)  # two translate requests
    assert report.exit_code == code
    assert service.calls.count("U") == 1 and service.calls.startswith("ULT")
    assert report.usage is not None
    assert report.usage.before is not None and report.usage.after is None


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The catalogs scanned so far in this test, in order (the scan stage counts them as it goes)."""
    paths: list[object] = []
    scan = pipeline.run.scan.scan

    def counting(
        settings: Settings, catalogs: Iterable[Path], *args: Any, **kwargs: Any
    ) -> tuple[list[ScannedCatalog], list[Issue], list[Refused]]:
        paths.extend(catalogs)
        return scan(settings, catalogs, *args, **kwargs)

    monkeypatch.setattr(pipeline.run.scan, "scan", counting)
    return paths


class NotingTheScan(Recording):
    """Notes how many catalogs were scanned when each usage read arrived."""

    def __init__(self, scanned: list[object]) -> None:
        super().__init__(10**6)
        self.scanned = scanned
        self.at_usage: list[int] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/usage":
            self.at_usage.append(len(self.scanned))
        return super().handler(request)


def test_the_usage_is_read_while_the_catalogs_are_scanned_once_the_first_part_needs_a_request(
    tmp_path: Path, scanned: list[object]
) -> None:
    settings = project(tmp_path, langs=LANGS)
    first = NotingTheScan(scanned)
    assert run(settings, first).exit_code == ExitCode.OK
    # Out once the first catalog had units to translate, while the others were scanned; then before
    # the second part, and after the window.
    assert first.at_usage[0] < len(LANGS) and first.at_usage[1:] == [3, 3]

    scanned.clear()
    for lang in LANGS:  # a new entry each: the cache holds the others, so the read waits for the first plan
        path = tmp_path / "locale" / lang / "LC_MESSAGES" / "app.po"
        path.write_text(path.read_text(encoding="utf-8") + '\nmsgid "New"\nmsgstr ""\n', encoding="utf-8")
    second = NotingTheScan(scanned)
    assert run(settings, second).exit_code == ExitCode.OK
    assert second.at_usage[0] < len(LANGS) and second.at_usage[1:] == [3, 3]
    assert texts(second) == ["New"] * len(LANGS)

    scanned.clear()
    third = NotingTheScan(scanned)  # the cache holds everything: the service is asked nothing
    assert run(settings, third).exit_code == ExitCode.OK
    assert third.calls == ""


class NotingTheLanguages(NotingTheScan):
    """Notes, besides, how many catalogs were scanned when the languages read arrived; ``limit`` None: no limit."""

    def __init__(self, scanned: list[object], limit: int | None) -> None:
        super().__init__(scanned)
        self.usage = {"character_count": 0, "character_limit": limit}
        self.at_languages: list[int] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/languages":
            self.at_languages.append(len(self.scanned))
        return super().handler(request)


@pytest.mark.parametrize("limit", [None, 10**6])
def test_the_languages_are_read_while_the_catalogs_are_scanned_too(
    tmp_path: Path, scanned: list[object], limit: int | None
) -> None:
    service = NotingTheLanguages(scanned, limit)
    assert run(project(tmp_path, langs=LANGS), service).exit_code == ExitCode.OK
    # The first part's quota check (none without a limit) comes before the scan's end, and the listing
    # right after it: both while the other catalogs are scanned.
    assert service.at_usage[0] < len(LANGS) and service.at_languages[0] < len(LANGS)
    assert service.calls.startswith("UL") and service.calls.count("L") == 1


def test_an_account_without_a_limit_is_read_before_the_run_sends_and_after_it_not_before_each_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline.run.plan, "PART_SEGMENTS", 3)  # parts of 3 segments: a read before each, with a limit
    service = NotingTheLanguages([], None)
    report = run(project(tmp_path, langs=LANGS), service)
    assert report.exit_code == ExitCode.OK and service.calls.count("T") > 3
    # No quota check can stop the run: the first read says so, and only the read after the requests is made again.
    assert service.calls.startswith("UL") and service.calls.count("U") == 2 and service.calls.endswith("U")
    assert usage(report, "after").account_count == service.billed > 0


def test_a_first_run_without_a_key_says_so_and_changes_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.errors import UsageError
    from pipeline.run.orchestrate import RunOptions, run_translate

    monkeypatch.delenv("PIPELINE_AUTH_KEY", raising=False)
    settings = project(tmp_path)  # a service URL, an empty cache, no key in the environment
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.po")}
    with pytest.raises(UsageError, match="needs a key"):
        run_translate(settings, RunOptions(), log=lambda m: None)
    # The entry that needs no service (copied as is) waits for a run that can translate the rest.
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.po")} == before


class NoSuchEndpoints(FakeService):
    """A service whose usage read answers 404, and whose languages read does too unless ``languages_found``."""

    def __init__(self, languages_found: bool) -> None:
        super().__init__(usage=404)
        self.languages_found = languages_found

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/languages" and not self.languages_found:
            return httpx.Response(404, json={"message": "not found: no such endpoint"})
        return super().handler(request)


def test_an_unread_usage_goes_on_only_where_the_service_answers_and_says_so_once(tmp_path: Path) -> None:
    from pipeline.run.orchestrate import RunOptions, run_translate

    settings = project(tmp_path)
    said: list[str] = []
    report = run_translate(settings, RunOptions(), log=said.append, client_factory=NoSuchEndpoints(True).factory())
    assert report.exit_code == ExitCode.OK and report.totals.segments_translated > 0
    assert sum("goes on without a quota check" in m for m in said) == 1
    # Neither read answers (a URL ending in /v2): the run stops, and never says it goes on.
    settings = project(tmp_path / "other")
    said.clear()
    report = run_translate(settings, RunOptions(), log=said.append, client_factory=NoSuchEndpoints(False).factory())
    assert report.exit_code == ExitCode.UNAVAILABLE and report.totals.segments_translated == 0
    assert [m for m in said if "quota" in m] == []
    assert report.stopped is not None
    assert report.stopped.message.startswith("the service's target languages could not be read")


def test_a_first_run_has_its_reads_on_their_way_once_the_first_catalog_with_work_is_scanned(
    tmp_path: Path, scanned: list[object]
) -> None:
    # Before the next catalog's scan starts in a worker thread, which would compete with the loop while
    # the reads are still being written.
    service = NotingTheLanguages(scanned, 10**6)
    assert run(project(tmp_path, langs=LANGS), service).exit_code == ExitCode.OK
    assert (service.at_usage[0], service.at_languages[0]) == (1, 1)


def test_a_first_run_with_nothing_to_send_asks_the_service_nothing(tmp_path: Path) -> None:
    service = Recording(10**6)
    report = run(project(tmp_path, langs=LANGS, body='msgid "Done"\nmsgstr "Fertig"\n'), service)
    assert report.exit_code == ExitCode.OK and report.totals.segments_translated == 0
    assert service.calls == ""  # neither the usage nor the languages


class NotingTheEnd(Recording):
    """Notes the usage reads after a translate request (before the second part, after the window) in ``events``."""

    def __init__(self, events: list[str], written: Callable[[], int]) -> None:
        super().__init__(10**6)
        self.events, self.written = events, written

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/usage" and "T" in self.calls:
            self.events.append(f"read ({self.written()} catalogs written)")
        return super().handler(request)


def test_the_read_after_the_last_window_leaves_before_its_writes_and_the_run_closes_its_files_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    settings = project(tmp_path, langs=LANGS)
    catalogs = [tmp_path / "locale" / lang / "LC_MESSAGES" / "app.po" for lang in LANGS]
    close_cache, close_provenance = Connections.close_cache, Provenance.close
    after = Ledger.usage_after

    def written() -> int:
        return sum('msgstr "[' in path.read_text(encoding="utf-8") for path in catalogs)

    def closing_cache(connections: Connections) -> None:
        events.append(f"cache closed ({written()} catalogs written)")
        close_cache(connections)

    def closing_provenance(provenance: Provenance) -> None:
        if not any(e.startswith("provenance") for e in events):  # closed again as the run ends: closes nothing
            events.append(f"provenance closed ({written()} catalogs written)")
        close_provenance(provenance)

    def read_after(ledger: Ledger, allowance: Any) -> None:
        events.append("read after taken")
        after(ledger, allowance)

    monkeypatch.setattr(Connections, "close_cache", closing_cache)
    monkeypatch.setattr(Provenance, "close", closing_provenance)
    monkeypatch.setattr(Ledger, "usage_after", read_after)
    report = run(settings, NotingTheEnd(events, written))
    assert report.exit_code == ExitCode.OK
    assert all('msgstr "[' in path.read_text(encoding="utf-8") for path in catalogs)
    # Its round trip overlaps the writes, and closing the cache and the provenance once they are written. (Closed
    # while the catalogs were written, in a worker thread, the cache's and the catalogs' fsyncs slowed each other.)
    assert events[-4:] == [
        "read (0 catalogs written)",
        "cache closed (3 catalogs written)",
        "provenance closed (3 catalogs written)",
        "read after taken",
    ]
    assert sum(e.startswith("cache closed") for e in events) == 1


class UsageAnsweredAfterTheListing(FakeService):
    """Answers a usage read only once the languages listing has arrived, or after a second without it."""

    def __init__(self) -> None:
        super().__init__(languages=LANGS, usage={"character_count": 0, "character_limit": 10**6})
        self.listed: asyncio.Event | None = None
        self.usage_waited_alone = 0  # usage reads answered with no listing on its way

    async def answer(self, request: httpx.Request) -> httpx.Response:
        if self.listed is None:
            self.listed = asyncio.Event()
        if request.url.path == "/v3/languages":
            self.listed.set()
        elif request.url.path == "/v2/usage" and not self.listed.is_set():
            try:
                await asyncio.wait_for(self.listed.wait(), 1)
            except TimeoutError:
                self.usage_waited_alone += 1
        return self.handler(request)


def test_a_run_its_cache_mostly_serves_sends_the_listing_beside_the_usage_read_not_after_it(tmp_path: Path) -> None:
    # The pre-commit hook's usual run: one new entry, the rest in the cache. Its first request waits for the
    # usage read and the languages; the listing bills nothing, so both round trips overlap.
    settings = project(tmp_path, langs=LANGS)
    assert run(settings, FakeService(languages=LANGS)).exit_code == ExitCode.OK
    for lang in LANGS:
        path = tmp_path / "locale" / lang / "LC_MESSAGES" / "app.po"
        path.write_text(path.read_text(encoding="utf-8") + '\nmsgid "New"\nmsgstr ""\n', encoding="utf-8")
    service = UsageAnsweredAfterTheListing()
    assert run(settings, service).exit_code == ExitCode.OK
    assert service.language_requests == 1 and service.usage_calls >= 1
    assert service.usage_waited_alone == 0
    assert texts(service) == ["New"] * len(LANGS)
