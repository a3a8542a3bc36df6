"""A problem many entries of a catalog share is said once, with how many entries and their first lines.

Django 5.2's French catalogs (django/contrib/humanize/locale/fr/LC_MESSAGES/django.po) write three
plural forms under a header that says ``nplurals=2``: ``pipeline check`` printed the same error for
each of its 29 entries (msgfmt says it once). A catalog without a plural rule printed one error per
plural entry on every run. The report's JSON keeps one issue per entry.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.model import Issue, Severity, said_once
from tests.unit.test_first_hour import project

#: The shape of Django's French catalogs: a header of two forms, entries with three (msgstr[2] for "many").
FRENCH = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: fr\\n"\n'
    '"Plural-Forms: nplurals=2; plural=(n > 1);\\n"\n\n'
)
ENTRY = (
    'msgid "{n} million"\nmsgid_plural "{n} millions"\n'
    'msgstr[0] "{n} million"\nmsgstr[1] "{n} millions"\nmsgstr[2] "{n} millions"\n\n'
)
NO_RULE = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: tlh\\n"\n\n'
PLURAL = 'msgid "{n} file"\nmsgid_plural "{n} files"\nmsgstr[0] ""\nmsgstr[1] ""\n\n'


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("PIPELINE_SERVICE_URL", "PIPELINE_AUTH_KEY", "PIPELINE_CACHE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    project(tmp_path, {})  # test_first_hour's: the embedded service, catalogs in locale/, the report in report/
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_check_says_a_header_every_plural_entry_contradicts_once(
    user: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (user / "locale" / "fr.po").write_text(FRENCH + "".join(ENTRY.format(n=n) for n in range(1, 6)), encoding="utf-8")
    assert main(["check"]) == 1
    out, err = capsys.readouterr()
    (line,) = [line for line in out.splitlines() if "plural forms" in line]
    assert line == (
        "locale/fr.po:9: 3 plural forms, but the header says nplurals=2: msgfmt --check refuses the catalog "
        "(5 entries: lines 9, 15, 21, …)"
    )
    assert "5 error(s)" in err  # each entry still counts


def test_a_run_says_a_missing_plural_rule_once_per_catalog(user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (user / "locale" / "tlh.po").write_text(NO_RULE + "".join(PLURAL.format(n=n) for n in range(4)), encoding="utf-8")
    assert main(["translate"]) == 1
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if "no Plural-Forms header" in line]
    assert line == (
        "locale/tlh.po:6: error: no Plural-Forms header and no CLDR rule for the language "
        "(4 entries: lines 6, 11, 16, …)"
    )
    report = json.loads((user / "report" / "report.json").read_text(encoding="utf-8"))
    assert [i["line"] for i in report["issues"]] == [6, 11, 16, 21]  # the JSON keeps every entry
    md = (user / "report" / "report.md").read_text(encoding="utf-8")
    assert sum("no Plural-Forms header" in row for row in md.splitlines()) == 1


def test_only_the_same_problem_of_one_catalog_is_said_once() -> None:
    issues = [
        Issue("a.po", "same", 3),
        Issue("a.po", "same", 9),
        Issue("b.po", "same", 4),  # another catalog
        Issue("a.po", "same", 12, severity=Severity.WARNING),  # another severity
        Issue("a.po", "other", 5),
    ]
    assert said_once(issues) == [
        Issue("a.po", "same (2 entries: lines 3, 9)", 3),
        Issue("b.po", "same", 4),
        Issue("a.po", "same", 12, severity=Severity.WARNING),
        Issue("a.po", "other", 5),
    ]
