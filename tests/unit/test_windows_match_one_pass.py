"""Windows give what one pass gives: reports, bills, budgets, quota, stops and timings."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import pipeline.catalog_paths
from pipeline.config import Settings
from pipeline.errors import ExitCode
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import RunReport
from tests.run_fakes import HEADER, PLURALS, FakeService, estimate, project, run, usage


@pytest.fixture
def one_catalog_per_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline.catalog_paths, "WINDOW_BYTES", 1)


def two_german_catalogs(root: Path) -> Settings:
    """Two German catalogs with the same texts (one window each when WINDOW_BYTES = 1)."""
    settings = project(root, langs=("de",))
    other = root / "locale" / "de" / "LC_MESSAGES" / "zother.po"
    other.write_bytes((root / "locale" / "de" / "LC_MESSAGES" / "app.po").read_bytes())
    return settings


def test_a_dry_run_over_windows_counts_a_shared_text_once_as_the_real_run_bills_it(
    tmp_path: Path, one_catalog_per_window: None
) -> None:
    settings = two_german_catalogs(tmp_path)
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    whole = run(settings, FakeService(), dry_run=True)
    pipeline.catalog_paths.WINDOW_BYTES = 1
    windowed = run(settings, FakeService(), dry_run=True)
    service = FakeService()
    real = run(settings, service)
    assert real.totals.billed_characters == service.billed
    assert estimate(whole).characters == service.billed  # one window: the estimate is what is billed
    assert estimate(windowed).characters == estimate(whole).characters  # a dry run reads one window: counted once


def test_a_dry_run_budget_verdict_does_not_depend_on_windows(tmp_path: Path, one_catalog_per_window: None) -> None:
    settings = two_german_catalogs(tmp_path)
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    whole = run(settings, FakeService(), dry_run=True)
    budget = estimate(whole).characters
    whole_b = run(replace(settings, max_characters=budget), FakeService(), dry_run=True)
    pipeline.catalog_paths.WINDOW_BYTES = 1
    windowed_b = run(replace(settings, max_characters=budget), FakeService(), dry_run=True)
    assert whole_b.exit_code == windowed_b.exit_code
    assert (whole_b.stopped is None) == (windowed_b.stopped is None)


def test_remaining_after_a_budget_stop_counts_the_unread_windows_too(
    tmp_path: Path, one_catalog_per_window: None
) -> None:
    langs = ("de", "fr", "pl", "ru")
    whole_root, windowed_root = tmp_path / "whole", tmp_path / "windowed"
    whole_settings, windowed_settings = project(whole_root, langs=langs), project(windowed_root, langs=langs)
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    estimated = estimate(run(whole_settings, FakeService(languages=langs), dry_run=True)).characters
    budget = estimated // 8  # stops inside the first window either way
    whole = run(replace(whole_settings, max_characters=budget), FakeService(languages=langs))
    pipeline.catalog_paths.WINDOW_BYTES = 1
    windowed = run(replace(windowed_settings, max_characters=budget), FakeService(languages=langs))
    assert whole.exit_code == windowed.exit_code == ExitCode.QUOTA
    assert whole.totals.billed_characters == windowed.totals.billed_characters
    # "Left for the next run" must not shrink because the rest was never read
    assert windowed.remaining == whole.remaining


def test_a_rerun_after_a_budget_stop_in_window_one_pays_only_for_the_rest(
    tmp_path: Path, one_catalog_per_window: None
) -> None:
    langs = ("de", "fr", "pl", "ru")
    settings = project(tmp_path, langs=langs)
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    total = estimate(run(settings, FakeService(languages=langs), dry_run=True)).characters
    pipeline.catalog_paths.WINDOW_BYTES = 1
    first = FakeService(languages=langs)
    stopped = run(replace(settings, max_characters=total // 8), first)
    assert stopped.exit_code == ExitCode.QUOTA
    second = FakeService(languages=langs)
    rerun = run(settings, second)
    assert rerun.exit_code == ExitCode.OK
    assert first.billed + second.billed == total


def test_a_catalog_that_fails_to_parse_in_window_two(tmp_path: Path, one_catalog_per_window: None) -> None:
    langs = ("de", "fr", "pl")
    settings = project(tmp_path, langs=langs)
    bad = tmp_path / "locale" / "fr" / "LC_MESSAGES" / "app.po"
    bad.write_text(HEADER.format(lang="fr", plural=PLURALS["fr"]) + 'msgid "x\nmsgstr ""\n', encoding="utf-8")
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    whole_root = tmp_path.parent / (tmp_path.name + "-whole")
    import shutil

    shutil.copytree(tmp_path, whole_root)
    whole = run(replace(settings, root=whole_root, cache_dir=whole_root / "cache"), FakeService(languages=langs))
    pipeline.catalog_paths.WINDOW_BYTES = 1
    service = FakeService(languages=langs)
    windowed = run(settings, service)
    assert windowed.exit_code == whole.exit_code
    assert sorted((i.catalog, i.line, i.reason) for i in windowed.issues) == sorted(
        (i.catalog, i.line, i.reason) for i in whole.issues
    )
    assert {b["target_lang"] for b in service.requests} == {"DE", "PL"}


def test_refresh_across_windows_matches_one_pass(
    tmp_path: Path, one_catalog_per_window: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pipeline.run.plan as plan_module

    langs = ("de", "fr", "pl")
    roots = {name: tmp_path / name for name in ("whole", "windowed")}
    settings = {name: project(root, langs=langs) for name, root in roots.items()}
    for name in roots:
        second = roots[name] / "locale" / "de" / "LC_MESSAGES" / "zz.po"
        second.write_bytes((roots[name] / "locale" / "de" / "LC_MESSAGES" / "app.po").read_bytes())
        run(settings[name], FakeService(languages=langs))
    original = plan_module.translation_options
    monkeypatch.setattr(
        plan_module, "translation_options", lambda *args: original(*args)._replace(glossary_hash="new glossary")
    )
    services = {name: FakeService(languages=langs) for name in roots}
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    whole = run(settings["whole"], services["whole"], retranslate_stale=True)
    pipeline.catalog_paths.WINDOW_BYTES = 1
    windowed = run(settings["windowed"], services["windowed"], retranslate_stale=True)
    assert whole.exit_code == windowed.exit_code == ExitCode.OK
    assert services["windowed"].billed == services["whole"].billed
    assert {p.relative_to(roots["whole"]): p.read_bytes() for p in roots["whole"].glob("locale/**/*.po")} == {
        p.relative_to(roots["windowed"]): p.read_bytes() for p in roots["windowed"].glob("locale/**/*.po")
    }
    # (held up; the windowed report counts the second window's shared texts as from_cache: informational)


XLIFF_DATA = Path(__file__).resolve().parent.parent / "data" / "xliff"


def mixed_project(root: Path) -> Settings:
    langs = ("de", "fr", "pl")
    settings = project(root, langs=langs)
    import shutil

    for name in ("symfony_messages.fr.xlf", "xcode_de.xliff", "xliff12_inline_markup.xlf"):
        shutil.copy(XLIFF_DATA / name, root / "locale" / name)
    (root / "locale" / "de" / "LC_MESSAGES" / "broken.po").write_text('msgid "x\nmsgstr ""\n', encoding="utf-8")
    return replace(settings, catalogs=("locale/*/LC_MESSAGES/*.po", "locale/*.xlf", "locale/*.xliff"))


def comparable(report: RunReport) -> dict[str, Any]:
    from pipeline.run.report import to_json

    data = to_json(report)
    for volatile in ("duration_seconds", "timings", "usage", "context_requests"):
        data.pop(volatile)
    # Windows send more requests (a language's texts split across windows): expected, not compared.
    for counts in [data["totals"], *data["languages"].values(), *data["catalogs"], data["would_send"] or {}]:
        for key in ("requests", "requests_lower_bound", "context_requests"):
            counts.pop(key, None)
    data["issues"] = sorted(data["issues"], key=lambda i: (i["catalog"], str(i["line"]), i["reason"]))
    if data["would_write"] is not None:
        data["would_write"] = sorted(data["would_write"], key=str)
    return data


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"dry_run": True},
        {"dry_run": True, "frozen": True},
        {"target_langs": ("fr",)},
        {"dry_run": True, "target_langs": ("de",)},
    ],
    ids=["real", "dry", "frozen", "target-fr", "dry-target-de"],
)
def test_report_of_a_windowed_run_is_the_one_pass_report(
    tmp_path: Path, one_catalog_per_window: None, options: dict[str, Any]
) -> None:
    whole_root, windowed_root = tmp_path / "whole", tmp_path / "windowed"
    whole_settings, windowed_settings = mixed_project(whole_root), mixed_project(windowed_root)
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    whole = run(whole_settings, FakeService(languages=("de", "fr", "pl")), **options)
    pipeline.catalog_paths.WINDOW_BYTES = 1
    windowed = run(windowed_settings, FakeService(languages=("de", "fr", "pl")), **options)
    assert comparable(windowed) == comparable(whole)


@pytest.mark.parametrize("mangle", [True, {"xml"}], ids=["all-schemes", "xml-only"])
def test_the_budget_spans_windows_even_when_answers_are_refused_by_the_gate(
    tmp_path: Path, one_catalog_per_window: None, mangle: bool | set[str]
) -> None:
    langs = ("de", "fr", "pl", "ru")
    settings = project(tmp_path, langs=langs)
    probe_root = tmp_path.parent / (tmp_path.name + "-probe")
    probe = project(probe_root, langs=langs)
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    unlimited = FakeService(languages=langs, mangle=mangle)
    run(probe, unlimited)
    pipeline.catalog_paths.WINDOW_BYTES = 1
    budget = unlimited.billed * 2 // 3
    service = FakeService(languages=langs, mangle=mangle)
    report = run(replace(settings, max_characters=budget), service)
    assert service.billed <= budget, (service.billed, budget, unlimited.billed)
    assert report.totals.billed_characters == service.billed


@pytest.mark.parametrize("no_cache", ["option", "settings"], ids=["--no-cache", "cache-dir-empty"])
def test_a_text_shared_by_two_windows_is_billed_once_without_a_cache(
    tmp_path: Path, one_catalog_per_window: None, no_cache: str
) -> None:
    whole_root, windowed_root = tmp_path / "whole", tmp_path / "windowed"
    whole_settings, windowed_settings = two_german_catalogs(whole_root), two_german_catalogs(windowed_root)
    options = {"use_cache": False} if no_cache == "option" else {}
    if no_cache == "settings":
        whole_settings = replace(whole_settings, cache_dir=None)
        windowed_settings = replace(windowed_settings, cache_dir=None)
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    once = FakeService()
    assert run(whole_settings, once, **options).exit_code == ExitCode.OK
    pipeline.catalog_paths.WINDOW_BYTES = 1
    windowed = FakeService()
    assert run(windowed_settings, windowed, **options).exit_code == ExitCode.OK
    assert windowed.billed == once.billed  # without a cache: one window, paid once


def test_the_usage_before_the_run_is_read_before_the_first_window(tmp_path: Path, one_catalog_per_window: None) -> None:
    langs = ("de", "fr", "pl")
    settings = project(tmp_path, langs=langs)
    service = FakeService(languages=langs, usage={"character_count": 1000, "character_limit": 100000})
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK and service.billed > 0
    # "usage before the run" (report.json usage.before, the CLI's usage line) must be the account before any
    # window sent anything, not before the last window.
    assert usage(report).account_count == 1000
    assert usage(report, "after").account_count == 1000 + service.billed


def test_a_quota_too_small_for_the_run_is_checked_per_window_and_says_what_was_sent(
    tmp_path: Path, one_catalog_per_window: None
) -> None:
    langs = ("de", "fr", "pl", "ru")
    probe_root = tmp_path.parent / (tmp_path.name + "-probe")
    pipeline.catalog_paths.WINDOW_BYTES = 10**9
    needed = estimate(run(project(probe_root, langs=langs), FakeService(languages=langs), dry_run=True)).characters
    limit = {"character_count": 0, "character_limit": needed // 2}  # fits the first window, not the run
    whole = FakeService(languages=langs, usage=limit)
    whole_report = run(project(tmp_path / "whole", langs=langs), whole)
    # One window: its first catalog is a part of its own, checked and sent while the others are read
    # (the window's whole need is not known yet); the second part is refused before it sends anything.
    assert whole_report.exit_code == ExitCode.QUOTA
    assert 0 < whole.billed < needed // 2 and whole_report.totals.billed_characters == whole.billed
    pipeline.catalog_paths.WINDOW_BYTES = 1
    windowed = FakeService(languages=langs, usage=limit)
    report = run(project(tmp_path / "windowed", langs=langs), windowed)
    assert report.exit_code == ExitCode.QUOTA
    # Each window checks what is left before it sends (the run's whole need is not known before its
    # last window is read): window 1 fits and is sent; a later one is refused, and says so truly.
    assert 0 < windowed.billed < needed and report.totals.billed_characters == windowed.billed
    assert f"nothing more was sent after the {windowed.billed:,} characters billed earlier in the run" in str(
        report.stopped
    )
    assert usage(report).account_count == 0  # the usage before the run, not before the refused window


def test_stage_timings_of_windows_add_up_to_the_run(tmp_path: Path, one_catalog_per_window: None) -> None:
    langs = ("de", "fr", "pl", "ru")
    settings = project(tmp_path, langs=langs)
    now = [0.0]  # the run's clock, moved only by the service's answers

    def slow(text: str) -> str:
        now[0] += 0.05  # each answer takes a while: later windows start well after the run did
        return text

    service = FakeService(languages=langs, rewrite=slow)
    report = run_translate(
        settings, RunOptions(), log=lambda m: None, client_factory=service.factory(), clock=lambda: now[0]
    )
    assert report.exit_code == ExitCode.OK
    answers = sum(len(request["text"]) for request in service.requests)
    assert len(service.requests) >= len(langs) and report.duration_seconds == pytest.approx(0.05 * answers)
    # Every second counts once: the stages add up to the run, all of it spent sending (none scanning). A
    # window's requests go out while the window before is written: the seconds they take then may count
    # as that window's writing, as its stages count the seconds until it has ended.
    assert sum(report.timings.values()) == pytest.approx(report.duration_seconds)
    assert report.timings["scan"] == report.timings["reuse"] == 0.0
    assert report.timings["translate"] > 0.0, report.timings
