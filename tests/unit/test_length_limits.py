"""Length limits: read from PO flags and XLIFF attributes, checked as warnings, written marked for review."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.catalogs.po import read_po
from pipeline.limits import Limit, limit_of
from pipeline.model import Severity
from pipeline.placeholders.checks import Rule, check_translation
from pipeline.workflows.check import check_paths

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize(
    ("flags", "limit"),
    [
        (("python-format",), None),
        (("max-length:40", "python-format"), Limit(40)),
        (("max-length:40", "max-length:12"), Limit(12)),
        (("max-storage-utf-8:30",), Limit(None, ("utf-8", 30))),
        (("max-length:x", "max-lengthy:3", "max-storage-latin-1:3"), None),
    ],
)
def test_flags_give_the_smallest_limit_of_each_kind(flags: tuple[str, ...], limit: Limit | None) -> None:
    assert limit_of(flags) == limit


def test_a_limit_counts_code_points_or_encoded_bytes() -> None:
    assert Limit(5).problem("Größe") is None
    assert Limit(4).problem("Größe") == "5 characters, over the limit of 4 (max-length:4)"
    assert Limit(None, ("utf-8", 6)).problem("Größe") == "7 bytes in utf-8, over the limit of 6 (max-storage-utf-8:6)"
    assert Limit(None, ("utf-16", 10)).problem("Größe") is None
    assert Limit(None, ("utf-16", 4)).problem("😀😀") == "8 bytes in utf-16, over the limit of 4 (max-storage-utf-16:4)"


def test_the_characters_to_ask_for_scale_a_limit_in_bytes() -> None:
    assert Limit(12).characters_for("a" * 40) == 12
    assert Limit(None, ("utf-8", 10)).characters_for("ąąąąą") == 5  # 10 bytes over 10: 5 characters fit
    assert Limit(None, ("utf-8", 6)).characters_for("ąąąąą") == 3


def test_xliff_12_maxwidth_in_characters_is_a_limit_other_units_are_not() -> None:
    units = read_catalog(DATA / "xliff" / "xliff12_maxwidth.xlf").units
    assert [limit_of(u.flags) for u in units] == [Limit(12), None, None]
    assert units[0].flags == ("xliff-inline", "max-length:12")


def test_xliff_2_size_and_storage_restrictions_follow_the_files_profiles() -> None:
    units = read_catalog(DATA / "xliff" / "xliff20_size_restrictions.xlf").units
    assert [limit_of(u.flags) for u in units] == [Limit(12), Limit(None, ("utf-16", 20)), Limit(8), None]


def test_xliff_2_restrictions_under_an_unknown_profile_are_not_read(tmp_path: Path) -> None:
    text = (DATA / "xliff" / "xliff20_size_restrictions.xlf").read_text("utf-8")
    path = tmp_path / "other.pl.xlf"
    path.write_text(text.replace('generalProfile="xliff:codepoints"', 'generalProfile="acme:pixels"'), "utf-8")
    assert [limit_of(u.flags) for u in read_catalog(path).units] == [None, Limit(None, ("utf-16", 20)), None, None]


def test_a_translation_over_its_limit_is_a_length_warning() -> None:
    [problem] = check_translation("Save", "Änderungen speichern", ("max-length:10",))
    assert (problem.severity, problem.rule) == (Severity.WARNING, Rule.LENGTH)
    assert problem.reason == "the translation has 20 characters, over the limit of 10 (max-length:10)"
    assert check_translation("Save", "Speichern", ("max-length:10",)) == []


def test_pipeline_check_warns_on_a_human_translation_over_its_limit() -> None:
    checked = check_paths([DATA / "check" / "warn_max_length_exceeded.po"])
    assert [(i.line, i.severity, i.reason) for i in checked.issues] == [
        (8, Severity.WARNING, "the translation has 20 characters, over the limit of 10 (max-length:10)")
    ]


def test_a_unit_to_review_is_written_fuzzy_with_a_comment_whatever_mark_fuzzy_says(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    path = tmp_path / "de.po"
    path.write_bytes(
        b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=ISO-8859-1\\n"\n"Language: de\\n"\n\n'
        b'#. Button\n#, max-length:6\nmsgid "Save"\nmsgstr ""\n\nmsgid "Open"\nmsgstr ""\n\nmsgid "Close"\nmsgstr ""\n'
    )
    catalog = read_po(path)
    note = "pipeline: reused from app/ł.po:3\nwith a line break"
    path.write_bytes(catalog.render({0: ("Speichern",), 1: ("Öffnen",)}, mark_fuzzy=False, review={0: note, 2: "x"}))
    msgfmt_check(path)
    text = path.read_bytes().decode("latin-1")
    comment = "# pipeline: reused from app/\\u0142.po:3 with a line break\n"  # one line, in the catalog's charset
    assert comment + '#. Button\n#, fuzzy, max-length:6\nmsgid "Save"' in text
    assert '\nmsgid "Open"\nmsgstr "Öffnen"' in text  # not named: mark_fuzzy's choice
    units = read_po(path).units
    assert [u.state for u in units] == [UnitState.FUZZY, UnitState.TRANSLATED, UnitState.UNTRANSLATED]


def test_an_xliff_12_unit_to_review_gets_a_note_after_its_target(tmp_path: Path) -> None:
    catalog = read_catalog(DATA / "xliff" / "xliff12_notes.xlf")
    out = catalog.render({1: ("Abbrechen",)}, mark_fuzzy=False, review={1: "pipeline: reused from a & b.xlf:7"})
    assert (
        b'<source>Cancel</source>\n        <target state="needs-review-translation">Abbrechen</target>\n'
        b'        <note from="pipeline">pipeline: reused from a &amp; b.xlf:7</note>\n      </trans-unit>'
    ) in out
    path = tmp_path / "again.xlf"
    path.write_bytes(out)
    unit = read_catalog(path).units[1]
    assert unit.state is UnitState.FUZZY and unit.notes == "pipeline: reused from a & b.xlf:7"
