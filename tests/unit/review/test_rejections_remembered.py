"""A reviewer's rejection outlives the next run: the rejected text is not written again for that entry.

The run asks the service once more with the cache bypassed (its answer cached apart); a different
answer is written, the same one leaves the entry untranslated, said once per catalog.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.catalogs import Unit, UnitState, read_catalog
from pipeline.config import ServiceSettings, Settings
from pipeline.model import Severity
from pipeline.review.session import Outcome, Session
from pipeline.run.provenance import REJECTIONS_NAME, Rejections, text_hash
from pipeline.run.records import RunReport
from tests.review_project import XLIFF_2, XLIFF_12, review_project
from tests.run_fakes import FakeService, cache_dir, project, run

CATALOG = "locale/de/LC_MESSAGES/app.po"
LEFT = "1 entry left untranslated: a reviewer rejected this translation"


def unit_of(path: Path, source: str, context: str | None = None) -> Unit:
    return next(u for u in read_catalog(path).units if u.sources[0] == source and u.context == context)


def reject(settings: Settings, source: str, context: str | None = None) -> Outcome:
    session = Session(settings, warn=pytest.fail)
    entry = next(
        e
        for e in session.entries.values()
        if (unit := session.unit(e)) is not None and unit.sources[0] == source and unit.context == context
    )
    outcome = session.reject(entry.id, entry.version)
    assert outcome.warnings == ()
    return outcome


def sent_texts(service: FakeService) -> list[str]:
    return [text for body in service.requests for text in body["text"]]


def left_issues(report: RunReport) -> list[tuple[str, str, Severity]]:
    return [(i.catalog, i.reason, i.severity) for i in report.issues if "rejected" in i.reason]


def test_a_rejected_text_is_asked_for_once_more_then_left_untranslated_and_never_paid_for_again(tmp_path: Path) -> None:
    settings = project(tmp_path)
    path = tmp_path / CATALOG
    run(settings, FakeService())
    assert unit_of(path, "Hello %(name)s").targets == ("[DE] Hello %(name)s",)
    reject(settings, "Hello %(name)s")
    assert unit_of(path, "Hello %(name)s").state is UnitState.UNTRANSLATED

    again = FakeService()  # the same engine: the same answer
    report = run(settings, again)
    assert sent_texts(again) == ['Hello <x id="1"/>']  # asked once more, the cache bypassed
    assert unit_of(path, "Hello %(name)s").state is UnitState.UNTRANSLATED
    assert left_issues(report) == [(CATALOG, LEFT, Severity.SKIPPED)]
    assert report.exit_code == 0
    assert report.catalogs[0].counters.segments_skipped == 1
    assert report.catalogs[0].counters.segments_from_cache == 0

    third = FakeService()
    report = run(settings, third)
    assert sent_texts(third) == []  # the second opinion is cached: nothing is paid for twice
    assert unit_of(path, "Hello %(name)s").state is UnitState.UNTRANSLATED
    assert left_issues(report) == [(CATALOG, LEFT, Severity.SKIPPED)]


def test_a_different_answer_the_second_time_is_written(tmp_path: Path) -> None:
    settings = project(tmp_path)
    path = tmp_path / CATALOG
    run(settings, FakeService())
    reject(settings, "Open", "verb")
    report = run(settings, FakeService(rewrite=lambda text: text.replace("Open", "Öffnen")))
    assert unit_of(path, "Open", "verb").targets == ("[DE] Öffnen",)
    assert unit_of(path, "Open", "verb").state is UnitState.FUZZY
    assert left_issues(report) == []
    nothing = FakeService()
    run(settings, nothing)
    assert sent_texts(nothing) == []


def test_a_rejected_plural_is_matched_on_every_form(tmp_path: Path) -> None:
    settings = project(tmp_path)
    path = tmp_path / CATALOG
    run(settings, FakeService())
    before = unit_of(path, "%(count)d file").targets
    assert all(before)
    reject(settings, "%(count)d file")
    report = run(settings, FakeService())
    assert unit_of(path, "%(count)d file").state is UnitState.UNTRANSLATED
    assert left_issues(report) == [(CATALOG, LEFT, Severity.SKIPPED)]
    assert Rejections(settings.cache_dir).rejects((("DE", None, ("%(count)d file", "%(count)d files"))), before)


@pytest.mark.parametrize("use_cache", [True, False])
def test_an_answer_the_service_gave_in_this_very_run_is_not_asked_for_twice(tmp_path: Path, use_cache: bool) -> None:
    settings = project(tmp_path)
    path = tmp_path / CATALOG
    run(settings, FakeService())
    reject(settings, "Hello %(name)s")
    (cache_dir(settings) / "translations.sqlite3").unlink()  # the cache is gone, what reviewers rejected is not
    fresh = FakeService()
    report = run(settings, fresh, use_cache=use_cache)  # nothing from the cache: the service's answer is its second
    assert sent_texts(fresh).count('Hello <x id="1"/>') == 1
    assert unit_of(path, "Hello %(name)s").state is UnitState.UNTRANSLATED
    assert left_issues(report) == [(CATALOG, LEFT, Severity.SKIPPED)]
    if use_cache:  # that answer was kept as its second opinion too: the next run asks nothing
        later = FakeService()
        run(settings, later)
        assert sent_texts(later) == []


def test_another_entry_with_the_same_text_keeps_it_and_the_record_names_no_catalog_and_no_key(tmp_path: Path) -> None:
    settings = project(tmp_path, langs=("de", "pl"))
    run(settings, FakeService())
    reject(settings, "Hello %(name)s")
    run(settings, FakeService())
    assert unit_of(tmp_path / "locale/pl/LC_MESSAGES/app.po", "Hello %(name)s").targets == ("[PL] Hello %(name)s",)
    raw = (cache_dir(settings) / REJECTIONS_NAME).read_text(encoding="utf-8")
    assert "secret-key" not in raw and "app.po" not in raw
    (record,) = json.loads(raw)["entries"].values()
    assert record == {
        "language": "DE",
        "context": None,
        "sources": ["Hello %(name)s"],
        "texts": [text_hash(["[DE] Hello %(name)s"])],
    }


def test_records_of_another_shape_are_dropped(tmp_path: Path) -> None:
    (tmp_path / REJECTIONS_NAME).write_text(
        json.dumps(
            {
                "version": 1,
                "entries": {
                    "a": {"language": "DE", "context": None, "sources": "Hello", "texts": ["x"]},
                    "b": {"language": 7, "context": None, "sources": ["Hello"], "texts": ["x"]},
                    "c": {"language": "DE", "context": None, "sources": ["Hello"], "texts": [1]},
                    "d": ["DE"],
                    "e": {"language": "DE", "context": "menu", "sources": ["Hello"], "texts": ["x"]},
                },
            }
        ),
        encoding="utf-8",
    )
    rejections = Rejections(tmp_path)
    assert rejections.texts(("DE", None, ("Hello",))) == frozenset()
    assert rejections.texts(("DE", "menu", ("Hello",))) == {"x"}


@pytest.mark.parametrize(("catalog", "source"), [(XLIFF_12, "Save"), (XLIFF_2, 'Open <pc id="1">{name}</pc>')])
def test_xliff_rejections_match_what_the_run_writes(tmp_path: Path, catalog: str, source: str) -> None:
    settings = review_project(tmp_path)._replace(service=ServiceSettings(url="http://fake.invalid", concurrency=1))
    reject(settings, source)  # the fixture's draft: the run then writes its own
    run(settings, FakeService())
    written = unit_of(tmp_path / catalog, source)
    assert written.state is UnitState.FUZZY and written.targets[0].startswith("[")
    reject(settings, source)
    report = run(settings, FakeService())
    assert unit_of(tmp_path / catalog, source).state is UnitState.UNTRANSLATED
    assert left_issues(report) == [(catalog, LEFT, Severity.SKIPPED)]
