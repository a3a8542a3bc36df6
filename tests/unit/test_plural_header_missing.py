"""A catalog with no Plural-Forms header whose translators already wrote its plural entries with another
number of forms than CLDR's rule for its language: Elixir's gettext writes no Plural-Forms line, and
teslamate's Spanish catalog holds two forms per plural entry, where CLDR (babel 2.17+) gives Spanish three
(msginit and msgfmt --check suggest two). Adding CLDR's rule would make every one of those translations
"half translated" and the file one msgfmt --check refuses for that; so no rule is added, and the plural
entries are translated with the two forms gettext uses for a catalog without a rule."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline.cli import main

CONFIG = 'source_lang = "en"\n[service]\nurl = "embedded"\n[cache]\ndir = ""\n'
HUMAN = (
    '#, elixir-autogen, elixir-format\nmsgid "Found %{count} file"\nmsgid_plural "Found %{count} files"\n'
    'msgstr[0] "Encontrado %{count} archivo"\nmsgstr[1] "Encontrados %{count} archivos"\n'
)
CATALOG = (
    'msgid ""\nmsgstr ""\n"Language: es\\n"\n\n'
    + HUMAN
    + '\n#, elixir-autogen, elixir-format\nmsgid "%{count} car"\nmsgid_plural "%{count} cars"\n'
    'msgstr[0] ""\nmsgstr[1] ""\n\n#, elixir-autogen, elixir-format\nmsgid "Theme"\nmsgstr ""\n'
)


def _catalog(tmp_path: Path) -> Path:
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "es.po"
    path.write_text(CATALOG, encoding="utf-8")
    return path


def test_a_run_adds_no_rule_that_contradicts_the_translated_plural_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _catalog(tmp_path)
    main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)])
    err = capsys.readouterr().err
    after = path.read_text(encoding="utf-8")
    assert "Plural-Forms" not in after
    assert HUMAN in after
    assert 'msgid "Theme"\nmsgstr ""' not in after
    assert 'msgid "%{count} car"\nmsgid_plural "%{count} cars"\nmsgstr[0] "%{count} ' in after
    assert "msgstr[2]" not in after
    assert "es.po: warning: no Plural-Forms header, and its translated plural entries have 2 forms" in err
    assert "CLDR's rule for es has 3" in err


def test_check_judges_the_forms_as_msgfmt_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _catalog(tmp_path)
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "no Plural-Forms header" in out
    assert "plural form 2 is empty" not in out


def test_a_form_left_empty_after_the_last_one_written_is_not_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # teslamate's Korean errors.po: msgmerge gave each plural entry two slots, and its translators
    # filled the one Korean has (CLDR: nplurals=1). Those are translations, not half-done ones.
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "ko.po"
    korean = (
        'msgid ""\nmsgstr ""\n"Language: ko\\n"\n\nmsgid "should have %{count} item(s)"\n'
        'msgid_plural "should have %{count} item(s)"\nmsgstr[0] "%{count} 개의 아이템이 있어야합니다."\nmsgstr[1] ""\n'
    )
    path.write_text(korean, encoding="utf-8")
    main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)])
    err = capsys.readouterr().err
    assert "half" not in err and "some plural forms are translated and some are empty" not in err
    assert path.read_text(encoding="utf-8") == korean


KOREAN_HUMAN = (
    'msgid "should have %{count} item(s)"\nmsgid_plural "should have %{count} item(s)"\n'
    'msgstr[0] "%{count} 개의 아이템이 있어야합니다."\n'
)
KOREAN = (
    'msgid ""\nmsgstr ""\n"Language: ko\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    + KOREAN_HUMAN
    + 'msgstr[1] ""\n\nmsgid "%{count} new"\nmsgid_plural "%{count} new"\nmsgstr[0] ""\nmsgstr[1] ""\n'
)


def _msgfmt_check(path: Path) -> subprocess.CompletedProcess[str]:
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("GNU msgfmt is not installed")
    return subprocess.run(
        [msgfmt, "--check", "--use-fuzzy", "-o", "/dev/null", str(path)], capture_output=True, text=True
    )


def test_the_rule_a_run_adds_leaves_no_translated_entry_msgfmt_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # teslamate's Korean errors.po and one new plural entry: the run adds Korean's rule (nplurals=1); the
    # empty slot msgmerge left after the translators' one form went with it, or msgfmt --check refused them.
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "ko.po"
    path.write_text(KOREAN, encoding="utf-8")
    main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)])
    capsys.readouterr()
    after = path.read_text(encoding="utf-8")
    assert '"Plural-Forms: nplurals=1; plural=0;\\n"\n' in after
    assert KOREAN_HUMAN + "\n" in after
    assert after.count("msgstr[1]") == 0 and after.count("msgstr[0]") == 2
    found = _msgfmt_check(path)
    assert found.returncode == 0, found.stderr


def test_no_rule_is_added_where_a_translated_entry_has_more_forms_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One Korean entry written with two forms (as ko/default.po's), one with one: no rule fits both.
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "ko.po"
    two = 'msgid "a file"\nmsgid_plural "%{count} files"\nmsgstr[0] "파일"\nmsgstr[1] "파일 %{count}개"\n\n'
    path.write_text(KOREAN.replace('\n\nmsgid "%{count} new"', "\n\n" + two + 'msgid "%{count} new"'), encoding="utf-8")
    before = set(_msgfmt_check(path).stderr.splitlines())
    main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)])
    assert "its translated plural entries have 1 or 2 forms where CLDR's rule for ko has 1" in capsys.readouterr().err
    after = path.read_text(encoding="utf-8")
    assert "Plural-Forms" not in after and two in after and KOREAN_HUMAN + 'msgstr[1] ""\n' in after
    assert set(_msgfmt_check(path).stderr.splitlines()) <= before  # nothing msgfmt --check says more of it
