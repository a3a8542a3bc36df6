"""The review session: which entries it lists, and what each decision writes, never over another program's save."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.catalogs import Unit, UnitState, read_catalog
from pipeline.config import Settings
from pipeline.files import atomic
from pipeline.model import Severity
from pipeline.review.entries import Origin, Status
from pipeline.review.session import Conflict, Entry, Refused, Session
from pipeline.run.gate import check_unit, plural_usage
from pipeline.run.provenance import Provenance
from tests.review_project import PO, XLIFF_2, XLIFF_12, review_project


def unit_of(session: Session, entry: Entry) -> Unit:
    """The unit ``entry`` stands for (the test fails if it is gone)."""
    unit = session.unit(entry)
    assert unit is not None, f"{entry.id} is gone"
    return unit


def entry_for(session: Session, source: str) -> Entry:
    return next(e for e in session.entries.values() if unit_of(session, e).sources[0] == source)


def unit_in(path: Path, source: str) -> Unit:
    return next(u for u in read_catalog(path).units if u.sources[0] == source)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return review_project(tmp_path)


def test_lists_what_awaits_review_machine_translations_first_with_their_origin(settings: Settings) -> None:
    catalog = read_catalog(settings.root / PO)
    machine = next(u for u in catalog.units if u.sources[0].startswith("%(name)s"))
    written = Provenance(settings.cache_dir)  # what a run records when it writes a machine translation
    written.record(PO, [(machine, machine.targets, "inputs")])
    written.save()
    session = Session(settings, warn=pytest.fail)
    listed = [
        (session.catalogs[e.catalog].language, unit_of(session, e).sources[0], e.origin) for e in session.ordered()
    ]
    assert listed == [
        ("de", "%(name)s uploaded <b>%(count)d</b> files", Origin.MACHINE),
        ("de", "Settings", Origin.REUSED),
        ("de", "Upload files", Origin.FUZZY),
        ("de", "{count} person has access", Origin.FUZZY),
        ("fr", 'Hello <g id="1">world</g>', Origin.FUZZY),
        ("fr", "Save", Origin.FUZZY),
        ("pl", 'Open <pc id="1">{name}</pc>', Origin.FUZZY),
        ("pl", "Close", Origin.FUZZY),
    ]
    assert entry_for(session, "Settings").reused_from == "locale/de/LC_MESSAGES/djangojs.po:12"


def test_accept_removes_the_review_mark_and_counts_per_language(
    settings: Settings, msgfmt_check: Callable[[Path], None]
) -> None:
    session = Session(settings)
    entry = entry_for(session, "Upload files")
    outcome = session.accept(entry.id, entry.version)
    assert outcome.entry.status is Status.ACCEPTED
    assert unit_in(settings.root / PO, "Upload files").state is UnitState.TRANSLATED
    assert session.summary() == ["de: 1 accepted, 0 edited, 0 rejected, 0 kept"]
    assert session.awaiting() == 7
    msgfmt_check(settings.root / PO)
    with pytest.raises(Refused, match="already accepted"):
        session.accept(entry.id, outcome.entry.version)


def gate_errors(path: Path, source: str, targets: list[str]) -> list[str]:
    """What the run's gate says against ``targets`` as the translation of the unit with ``source``."""
    catalog = read_catalog(path)
    unit = next(u for u in catalog.units if u.sources[0] == source)
    often, one_form, _ = plural_usage(catalog.plural)
    return [p.reason for p in check_unit(unit, targets, catalog, often, one_form) if p.severity is Severity.ERROR]


@pytest.mark.parametrize(
    "edit",
    ["%(name)s hat <b>%(count)d Dateien hochgeladen", "%(nom)s hat <b>%(count)d</b> Dateien hochgeladen"],
    ids=["tag-dropped", "name-changed"],
)
def test_an_edit_that_breaks_a_placeholder_is_refused_with_the_gates_reasons_and_nothing_is_written(
    settings: Settings, edit: str
) -> None:
    source = "%(name)s uploaded <b>%(count)d</b> files"
    path = settings.root / PO
    before = path.read_bytes()
    expected = gate_errors(path, source, [edit])
    assert expected  # the gate refuses it: so must the review
    session = Session(settings)
    entry = entry_for(session, source)
    with pytest.raises(Refused) as refused:
        session.edit(entry.id, entry.version, [edit])
    assert refused.value.reasons == expected
    assert path.read_bytes() == before
    assert session.entries[entry.id].status is Status.PENDING


