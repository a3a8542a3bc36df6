"""Reuse: untranslated entries take a reviewed translation of the same entry from a sibling catalog or a compendium."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from pipeline import catalog_paths
from pipeline.catalogs import Catalog, Unit, UnitState, read_catalog
from pipeline.config import ServiceSettings, Settings
from pipeline.errors import ExitCode
from pipeline.run import provenance, scan
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import RunReport
from pipeline.run.report import to_json, to_markdown
from pipeline.run.reuse import index
from pipeline.run.window import Reused
from tests.run_fakes import FakeService, estimate

PLURAL = {"de": "nplurals=2; plural=(n != 1);", "fr": "nplurals=2; plural=(n > 1);"}
SERVER = """
msgid "Save"
msgstr "Speichern"

msgctxt "verb"
msgid "Open"
msgstr "Öffnen"

#, fuzzy
msgid "Delete"
msgstr "Löschen?"

#, python-format
msgid "%(count)d file"
msgid_plural "%(count)d files"
msgstr[0] "%(count)d Datei"
msgstr[1] "%(count)d Dateien"

#, python-format
msgid "Hello %(name)s"
msgstr "Hallo"
"""
SCRIPT = """
msgid "Save"
msgstr ""

msgid "Open"
msgstr ""

msgid "Delete"
msgstr ""

#, python-format
msgid "%(count)d file"
msgid_plural "%(count)d files"
msgstr[0] ""
msgstr[1] ""

#, python-format
msgid "Hello %(name)s"
msgstr ""

