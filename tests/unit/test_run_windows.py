"""A corpus bigger than a window is worked through window by window, with the same results as one pass."""

from __future__ import annotations

from pathlib import Path

import pytest

import pipeline.catalog_paths
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
