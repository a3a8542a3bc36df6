"""Catalogs gettext reads that the reader refused or misread: each read (or refused) as msgfmt does it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline.catalogs.base import UnitState
from pipeline.catalogs.po import read_po
from pipeline.cli import main
from pipeline.errors import CatalogError

HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
)
CONFIG = 'source_lang = "en"\n[service]\nurl = "embedded"\n[cache]\ndir = ""\n'


def _app_catalog(tmp_path: Path, entries: str) -> Path:
    """A German catalog of ``entries`` after :data:`HEADER`, in a project configured beside it."""
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "de" / "LC_MESSAGES" / "app.po"
    path.parent.mkdir(parents=True)
    path.write_text(HEADER + entries, encoding="utf-8")
    return path


def _msgfmt(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("GNU msgfmt is not installed")
    return subprocess.run([msgfmt, *options, "-o", "/dev/null", str(path)], capture_output=True, text=True)


def _msgfmts_line(tmp_path: Path, entry: str, says: str = "") -> tuple[Path, int]:
    """A German catalog of ``entry`` after :data:`HEADER`, and the line of msgfmt's first error that ``says``
    (a regex of its message; any error when empty)."""
    path = tmp_path / "de.po"
    path.write_text(HEADER + entry, encoding="utf-8")
    found = re.search(rf"de\.po:(\d+):(?:\d+:)? {says}", _msgfmt(path).stderr)
    assert found is not None
    return path, int(found[1])


# teslamate's Elixir catalogs: fr/errors.po has no header entry, ja/default.po an empty one (msgid "" msgstr "").
HEADERLESS = (
    '## From Ecto.Changeset.cast/4\nmsgid "can\'t be blank"\nmsgstr "ne peut pas être vide"\n\n'
    'msgid "should be %{count} character(s)"\nmsgid_plural "should be %{count} character(s)"\n'
    'msgstr[0] "doit contenir %{count} caractère"\nmsgstr[1] "doit contenir %{count} caractères"\n\n'
    'msgid "is invalid"\nmsgstr ""\n\n'
    'msgid "Skipped %{count} row"\nmsgid_plural "Skipped %{count} rows"\nmsgstr[0] ""\n'
)


@pytest.mark.parametrize("header", ["", 'msgid ""\nmsgstr ""\n\n'], ids=["no header entry", "an empty one"])
def test_a_catalog_without_a_header_is_translated_with_gettexts_defaults(
    tmp_path: Path, header: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "fr" / "LC_MESSAGES" / "errors.po"
    path.parent.mkdir(parents=True)
    path.write_text(header + HEADERLESS, encoding="utf-8")
    assert _msgfmt(path).returncode == 0  # msgfmt compiles it; only --check asks for a header
    catalog = read_po(path)
    assert catalog.plural is not None and (catalog.plural.nplurals, catalog.plural.expression) == (2, "(n != 1)")
    main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)])
    capsys.readouterr()
    after = path.read_text(encoding="utf-8")
    assert after.startswith(header + HEADERLESS.split('msgid "is invalid"')[0])  # no header added, humans' kept
    assert 'msgid "is invalid"\nmsgstr ""' not in after
    # the one-slot entry gets the two forms gettext reads a catalog without a rule with
    assert 'msgid_plural "Skipped %{count} rows"\nmsgstr[0] "' in after and "msgstr[1] " in after.split("rows")[-1]
    assert _msgfmt(path).returncode == 0


def test_check_reports_a_missing_header_as_msgfmt_check_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "fr.po"
    path.write_text(HEADERLESS, encoding="utf-8")
    assert _msgfmt(path, "--check").returncode != 0
    assert main(["check", str(path)]) == 1
    assert "no header entry" in capsys.readouterr().out


def test_a_headerless_catalog_in_a_language_of_more_forms_is_warned_about_once(tmp_path: Path) -> None:
    path = tmp_path / "ru" / "LC_MESSAGES" / "errors.po"
    path.parent.mkdir(parents=True)
    path.write_text(HEADERLESS, encoding="utf-8")
    warnings = read_po(path).warnings
    assert len(warnings) == 1 and "ru has 3 (one, few, many)" in warnings[0]


def test_a_headerless_catalog_is_warned_about_its_charset_once(tmp_path: Path) -> None:
    """Without a header there is no charset: gettext's tools take the file for ASCII, so msgcat refuses the
    non-ASCII translations a run writes (msgfmt warns "charset conversion will not work"). Said once."""
    path = tmp_path / "de" / "LC_MESSAGES" / "errors.po"
    path.parent.mkdir(parents=True)
    path.write_text(HEADERLESS, encoding="utf-8")
    warnings = read_po(path).warnings
    assert len(warnings) == 1 and "charset=UTF-8" in warnings[0] and "de has" not in warnings[0]


def test_a_blank_before_a_plural_forms_bracket_is_read_as_msgfmt_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "de.po"
    raw = HEADER + 'msgid "car"\nmsgid_plural "cars"\nmsgstr [0] "Auto"\nmsgstr\t[1] "Autos"\n\n'
    raw += 'msgid "file"\nmsgid_plural "files"\nmsgstr [0] ""\nmsgstr [1] ""\n'
    path.write_text(raw, encoding="utf-8")
    assert _msgfmt(path, "--check").returncode == 0
    catalog = read_po(path)
    assert [u.targets for u in catalog.units] == [("Auto", "Autos"), ("", "")]
    assert [e.msgstr_plural for e in catalog.entries] == [{0: "Auto", 1: "Autos"}, {0: "", 1: ""}]  # refresh's reading
    written = catalog.render({1: ("Datei", "Dateien")}, mark_fuzzy=False)
    assert written.decode() == raw.replace('msgstr [0] ""\nmsgstr [1] ""', 'msgstr[0] "Datei"\nmsgstr[1] "Dateien"')


@pytest.mark.parametrize(
    ("entry", "keyword"),
    [
        ('msgid "car"\nmsgid_plural "cars"\n\nmsgid "x"\nmsgstr "y"\n', "msgstr[]"),
        ('msgid "car"\nmsgid_plural "cars"\n\nmsgctxt "c"\nmsgid "x"\nmsgstr "y"\n', "msgstr[]"),
        ('msgid "car"\nmsgid_plural "cars"\n"s"\n\n#. note\nmsgid "x"\nmsgstr "y"\n', "msgstr[]"),
        ('msgid "car"\n\nmsgid "x"\nmsgstr "y"\n', "msgstr"),
        ('msgid "car"\n"s"\n\n#, fuzzy\nmsgid "x"\nmsgstr "y"\n', "msgstr"),
        ('msgid "car"\nmsgid_plural "cars"\n', "msgstr[]"),
    ],
)
def test_an_entry_without_its_msgstr_is_refused_at_its_own_line(tmp_path: Path, entry: str, keyword: str) -> None:
    path = tmp_path / "de.po"
    path.write_text(HEADER + entry, encoding="utf-8")
    found = _msgfmt(path, "--check")
    assert f"de.po:6: missing '{keyword}' section" in found.stderr
    with pytest.raises(CatalogError, match=f"missing '{keyword}' section".replace("[", r"\[")) as info:
        read_po(path)
    assert info.value.line == 6


def test_a_templates_charset_in_a_catalog_is_warned_about_as_msgfmt_does(tmp_path: Path) -> None:
    text = HEADER.replace("charset=UTF-8", "charset=CHARSET") + 'msgid "x"\nmsgstr "é"\n'
    path = tmp_path / "de.po"
    path.write_text(text, encoding="utf-8")
    assert 'Charset "CHARSET" is not a portable encoding name' in _msgfmt(path).stderr
    catalog = read_po(path)
    assert catalog.encoding == "utf-8" and catalog.units[0].targets == ("é",)
    assert len(catalog.warnings) == 1 and "charset=CHARSET" in catalog.warnings[0] and "line 3" in catalog.warnings[0]
    template = tmp_path / "messages.pot"
    template.write_text(text.replace('"é"', '""'), encoding="utf-8")
    assert 'Charset "CHARSET"' not in _msgfmt(template).stderr  # nor in a template, where xgettext leaves it
    assert read_po(template).warnings == ()


@pytest.mark.parametrize(
    ("entry", "line"),
    [
        ('#, fuzzy\n#| msgctxt "c"\n#| msgid "a"\n#| "b"\n#| msgid_plural "as"\nmsgid "c"\nmsgstr "d"\n', None),
        ('#| msgid "a"\n\nmsgctxt "x"\nmsgid "c"\nmsgstr "d"\n', None),
        ('#, fuzzy\n#~| msgid "a"\n#~| "b"\n#~ msgid "c"\n#~ msgstr "d"\n', None),
        ('#, fuzzy\n#| msgid "a"\n#| msgid "b"\nmsgid "c"\nmsgstr "d"\n', 8),
        ('#| msgctxt "a"\nmsgid "c"\nmsgstr "d"\n', 7),
        ('#| msgid_plural "as"\nmsgid "c"\nmsgstr "d"\n', 6),
        ('#| "more"\nmsgid "c"\nmsgstr "d"\n', 6),
        ('#| msgid "a"\n#, fuzzy\nmsgid "c"\nmsgstr "d"\n', 8),  # msgfmt: the msgid after the comment
        ('#| msgid "a"\n#~ msgid "c"\n#~ msgstr "d"\n', 7),
        ('#~| msgid "a"\nmsgid "c"\nmsgstr "d"\n', 7),
        ('msgid "a"\nmsgstr "b"\n\n#~| x\n#~ msgid "e"\n#~ msgstr "f"\n', 9),
        ('#~| msgid "a\\q"\n#~ msgid "c"\n#~ msgstr "d"\n', 6),
        ('#| msgid "a\\q"\nmsgid "c"\nmsgstr "d"\n', 6),
    ],
)
def test_previous_strings_are_read_in_msgfmts_grammar(tmp_path: Path, entry: str, line: int | None) -> None:
    """``#|`` and ``#~|`` lines: msgctxt, msgid, msgid_plural in that order, quoted strings with known escapes,
    right before their entry's msgctxt or msgid (blank lines between, comments not), live with live."""
    _read_or_refused_as_msgfmt_does(tmp_path / "de.po", entry, line, "")


