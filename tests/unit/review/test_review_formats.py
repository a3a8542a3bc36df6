"""A reviewer's decisions written into PO and XLIFF catalogs: only the decided entries change."""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.catalogs import Reviewed, Unit, UnitState, read_catalog
from pipeline.catalogs.xliff.xmltext import set_attributes

REVIEW = Path(__file__).resolve().parents[2] / "data" / "review"


def copy(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    shutil.copyfile(REVIEW / name, path)
    return path


def unit_of(path: Path, source: str) -> Unit:
    return next(u for u in read_catalog(path).units if u.sources[0] == source)


def decide(path: Path, source: str, decision: Reviewed) -> list[str]:
    """Write ``decision`` for the unit with ``source`` into ``path``; the lines removed and added."""
    before = path.read_text(encoding="utf-8")
    catalog = read_catalog(path)
    index = next(u.position for u in catalog.units if u.sources[0] == source)
    path.write_bytes(catalog.render_reviewed({index: decision}))
    after = path.read_text(encoding="utf-8")
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), n=0, lineterm="")
    return [line for line in diff if line[:1] in "+-" and line[:3] not in ("---", "+++")]


def test_po_accept_drops_fuzzy_the_previous_source_and_nothing_else(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    path = copy(tmp_path, "awaiting_review.po")
    changed = decide(path, "{count} person has access", Reviewed())
    assert changed == [
        "-#, fuzzy, python-brace-format",
        '-#| msgid "{count} person can see this"',
        '-#| msgid_plural "{count} people can see this"',
        "+#, python-brace-format",
    ]
    assert unit_of(path, "{count} person has access").state is UnitState.TRANSLATED
    msgfmt_check(path)


def test_po_accept_of_a_lone_fuzzy_flag_drops_the_flags_line(tmp_path: Path) -> None:
    path = copy(tmp_path, "awaiting_review.po")
    assert decide(path, "Upload files", Reviewed()) == ["-#, fuzzy"]


def test_po_accept_drops_the_runs_note_to_the_reviewer(tmp_path: Path) -> None:
    path = copy(tmp_path, "awaiting_review.po")
    assert decide(path, "Settings", Reviewed()) == [
        "-# pipeline: reused from locale/de/LC_MESSAGES/djangojs.po:12",
        "-#, fuzzy",
    ]


def test_po_edit_writes_every_form_as_gettext_wraps_it(tmp_path: Path, msgfmt_check: Callable[[Path], None]) -> None:
    path = copy(tmp_path, "awaiting_review.po")
    long = "{count} Personen haben Zugriff auf diesen Ordner und alle Dateien, die in ihm liegen oder hineinkommen"
    decide(path, "{count} person has access", Reviewed(targets=("{count} Person hat Zugriff", long)))
    text = path.read_text(encoding="utf-8")
    assert 'msgstr[0] "{count} Person hat Zugriff"\nmsgstr[1] ""\n"{count} Personen haben Zugriff auf diesen ' in text
    unit = unit_of(path, "{count} person has access")
    assert unit.targets == ("{count} Person hat Zugriff", long) and unit.state is UnitState.TRANSLATED
    msgfmt_check(path)


def test_po_reject_empties_every_form_so_the_entry_is_untranslated(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    path = copy(tmp_path, "awaiting_review.po")
    decide(path, "{count} person has access", Reviewed(targets=("", "")))
    unit = unit_of(path, "{count} person has access")
    assert unit.state is UnitState.UNTRANSLATED and unit.flags == ("python-brace-format",)
    msgfmt_check(path)


def test_po_kept_for_review_stays_fuzzy_with_the_note_on_one_line(tmp_path: Path) -> None:
    path = copy(tmp_path, "awaiting_review.po")
    changed = decide(path, "Upload files", Reviewed(pending=True, note="„hochladen“ oder\n„übertragen“?"))
    assert changed == ["+# review: „hochladen“ oder „übertragen“?"]
    assert unit_of(path, "Upload files").state is UnitState.FUZZY


def test_po_crlf_and_a_missing_final_newline_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "de.po"
    text = (REVIEW / "awaiting_review.po").read_text(encoding="utf-8").replace("\n", "\r\n")
    text = text.replace('msgid "Restore"\r\nmsgstr ""\r\n', '#, fuzzy\r\nmsgid "Restore"\r\nmsgstr "Zurück"')
    path.write_bytes(text.encode("utf-8"))
    catalog = read_catalog(path)
    index = next(u.position for u in catalog.units if u.sources[0] == "Restore")
    data = catalog.render_reviewed({index: Reviewed(targets=("Wiederherstellen",))})
    assert data.endswith(b'msgid "Restore"\r\nmsgstr "Wiederherstellen"')
    assert data.count(b"\r\n") == data.count(b"\n")


def test_po_refuses_a_wrong_number_of_forms() -> None:
    catalog = read_catalog(REVIEW / "awaiting_review.po")
    index = next(u.position for u in catalog.units if u.plural)
    with pytest.raises(ValueError, match="needs 2 forms"):
        catalog.render_reviewed({index: Reviewed(targets=("eins",))})


def test_xliff12_accept_edit_reject_and_note(tmp_path: Path) -> None:
    path = copy(tmp_path, "awaiting_review_12.xlf")
    assert decide(path, "Save", Reviewed()) == [
        '-        <target state="needs-review-translation" state-qualifier="leveraged-mt">Enregistrer</target>',
        '+        <target state="signed-off" state-qualifier="leveraged-mt">Enregistrer</target>',
    ]
    path = copy(tmp_path, "awaiting_review_12.xlf")
    assert decide(path, 'Hello <g id="1">world</g>', Reviewed(targets=('Salut & <g id="1">monde</g>',)))[1] == (
        '+        <target state="signed-off">Salut &amp; <g id="1">monde</g></target>'
    )
    path = copy(tmp_path, "awaiting_review_12.xlf")
    assert decide(path, "Save", Reviewed(targets=("",)))[1] == '+        <target state="needs-translation"></target>'
    assert unit_of(path, "Save").state is UnitState.UNTRANSLATED
    path = copy(tmp_path, "awaiting_review_12.xlf")
    assert decide(path, "Save", Reviewed(pending=True, note="<i>trop</i> long")) == [
        '+        <note from="review">&lt;i&gt;trop&lt;/i&gt; long</note>'
    ]
    assert unit_of(path, "Save").state is UnitState.FUZZY


@pytest.mark.parametrize(
    "decision",
    [Reviewed(), Reviewed(targets=("Ouvrir ce fichier",)), Reviewed(targets=("",))],
    ids=["accept", "edit", "reject"],
)
def test_xliff12_a_decision_drops_the_runs_note_and_keeps_a_persons(
    tmp_path: Path, decision: Reviewed, xliff_schema_check: Callable[[Path], None]
) -> None:
    path = copy(tmp_path, "run_note_12.xlf")
    changed = decide(path, "Open the file", decision)
    assert '-        <note from="pipeline">pipeline: translated in pieces; check the word order</note>' in changed
    assert not any("translator" in line for line in changed)
    assert unit_of(path, "Open the file").notes == "Menu entry, keep it short"
    decide(path, "Close", decision)  # a note on the target's line: the element goes, the line stays
    text = path.read_text(encoding="utf-8")
    assert 'from="pipeline"' not in text
    assert "</target>\n      </trans-unit>" in text
    xliff_schema_check(path)


def test_xliff12_kept_for_another_look_keeps_the_runs_note(tmp_path: Path) -> None:
    path = copy(tmp_path, "run_note_12.xlf")
    assert decide(path, "Open the file", Reviewed(pending=True, note="word order?")) == [
        '+        <note from="review">word order?</note>'
    ]
    assert "pipeline: translated in pieces" in unit_of(path, "Open the file").notes


def test_xliff12_edit_without_the_sources_markup_is_refused() -> None:
    catalog = read_catalog(REVIEW / "awaiting_review_12.xlf")
    with pytest.raises(ValueError, match="inline markup"):
        catalog.render_reviewed({0: Reviewed(targets=("Bonjour monde",))})


def test_xliff2_accept_and_reject_set_the_segment_state(
    tmp_path: Path, xliff_schema_check: Callable[[Path], None]
) -> None:
    path = copy(tmp_path, "awaiting_review_20.xlf")
    assert decide(path, "Close", Reviewed()) == [
        '-      <segment state="translated" subState="pipeline:needs-review">',
        '+      <segment state="reviewed">',
    ]
    assert unit_of(path, "Close").state is UnitState.TRANSLATED
    xliff_schema_check(path)
    path = copy(tmp_path, "awaiting_review_20.xlf")
    assert decide(path, "Close", Reviewed(targets=("",))) == [
        '-      <segment state="translated" subState="pipeline:needs-review">',
        '+      <segment state="initial">',
        "-        <target>Zamknij</target>",
        "+        <target></target>",
    ]
    assert unit_of(path, "Close").state is UnitState.UNTRANSLATED
    xliff_schema_check(path)


def test_xliff2_kept_for_another_look_makes_the_units_notes_where_the_schema_puts_them(
    tmp_path: Path, xliff_schema_check: Callable[[Path], None]
) -> None:
    path = copy(tmp_path, "awaiting_review_20.xlf")
    assert decide(path, "Close", Reviewed(pending=True, note="zamknij & wyjdź?")) == [
        "+      <notes>",
        '+        <note category="review">zamknij &amp; wyjdź?</note>',
        "+      </notes>",
    ]
    kept = unit_of(path, "Close")
    assert kept.state is UnitState.FUZZY and kept.notes == "zamknij & wyjdź?"
    assert unit_of(path, 'Open <pc id="1">{name}</pc>').notes == ""  # the other unit has none
    xliff_schema_check(path)


def test_xliff2_a_note_joins_the_units_own_notes_before_its_original_data(
    tmp_path: Path, xliff_schema_check: Callable[[Path], None]
) -> None:
    path = copy(tmp_path, "notes_20.xlf")
    assert decide(path, "Open", Reviewed(pending=True, note="Otwórz plik?")) == [
        '+        <note category="review">Otwórz plik?</note>'
    ]
    assert unit_of(path, "Open").notes == "File menu\nOtwórz plik?"
    assert unit_of(path, "Open").state is UnitState.FUZZY
    xliff_schema_check(path)


def test_set_attributes_removes_an_attribute_with_its_space() -> None:
    tag = "<target state='new' state-qualifier='leveraged-mt' xml:space='preserve'>"
    assert set_attributes(tag, {"state-qualifier": None, "state": "signed-off", "other": None}) == (
        "<target state='signed-off' xml:space='preserve'>"
    )


def test_the_schema_check_refuses_notes_after_a_segment(
    tmp_path: Path, xliff_schema_check: Callable[[Path], None]
) -> None:
    """The check itself: XLIFF 2.0 wants <notes> before the segments."""
    path = copy(tmp_path, "awaiting_review_20.xlf")
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("</segment>\n    </unit>", "</segment>\n<notes><note>x</note></notes></unit>", 1))
    with pytest.raises(AssertionError, match="notes"):
        xliff_schema_check(path)