def test_a_valid_edit_is_written_and_accepted(settings: Settings, msgfmt_check: Callable[[Path], None]) -> None:
    session = Session(settings)
    entry = entry_for(session, "{count} person has access")
    outcome = session.edit(entry.id, entry.version, ["{count} Person hat Zugriff", "{count} Personen haben Zugriff"])
    assert outcome.entry.status is Status.EDITED
    unit = unit_in(settings.root / PO, "{count} person has access")
    assert unit.targets == ("{count} Person hat Zugriff", "{count} Personen haben Zugriff")
    assert unit.state is UnitState.TRANSLATED
    msgfmt_check(settings.root / PO)


def test_an_edit_equal_to_the_translation_is_an_accept(settings: Settings) -> None:
    session = Session(settings)
    entry = entry_for(session, "Save")
    assert session.edit(entry.id, entry.version, ["Enregistrer"]).entry.status is Status.ACCEPTED


def test_an_empty_edit_is_refused_pointing_at_reject(settings: Settings) -> None:
    session = Session(settings)
    entry = entry_for(session, "Save")
    with pytest.raises(Refused, match="reject it"):
        session.edit(entry.id, entry.version, ["  "])


def test_accepting_a_translation_the_checks_find_broken_is_refused(settings: Settings) -> None:
    path = settings.root / PO
    path.write_text(path.read_text(encoding="utf-8").replace("%(name)s hat", "Jemand hat"), encoding="utf-8")
    session = Session(settings)
    entry = entry_for(session, "%(name)s uploaded <b>%(count)d</b> files")
    assert entry.level == "error"
    with pytest.raises(Refused, match="cannot accept"):
        session.accept(entry.id, entry.version)


def test_reject_empties_the_translation_so_the_next_run_translates_it(settings: Settings) -> None:
    session = Session(settings)
    for source, path in (("Upload files", PO), ("Save", XLIFF_12), ("Close", XLIFF_2)):
        entry = entry_for(session, source)
        assert session.reject(entry.id, entry.version).entry.status is Status.REJECTED
        assert unit_in(settings.root / path, source).state is UnitState.UNTRANSLATED
    assert session.summary() == [
        "de: 0 accepted, 0 edited, 1 rejected, 0 kept",
        "fr: 0 accepted, 0 edited, 1 rejected, 0 kept",
        "pl: 0 accepted, 0 edited, 1 rejected, 0 kept",
    ]


def test_keep_with_a_note_leaves_the_entry_awaiting_review(settings: Settings) -> None:
    session = Session(settings)
    entry = entry_for(session, "Upload files")
    outcome = session.keep(entry.id, entry.version, "„übertragen“?")
    assert outcome.entry.status is Status.NOTED and session.awaiting() == 8
    assert "# review: „übertragen“?\n" in (settings.root / PO).read_text(encoding="utf-8")
    assert unit_in(settings.root / PO, "Upload files").state is UnitState.FUZZY
    xliff2 = entry_for(session, "Close")  # XLIFF 2 keeps notes per unit: the note goes there
    assert session.keep(xliff2.id, xliff2.version, "za krótko?").entry.status is Status.NOTED
    assert unit_in(settings.root / XLIFF_2, "Close").notes == "za krótko?"
    assert unit_in(settings.root / XLIFF_2, "Close").state is UnitState.FUZZY


def test_a_save_by_another_program_to_another_entry_is_kept(settings: Settings) -> None:
    session = Session(settings)
    entry = entry_for(session, "Upload files")
    path = settings.root / PO
    path.write_text(path.read_text(encoding="utf-8").replace("Papierkorb leeren", "Müll leeren"), encoding="utf-8")
    outcome = session.accept(entry.id, entry.version)
    assert outcome.entry.status is Status.ACCEPTED and outcome.reloaded
    text = path.read_text(encoding="utf-8")
    assert 'msgstr "Müll leeren"' in text and unit_in(path, "Upload files").state is UnitState.TRANSLATED