@pytest.mark.parametrize(
    ("entry", "line"),
    [
        ('msgid "a"\n#~ "x"\nmsgstr "b"\n', 7),
        ('msgid "a"\nmsgstr "b"\n#~ "x"\n', 8),
        ('#~ msgid "a"\n"x"\n#~ msgstr "b"\n', 7),
        ('#~ msgid "a"\nmsgstr "b"\n', 7),
        ('msgid "a"\n#~ msgstr "b"\n', 7),
        ('#~ msgctxt "a"\nmsgid "a"\nmsgstr "b"\n', 7),
        ('#~ msgid "a"\n#~ msgstr "b"\nmsgid "c"\nmsgstr "d"\n', None),
        ('msgid "a"\nmsgstr "b"\n#~ msgid "c"\n#~ msgstr "d"\n', None),
    ],
)
def test_an_entry_is_obsolete_in_all_its_lines_or_in_none(tmp_path: Path, entry: str, line: int | None) -> None:
    _read_or_refused_as_msgfmt_does(tmp_path / "de.po", entry, line, "inconsistent use of #~")


def _read_or_refused_as_msgfmt_does(path: Path, entry: str, line: int | None, reason: str) -> None:
    """The catalog of ``entry`` is read where msgfmt compiles it, else refused at msgfmt's ``line`` (``reason``:
    what msgfmt and the refusal both say, if anything)."""
    path.write_text(HEADER + entry, encoding="utf-8")
    found = _msgfmt(path)
    if line is None:
        assert found.returncode == 0, found.stderr
        read_po(path)
        return
    assert found.returncode != 0 and found.stderr.startswith(f"{path}:{line}: {reason}".rstrip())
    with pytest.raises(CatalogError, match=re.escape(reason) if reason else None) as info:
        read_po(path)
    assert info.value.line == line


