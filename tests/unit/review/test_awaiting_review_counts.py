"""What awaits review is counted where people look: the run's report (settled catalogs too) and ``pipeline check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.catalogs import Reviewed, UnitState, read_catalog
from pipeline.cli import main
from pipeline.run.report import to_json, to_markdown
from tests.review_project import review_project
from tests.run_fakes import FakeService, cache_dir, project, run

CATALOG = "locale/de/LC_MESSAGES/app.po"


def fuzzy_units(path: Path) -> int:
    return sum(1 for u in read_catalog(path).units if u.state is UnitState.FUZZY)


def test_the_report_counts_what_awaits_review_after_the_run_and_a_skipped_catalog_keeps_its_count(
    tmp_path: Path,
) -> None:
    settings = project(tmp_path)
    path = tmp_path / CATALOG
    before = fuzzy_units(path)
    first = run(settings, FakeService())
    after = fuzzy_units(path)
    assert after > before > 0
    assert first.totals.awaiting_review == after
    assert to_json(first)["catalogs"][0]["awaiting_review"] == after
    assert f"{after} entries await review" in to_markdown(first)
    again = run(settings, FakeService())  # nothing new: the catalog is not even read
    assert again.unchanged_catalogs == 1 and again.totals.awaiting_review == after
    catalog = read_catalog(path)  # a reviewer accepts one entry
    index = next(u.position for u in catalog.units if u.state is UnitState.FUZZY)
    path.write_bytes(catalog.render_reviewed({index: Reviewed()}))
    assert run(settings, FakeService()).totals.awaiting_review == after - 1


def test_a_settled_record_without_the_count_is_read_again_once(tmp_path: Path) -> None:
    settings = project(tmp_path)
    run(settings, FakeService())
    state = cache_dir(settings) / "state.json"
    data = json.loads(state.read_text(encoding="utf-8"))
    for record in data["catalogs"].values():
        del record["awaiting"]  # as an older version saved it
    state.write_text(json.dumps(data), encoding="utf-8")
    again = run(settings, FakeService())
    assert again.unchanged_catalogs == 0 and again.totals.awaiting_review == fuzzy_units(tmp_path / CATALOG)
    assert run(settings, FakeService()).unchanged_catalogs == 1


def test_check_says_how_many_entries_await_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    review_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 0
    assert capsys.readouterr().err.rstrip().endswith("; 8 entries await review (pipeline review)")
