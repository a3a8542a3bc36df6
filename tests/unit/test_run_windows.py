"""A corpus bigger than a window is worked through window by window, with the same results as one pass."""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

import pipeline.catalog_paths
import pipeline.run.write
from pipeline.catalog_paths import catalog_windows
from pipeline.catalogs import read_catalog
from pipeline.errors import ExitCode
from tests.run_fakes import FakeService, estimate, project, run


def sized(tmp_path: Path, *sizes: int) -> list[Path]:
    paths = []
    for number, size in enumerate(sizes):
        path = tmp_path / f"{number}.po"
        path.write_bytes(b"#" * size)
        paths.append(path)
    return paths


def test_windows_keep_the_order_and_stay_within_the_budget(tmp_path: Path) -> None:
    paths = sized(tmp_path, 40, 50, 10, 100, 30, 30)
    windows = catalog_windows(paths, budget=100)
    assert windows == [paths[0:3], paths[3:4], paths[4:6]]


def test_a_catalog_bigger_than_the_budget_sets_the_window(tmp_path: Path) -> None:
    paths = sized(tmp_path, 40, 250, 100, 100, 60)
    assert catalog_windows(paths, budget=100) == [paths[0:1], paths[1:2], paths[2:4], paths[4:5]]


def test_a_missing_catalog_counts_nothing_and_stays_in_its_place(tmp_path: Path) -> None:
    first, last = sized(tmp_path, 60, 60)
    paths = [first, tmp_path / "gone.po", last]
    assert catalog_windows(paths, budget=100) == [paths[0:2], paths[2:3]]


LANGS = ("de", "fr", "pl", "ru")


def catalogs(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.glob("locale/*/LC_MESSAGES/*.po"))}


@pytest.fixture
def one_catalog_per_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline.catalog_paths, "WINDOW_BYTES", 1)


def test_windows_write_what_one_pass_writes_and_bill_it_once(tmp_path: Path, one_catalog_per_window: None) -> None:
    whole, windowed = tmp_path / "whole", tmp_path / "windowed"
    settings_whole, settings_windowed = project(whole, langs=LANGS), project(windowed, langs=LANGS)
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    one_pass = run(settings_whole, FakeService(languages=LANGS))
    pipeline.catalog_paths.WINDOW_BYTES = 1
    service = FakeService(languages=LANGS)
    report = run(settings_windowed, service)
    assert report.exit_code == one_pass.exit_code == ExitCode.OK
    assert catalogs(windowed) == catalogs(whole)
    assert report.totals.billed_characters == one_pass.totals.billed_characters == service.billed
    assert report.totals.segments_translated == one_pass.totals.segments_translated
    # The account has no limit: no quota check can stop the run, so its usage is read before the first
    # request and after the last, whatever the number of windows.
    assert service.usage_calls == 2


def test_a_dry_run_reads_one_window_and_estimates_as_one_pass(tmp_path: Path, one_catalog_per_window: None) -> None:
    settings = project(tmp_path, langs=LANGS)
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    whole = run(settings, FakeService(languages=LANGS), dry_run=True)
    pipeline.catalog_paths.WINDOW_BYTES = 1
    windowed = run(settings, FakeService(languages=LANGS), dry_run=True)
    assert estimate(whole).characters > 0
    assert windowed.would_send == whole.would_send
    assert windowed.would_write == whole.would_write


def test_after_a_quota_stop_later_windows_send_nothing_and_count_as_left(
    tmp_path: Path, one_catalog_per_window: None
) -> None:
    settings = project(tmp_path, langs=LANGS)
    before = catalogs(tmp_path)
    service = FakeService(languages=LANGS, fail_with={1: 456})  # the first window's request: quota exceeded
    report = run(settings, service)
    assert report.exit_code == ExitCode.QUOTA and len(service.requests) == 1
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    one_pass = FakeService(languages=LANGS, fail_with={1: 456})
    whole = run(project(tmp_path / "whole", langs=LANGS), one_pass)
    assert report.remaining == whole.remaining  # read and counted as in one window, not sent
    assert not [i for i in report.issues if "not read" in i.reason]
    rerun = FakeService(languages=LANGS)
    assert run(settings, rerun).exit_code == ExitCode.OK
    assert {body["target_lang"] for body in rerun.requests} == {"DE", "FR", "PL", "RU"}
    for name in before:
        assert any(u.state.name == "FUZZY" for u in read_catalog(tmp_path / name).units)


def test_the_budget_spans_the_windows(tmp_path: Path, one_catalog_per_window: None) -> None:
    settings = project(tmp_path, langs=LANGS)
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    whole = run(settings, FakeService(languages=LANGS), dry_run=True)
    pipeline.catalog_paths.WINDOW_BYTES = 1
    budget = estimate(whole).characters // 2
    service = FakeService(languages=LANGS)
    report = run(settings._replace(max_characters=budget), service)
    assert report.exit_code == ExitCode.QUOTA and "budget" in str(report.stopped)
    assert 0 < service.billed <= budget


class HoldsTheNextWindow(FakeService):
    """Holds the first window's (German) last answers until the next window's (French) request has come, and
    that one until the first window's catalog is written: a window written while the next one's request is out.
    The first German answer goes at once: the limit grows by one, and the French request gets a place."""

    def __init__(self) -> None:
        super().__init__(languages=("de", "fr"))
        self.german = 0
        self.french_came: asyncio.Event | None = None
        self.german_written: asyncio.Event | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    async def answer(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/translate":
            if self.french_came is None or self.german_written is None:
                self.french_came, self.german_written = asyncio.Event(), asyncio.Event()
                self.loop = asyncio.get_running_loop()
            if json.loads(request.content)["target_lang"] == "FR":
                self.french_came.set()
                await self.german_written.wait()
            else:
                self.german += 1
                if self.german > 1:
                    await self.french_came.wait()
        return self.handler(request)

    def written(self) -> None:
        assert self.loop is not None and self.german_written is not None
        self.loop.call_soon_threadsafe(self.german_written.set)


def test_a_window_is_written_off_the_event_loop_while_the_next_ones_requests_are_out(
    tmp_path: Path, one_catalog_per_window: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = project(tmp_path, langs=("de", "fr"))
    settings = settings._replace(service=replace(settings.service, concurrency=2))
    service = HoldsTheNextWindow()
    written_on: list[tuple[str, bool]] = []
    write_catalogs = pipeline.run.write.write_catalogs

    def recorded(mark_fuzzy: bool, jobs: Any, review: Any = None) -> Any:
        for scanned, _, _ in jobs:
            written_on.append((scanned.target_lang, threading.current_thread() is threading.main_thread()))
        outcomes = write_catalogs(mark_fuzzy, jobs, review)
        if any(scanned.target_lang == "DE" for scanned, _, _ in jobs):
            service.written()
        return outcomes

    monkeypatch.setattr(pipeline.run.write, "write_catalogs", recorded)
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK and report.totals.segments_failed == 0
    # German while the French request was out: in a worker thread, the loop free to answer it. French
    # last, with nothing in flight: on the loop, as before.
    assert written_on == [("DE", False), ("FR", True)]