# msgfmt's lexer reads a comment's kind from the character after "#" and a keyword's strings as the tokens
# that follow it, on its line or the next ones: hand-edited catalogs write "#,fuzzy" and Emacs po-mode's
# users split a long msgid after its keyword. polib refuses both; the reader reads them as msgfmt does.
UNSPACED = (
    "#translator\n#.extracted\n#:src/app.c:12\n#,fuzzy,c-format\n"
    'msgid "%d file"\nmsgstr "%d Datei"\n\n'
    'msgid\n"Hello "\n"world"\nmsgstr ""\n\n'
    'msgctxt\n"menu"\nmsgid "Open"\nmsgstr\n"Öffnen"\n\n'
    'msgid "car"\nmsgid_plural\n"cars"\nmsgstr[0]\n""\nmsgstr[1] ""\n\n'
    '#~msgid "gone"\n#~msgstr "weg"\n'
)


def test_comment_markers_without_a_space_and_strings_on_the_keywords_next_line_are_read_as_msgfmt_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _app_catalog(tmp_path, UNSPACED)
    assert _msgfmt(path, "--check").returncode == 0
    catalog = read_po(path)
    assert [(u.context, u.sources, u.targets) for u in catalog.units] == [
        (None, ("%d file",), ("%d Datei",)),
        (None, ("Hello world",), ("",)),
        ("menu", ("Open",), ("Öffnen",)),
        (None, ("car", "cars"), ("", "")),
        (None, ("gone",), ("weg",)),
    ]
    assert [u.state for u in catalog.units] == [
        UnitState.FUZZY,
        UnitState.UNTRANSLATED,
        UnitState.TRANSLATED,
        UnitState.UNTRANSLATED,
        UnitState.OBSOLETE,
    ]
    assert catalog.flags_of(0) == ("fuzzy", "c-format")
    # polib's reading (the review's) agrees: its comments, references and flags too
    first = catalog.entries[0]
    assert (first.tcomment, first.comment, first.occurrences, first.flags) == (
        "translator",
        "extracted",
        [("src/app.c", "12")],
        ["fuzzy", "c-format"],
    )
    assert main(["check", str(path)]) == 0
    assert main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)]) == 0
    capsys.readouterr()
    after = path.read_text(encoding="utf-8")
    assert after.startswith(HEADER + UNSPACED.split("msgid\n")[0])  # the fuzzy entry kept as it was
    assert 'msgid\n"Hello "\n"world"\nmsgstr "' in after and 'msgstr[0]\n""' not in after
    assert _msgfmt(path, "--check").returncode == 0
    assert [u.state for u in read_po(path).units][:4] == [UnitState.FUZZY] * 2 + [UnitState.TRANSLATED] + [
        UnitState.FUZZY
    ]


