"""A catalog msginit made from its template for a language gettext has no rule for (``ar``): its header says
``Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;``, which msgfmt refuses ("invalid nplurals value").
``pipeline check`` reports it as an error with its line; a run fills it with CLDR's rule, as msginit does
where it has one, so that what it writes compiles. The entries are wget 1.21.3's (po/wget.pot, msginit -l ar)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.catalogs import read_catalog
from pipeline.cli import main
from pipeline.errors import CatalogError

HEADER = (
    '# Arabic translations for GNU wget package.\nmsgid ""\nmsgstr ""\n"Project-Id-Version: GNU wget 1.21.3\\n"\n'
    '"Language: {lang}\\n"\n"MIME-Version: 1.0\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    '"Content-Transfer-Encoding: 8bit\\n"\n"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"\n\n'
)
ENTRIES = (
    '#: src/spider.c:77\nmsgid ""\n"Found no broken links.\\n"\n"\\n"\nmsgstr ""\n\n'
    '#: src/spider.c:84\n#, c-format\nmsgid ""\n"Found %d broken link.\\n"\n"\\n"\nmsgid_plural ""\n'
    '"Found %d broken links.\\n"\n"\\n"\nmsgstr[0] ""\nmsgstr[1] ""\n'
)
CONFIG = 'source_lang = "en"\n[service]\nurl = "embedded"\n[cache]\ndir = ""\n'


def _catalog(tmp_path: Path, lang: str = "ar") -> Path:
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / f"{lang}.po"
    path.write_text(HEADER.format(lang=lang) + ENTRIES, encoding="utf-8")
    return path


def test_check_reports_the_unfilled_rule_as_an_error_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _catalog(tmp_path)
    translated = path.read_text().replace('msgstr ""\n\n#: src/spider.c:84', 'msgstr "x\\n\\n"\n\n#: src/spider.c:84')
    path.write_text(translated)
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:9: Plural-Forms: invalid nplurals value, which msgfmt refuses" in out


def test_a_run_fills_the_rule_from_cldr_and_what_it_writes_compiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], msgfmt_check: Callable[[Path], None]
) -> None:
    path = _catalog(tmp_path)
    assert main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)]) == 0
    assert "as msginit does" in capsys.readouterr().err
    after = path.read_text()
    rule = (
        '"Plural-Forms: nplurals=6; plural=(n == 0 ? 0 : n == 1 ? 1 : n == 2 ? 2 : n % 100 >= 3 && n % 100 <= 10 ? 3 '
        ': n % 100 >= 11 && n % 100 <= 99 ? 4 : 5);\\n"\n'
    )
    assert after.splitlines(keepends=True)[8] == rule
    assert after.count("msgstr[5]") == 1
    msgfmt_check(path)
    assert main(["check", str(path)]) == 0


def test_the_rest_of_the_header_is_left_as_it_was(tmp_path: Path) -> None:
    path = _catalog(tmp_path)
    assert main(["translate", "--config", str(tmp_path / "pipeline.toml"), "--quiet", str(path)]) == 0
    before, after = HEADER.format(lang="ar").splitlines(), path.read_text().splitlines()
    assert after[:8] == before[:8] and after[9] == before[9] == ""


def test_an_unfilled_rule_for_a_language_cldr_has_none_for_is_refused_with_its_line(tmp_path: Path) -> None:
    path = _catalog(tmp_path, "x-klingon")
    with pytest.raises(CatalogError) as caught:
        read_catalog(path)
    assert caught.value.line == 9 and "invalid nplurals value" in caught.value.reason


def test_a_template_as_xgettext_writes_it_is_merged(tmp_path: Path, msgfmt_check: Callable[[Path], None]) -> None:
    # xgettext leaves Language empty and the rule unfilled in every template with plural entries (tar.pot,
    # wget.pot): msgmerge takes nothing from a template's header, and neither does a refresh.
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    template = tmp_path / "wget.pot"
    template.write_text(HEADER.format(lang="") + ENTRIES, encoding="utf-8")
    catalog = tmp_path / "ru.po"
    rule = (
        '"Plural-Forms: nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : '
        'n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\\n"\n'
    )
    catalog.write_text(HEADER.format(lang="ru").replace(HEADER.splitlines(keepends=True)[8], rule), encoding="utf-8")
    config = str(tmp_path / "pipeline.toml")
    assert main(["refresh", "--config", config, "--merge-only", "--template", str(template), str(catalog)]) == 0
    after = catalog.read_text(encoding="utf-8")
    assert after.count("Found %d broken link.") == 1 and after.count("msgstr[2]") == 1
    msgfmt_check(catalog)
