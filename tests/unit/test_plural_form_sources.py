"""Each plural form is checked against the source a translator writes it from: the form of n=1 against the
singular (or the plural: Russian's form 0 also stands for 21), every other form against the plural source.
The entry is kio 5.103's (tests/data/plural)."""

from __future__ import annotations

from pathlib import Path

from pipeline.workflows.check import check_paths

DATA = Path(__file__).resolve().parents[1] / "data" / "plural"


def test_the_form_of_one_may_follow_the_singulars_markup() -> None:
    checked = check_paths([DATA / "kio-kuit-plural-ru.po"])
    assert checked.issues == [] and checked.fuzzy == []


def test_a_form_that_follows_neither_source_is_still_reported(tmp_path: Path) -> None:
    text = (DATA / "kio-kuit-plural-ru.po").read_text(encoding="utf-8")
    broken = text.replace('"ит инстеад?<nl/><emphasis', '"ит инстеад?<emphasis', 1)
    assert broken != text
    (tmp_path / "ru.po").write_text(broken, encoding="utf-8")
    reasons = [i.reason for i in check_paths([tmp_path / "ru.po"]).fuzzy]
    assert reasons == ["plural form 0: markup '<nl/>' missing"]


def test_the_other_forms_are_held_to_the_plural_source(tmp_path: Path) -> None:
    text = (DATA / "kio-kuit-plural-ru.po").read_text(encoding="utf-8")
    broken = text.replace('"делете тхем инстеад?<nl/><nl/><emphasis', '"делете тхем инстеад?<nl/><emphasis', 1)
    assert broken != text
    (tmp_path / "ru.po").write_text(broken, encoding="utf-8")
    reasons = [i.reason for i in check_paths([tmp_path / "ru.po"]).fuzzy]
    assert reasons == ["plural form 1: markup '<nl/>' missing (1 of 2)"]


def test_plural_entries_with_more_or_fewer_forms_than_nplurals_are_errors_at_msgfmts_line() -> None:
    """``msgfmt --check`` refuses a translated plural entry whose forms are not nplurals, at its msgstr[0]
    line; an untranslated one it lets through (a run writes nplurals forms into it), a fuzzy one too."""
    checked = check_paths([Path(__file__).resolve().parents[1] / "data" / "po" / "plural_forms_miscounted.po"])
    refused = "but the header says nplurals=2: msgfmt --check refuses the catalog"
    assert [(i.line, i.reason, i.severity.name) for i in checked.issues] == [
        (19, f"1 plural form, {refused}", "ERROR"),
        (23, f"3 plural forms, {refused}", "ERROR"),
    ]
    assert [(i.line, i.reason) for i in checked.fuzzy] == [(40, f"3 plural forms, {refused}")]