@pytest.mark.parametrize(
    ("entry", "keyword"),
    [
        ('msgid\nmsgstr "x"\n', "msgid"),
        ('msgid "x"\nmsgstr\n', "msgstr"),  # at the end of the file: msgfmt names the line after the last
        ('msgid "x"\nmsgstr\n\n#. next\nmsgid "y"\nmsgstr ""\n', "msgstr"),  # msgfmt skips the comment
    ],
)
def test_a_keyword_without_any_string_is_refused_where_msgfmt_refuses_it(
    tmp_path: Path, entry: str, keyword: str
) -> None:
    path, line = _msgfmts_line(tmp_path, entry, "syntax error")
    with pytest.raises(CatalogError, match=f"{keyword} without a string") as info:
        read_po(path)
    assert info.value.line == line


def test_check_says_what_the_reader_warns_about_a_catalog_as_translate_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "de.po"
    path.write_text(HEADER.replace("charset=UTF-8", "charset=ISO-8859-1") + 'msgid "x"\nmsgstr "é"\n', encoding="utf-8")
    (warning,) = read_po(path).warnings
    assert "the text is UTF-8" in warning
    assert main(["check", str(path)]) == 0  # a warning, not an error
    said = capsys.readouterr()
    assert f"{path}: warning: {warning}" in said.out and "1 warning(s)" in said.err


def test_a_headerless_catalog_that_is_not_utf8_is_read_byte_for_byte_as_msgfmt_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """msgfmt compiles it ("charset conversion will not work"): each byte as it is. Read as ISO-8859-1, which
    keeps every byte, and said once; a language that charset cannot hold is refused before anything is sent."""
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    path = tmp_path / "de" / "LC_MESSAGES" / "errors.po"
    path.parent.mkdir(parents=True)
    raw = 'msgid "coffee"\nmsgstr "café"\n\nmsgid "is invalid"\nmsgstr ""\n'.encode("latin-1")
    path.write_bytes(raw)
    assert _msgfmt(path).returncode == 0
    catalog = read_po(path)
    assert [u.targets for u in catalog.units] == [("café",), ("",)]
    assert len(catalog.warnings) == 1 and "not UTF-8" in catalog.warnings[0]
    assert main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)]) == 0
    capsys.readouterr()
    after = path.read_bytes()
    assert after.startswith(raw.split(b'msgid "is invalid"')[0]) and b'msgstr ""' not in after
    assert _msgfmt(path).returncode == 0