msgid "Cancel"
msgstr ""
"""


SERVER_PATH, SCRIPT_PATH = "locale/de/LC_MESSAGES/django.po", "locale/de/LC_MESSAGES/djangojs.po"


def catalog(root: Path, relative: str, lang: str, body: str, plural: str | None = None) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    header = (
        f'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {lang}\\n"\n'
        f'"Plural-Forms: {plural or PLURAL[lang]}\\n"\n'
    )
    path.write_text(header + body, encoding="utf-8")
    return path


def settings(root: Path, **fields: Any) -> Settings:
    return Settings(
        root=root,
        catalogs=("locale/*/LC_MESSAGES/*.po",),
        service=ServiceSettings(url="http://fake.invalid", concurrency=1),
        cache_dir=root / "cache",
        **fields,
    )


def run(config: Settings, service: FakeService, **options: Any) -> RunReport:
    return run_translate(config, RunOptions(**options), log=lambda m: None, client_factory=service.factory())


def sent(service: FakeService) -> list[str]:
    return [text for request in service.requests for text in request["text"]]


def units(path: Path) -> dict[tuple[str | None, str], Unit]:
    return {(u.context, u.sources[0]): u for u in read_catalog(path).units}


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    server = catalog(tmp_path, "locale/de/LC_MESSAGES/django.po", "de", SERVER)
    script = catalog(tmp_path, "locale/de/LC_MESSAGES/djangojs.po", "de", SCRIPT)
    return server, script


def test_an_entry_reviewed_in_a_sibling_catalog_is_written_from_it_and_never_sent(
    tmp_path: Path, project: tuple[Path, Path], msgfmt_check: Callable[[Path], None]
) -> None:
    server, script = project
    before = units(script)
    service = FakeService()
    report = run(settings(tmp_path), service)
    assert report.exit_code == ExitCode.OK, report.issues
    # "Open" has another msgctxt there, "Delete" is fuzzy there, "Hello" is refused by the gate: all sent.
    assert sorted(sent(service)) == ["Cancel", "Delete", 'Hello <x id="1"/>', "Open"]
    found = units(script)
    assert found[None, "Save"].targets == ("Speichern",) and found[None, "Save"].state is UnitState.FUZZY
    assert found[None, "%(count)d file"].targets == ("%(count)d Datei", "%(count)d Dateien")
    origin = units(server)
    save, plural = f"{SERVER_PATH}:{origin[None, 'Save'].line}", f"{SERVER_PATH}:{origin[None, '%(count)d file'].line}"
    text = script.read_text("utf-8")
    assert f'# pipeline: reused from {save}\n#, fuzzy\nmsgid "Save"' in text
    assert f"# pipeline: reused from {plural}\n#, fuzzy, python-format\n" in text
    msgfmt_check(script)
    assert report.reused == [
        Reused(SCRIPT_PATH, before[None, "Save"].line, "DE", save),
        Reused(SCRIPT_PATH, before[None, "%(count)d file"].line, "DE", plural),
    ]
    assert to_json(report)["reused"][0] == {"catalog": SCRIPT_PATH, "line": 7, "target_lang": "DE", "origin": save}
    assert f"| `{SCRIPT_PATH}:7` | DE | `{save}` |" in to_markdown(report)
    counters = next(c for c in report.catalogs if c.path.endswith("djangojs.po")).counters
    # "Save", and the two plural sources as sent: "<x id="1"/> file" and "<x id="1"/> files".
    assert (counters.segments_reused, counters.characters_reused) == (3, 4 + 16 + 17)
    assert counters.billed_characters == sum(map(len, sent(service)))


def test_reused_units_stay_fuzzy_with_mark_fuzzy_off_and_are_not_recorded_as_machine_translations(
    tmp_path: Path, project: tuple[Path, Path]
) -> None:
    _, script = project
    run(settings(tmp_path, mark_fuzzy=False), FakeService())
    found = units(script)
    assert found[None, "Save"].state is UnitState.FUZZY and found[None, "Cancel"].state is UnitState.TRANSLATED
    record = provenance.Provenance(tmp_path / "cache")
    display = "locale/de/LC_MESSAGES/djangojs.po"
    assert record.machine_written(display, found[None, "Save"]) is None  # a human's text: never rewritten
    assert record.machine_written(display, found[None, "Cancel"]) is not None


def test_a_machine_translation_written_unmarked_is_not_reused(tmp_path: Path, project: tuple[Path, Path]) -> None:
    _, script = project
    run(settings(tmp_path, mark_fuzzy=False), FakeService())
    other = catalog(tmp_path, "locale/de/LC_MESSAGES/admin.po", "de", 'msgid "Cancel"\nmsgstr ""\n')
    service = FakeService()
    run(settings(tmp_path, mark_fuzzy=False), service)
    assert sent(service) == [] and units(other)[None, "Cancel"].targets == ("[DE] Cancel",)  # from the cache
    assert units(other)[None, "Cancel"].state is UnitState.TRANSLATED


def test_a_translation_is_reused_within_the_language_the_service_translates_into(tmp_path: Path) -> None:
    catalog(tmp_path, "locale/de/LC_MESSAGES/a.po", "de", 'msgid "Save"\nmsgstr "Speichern"\n')
    catalog(tmp_path, "locale/pt/LC_MESSAGES/a.po", "pt", 'msgid "Save"\nmsgstr "Guardar"\n', PLURAL["de"])
    catalog(tmp_path, "locale/fr/LC_MESSAGES/a.po", "fr", 'msgid "Save"\nmsgstr "Enregistrer"\n')
    austrian = catalog(tmp_path, "locale/de_AT/LC_MESSAGES/b.po", "de_AT", 'msgid "Save"\nmsgstr ""\n', PLURAL["de"])
    brazilian = catalog(tmp_path, "locale/pt_BR/LC_MESSAGES/b.po", "pt_BR", 'msgid "Save"\nmsgstr ""\n', PLURAL["fr"])
    service = FakeService(languages=("de", "pt-BR", "fr"))
    report = run(settings(tmp_path), service)
    # de_AT is translated into DE, as de is; pt_BR into PT-BR, which pt (PT-PT) is not.
    assert units(austrian)[None, "Save"].targets == ("Speichern",)
    assert [r.origin for r in report.reused] == ["locale/de/LC_MESSAGES/a.po:6"]
    assert sent(service) == ["Save"] and units(brazilian)[None, "Save"].targets == ("[PT-BR] Save",)


def test_disagreeing_reviewers_give_nothing(tmp_path: Path) -> None:
    catalog(tmp_path, "locale/de/LC_MESSAGES/a.po", "de", 'msgid "Save"\nmsgstr "Speichern"\n')
    catalog(tmp_path, "locale/de/LC_MESSAGES/b.po", "de", 'msgid "Save"\nmsgstr "Sichern"\n')
    script = catalog(tmp_path, "locale/de/LC_MESSAGES/c.po", "de", 'msgid "Save"\nmsgstr ""\n')
    service = FakeService()
    report = run(settings(tmp_path), service)
    assert report.reused == [] and sent(service) == ["Save"]
    assert units(script)[None, "Save"].targets == ("[DE] Save",)


def test_a_compendium_answers_what_no_catalog_of_the_project_has(tmp_path: Path, project: tuple[Path, Path]) -> None:
    _, script = project
    catalog(tmp_path, "i18n/compendium.de.po", "de", 'msgid "Cancel"\nmsgstr "Abbrechen"\n\nmsgid "Save"\nmsgstr "X"\n')
    before = units(script)
    service = FakeService()
    report = run(settings(tmp_path, compendia=("i18n/*.po",)), service)
    found = units(script)
    assert found[None, "Cancel"].targets == ("Abbrechen",) and found[None, "Save"].targets == ("Speichern",)
    assert "Cancel" not in sent(service)
    line = units(tmp_path / "i18n/compendium.de.po")[None, "Cancel"].line
    assert Reused(SCRIPT_PATH, before[None, "Cancel"].line, "DE", f"i18n/compendium.de.po:{line}") in report.reused


def test_a_compendium_that_cannot_be_read_is_a_warning(tmp_path: Path, project: tuple[Path, Path]) -> None:
    (tmp_path / "i18n").mkdir()
    (tmp_path / "i18n" / "broken.de.po").write_text('msgid "x\nmsgstr ""\n')
    report = run(settings(tmp_path, compendia=("i18n/broken.de.po", "missing/*.po")), FakeService())
    assert report.exit_code == ExitCode.OK
    warned = sorted(i.catalog for i in report.issues if i.reason.startswith("compendium not used"))
    assert warned == ["i18n/broken.de.po", "missing/*.po"]


def test_a_plural_entry_is_reused_only_from_a_catalog_whose_plural_rule_picks_the_same_forms(tmp_path: Path) -> None:
    body = 'msgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] "%d Datei"\nmsgstr[1] "%d Dateien"\n'
    catalog(tmp_path, "locale/de/LC_MESSAGES/odd.po", "de", body, "nplurals=2; plural=(n > 1);")
    catalog(tmp_path, "locale/de/LC_MESSAGES/same.po", "de", body, "nplurals=2; plural=n!=1;")
    target = catalog(
        tmp_path,
        "locale/de/LC_MESSAGES/t.po",
        "de",
        'msgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] ""\nmsgstr[1] ""\n',
    )
    report = run(settings(tmp_path), FakeService())
    assert [r.origin for r in report.reused] == ["locale/de/LC_MESSAGES/same.po:6"]
    assert units(target)[None, "%d file"].targets == ("%d Datei", "%d Dateien")


def test_a_translation_the_catalogs_charset_cannot_hold_is_sent_instead(tmp_path: Path) -> None:
    catalog(tmp_path, "locale/de/LC_MESSAGES/a.po", "de", 'msgid "Save"\nmsgstr "Speichern – jetzt"\n')
    target = tmp_path / "locale/de/LC_MESSAGES/b.po"
    target.write_bytes(
        b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=ISO-8859-1\\n"\n"Language: de\\n"\n\n'
        b'msgid "Save"\nmsgstr ""\n'
    )
    service = FakeService()
    report = run(settings(tmp_path), service)
    # The gate would refuse the en dash, which Latin-1 lacks: the entry is translated instead.
    assert report.reused == [] and sent(service) == ["Save"]
    assert read_catalog(target).units[0].targets == ("[DE] Save",)


def test_nothing_untranslated_reads_no_sibling_and_the_index_is_kept_by_the_catalogs_bytes(
    tmp_path: Path, project: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, script = project
    config = settings(tmp_path)
    run(config, FakeService())
    parsed: list[str] = []
    real = index._read

    def counting(path: Path, data: bytes) -> Catalog:
        parsed.append(path.name)
        return real(path, data)

    monkeypatch.setattr(index, "_read", counting)
    run(config, FakeService())
    assert parsed == []  # both settled: nothing to reuse for, nothing read
    catalog(tmp_path, "locale/de/LC_MESSAGES/new.po", "de", 'msgid "Save"\nmsgstr ""\n')
    run(config, FakeService())
    assert sorted(parsed) == ["django.po", "djangojs.po"]  # settled siblings: parsed once, kept in the cache folder
    catalog(tmp_path, "locale/de/LC_MESSAGES/more.po", "de", 'msgid "Save"\nmsgstr ""\n')
    stored = sorted((tmp_path / "cache" / "reuse").glob("*.json"))
    assert len(stored) >= 2
    run(config, FakeService())
    assert sorted(parsed) == ["django.po", "djangojs.po", "new.po"]  # only the one written since
    assert units(tmp_path / "locale/de/LC_MESSAGES/more.po")[None, "Save"].targets == ("Speichern",)


def test_reuse_draws_on_the_catalogs_the_run_found_read_only_ones_included_without_looking_again(
    tmp_path: Path, project: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, script = project
    server.chmod(0o444)  # refused for writing, still a source of reviewed translations

    def looked_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("the index looked for the catalogs the run had found")

    monkeypatch.setattr(index, "find_catalogs", looked_again)
    report = run(settings(tmp_path), FakeService())
    assert [i.reason for i in report.issues if i.catalog == SERVER_PATH] == [catalog_paths.READ_ONLY]
    assert units(script)[None, "Save"].targets == ("Speichern",)  # reused from the read-only catalog
    assert [r.origin.partition(":")[0] for r in report.reused] == [SERVER_PATH, SERVER_PATH]


def test_a_run_given_its_catalogs_finds_the_project_reuse_draws_on_itself(
    tmp_path: Path, project: tuple[Path, Path]
) -> None:
    server, script = project
    report = run(settings(tmp_path), FakeService(), paths=(script,))
    assert report.exit_code == ExitCode.OK and [c.path for c in report.catalogs] == [SCRIPT_PATH]
    assert units(script)[None, "Save"].targets == ("Speichern",)  # from django.po, which the run was not given


def test_a_tampered_index_file_is_read_again_from_the_catalog(tmp_path: Path, project: tuple[Path, Path]) -> None:
    config = settings(tmp_path)
    run(config, FakeService())
    catalog(tmp_path, "locale/de/LC_MESSAGES/new.po", "de", 'msgid "Cancel"\nmsgstr ""\n')
    run(config, FakeService())
    for stored in (tmp_path / "cache" / "reuse").glob("*.json"):
        data = json.loads(stored.read_text())
        data["entries"] = [[None, ["Cancel"], ["Hacked"], 1, False]] if data["entries"] else [["bad"]]
        data["sha256"] = "0" * 64
        stored.write_text(json.dumps(data))
    target = catalog(tmp_path, "locale/de/LC_MESSAGES/more.po", "de", 'msgid "Cancel"\nmsgstr ""\n')
    run(config, FakeService())
    assert units(target)[None, "Cancel"].targets == ("[DE] Cancel",)


def test_a_dry_run_counts_reused_entries_as_writes_and_their_texts_as_not_sent(
    tmp_path: Path, project: tuple[Path, Path]
) -> None:
    service = FakeService()
    report = run(settings(tmp_path), service, dry_run=True)
    assert service.requests == [] and report.would_send is not None
    assert estimate(report).texts == 4  # Open, Delete, Hello, Cancel
    work = {w.path: w for w in report.would_write}
    assert work["locale/de/LC_MESSAGES/djangojs.po"].segments == 4 + 3
    assert not (tmp_path / "cache" / "reuse").exists()  # a dry run leaves the cache folder as it was


def test_reuse_can_be_turned_off(tmp_path: Path, project: tuple[Path, Path]) -> None:
    service = FakeService()
    report = run(settings(tmp_path, reuse=False), service)
    assert report.reused == [] and "Save" in sent(service)


def test_a_catalog_the_index_parses_before_its_window_is_parsed_once_and_not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows of one catalog: the first one's index reads the later catalogs, whose scan takes them as parsed."""
    from pipeline.catalogs import po, po_scan
    from pipeline.run.orchestrate import work

    monkeypatch.setattr(work, "at_once", lambda: 1)
    settled = catalog(tmp_path, "locale/de/LC_MESSAGES/a.po", "de", 'msgid "Open"\nmsgstr "Öffnen"\n')
    first = catalog(tmp_path, "locale/de/LC_MESSAGES/b.po", "de", 'msgid "Save"\nmsgstr ""\n')
    later = catalog(tmp_path, "locale/de/LC_MESSAGES/c.po", "de", SERVER + '\nmsgid "Cancel"\nmsgstr ""\n')
    parsed: list[str] = []
    real = po_scan.scan

    def counting(path: Path, text: str, lines: Sequence[str], ended: bool = True) -> po_scan.Scanned:
        parsed.append(path.name)
        return real(path, text, lines, ended)

    monkeypatch.setattr(po, "scan", counting)  # what read_po calls, for the index and the scan alike
    in_threads: list[str] = []
    real_to_thread = asyncio.to_thread

    async def to_thread(function: Callable[..., Any], *args: Any) -> Any:
        if function is scan.scan:
            in_threads.extend(path.name for path in args[1])
        return await real_to_thread(function, *args)

    monkeypatch.setattr(asyncio, "to_thread", to_thread)
    service = FakeService()
    report = run(settings(tmp_path), service)
    assert report.exit_code == ExitCode.OK
    # a.po: by its window, then by the index (it was no candidate: read already); c.po: by the index
    # in b.po's window only, its own window taking it as parsed, on the event loop: no worker thread
    # to parse it in while b.po's requests are out.
    assert parsed == ["a.po", "b.po", "a.po", "c.po"]
    assert "c.po" not in in_threads
    assert units(first)[None, "Save"].targets == ("Speichern",)  # reused from c.po
    assert units(later)[None, "Cancel"].targets == ("[DE] Cancel",)
    # Recorded: a.po, read by its own window before the index read it; not c.po, which the run then wrote.
    stored = [json.loads(p.read_text()) for p in (tmp_path / "cache" / "reuse").glob("*.json")]
    assert [s["entries"] for s in stored] == [[[None, ["Open"], ["Öffnen"], 6, False]]]
    assert settled.exists()
