"""A header that gives a language two plural forms where CLDR gives its whole numbers more (``nplurals=2;
plural=(n != 1);`` in an Arabic or Welsh catalog, as a template or a tool without a rule for it leaves it):
the rule is followed, as msgfmt follows it, and a run warns once per catalog, naming the header's line."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel import Locale

from pipeline.catalogs import read_catalog
from pipeline.cli import main
from pipeline.plural_rules import WHOLE_NUMBER_FORMS
from tests.unit.test_unfilled_plural_header import CONFIG, ENTRIES, HEADER

#: CLDR's plural categories in the order CLDR lists them.
_ORDER = ("zero", "one", "two", "few", "many", "other")


def _catalog(tmp_path: Path, lang: str, rule: str = "nplurals=2; plural=(n != 1);", entries: str = ENTRIES) -> Path:
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / f"{lang}.po"
    path.write_text(HEADER.format(lang=lang).replace("nplurals=INTEGER; plural=EXPRESSION;", rule) + entries)
    return path


@pytest.mark.parametrize(("lang", "forms"), [("ar", 6), ("cy", 6), ("ru", 3), ("ar_EG", 6)])
def test_two_forms_where_cldr_has_more_are_warned_with_the_header_line(tmp_path: Path, lang: str, forms: int) -> None:
    (warning,) = read_catalog(_catalog(tmp_path, lang)).warnings
    assert warning.startswith(f"Plural-Forms on line 9 says nplurals=2 for {lang}, but CLDR has {forms} plural forms")


@pytest.mark.parametrize(
    ("lang", "rule"),
    [
        ("de", "nplurals=2; plural=(n != 1);"),
        ("fr", "nplurals=2; plural=(n > 1);"),  # CLDR's "many" is for millions: no whole number below 1000
        ("he", "nplurals=2; plural=(n != 1);"),  # what gettext's msginit writes for Hebrew (CLDR: 3)
        ("cy", "nplurals=4; plural=(n==1) ? 0 : (n==2) ? 1 : (n != 8 && n != 11) ? 2 : 3;"),  # GNOME's choice
        ("ar", "nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);"),
    ],
)
def test_a_rule_cldr_agrees_with_or_a_team_chose_is_not_warned(tmp_path: Path, lang: str, rule: str) -> None:
    assert read_catalog(_catalog(tmp_path, lang, rule)).warnings == ()


def test_hebrew_with_another_two_form_rule_than_msginits_is_warned(tmp_path: Path) -> None:
    (warning,) = read_catalog(_catalog(tmp_path, "he", "nplurals=2; plural=(n > 1);")).warnings
    assert warning.startswith("Plural-Forms on line 9 says nplurals=2 for he, but CLDR has 3 plural forms")


def test_a_catalog_without_plural_entries_is_not_warned(tmp_path: Path) -> None:
    singular_only = ENTRIES.split("\n\n")[0] + "\n"
    assert read_catalog(_catalog(tmp_path, "ar", entries=singular_only)).warnings == ()


def test_a_run_warns_once_and_writes_the_headers_number_of_forms(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _catalog(tmp_path, "ar")
    before = path.read_text()
    assert main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)]) == 0
    err = capsys.readouterr().err
    assert err.count("CLDR has 6 plural forms") == 1
    assert "on line 9 says nplurals=2 for ar" in err
    after = path.read_text()
    assert after.count("msgstr[1]") == 1 and "msgstr[2]" not in after
    assert after.splitlines()[:9] == before.splitlines()[:9]


def test_the_table_is_cldrs() -> None:
    """Every language babel knows whose whole numbers 0 to 1000 take more than two plural forms, with them."""
    from babel import localedata

    found = {}
    for language in sorted({code.split("_")[0] for code in localedata.locale_identifiers()}):
        rule = Locale.parse(language).plural_form
        forms = {rule(n) for n in range(1001)}
        if len(forms) > 2:
            found[language] = tuple(form for form in _ORDER if form in forms)
    assert found == WHOLE_NUMBER_FORMS