@pytest.mark.parametrize(
    "entry",
    [
        'msgid "Size\nmsgstr ""\n',
        'msgid "Size"\nmsgstr "Grö\nmsgid "x"\nmsgstr ""\n',
        'msgid "Size"\nmsgstr ""\n"Grö\n\nmsgid "x"\nmsgstr ""\n',
        'msgid "car"\nmsgid_plural "cars\nmsgstr[0] ""\nmsgstr[1] ""\n',
    ],
)
def test_a_string_left_open_is_refused_at_the_line_msgfmt_names(tmp_path: Path, entry: str) -> None:
    """msgfmt meets the line's end inside the string and names the line after it (its lexer is there):
    the same line is named, and the reason says which line the string is on."""
    path, line = _msgfmts_line(tmp_path, entry, "end-of-line within string")
    with pytest.raises(CatalogError, match=f"not closed on line {line - 1}") as info:
        read_po(path)
    assert info.value.line == line


# Flags separated by a blank alone: gettext splits a "#," line at blanks as well as commas (msgcat writes
# "#, fuzzy, c-format" back), so the first entry is fuzzy and C format, the second C format and not wrapped.
BLANK_FLAGS = (
    '#, fuzzy c-format\nmsgid "%d file"\nmsgstr "%d Datei"\n\n#, no-wrap  c-format,\nmsgid "%s folder"\nmsgstr ""\n'
)


def test_flags_separated_by_a_blank_are_read_as_gettext_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _app_catalog(tmp_path, BLANK_FLAGS)
    stats = _msgfmt(path, "--check", "--statistics")
    assert stats.returncode == 0 and "1 fuzzy translation" in stats.stderr
    catalog = read_po(path)
    assert [catalog.flags_of(u.position) for u in catalog.units] == [("fuzzy", "c-format"), ("no-wrap", "c-format")]
    assert [u.state for u in catalog.units] == [UnitState.FUZZY, UnitState.UNTRANSLATED]
    assert [entry.flags for entry in catalog.entries] == [["fuzzy", "c-format"], ["no-wrap", "c-format"]]
    assert main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)]) == 0
    capsys.readouterr()
    after = path.read_text(encoding="utf-8")
    # the fuzzy entry left alone, the other marked fuzzy with its own flags as they were written
    assert after.startswith(HEADER + BLANK_FLAGS.split("#, no-wrap")[0] + "#, fuzzy, no-wrap  c-format,\n")
    assert _msgfmt(path, "--check").returncode == 0
    # the C format is checked: a translation that drops the %s is an error, as msgfmt --check says
    path.write_text(HEADER + BLANK_FLAGS.replace('msgstr ""', 'msgstr "Ordner"'), encoding="utf-8")
    assert "number of format specifications" in _msgfmt(path, "--check").stderr
    assert main(["check", str(path)]) == 1
    assert f"{path}:11: C format: the number of arguments differs" in capsys.readouterr().out


# msgfmt's lexer reads a keyword's strings as tokens: several on one line, none before the next line, and no blank
# needed between a keyword and its string. Each entry as msgcat writes it back.
TOKENS = (
    'msgid "Hello " "world"\nmsgstr "Hallo " "Welt"\n\n'
    'msgid"Open"\nmsgstr""\n\n'
    '#| msgid\n#| "Sav" "e"\nmsgid "Save all"\nmsgstr "Speichern"\n\n'
    'msgid "Close"\n"" " all"\nmsgstr ""\n'
)


