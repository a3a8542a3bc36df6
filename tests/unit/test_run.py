"""The whole run against a scripted fake service (httpx.MockTransport, tests/run_fakes.py): no sockets."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.config import Settings
from pipeline.errors import ExitCode, UsageError
from pipeline.run import write
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import Remaining
from tests.run_fakes import HEADER, PLURALS, FakeService, cache_dir, estimate, project, run


def test_untranslated_entries_are_filled_and_marked_fuzzy(tmp_path: Path, msgfmt_check: Callable[[Path], None]) -> None:
    settings = project(tmp_path, langs=("de", "pl"))
    service = FakeService()
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK, report.issues
    de = read_catalog(tmp_path / "locale/de/LC_MESSAGES/app.po")
    by_id = {u.sources[0]: u for u in de.units}
    assert by_id["Hello %(name)s"].targets == ("[DE] Hello %(name)s",)
    assert by_id["Hello %(name)s"].flags == ("fuzzy", "python-format")
    assert by_id["Open"].targets == ("[DE] Open",)
    assert by_id["%(count)d file"].targets == ("[DE] %(count)d file", "[DE] %(count)d files")
    assert by_id["%(name)s"].targets == ("%(name)s",)  # nothing to translate: copied, not sent
    assert by_id["Human"].targets == ("Mensch",) and by_id["Human"].state is UnitState.TRANSLATED
    assert by_id["Review me"].targets == ("Prüf mich",)
    pl = read_catalog(tmp_path / "locale/pl/LC_MESSAGES/app.po")
    plural = next(u for u in pl.units if u.plural)
    assert plural.targets == ("[PL] %(count)d file", "[PL] %(count)d files", "[PL] %(count)d files")
    for lang in ("de", "pl"):
        msgfmt_check(tmp_path / f"locale/{lang}/LC_MESSAGES/app.po")
    # Polish plural: the singular for "one", and "2 files", "5 files" (representative numbers); the plain
    # plural, their fallback, is not sent since both numbers came back.
    assert report.totals.segments_translated == 9 and report.totals.segments_copied == 2
    assert report.totals.billed_characters == sum(len(t) for r in service.requests for t in r["text"])
    assert all(
        r["tag_handling"] == "xml" and r["ignore_tags"] == ["x"] and r["source_lang"] == "EN" for r in service.requests
    )
    assert all("%(name)s" not in t for r in service.requests for t in r["text"])  # placeholders never sent


def test_context_is_sent_and_groups_requests(tmp_path: Path) -> None:
    service = FakeService()
    run(project(tmp_path), service)
    contexts = sorted(r.get("context") or "" for r in service.requests)
    assert contexts == ["", "verb"]


def test_second_run_sends_nothing_and_cache_serves_a_reset_catalog(tmp_path: Path) -> None:
    settings = project(tmp_path)
    original = (tmp_path / "locale/de/LC_MESSAGES/app.po").read_bytes()
    first = FakeService()
    run(settings, first)
    second = FakeService()
    report = run(settings, second)
    assert second.requests == [] and report.totals.segments_translated == 0
    translated = (tmp_path / "locale/de/LC_MESSAGES/app.po").read_bytes()
    (tmp_path / "locale/de/LC_MESSAGES/app.po").write_bytes(original)
    third = FakeService()
    report = run(settings, third)
    assert third.requests == []
    assert report.totals.segments_from_cache == 4 and report.totals.characters_saved > 0
    assert (tmp_path / "locale/de/LC_MESSAGES/app.po").read_bytes() == translated


def test_identical_texts_are_sent_once_across_catalogs(tmp_path: Path) -> None:
    settings = project(tmp_path)
    other = tmp_path / "locale/de/LC_MESSAGES/other.po"
    shutil.copy(tmp_path / "locale/de/LC_MESSAGES/app.po", other)
    service = FakeService()
    report = run(settings, service)
    sent = [t for r in service.requests for t in r["text"]]
    assert len(sent) == len(set(sent)) == 4
    # app.po is a part of its own, sent while other.po is scanned; other.po's part finds what it paid for
    # in the cache (or waits for it while it is in flight: pipeline.run.send.claims).
    assert (report.totals.segments_translated, report.totals.segments_from_cache) == (4, 4)
    assert report.totals.billed_characters == service.billed


def test_broken_placeholders_are_never_written(tmp_path: Path) -> None:
    settings = project(tmp_path)
    path = tmp_path / "locale/de/LC_MESSAGES/app.po"
    before = path.read_bytes()
    report = run(settings, FakeService(mangle=True))
    assert report.exit_code == ExitCode.PARTIAL
    failed = [i for i in report.issues if "missing" in i.reason]
    assert {i.line for i in failed} == {8, 19} and all(i.catalog.endswith("app.po") for i in failed)
    units = {u.sources[0]: u for u in read_catalog(path).units}
    assert units["Hello %(name)s"].state is UnitState.UNTRANSLATED
    assert units["Open"].targets == ("[DE] Open",)
    assert path.read_bytes() != before
    retry = FakeService()
    run(settings, retry)  # the damaged answers were not cached: asked again, and now written
    assert sum(len(r["text"]) for r in retry.requests) == 3  # "Hello" and both plural forms


def test_damaged_placeholders_are_recovered_by_showing_them_another_way(tmp_path: Path) -> None:
    settings = project(tmp_path)
    path = tmp_path / "locale/de/LC_MESSAGES/app.po"
    service = FakeService(mangle={"xml"})  # damages tags, keeps non-translatable html spans
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK, report.issues
    units = {u.sources[0]: u for u in read_catalog(path).units}
    assert units["Hello %(name)s"].targets == ("[DE] Hello %(name)s",)
    assert units["Hello %(name)s"].state is UnitState.FUZZY
    assert report.recovery["DE"].segments == {"html": 3}
    retried = [r for r in service.requests if r.get("tag_handling") != "xml" or r.get("tag_handling_version")]
    assert report.recovery["DE"].characters == sum(len(t) for r in retried for t in r["text"]) > 0
    # Only the damaged texts were sent again, and nothing is sent for them on the next run.
    assert sum(len(r["text"]) for r in retried[-1:]) == 3
    again = FakeService(mangle={"xml"})
    path.write_bytes(path.read_bytes().replace(b'msgstr "[DE] Hello %(name)s"', b'msgstr ""'))
    run(settings, again)
    assert [r for r in again.requests if "text" in r] == []


def test_pieces_are_the_last_resort_and_stay_marked_for_review(tmp_path: Path) -> None:
    settings = project(tmp_path)._replace(mark_fuzzy=False)
    path = tmp_path / "locale/de/LC_MESSAGES/app.po"
    report = run(settings, FakeService(mangle={"xml", "html", "tokens"}))
    assert report.recovery["DE"].segments == {"pieces": 3}
    notes = [i for i in report.issues if "in pieces" in i.reason]
    assert notes and {i.severity for i in notes} == {"skipped"}  # fuzzy marking is off: left for a human
    units = {u.sources[0]: u for u in read_catalog(path).units}
    assert units["Hello %(name)s"].state is UnitState.UNTRANSLATED
    report = run(settings._replace(mark_fuzzy=True), FakeService(mangle={"xml", "html", "tokens"}))
    units = {u.sources[0]: u for u in read_catalog(path).units}
    assert units["Hello %(name)s"].targets == ("[DE] Hello %(name)s",)
    assert units["Hello %(name)s"].state is UnitState.FUZZY


def test_a_broken_catalog_is_reported_and_the_others_are_translated(tmp_path: Path) -> None:
    settings = project(tmp_path, langs=("de", "pl"))
    bad = tmp_path / "locale/pl/LC_MESSAGES/app.po"
    bad.write_text(bad.read_text(encoding="utf-8").replace('msgstr "Fertig"', 'msgstr Fertig"'), encoding="utf-8")
    before = bad.read_bytes()
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.PARTIAL
    (issue,) = [i for i in report.issues if i.severity == "error"]
    assert issue.catalog == "locale/pl/LC_MESSAGES/app.po" and issue.line == 12
    assert bad.read_bytes() == before
    assert read_catalog(tmp_path / "locale/de/LC_MESSAGES/app.po").units[0].state is UnitState.FUZZY


def test_quota_stops_the_run_and_keeps_what_was_done(tmp_path: Path) -> None:
    settings = project(tmp_path, langs=("de", "pl"))
    service = FakeService(fail_with={3: 456})
    report = run(settings, service)
    assert report.stopped is not None
    assert report.exit_code == ExitCode.QUOTA and report.stopped.message.startswith("quota exceeded")
    done = report.totals.segments_translated
    assert 0 < done < 9
    rerun = FakeService()
    report = run(settings, rerun)
    assert report.exit_code == ExitCode.OK
    assert report.totals.segments_translated == 9 - done  # nothing paid twice


def test_a_refused_key_stops_with_exit_4(tmp_path: Path) -> None:
    report = run(project(tmp_path), FakeService(fail_with={1: 403}))
    assert report.stopped is not None
    assert report.exit_code == ExitCode.UNAVAILABLE and "403" in report.stopped.message


def test_a_rejected_request_fails_its_segments_only(tmp_path: Path) -> None:
    report = run(project(tmp_path), FakeService(fail_with={1: 400}))
    assert report.exit_code == ExitCode.PARTIAL
    assert report.totals.segments_failed + report.totals.segments_translated == 4


def test_dry_run_sends_and_writes_nothing(tmp_path: Path) -> None:
    settings = project(tmp_path)
    before = (tmp_path / "locale/de/LC_MESSAGES/app.po").read_bytes()
    service = FakeService()
    report = run(settings, service, dry_run=True)
    assert service.requests == [] and estimate(report).segments == 4 and estimate(report).requests == 2
    assert (tmp_path / "locale/de/LC_MESSAGES/app.po").read_bytes() == before


def test_no_service_configured_is_a_usage_error(tmp_path: Path) -> None:
    settings = Settings(root=tmp_path)
    with pytest.raises(UsageError, match="--service-url"):
        run_translate(settings, RunOptions(), log=lambda m: None)


def test_target_language_filter(tmp_path: Path) -> None:
    settings = project(tmp_path, langs=("de", "pl"))
    service = FakeService()
    run(settings, service, target_langs=("pl",))
    assert {r["target_lang"] for r in service.requests} == {"PL"}


def test_a_413_splits_the_batch_until_it_fits(tmp_path: Path) -> None:
    service = FakeService(max_texts=1)
    report = run(project(tmp_path), service)
    assert report.exit_code == ExitCode.OK
    answered = [r for r in service.requests if len(r["text"]) <= 1]
    assert report.totals.requests == len(answered) == 4 and report.totals.segments_translated == 4


def test_a_tampered_cache_entry_is_a_miss_not_a_crash(tmp_path: Path) -> None:
    import sqlite3

    from pipeline.cache import TranslationCache
    from pipeline.cache.local import FILE_NAME

    settings = project(tmp_path)
    original = (tmp_path / "locale/de/LC_MESSAGES/app.po").read_bytes()
    run(settings, FakeService())
    with sqlite3.connect(cache_dir(settings) / FILE_NAME) as db:
        keys = [key for (key,) in db.execute("SELECT key FROM translations")]
    db.close()
    cache = TranslationCache(settings.cache_dir)
    for key in keys:
        cache.set(key, "placeholders gone")
    cache.close()
    (tmp_path / "locale/de/LC_MESSAGES/app.po").write_bytes(original)
    service = FakeService()
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK
    assert report.totals.segments_from_cache == 1  # "Open" has no placeholder: still restorable
    assert report.totals.segments_translated == 3


PLURAL_ONLY = (
    '#, python-format\nmsgid "%(count)d file"\nmsgid_plural "%(count)d files"\nmsgstr[0] ""\nmsgstr[1] ""\n'
    'msgstr[2] ""\n'
)
RU = "locale/ru/LC_MESSAGES/app.po"


def sent(service: FakeService) -> list[list[str]]:
    return [r["text"] for r in service.requests]


def test_a_plural_whose_numbers_all_come_back_costs_its_number_sentences_only(tmp_path: Path) -> None:
    service = FakeService()
    report = run(project(tmp_path, langs=("ru",), body=PLURAL_ONLY), service)
    assert report.exit_code == ExitCode.OK and sent(service) == [["1 file", "2 files", "5 files"]]
    assert report.totals.billed_characters == len("1 file") + len("2 files") + len("5 files")
    assert read_catalog(tmp_path / RU).units[0].targets == (
        "[RU] %(count)d file",
        "[RU] %(count)d files",
        "[RU] %(count)d files",
    )
    assert not [i for i in report.issues if i.severity == "warning"]


def spell_out_two(text: str) -> str:
    return text.replace("2 files", "two files")


def test_a_form_whose_number_fails_gets_its_fallback_in_a_second_round_and_a_rerun_is_free(tmp_path: Path) -> None:
    settings = project(tmp_path, langs=("ru",), body=PLURAL_ONLY)
    original = (tmp_path / RU).read_bytes()
    service = FakeService(rewrite=spell_out_two)
    report = run(settings, service)
    # Round one: the number sentences; round two: only the plural the failed form falls back to.
    assert sent(service) == [["1 file", "2 files", "5 files"], ['<x id="1"/> files']]
    assert report.exit_code == ExitCode.OK and report.totals.requests == 2
    assert service.language_requests == 1  # read once for both rounds
    assert report.totals.billed_characters == 20 + len('<x id="1"/> files')
    unit = read_catalog(tmp_path / RU).units[0]
    assert unit.targets == ("[RU] %(count)d file", "[RU] %(count)d files", "[RU] %(count)d files")
    assert "fuzzy" in unit.flags
    assert [i.reason for i in report.issues if i.severity == "warning"] == [
        "plural forms msgstr[1] copied from the plural translation: the representative number did not come back "
        "exactly once"
    ]
    (tmp_path / RU).write_bytes(original)
    rerun = FakeService(rewrite=spell_out_two)
    report = run(settings, rerun)
    assert rerun.requests == [] and report.totals.segments_from_cache == 4  # the fallback too, in round one
    assert (tmp_path / RU).read_bytes() != original and report.totals.billed_characters == 0


def test_a_dry_run_estimates_round_one_and_counts_the_possible_fallbacks(tmp_path: Path) -> None:
    settings = project(tmp_path, langs=("ru",), body=PLURAL_ONLY)
    report = run(settings, FakeService(), dry_run=True)
    assert estimate(report).texts == 3 and estimate(report).characters == 20
    assert estimate(report).fallback_texts == 2  # the plain singular and plural, only if a number fails
    from pipeline.run.report import to_markdown

    assert "plus up to 2 plural fallback texts if representative numbers do not come back" in to_markdown(report)
    original = (tmp_path / RU).read_bytes()
    run(settings, FakeService(rewrite=spell_out_two))
    (tmp_path / RU).write_bytes(original)
    report = run(settings, FakeService(), dry_run=True)
    assert estimate(report).texts == 0 and estimate(report).fallback_texts == 1  # the singular: unused


def test_both_rounds_share_the_budget_and_a_rerun_sends_only_the_fallback(tmp_path: Path) -> None:

    settings = project(tmp_path, langs=("ru",), body=PLURAL_ONLY)._replace(max_characters=20)
    service = FakeService(rewrite=spell_out_two)
    report = run(settings, service)  # round one spends the whole budget: the fallback does not fit
    assert sent(service) == [["1 file", "2 files", "5 files"]]
    assert report.stopped is not None
    assert report.exit_code == ExitCode.QUOTA and report.stopped.message.startswith("budget of 20")
    assert report.remaining == Remaining(segments=1, texts=1, characters=len('<x id="1"/> files'))
    assert read_catalog(tmp_path / RU).units[0].state is UnitState.UNTRANSLATED  # nothing approximate written
    service = FakeService(rewrite=spell_out_two)
    report = run(settings._replace(max_characters=None), service)
    assert sent(service) == [['<x id="1"/> files']] and report.totals.segments_from_cache == 3
    assert read_catalog(tmp_path / RU).units[0].targets[1] == "[RU] %(count)d files"


def test_a_stop_in_round_one_means_no_round_two(tmp_path: Path) -> None:
    body = (
        PLURAL_ONLY + '\n#, python-format\nmsgctxt "calendar"\nmsgid "%(count)d day"\n'
        'msgid_plural "%(count)d days"\nmsgstr[0] ""\nmsgstr[1] ""\nmsgstr[2] ""\n'
    )
    service = FakeService(fail_with={2: 456}, rewrite=spell_out_two)  # the second request (other context) fails
    report = run(project(tmp_path, langs=("ru",), body=body), service)
    assert sent(service) == [["1 file", "2 files", "5 files"], ["1 day", "2 days", "5 days"]]
    assert report.remaining is not None
    assert report.exit_code == ExitCode.QUOTA and report.remaining.texts == 3  # the days; no fallback sent
    assert all(u.state is UnitState.UNTRANSLATED for u in read_catalog(tmp_path / RU).units)


def test_a_catalog_edited_during_the_run_is_not_overwritten_and_a_rerun_is_free(tmp_path: Path) -> None:
    settings = project(tmp_path)
    path = tmp_path / "locale" / "de" / "LC_MESSAGES" / "app.po"
    edited = path.read_text(encoding="utf-8").replace('msgstr "Mensch"', 'msgstr "Menschlich"')

    def translator_saves(text: str) -> str:  # a translator saves the file while the requests are out
        path.write_text(edited, encoding="utf-8")
        return text

    report = run(settings, FakeService(rewrite=translator_saves))
    assert path.read_text(encoding="utf-8") == edited
    assert report.exit_code == ExitCode.PARTIAL
    assert [i.reason for i in report.issues if "changed or removed" in i.reason] == [write.CHANGED]
    assert report.totals.segments_not_written > 0 and report.translations_cached  # what the summary says of them
    service = FakeService()
    again = run(settings, service)
    assert again.exit_code == ExitCode.OK and service.requests == []
    assert 'msgstr "Menschlich"' in path.read_text(encoding="utf-8")


def test_a_catalog_removed_during_the_run_is_not_recreated(tmp_path: Path) -> None:
    settings = project(tmp_path)
    path = tmp_path / "locale" / "de" / "LC_MESSAGES" / "app.po"

    def removing(text: str) -> str:
        path.unlink(missing_ok=True)
        return text

    report = run(settings, FakeService(rewrite=removing))
    assert not path.exists()
    assert report.exit_code == ExitCode.PARTIAL


IDENTITY_BODY = (
    '#, python-format\nmsgid "Badge layout: %(name)s"\nmsgstr ""\n\n'
    '#, python-brace-format\nmsgid "Badge layout: {}"\nmsgstr ""\n\n'
    'msgid "Delete "\nmsgstr ""\n\nmsgid "Delete"\nmsgstr ""\n\n'
    '#, sh-format\nmsgid "Running as process $pid."\nmsgstr ""\n'
)


def test_segments_sharing_a_text_each_get_their_own_placeholders_and_edges(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    # The "Badge layout" defect: both entries protect to the same text, which is sent once.
    settings = project(tmp_path, body=IDENTITY_BODY)
    path = tmp_path / "locale/de/LC_MESSAGES/app.po"
    service = FakeService()
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK, report.issues
    assert sum(len(r["text"]) for r in service.requests) == 3  # shared texts sent once
    targets = {u.sources[0]: u.targets[0] for u in read_catalog(path).units}
    assert targets["Badge layout: %(name)s"] == "[DE] Badge layout: %(name)s"
    assert targets["Badge layout: {}"] == "[DE] Badge layout: {}"
    assert targets["Delete "] == "[DE] Delete " and targets["Delete"] == "[DE] Delete"
    assert targets["Running as process $pid."] == "[DE] Running as process $pid."
    assert "$pid" not in json.dumps(service.requests)  # an sh-format variable is a placeholder, never sent
    msgfmt_check(path)
    # Served from the cache the same way: each its own.
    path.write_text(HEADER.format(lang="de", plural=PLURALS["de"]) + IDENTITY_BODY, encoding="utf-8")
    again = FakeService()
    run(settings, again)
    assert again.requests == []  # every translate request is recorded: none was sent
    assert {u.sources[0]: u.targets[0] for u in read_catalog(path).units} == targets


def test_a_language_not_offered_settles_until_the_service_list_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = project(tmp_path, langs=("de", "ja"))
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.PARTIAL
    reasons = {i.reason for i in report.issues if i.severity == "error"}
    assert reasons == {
        "the service does not offer Japanese (JA) as a target language: 3 segments not translated; written all the "
        'same: 1 with nothing to translate, copied as they are (set [translate] unsupported_languages = "skip" to '
        "pass over such catalogs)"
    }
    # Nothing a rerun can change: skipped unread, the failure reported again, nothing asked of the service.
    service = FakeService()
    report = run(settings, service)
    assert report.unchanged_catalogs == 2 and service.language_requests == 0 and service.requests == []
    assert report.exit_code == ExitCode.PARTIAL
    assert {i.reason for i in report.issues if i.severity == "error"} == reasons
    # A run that sees another language list (here: another catalog needing work) opens it again next time.
    project(tmp_path, langs=("fr",))
    run(settings, FakeService(languages=("de", "fr", "ja")))
    offered = FakeService(languages=("de", "fr", "ja"))
    report = run(settings, offered)
    assert report.exit_code == ExitCode.OK, report.issues
    assert read_catalog(tmp_path / "locale/ja/LC_MESSAGES/app.po").units[0].state is UnitState.FUZZY


def test_a_language_list_seen_long_ago_is_asked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = project(tmp_path, langs=("ja",))
    run(settings, FakeService())
    assert run(settings, FakeService()).unchanged_catalogs == 1
    import time

    import pipeline.run.journal as journal

    later = time.time() + journal.LANGUAGES_TTL + 1
    monkeypatch.setattr(time, "time", lambda: later)  # the time module the journal reads
    service = FakeService()
    report = run(settings, service)
    assert report.unchanged_catalogs == 0 and service.language_requests == 1


def test_an_unreadable_catalog_settles_with_its_error_until_it_changes(tmp_path: Path) -> None:
    settings = project(tmp_path, langs=("de",))
    bad = tmp_path / "locale/de/LC_MESSAGES/app.po"
    bad.write_text(bad.read_text(encoding="utf-8").replace('msgstr "Fertig"', 'msgstr Fertig"'), encoding="utf-8")
    first = run(settings, FakeService())
    (error,) = [i for i in first.issues if i.severity == "error"]
    again = run(settings, FakeService())
    assert again.unchanged_catalogs == 1 and again.exit_code == ExitCode.PARTIAL
    assert [(i.catalog, i.line, i.reason) for i in again.issues if i.severity == "error"] == [
        (error.catalog, error.line, error.reason)
    ]
    bad.write_text(bad.read_text(encoding="utf-8").replace('msgstr Fertig"', 'msgstr "Fertig"'), encoding="utf-8")
    fixed = run(settings, FakeService())
    assert fixed.unchanged_catalogs == 0 and fixed.exit_code == ExitCode.OK


def test_a_run_leaves_the_host_process_garbage_collector_as_it_found_it(tmp_path: Path) -> None:
    """Library code never tunes the process that embeds it: thresholds, enabled, nothing frozen."""
    import gc

    settings = project(tmp_path)
    service = FakeService()
    before = (gc.get_threshold(), gc.isenabled(), gc.get_freeze_count())
    during: list[tuple[tuple[int, int, int], bool, int]] = []
    report = run_translate(
        settings,
        RunOptions(),
        log=lambda message: during.append((gc.get_threshold(), gc.isenabled(), gc.get_freeze_count())),
        client_factory=service.factory(),
    )
    assert report.exit_code == ExitCode.OK and during
    assert set(during) == {before}
    assert (gc.get_threshold(), gc.isenabled(), gc.get_freeze_count()) == before


def test_the_pipeline_process_tunes_its_own_garbage_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    """The console script, whose process is the command's own, sets the thresholds the run measured."""
    import gc

    import pipeline.cli

    before = gc.get_threshold()
    seen: list[tuple[int, int, int]] = []

    def main() -> int:
        seen.append(gc.get_threshold())
        return 0

    monkeypatch.setattr(pipeline.cli, "main", main)
    monkeypatch.setattr(gc, "freeze", lambda: None)  # the test process goes on: nothing frozen
    try:
        with pytest.raises(SystemExit) as exited:
            pipeline.cli.run()
    finally:
        gc.set_threshold(*before)
    assert exited.value.code == 0
    assert seen == [pipeline.cli.GC_THRESHOLDS] != [before]


def test_a_plural_entry_with_an_empty_msgid_plural_is_left_for_a_human_unsent(tmp_path: Path) -> None:
    """``msgid_plural ""``: no text to translate the other forms from. Sent, its forms came back empty and
    were refused at the gate, billed again by every run."""
    body = 'msgid "One file"\nmsgid_plural ""\nmsgstr[0] ""\nmsgstr[1] ""\n\nmsgid "Open"\nmsgstr ""\n'
    settings = project(tmp_path, body=body)
    service = FakeService()
    report = run(settings, service)
    sent = [t for r in service.requests for t in r.get("text", [])]
    assert sent == ["Open"]
    skipped = [i for i in report.issues if i.severity == "skipped"]
    assert [(i.line, "msgid_plural" in i.reason) for i in skipped] == [(7, True)]
    assert report.exit_code == ExitCode.OK, report.issues
    units = read_catalog(tmp_path / "locale/de/LC_MESSAGES/app.po").units
    assert units[0].targets == ("", "") and units[0].state is UnitState.UNTRANSLATED
