"""What a run remembers between runs: settled catalogs skipped unread, and provenance of what it wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

import pytest

import pipeline.run.plan as plan_module
import pipeline.run.scan as scan_module
from pipeline.catalogs import Catalog, Unit, UnitState, read_catalog
from pipeline.config import Settings, load_settings
from pipeline.errors import ExitCode
from pipeline.run.journal import STATE_NAME, STATE_VERSION, Journal, Settled, dump_json
from pipeline.run.provenance import Provenance
from tests.run_fakes import FakeService, cache_dir, project, run

APP = "locale/de/LC_MESSAGES/app.po"


def units(path: Path) -> dict[str, Unit]:
    return {u.sources[0]: u for u in read_catalog(path).units}


def catalogs_read(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The paths the scan stage parses from now on, in order."""
    reads: list[Path] = []
    real = read_catalog  # what the scan stage reads catalogs with

    def reading(path: Path, raw: bytes | None = None) -> Catalog:
        reads.append(path)
        return real(path, raw)

    monkeypatch.setattr(scan_module, "read_catalog", reading)
    return reads


@pytest.fixture
def no_parsing(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Make any catalog read fail the test: a skipped catalog must not even be parsed."""

    def forbidden(path: Path, raw: bytes | None = None) -> NoReturn:
        raise AssertionError(f"{path} was parsed")

    def arm() -> None:
        monkeypatch.setattr(scan_module, "read_catalog", forbidden)

    return arm


def state_file(settings: Settings) -> Path:
    """The run state in ``settings``' cache folder."""
    return cache_dir(settings) / STATE_NAME


def report_file(settings: Settings) -> Path:
    """The JSON report in ``settings``' report folder."""
    assert settings.report_dir is not None
    return settings.report_dir / "report.json"


def test_a_settled_catalog_is_skipped_without_parsing(tmp_path: Path, no_parsing: Callable[[], None]) -> None:
    settings = project(tmp_path)
    first = run(settings, FakeService())
    assert first.exit_code == ExitCode.OK
    state = json.loads(state_file(settings).read_text())
    assert set(state["catalogs"]) == {APP}
    no_parsing()
    second = run(settings, FakeService())
    assert second.exit_code == ExitCode.OK and second.unchanged_catalogs == 1
    (cat,) = second.catalogs
    assert cat.unchanged and cat.path == APP and cat.target_lang == "DE"


def test_same_bytes_with_a_new_mtime_are_still_skipped_but_an_edit_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = project(tmp_path)
    run(settings, FakeService())
    path = tmp_path / APP
    os.utime(path, ns=(1, 1))  # a checkout or `touch`: the bytes are what was settled
    reads = catalogs_read(monkeypatch)
    assert run(settings, FakeService()).unchanged_catalogs == 1 and reads == []
    with path.open("a", encoding="utf-8") as handle:
        handle.write('\nmsgid "Brand new"\nmsgstr ""\n')
    service = FakeService()
    report = run(settings, service)
    assert reads == [path] and report.unchanged_catalogs == 0
    assert [t for r in service.requests for t in r["text"]] == ["Brand new"]
    assert units(path)["Brand new"].targets == ("[DE] Brand new",)


# What the no-op path may import: the hook runs it at every commit, so it must stay close to Python's start-up.
NOOP_PROBE = """
import json, sys
from pipeline.cli import main
code = main(sys.argv[1:])
heavy = ("asyncio", "httpx", "starlette", "uvicorn", "click", "diskcache", "polib", "lxml",
         "pipeline.run.plan", "pipeline.run.send", "pipeline.run.gate", "pipeline.run.scan",
         "pipeline.placeholders.protect", "pipeline.catalogs.po", "pipeline.resources.targets",
         "pipeline.client", "pipeline.service",
         # the catalog model and plural rules (a report is written with atomic_write alone), the usage
         # records, and the thread pool that writes many files at once
         "pipeline.catalogs.base", "pipeline.plural_rules", "pipeline.run.quota", "concurrent.futures")
print(json.dumps({"code": code, "imported": [m for m in heavy if m in sys.modules]}))
"""


def test_a_noop_translate_imports_none_of_the_run_machinery(tmp_path: Path) -> None:
    (tmp_path / "pipeline.toml").write_text(
        'catalogs = ["locale/*/LC_MESSAGES/*.po"]\n[service]\nurl = "http://fake.invalid"\n[cache]\ndir = "cache"\n'
    )
    settings = load_settings(tmp_path / "pipeline.toml")
    project(tmp_path)  # writes the catalog
    assert run(settings, FakeService()).exit_code == ExitCode.OK
    probe = subprocess.run(
        [sys.executable, "-c", NOOP_PROBE, "translate", "-q"], cwd=tmp_path, check=True, capture_output=True, text=True
    )
    assert json.loads(probe.stdout) == {"code": 0, "imported": []}, probe.stderr
    report = json.loads(report_file(settings).read_text())
    assert report["unchanged_catalogs"] == 1 and report["exit_code"] == 0
    report_file(settings).unlink()
    # The process entry point (what the hook starts) prints nothing and writes the report the same way.
    again = subprocess.run(
        [sys.executable, "-m", "pipeline", "translate", "-q"], cwd=tmp_path, capture_output=True, text=True
    )
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    assert json.loads(report_file(settings).read_text())["unchanged_catalogs"] == 1


def test_a_same_size_edit_within_one_clock_tick_is_noticed(tmp_path: Path) -> None:
    settings = project(tmp_path)
    run(settings, FakeService())
    path = tmp_path / APP
    stat = path.stat()
    data = path.read_bytes().replace(b'msgstr "Mensch"', b'msgstr ""      ')
    path.write_bytes(data)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same mtime: only the hash tells
    service = FakeService()
    run(settings, service)
    assert [t for r in service.requests for t in r["text"]] == ["Human"]


def test_changed_settings_parse_the_catalog_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = project(tmp_path)
    run(settings, FakeService())
    reads = catalogs_read(monkeypatch)
    run(settings._replace(context="none"), FakeService())
    assert reads == [tmp_path / APP]
    none = settings._replace(context="none", max_characters=10, service=replace(settings.service, concurrency=3))
    run(none, FakeService())
    assert len(reads) == 1  # budget and service settings do not change what a catalog becomes


def test_a_catalog_with_failures_is_never_settled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = project(tmp_path)
    report = run(settings, FakeService(mangle=True))
    assert report.exit_code == ExitCode.PARTIAL
    again = run(settings, FakeService(mangle=True))
    assert again.unchanged_catalogs == 0 and again.exit_code == ExitCode.PARTIAL  # errors are not forgotten


def test_skip_notices_are_replayed_and_the_target_filter_applies(
    tmp_path: Path, no_parsing: Callable[[], None]
) -> None:
    body = 'msgid "One"\nmsgid_plural "Many"\nmsgstr[0] "Eins"\nmsgstr[1] ""\n'  # partial: left for a human
    settings = project(tmp_path, langs=("de", "pl"), body=body)
    first = run(settings, FakeService())
    notices = sorted((i.catalog, i.line, i.reason, i.severity) for i in first.issues)
    assert len(notices) == 2 and first.totals.segments_skipped == 2
    no_parsing()
    second = run(settings, FakeService())
    assert second.unchanged_catalogs == 2 and second.totals.segments_skipped == 2
    assert sorted((i.catalog, i.line, i.reason, i.severity) for i in second.issues) == notices
    only_pl = run(settings, FakeService(), target_langs=("pl",))
    assert [c.target_lang for c in only_pl.catalogs] == ["PL"]


def test_dry_run_and_stopped_runs_settle_nothing(tmp_path: Path) -> None:
    settings = project(tmp_path)
    run(settings, FakeService(), dry_run=True)
    assert not state_file(settings).exists()
    report = run(settings, FakeService(fail_with={1: 456}))
    assert report.exit_code == ExitCode.QUOTA
    state = Journal(settings.cache_dir)
    assert state.unchanged(APP, tmp_path / APP, "any") is None


def test_a_damaged_state_file_means_parsing_everything_again(tmp_path: Path) -> None:
    settings = project(tmp_path)
    run(settings, FakeService())
    state_file(settings).write_text("{ not json")
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.OK and report.unchanged_catalogs == 0
    # Not in our format: nothing says the pipeline wrote it ([cache] dir may name any folder), so it is
    # left as it is, and the warning says how to go on.
    assert state_file(settings).read_text() == "{ not json"
    [warning] = [i.reason for i in report.issues]
    assert "state.json is not a file pipeline wrote" in warning and "or remove the file" in warning
    state_file(settings).unlink()
    run(settings, FakeService())
    assert json.loads(state_file(settings).read_text())["catalogs"]  # written whole again


# -- provenance and re-translating stale machine translations -------------------------------------


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_provenance_records_unit_identity_source_translation_and_inputs(tmp_path: Path) -> None:
    settings = project(tmp_path)
    run(settings, FakeService())
    written = Provenance(settings.cache_dir).provenance(APP)
    assert written["verb\x04Open"].targets == ("[DE] Open",) and written["verb\x04Open"].sources == ("Open",)
    assert written["%(count)d file"].sources == ("%(count)d file", "%(count)d files")
    assert len(written["Hello %(name)s"].inputs) == 16
    assert "Human" not in written and "Review me" not in written  # never ours


def stale_project(tmp_path: Path) -> tuple[Settings, Path]:
    """A catalog after a first run, then msgmerge-like changes to three of its machine translations."""
    settings = project(tmp_path)
    run(settings, FakeService())
    path = tmp_path / APP
    # msgmerge: the source changed, our old translation stays, marked fuzzy, under the new msgid.
    edit(
        path,
        'msgid "Hello %(name)s"\nmsgstr "[DE] Hello %(name)s"',
        '#| msgid "Hello %(name)s"\nmsgid "Hi %(name)s"\nmsgstr "[DE] Hello %(name)s"',
    )
    # A human edited a machine translation and left it fuzzy.
    edit(path, 'msgstr "[DE] Open"', 'msgstr "Öffnen"')
    edit(path, 'msgctxt "verb"\nmsgid "Open"', 'msgctxt "verb"\nmsgid "Open it"')
    # A human confirmed a machine translation (removed fuzzy) whose source then changed.
    edit(path, '#, fuzzy, python-format\nmsgid "%(count)d file"', '#, python-format\nmsgid "%(count)d item"')
    return settings, path


def test_retranslate_stale_refreshes_only_untouched_machine_translations(tmp_path: Path) -> None:
    settings, path = stale_project(tmp_path)
    before = units(path)
    service = FakeService()
    report = run(settings, service, retranslate_stale=True)
    assert report.exit_code == ExitCode.OK
    assert [t for r in service.requests for t in r["text"]] == ['Hi <x id="1"/>']
    after = units(path)
    assert after["Hi %(name)s"].targets == ("[DE] Hi %(name)s",) and after["Hi %(name)s"].state is UnitState.FUZZY
    for human in ("Open it", "%(count)d item", "Human", "Review me"):
        assert after[human].targets == before[human].targets, human
    again = FakeService()
    run(settings, again, retranslate_stale=True)
    assert again.requests == []  # idempotent: what was just written is the current machine translation


def test_without_the_option_stale_translations_stay(tmp_path: Path) -> None:
    settings, path = stale_project(tmp_path)
    before = path.read_bytes()
    service = FakeService()
    run(settings, service)
    assert service.requests == [] and path.read_bytes() == before


def test_changed_inputs_make_machine_translations_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = project(tmp_path)
    run(settings, FakeService())
    original = plan_module.translation_options
    monkeypatch.setattr(
        plan_module, "translation_options", lambda *args: original(*args)._replace(glossary_hash="new glossary")
    )
    service = FakeService()
    report = run(settings, service, retranslate_stale=True)
    assert report.exit_code == ExitCode.OK
    sent = sorted(t for r in service.requests for t in r["text"])
    assert sent == sorted(['Hello <x id="1"/>', "Open", '<x id="1"/> file', '<x id="1"/> files'])
    assert units(tmp_path / APP)["Human"].targets == ("Mensch",)


def _settled(n: int) -> Settled:
    return Settled(
        size=n, mtime_ns=n, sha256="0" * 64, settings="s", locale="de", target_lang="DE", skipped=0, notices=()
    )


def _unit(msgid: str, target: str) -> Unit:
    return Unit(
        position=0,
        line=1,
        sources=(msgid,),
        targets=(target,),
        nforms=1,
        plural=False,
        flags=(),
        context=None,
        notes="",
        state=UnitState.FUZZY,
    )


def test_two_runs_sharing_a_cache_folder_keep_each_others_state(tmp_path: Path) -> None:
    first, second = Journal(tmp_path), Journal(tmp_path)  # both loaded before either saves
    first_written, second_written = Provenance(tmp_path), Provenance(tmp_path)
    first.settle("a.po", _settled(1))
    first_written.record("x.po", [(_unit("Open", "Öffnen"), ("Öffnen",), "in")])
    second.settle("b.po", _settled(2))
    second_written.record("x.po", [(_unit("Close", "Schließen"), ("Schließen",), "in")])
    for book in (first, first_written, second, second_written):
        book.save()
    after, after_written = Journal(tmp_path), Provenance(tmp_path)
    assert after.unchanged("a.po", tmp_path / "missing", "s") is None  # the file is gone: not settled...
    assert set(json.loads((tmp_path / STATE_NAME).read_text())["catalogs"]) == {"a.po", "b.po"}  # ...but kept
    assert after_written.machine_written("x.po", _unit("Open", "Öffnen")) is not None
    assert after_written.machine_written("x.po", _unit("Close", "Schließen")) is not None


def test_unsettling_in_one_run_survives_a_save_by_another(tmp_path: Path) -> None:
    seed = Journal(tmp_path)
    seed.settle("a.po", _settled(1))
    seed.save()
    first, second = Journal(tmp_path), Journal(tmp_path)
    first.unsettle("a.po")
    second.settle("b.po", _settled(2))
    first.save()
    second.save()
    assert set(json.loads((tmp_path / STATE_NAME).read_text())["catalogs"]) == {"b.po"}


def test_a_run_saving_once_per_window_keeps_what_another_run_saved_between_two_of_its_saves(tmp_path: Path) -> None:
    """A save reuses what this run last wrote only while state.json is still that file."""
    first = Journal(tmp_path)
    first.settle("a.po", _settled(1))
    first.save()  # the first window
    other = Journal(tmp_path)
    other.settle("b.po", _settled(2))
    other.save()
    first.settle("c.po", _settled(3))
    first.save()  # the next window: the file is the other run's now
    assert set(json.loads((tmp_path / STATE_NAME).read_text())["catalogs"]) == {"a.po", "b.po", "c.po"}
    first.unsettle("a.po")
    first.save()  # the file is this run's own again
    assert set(json.loads((tmp_path / STATE_NAME).read_text())["catalogs"]) == {"b.po", "c.po"}
    assert Journal(tmp_path).settled_record("c.po") == _settled(3)


def test_a_save_is_not_flushed_and_what_a_power_cut_leaves_of_it_is_read_as_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """state.json is written atomically but not flushed (a flush per window held a run of many catalogs):
    what a power cut may leave of an unflushed file (nothing, NUL bytes, a beginning) is read as no record,
    and the next save writes the file whole again."""
    flushed: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        flushed.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    journal = Journal(tmp_path)
    journal.settle("a.po", _settled(1))
    journal.save()
    assert flushed == []
    whole = (tmp_path / STATE_NAME).read_bytes()
    for left in (b"", b"\0" * len(whole), whole[: len(whole) // 2]):
        (tmp_path / STATE_NAME).write_bytes(left)
        after_cut = Journal(tmp_path)
        assert after_cut.settled_record("a.po") is None  # nothing trusted: the catalog is parsed again
        after_cut.settle("b.po", _settled(2))
        after_cut.save()
        assert set(json.loads((tmp_path / STATE_NAME).read_bytes())["catalogs"]) == {"b.po"}


def test_each_save_writes_state_json_as_the_whole_state_encoded_afresh_would_be(tmp_path: Path) -> None:
    """A save encodes only the records that changed since the last; the file is what encoding all gives."""
    journal = Journal(tmp_path)
    journal.note_languages("embedded", "hash")
    quoted = _settled(1)._replace(notices=((3, 'a "quoted" note', "warning", None),))
    steps: list[dict[str, Settled | None]] = [  # per save, the records settled (None: unsettled)
        {"b.po": _settled(2), "ä/ü.po": quoted},
        {"a.po": _settled(3), "b.po": _settled(4)},  # b.po changed
        {"ä/ü.po": None},
    ]
    for step in steps:
        for name, record in step.items():
            if record is None:
                journal.unsettle(name)
            else:
                journal.settle(name, record)
        journal.save()
        data = (tmp_path / STATE_NAME).read_bytes()
        state = json.loads(data)
        assert data == dump_json(state, indent=None)
        kept = Journal(tmp_path)
        assert {name: kept.settled_record(name) for name in state["catalogs"]} == {
            name: journal.settled_record(name) for name in ("a.po", "b.po", "ä/ü.po") if journal.settled_record(name)
        }
    assert set(state["catalogs"]) == {"a.po", "b.po"} and state["catalogs"]["b.po"]["size"] == 4
    assert state["version"] == STATE_VERSION and state["languages"]["embedded"][0] == "hash"


def test_an_earlier_versions_provenance_files_are_read_then_folded_into_the_table(tmp_path: Path) -> None:
    from pipeline.run.provenance import PROVENANCE_DIR, PROVENANCE_FILE, provenance_path

    old = {"Open": {"sources": ["Open"], "targets": ["Öffnen"], "inputs": "in"}}
    for display in ("x.po", "y.po"):
        path = provenance_path(tmp_path, display)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(dump_json({"version": STATE_VERSION, "catalog": display, "units": old}, indent=None))
    before = Provenance(tmp_path)
    assert before.machine_written("x.po", _unit("Open", "Öffnen")) is not None  # read beneath the table
    before.record("x.po", [(_unit("Close", "Schließen"), ("Schließen",), "in")])
    before.save()
    before.close()
    assert not (tmp_path / PROVENANCE_DIR).exists() and (tmp_path / PROVENANCE_FILE).is_file()
    after = Provenance(tmp_path)
    for unit in (_unit("Open", "Öffnen"), _unit("Close", "Schließen")):
        assert after.machine_written("x.po", unit) is not None
    assert after.machine_written("y.po", _unit("Open", "Öffnen")) is not None  # a catalog this run did not write
    assert after.machine_written("y.po", _unit("Open", "Offen")) is None  # a human's text


def test_a_later_provenance_record_of_a_unit_replaces_the_earlier(tmp_path: Path) -> None:
    first = Provenance(tmp_path)
    first.record("x.po", [(_unit("Open", "Öffnen"), ("Öffnen",), "in")])
    first.save()
    second = Provenance(tmp_path)
    second.record("x.po", [(_unit("Open", "Aufmachen"), ("Aufmachen",), "in2")])
    second.record("z.po", [(_unit("Open", "Öffnen"), ("Öffnen",), "in")])
    second.save()
    after = Provenance(tmp_path)
    assert after.machine_written("x.po", _unit("Open", "Öffnen")) is None  # rewritten since: not ours any more
    record = after.machine_written("x.po", _unit("Open", "Aufmachen"))
    assert record is not None and record.inputs == "in2"
    assert after.machine_written("z.po", _unit("Open", "Öffnen")) is not None


def test_provenance_opened_in_one_thread_is_read_in_another(tmp_path: Path) -> None:
    """A window's catalogs are scanned in worker threads: their provenance is read there."""
    import threading

    first = Provenance(tmp_path)
    first.record("x.po", [(_unit("Open", "Öffnen"), ("Öffnen",), "in")])
    first.save()  # the table is opened in this thread...
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.append(first.machine_written("x.po", _unit("Open", "Öffnen"))))
    worker.start()
    worker.join()
    assert found and found[0] is not None  # ...and read in another


class _Killed(BaseException):
    """Stands for a kill -9 right after the catalogs were written, before anything else is saved."""


def test_a_run_killed_right_after_its_writes_leaves_the_provenance_of_what_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.run import write

    settings = project(tmp_path)
    write_catalogs = write.write_catalogs

    def killed(*args: object, **kwargs: object) -> NoReturn:
        write_catalogs(*args, **kwargs)  # type: ignore[arg-type]
        raise _Killed

    monkeypatch.setattr(write, "write_catalogs", killed)
    with pytest.raises(_Killed):
        run(settings, FakeService())
    assert not (cache_dir(settings) / STATE_NAME).exists()  # nothing settled: the next run reads it again
    written = [u for u in read_catalog(tmp_path / APP).units if u.state is UnitState.FUZZY and u.line < 30]
    assert len(written) == 4  # the machine translations are in the catalog (not the human's fuzzy "Review me")...
    recorded = Provenance(cache_dir(settings))
    assert all(recorded.machine_written(APP, unit) is not None for unit in written)  # ...and known as ours
