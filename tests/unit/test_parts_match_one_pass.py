"""A catalog translated in parts (run/plan.parts) gives what one part gives: files, bill, report, stops."""

from __future__ import annotations

from pathlib import Path

import pytest

import pipeline.run.plan
from pipeline.config import Settings
from pipeline.errors import ExitCode
from tests.run_fakes import BODY, FakeService, estimate, project, run
from tests.unit.test_windows_match_one_pass import comparable

LANGS = ("de", "pl")
# The run_fakes body, then entries whose texts are sent as the same text as some of its own (edge
# whitespace is set aside, a placeholder is a tag whatever its format): parts that share texts.
REPEATED = BODY + (
    '\n\n#, python-brace-format\nmsgid "Hello {name}"\nmsgstr ""\n\nmsgctxt "verb"\nmsgid " Open"\nmsgstr ""\n\n'
    '#, python-format\nmsgid "%(count)d file "\nmsgid_plural "%(count)d files "\nmsgstr[0] ""\nmsgstr[1] ""\n\n'
    'msgid "Save"\nmsgstr ""\n\nmsgid "Save "\nmsgstr ""\n'
)


def catalogs(root: Path) -> dict[Path, bytes]:
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.glob("locale/**/*.po"))}


@pytest.fixture
def two_projects(tmp_path: Path) -> dict[str, Settings]:
    return {name: project(tmp_path / name, langs=LANGS, body=REPEATED) for name in ("whole", "parts")}


def in_parts(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    monkeypatch.setattr(pipeline.run.plan, "PART_SEGMENTS", size)


@pytest.mark.parametrize("size", [1, 2, 5])
@pytest.mark.parametrize("cache", ["folder", "no-folder", "--no-cache"])
def test_a_catalog_in_parts_is_written_billed_and_reported_as_in_one(
    two_projects: dict[str, Settings], monkeypatch: pytest.MonkeyPatch, size: int, cache: str
) -> None:
    settings = {n: s if cache == "folder" else s._replace(cache_dir=None) for n, s in two_projects.items()}
    options = {"use_cache": False} if cache == "--no-cache" else {}
    whole_service, parts_service = FakeService(languages=LANGS), FakeService(languages=LANGS)
    whole = run(settings["whole"], whole_service, **options)
    in_parts(monkeypatch, size)
    cut = run(settings["parts"], parts_service, **options)
    assert whole.exit_code == cut.exit_code == ExitCode.OK
    assert parts_service.billed == whole_service.billed  # a text two parts share is paid once
    assert len(parts_service.requests) > len(whole_service.requests)  # it was sent in parts indeed
    assert catalogs(settings["parts"].root) == catalogs(settings["whole"].root)
    # The later part finds a shared text in the cache, where one part dedupes it: counted apart.
    for report in (whole, cut):
        for counters in (report.totals, *(c.counters for c in report.catalogs)):
            counters.segments_translated += counters.segments_from_cache
            counters.segments_from_cache = counters.characters_saved = 0
    assert comparable(cut) == comparable(whole)


def test_a_dry_run_reads_one_part_and_counts_a_shared_text_once(
    two_projects: dict[str, Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = run(two_projects["whole"], FakeService(languages=LANGS), dry_run=True)
    in_parts(monkeypatch, 1)
    cut = run(two_projects["parts"], FakeService(languages=LANGS), dry_run=True)
    assert comparable(cut) == comparable(whole)


def test_a_budget_stop_in_part_one_leaves_the_later_parts_for_the_rerun_which_pays_only_for_them(
    two_projects: dict[str, Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = two_projects["parts"]
    total = estimate(run(two_projects["whole"], FakeService(languages=LANGS), dry_run=True)).characters
    in_parts(monkeypatch, 2)
    first = FakeService(languages=LANGS)
    stopped = run(settings._replace(max_characters=total // 4), first)
    assert stopped.exit_code == ExitCode.QUOTA
    assert 0 < first.billed <= total // 4
    assert stopped.remaining is not None and stopped.remaining.characters >= total - first.billed
    second = FakeService(languages=LANGS)
    assert run(settings, second).exit_code == ExitCode.OK
    assert first.billed + second.billed == total
    assert run(two_projects["whole"], FakeService(languages=LANGS)).exit_code == ExitCode.OK
    assert catalogs(settings.root) == catalogs(two_projects["whole"].root)