def test_strings_are_read_as_msgfmts_lexer_reads_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _app_catalog(tmp_path, TOKENS)
    assert _msgfmt(path, "--check").returncode == 0
    catalog = read_po(path)
    assert [(u.sources, u.targets) for u in catalog.units] == [
        (("Hello world",), ("Hallo Welt",)),
        (("Open",), ("",)),
        (("Save all",), ("Speichern",)),
        (("Close all",), ("",)),
    ]
    assert [entry.previous_msgid for entry in catalog.entries] == [None, None, "Save", None]
    assert main(["translate", "--config", str(tmp_path / "pipeline.toml"), str(path)]) == 0
    capsys.readouterr()
    after = path.read_text(encoding="utf-8")
    assert after.startswith(HEADER + TOKENS.split('msgid"Open"')[0] + '#, fuzzy\nmsgid"Open"\nmsgstr "')
    assert '#| "Sav" "e"\nmsgid "Save all"\nmsgstr "Speichern"\n\n#, fuzzy\nmsgid "Close"\n"" " all"\nmsgstr "' in after
    assert [u.state for u in read_po(path).units] == [UnitState.TRANSLATED, UnitState.FUZZY] * 2
    assert _msgfmt(path, "--check").returncode == 0


@pytest.mark.parametrize(
    "entry",
    ['#| msgid\nmsgid "x"\nmsgstr ""\n', '#| msgid "a"\n#| msgid_plural\n\nmsgid "x"\nmsgstr ""\n', "#| msgctxt\n"],
)
def test_a_previous_keyword_without_a_string_is_refused_where_msgfmt_refuses_it(tmp_path: Path, entry: str) -> None:
    path, line = _msgfmts_line(tmp_path, entry, "syntax error")
    with pytest.raises(CatalogError, match="without a string after it") as info:
        read_po(path)
    assert info.value.line == line


@pytest.mark.parametrize("header", ["", 'msgid ""\nmsgstr "Project-Id-Version: errors\\n"\n\n'])
def test_a_catalog_without_a_charset_whose_bytes_are_not_latin1_text_is_warned_about(
    tmp_path: Path, header: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """msgfmt compiles a cp1251 catalog that names no charset, each byte as ISO-8859-1 ("Íå ìîæåò" for "Не может"):
    read alike, and said, naming the file, where its bytes are no plausible Latin-1 text."""
    path = tmp_path / "ru" / "LC_MESSAGES" / "errors.po"
    path.parent.mkdir(parents=True)
    raw = header + 'msgid "can\'t be blank"\nmsgstr "Не может быть пустым"\n\nmsgid "is invalid"\nmsgstr ""\n'
    path.write_bytes(raw.encode("cp1251"))
    assert _msgfmt(path).returncode == 0
    catalog = read_po(path)
    assert catalog.units[0].targets == ("Не может быть пустым".encode("cp1251").decode("latin-1"),)
    doubt = [w for w in catalog.warnings if "do not read as Latin-1 text" in w]
    assert len(doubt) == 1 and "cp1251" in doubt[0]
    main(["check", str(path)])  # an error too, where msgfmt --check refuses a missing header
    assert f"{path}: warning: {doubt[0]}" in capsys.readouterr().out
    # Latin-1 text is not doubted: accented letters alone or two in a row among ASCII ones
    path.write_bytes((header + 'msgid "size"\nmsgstr "Größe für Bücher, naïveté"\n').encode("latin-1"))
    assert not [w for w in read_po(path).warnings if "Latin-1 text" in w]


@pytest.mark.parametrize(
    "entry",
    [
        'msgid "a"\nmsgstr "b"\nmsgstr[0] "c"\n',  # a form after a msgstr: msgfmt's syntax error there
        'msgid "x"\nmsgstr ""\n"X"\nmsgstr ""\n\nmsgid "a"\nmsgstr "b',  # a second msgstr, named first
        'msgid "a"\nmsgstr[1] "b"\nmsgstr ""\n',  # the first form not msgstr[0]: named before the msgid
        'msgid "file"\nmsgid_plural "files"\nmsgid_plural "files"\nmsgstr[0] "Datei"\n',  # at the msgid
        '#, python-format\nmsgid "PEP %s"\n#~| x\nmsgstr "PEP %s"\n',  # the unknown keyword, before the msgstr
        'msgid "a"\nmsgstr "b\n',  # left open on the last line: the line after it
    ],
)
def test_a_broken_entry_is_refused_at_the_first_line_msgfmt_names(tmp_path: Path, entry: str) -> None:
    """Mutants of published catalogs (bench/acceptance/po_reader_differential.py mutants) that were refused on
    another line than msgfmt's first error."""
    path, line = _msgfmts_line(tmp_path, entry)
    with pytest.raises(CatalogError) as info:
        read_po(path)
    assert info.value.line == line