def test_a_save_by_another_program_to_the_same_entry_is_a_conflict_and_the_entry_is_read_again(
    settings: Settings,
) -> None:
    session = Session(settings)
    entry = entry_for(session, "Upload files")
    path = settings.root / PO
    saved = path.read_text(encoding="utf-8").replace('msgstr "Dateien hochladen"', 'msgstr "Dateien übertragen"')
    path.write_text(saved, encoding="utf-8")
    with pytest.raises(Conflict) as conflict:
        session.accept(entry.id, entry.version)
    assert path.read_text(encoding="utf-8") == saved  # the other program's save, whole
    fresh = conflict.value.entry
    assert fresh is not None
    assert unit_of(session, fresh).targets == ("Dateien übertragen",) and fresh.version != entry.version
    session.accept(fresh.id, fresh.version)  # looked at again: now it can be accepted
    assert unit_in(path, "Upload files").targets == ("Dateien übertragen",)


def test_an_entry_another_program_reviewed_meanwhile_is_marked_so(settings: Settings) -> None:
    session = Session(settings)
    entry, other = entry_for(session, "Upload files"), entry_for(session, "Settings")
    path = settings.root / PO
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('#, fuzzy\nmsgid "Upload files"', 'msgid "Upload files"'), encoding="utf-8")
    with pytest.raises(Conflict):
        session.accept(entry.id, entry.version)
    assert session.entries[entry.id].status is Status.ELSEWHERE
    assert session.accept(other.id, other.version).entry.status is Status.ACCEPTED


def test_a_save_at_the_instant_of_the_write_is_kept_and_the_decision_written_over_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = Session(settings)
    entry = entry_for(session, "Upload files")
    path = settings.root / PO
    edit = path.read_bytes().replace(b"Papierkorb leeren", b"M\xc3\xbcll leeren")
    real = atomic.new_beside
    saved: list[bool] = []

    def new_beside(target: Path, tag: str = "") -> tuple[int, str]:
        if not saved and target.name == path.name and os.path.samefile(target.parent, path.parent):
            path.write_bytes(edit)  # saved after the session read the file, before the swap
            saved.append(True)
        return real(target, tag)

    monkeypatch.setattr(atomic, "new_beside", new_beside)
    assert session.accept(entry.id, entry.version).entry.status is Status.ACCEPTED
    assert saved and 'msgstr "Müll leeren"' in path.read_text(encoding="utf-8")
    assert unit_in(path, "Upload files").state is UnitState.TRANSLATED


def test_a_catalog_made_a_link_since_it_was_read_is_refused_and_left_as_it_is(settings: Settings) -> None:
    # Another program made the catalog a link to a file holding the same bytes: the decision replaced the link
    # by a regular file, and the file it led to kept the entry awaiting review. Link and target are left alone.
    session = Session(settings)
    entry = entry_for(session, "Upload files")
    path, shared = settings.root / PO, settings.root / "shared.po"
    shared.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(os.path.relpath(shared, path.parent))
    with pytest.raises(Refused, match=r"was made a symbolic link since it was read: nothing was written"):
        session.accept(entry.id, entry.version)
    assert path.is_symlink() and unit_in(shared, "Upload files").state is UnitState.FUZZY


def test_a_catalog_made_a_link_outside_the_project_is_neither_read_nor_listed(
    settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The decision read the catalog again through the link before the write refused it: a file outside the project
    # (another project's catalog, anything in PO syntax) was parsed and its entries listed on the page.
    session = Session(settings)
    entry = entry_for(session, "Upload files")
    path, elsewhere = settings.root / PO, tmp_path_factory.mktemp("elsewhere") / "de.po"
    elsewhere.write_bytes(path.read_bytes() + b'\n#, fuzzy\nmsgid "Private words"\nmsgstr "Private Worte"\n')
    path.unlink()
    path.symlink_to(elsewhere)
    with pytest.raises(Refused, match=r"was made a symbolic link since it was read: nothing was written"):
        session.accept(entry.id, entry.version)
    assert not [e.key for e in session.entries.values() if "Private" in e.key]
    assert path.is_symlink() and "Private Worte" in elsewhere.read_text(encoding="utf-8")


def test_a_catalog_another_program_broke_is_refused_with_its_line(settings: Settings) -> None:
    session = Session(settings)
    entry = entry_for(session, "Upload files")
    path = settings.root / PO
    path.write_text(path.read_text(encoding="utf-8") + 'msgid "x"\n', encoding="utf-8")
    with pytest.raises(Refused, match="cannot be read now"):
        session.accept(entry.id, entry.version)
