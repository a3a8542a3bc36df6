"""The PO adapter: reading units, refusing bad syntax, writing back only what changed."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.catalogs import Reviewed, UnitState, read_catalog
from pipeline.catalogs.po import read_po
from pipeline.catalogs.po_strings import format_field
from pipeline.errors import CatalogError

HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {lang}\\n"\n'
    '"Plural-Forms: {plural}\\n"\n\n'
)
PL = "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"


def write(tmp_path: Path, body: str, lang: str = "pl", plural: str = PL, name: str = "x.po") -> Path:
    path = tmp_path / name
    path.write_text(HEADER.format(lang=lang, plural=plural) + body, encoding="utf-8")
    return path


def test_units_and_states(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '#, python-format\nmsgid "Hi %(n)s"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Old"\nmsgstr "Stary"\n\nmsgid "Done"\nmsgstr "Gotowe"\n\n'
        'msgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] "%d plik"\nmsgstr[1] ""\n'
        'msgstr[2] ""\n\n#~ msgid "Gone"\n#~ msgstr "Nie ma"\n',
    )
    units = read_catalog(path).units
    assert [u.state for u in units] == [
        UnitState.UNTRANSLATED,
        UnitState.FUZZY,
        UnitState.TRANSLATED,
        UnitState.PARTIAL,
        UnitState.OBSOLETE,
    ]
    assert units[0].line == 8 and units[0].flags == ("python-format",)
    assert units[3].nforms == 3 and units[3].sources == ("%d file", "%d files")


def test_units_made_on_demand_read_as_the_tuple_of_the_same_units(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '#. a note\nmsgctxt "menu"\nmsgid "Open"\nmsgstr "Otwórz"\n\n'
        'msgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] ""\nmsgstr[1] ""\nmsgstr[2] ""\n\n'
        'msgid "Close"\nmsgstr ""\n',
    )
    units = read_catalog(path).units
    as_tuple = tuple(units)
    assert units == as_tuple and units == read_catalog(path).units and len(units) == 3
    assert [u.position for u in units] == [0, 1, 2] and units[-1] == as_tuple[2] and units[1:] == as_tuple[1:]
    opened, plural, closed = units
    assert (opened.context, opened.notes, opened.targets, opened.nforms) == ("menu", "a note", ("Otwórz",), 1)
    assert plural.plural and plural.targets == ("", "", "") and plural.state is UnitState.UNTRANSLATED
    assert closed.targets == ("",) and not closed.plural and closed.sources == ("Close",)
    with pytest.raises(IndexError):
        units[len(as_tuple)]


@pytest.mark.parametrize(
    ("body", "line", "reason"),
    [
        ('msgid "a"\nmsgstr a"\n', 8, "properly quoted"),
        ('msgid "a"\n# comment\nmsgstr ""\n', 7, "missing 'msgstr' section"),  # at the msgid, as msgfmt says
        ('msgid "a"\n\nmsgid "b"\nmsgstr ""\n', 7, "missing 'msgstr' section"),
        ('msgid "a"\nmsgstr ""\nbogus\n', 9, "unrecognised line"),
        ('msgid "a"\n', 7, "missing 'msgstr' section"),
    ],
)
def test_syntax_errors_name_the_line(tmp_path: Path, body: str, line: int, reason: str) -> None:
    with pytest.raises(CatalogError, match=reason) as info:
        read_catalog(write(tmp_path, body))
    assert info.value.line == line
    assert str(info.value).startswith(f"{tmp_path / 'x.po'}:{line}:")


def test_fixture_with_a_syntax_error(data_dir: Path) -> None:
    path = data_dir / "po" / "syntax_error.po"
    expected = int((data_dir / "po" / "syntax_error.expected_line").read_text().strip())
    with pytest.raises(CatalogError) as info:
        read_catalog(path)
    assert info.value.line == expected


def test_render_without_changes_is_byte_identical(data_dir: Path) -> None:
    for path in sorted((data_dir / "po").rglob("*.po")):
        if path.name.startswith("syntax_error"):
            continue
        assert read_catalog(path).render({}) == path.read_bytes(), path


def test_render_touches_only_the_translated_entries(tmp_path: Path, msgfmt_check: Callable[[Path], None]) -> None:
    original = (
        '# Translator comment\n#. extracted\n#: a.py:1\n#, python-format\nmsgid "Hello %(name)s"\n'
        'msgstr ""\n\n#: a.py:2\n#| msgid "Old"\nmsgctxt "verb"\nmsgid "Open"\nmsgstr ""\n\n'
        'msgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] ""\nmsgstr[1] ""\nmsgstr[2] ""\n\n'
        'msgid "Done"\nmsgstr   "Gotowe"\n\n#~ msgid "Gone"\n#~ msgstr "Nie ma"\n'
    )
    path = write(tmp_path, original)
    catalog = read_catalog(path)
    out = catalog.render({0: ("Witaj %(name)s",), 1: ("Otwórz",), 2: ("%d plik", "%d pliki", "%d plików")})
    expected = HEADER.format(lang="pl", plural=PL) + original.replace(
        '#, python-format\nmsgid "Hello %(name)s"\nmsgstr ""',
        '#, fuzzy, python-format\nmsgid "Hello %(name)s"\nmsgstr "Witaj %(name)s"',
    ).replace(
        '#| msgid "Old"\nmsgctxt "verb"\nmsgid "Open"\nmsgstr ""',
        '#, fuzzy\n#| msgid "Old"\nmsgctxt "verb"\nmsgid "Open"\nmsgstr "Otwórz"',
    ).replace(
        'msgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] ""\nmsgstr[1] ""\nmsgstr[2] ""',
        '#, fuzzy\nmsgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] "%d plik"\nmsgstr[1] "%d pliki"\n'
        'msgstr[2] "%d plików"',
    )
    assert out.decode("utf-8") == expected
    path.write_bytes(out)
    msgfmt_check(path)


def test_render_keeps_crlf_and_a_missing_final_newline(tmp_path: Path) -> None:
    path = tmp_path / "crlf.po"
    path.write_bytes(
        HEADER.format(lang="de", plural="nplurals=2; plural=(n != 1);").replace("\n", "\r\n").encode()
        + b'msgid "a"\r\nmsgstr ""\r\n\r\nmsgid "b"\r\nmsgstr ""'
    )
    out = read_catalog(path).render({0: ("A",), 1: ("B",)})
    assert out.endswith(b'#, fuzzy\r\nmsgid "b"\r\nmsgstr "B"')
    assert b"\n" not in out.replace(b"\r\n", b"")


def _msgfmt_statistics(path: Path) -> str:
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("GNU msgfmt is not installed")
    done = subprocess.run([msgfmt, "--check", "--statistics", "-o", "/dev/null", str(path)], capture_output=True)
    assert done.returncode == 0, done.stderr
    return done.stderr.decode().splitlines()[-1]


def test_bare_cr_line_endings_are_read_and_kept_and_what_is_written_msgfmt_reads(
    data_dir: Path, tmp_path: Path
) -> None:
    """Old Mac line endings: msgfmt reads a lone CR as a blank, so a comment runs on to the next line feed.
    The catalog is read line by line as an editor shows it; what a run writes ends its lines with a CR, but
    a comment line it adds (``#, fuzzy``) with CRLF, or msgfmt would read the rest of the file as comment."""
    raw = (data_dir / "po" / "cr_line_endings.po").read_bytes()
    assert b"\n" not in raw.replace(b"\\n", b"")
    path = tmp_path / "de.po"
    path.write_bytes(raw)
    catalog = read_catalog(path)
    assert [(u.sources[0], u.state.name) for u in catalog.units] == [
        ("Open", "TRANSLATED"),
        ("Save %s", "UNTRANSLATED"),
        ("%d file", "UNTRANSLATED"),
        ("Close", "UNTRANSLATED"),
    ]
    assert catalog.units[2].plural and catalog.units[0].line == 10
    assert catalog.render({}) == raw
    out = catalog.render({1: ("%s speichern",), 2: ("%d Datei", "%d Dateien")}, mark_fuzzy=False)
    assert out == raw.replace(b'"Save %s"\rmsgstr ""', b'"Save %s"\rmsgstr "%s speichern"').replace(
        b'msgstr[0] ""\rmsgstr[1] ""', b'msgstr[0] "%d Datei"\rmsgstr[1] "%d Dateien"'
    )
    path.write_bytes(out)
    assert _msgfmt_statistics(path) == "3 translated messages, 1 untranslated message."
    fuzzy = catalog.render({1: ("%s speichern",), 3: ("Schließen",)})
    assert fuzzy.count(b"#, fuzzy\r\n") == 2 and fuzzy.replace(b"#, fuzzy\r\n", b"").count(b"\n") == 0
    path.write_bytes(fuzzy)
    assert _msgfmt_statistics(path) == "1 translated message, 2 fuzzy translations, 1 untranslated message."
    assert [u.state.name for u in read_catalog(path).units] == ["TRANSLATED", "FUZZY", "UNTRANSLATED", "FUZZY"]
    # a reviewer's decisions: the accepted entry loses its flag line, the one kept gets the note ended with CRLF
    reviewed = read_catalog(path).render_reviewed({1: Reviewed(), 3: Reviewed(pending=True, note="Schließen?")})
    assert reviewed == fuzzy.replace(b'#, fuzzy\r\nmsgid "Save', b'msgid "Save').replace(
        b'#, fuzzy\r\nmsgid "Close', b'# review: Schlie\xc3\x9fen?\r\n#, fuzzy\r\nmsgid "Close'
    )
    path.write_bytes(reviewed)
    assert _msgfmt_statistics(path) == "2 translated messages, 1 fuzzy translation, 1 untranslated message."


def test_refresh_merges_a_catalog_of_bare_cr_line_endings_as_msgmerge_does(tmp_path: Path) -> None:
    """Old Mac line endings, which translate reads and keeps: the merge keeps them too, and ends the comment
    and obsolete lines it writes with CRLF (msgfmt runs those on to a line feed); its entries are msgmerge's."""
    from pipeline.catalogs.merge import merge

    msgmerge, msgcat = shutil.which("msgmerge"), shutil.which("msgcat")
    if msgmerge is None or msgcat is None:
        pytest.skip("GNU gettext is not installed")
    header = 'msgid ""\rmsgstr ""\r"Content-Type: text/plain; charset=UTF-8\\n"\r'
    header += '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\r\r'
    path = tmp_path / "de.po"
    path.write_bytes(
        (
            header + '# a translator\r\n#: src/a.c:1\r\nmsgid "Open the file"\rmsgstr "Die Datei öffnen"\r\r'
            '#: src/b.c:2\r\nmsgid "Close"\rmsgstr "Schließen"\r\rmsgid "Gone away"\rmsgstr "Weg"\r'
        ).encode()
    )
    template = tmp_path / "de.pot"
    template.write_text(
        header.replace("\r", "\n")
        + '#: src/a.c:1\nmsgid "Open the files"\nmsgstr ""\n\n#: src/b.c:3\nmsgid "Close"\nmsgstr ""\n\n'
        '#. new\n#: src/c.c:1\nmsgid "Brand new"\nmsgstr ""\n',
        encoding="utf-8",
    )
    expected = tmp_path / "msgmerge.po"
    subprocess.run([msgmerge, "-q", "--previous", "-o", str(expected), str(path), str(template)], check=True)
    result = merge(path, template)
    assert result.changed
    path.write_bytes(result.data)
    assert result.data.count(b"\n") == result.data.count(b"\r\n") == 9  # the comment and #~ lines
    assert b'msgid "Open the files"\rmsgstr "Die Datei \xc3\xb6ffnen"\r\r' in result.data  # the rest: lone CRs

    def entries(po: Path) -> str:  # as msgcat writes them, the CRs msgfmt reads inside comments dropped
        return subprocess.run([msgcat, str(po)], capture_output=True, text=True, check=True).stdout.replace("\r", "")

    assert entries(path) == entries(expected)
    assert _msgfmt_statistics(path) == "1 translated message, 1 fuzzy translation, 1 untranslated message."
    assert merge(path, template).data == result.data  # a second merge changes nothing


def test_a_comment_ended_by_a_bare_cr_that_hides_entries_from_msgfmt_is_refused(data_dir: Path) -> None:
    with pytest.raises(CatalogError, match="msgfmt reads everything after it up to the next line feed") as info:
        read_catalog(data_dir / "hostile_po" / "refused_comment_ended_by_a_bare_cr.po")
    assert info.value.line == 10


def test_a_crlf_catalog_with_a_cr_too_many_per_line_is_no_old_mac_catalog(tmp_path: Path) -> None:
    """Lines ended by CR CR LF (a CRLF catalog converted to CRLF again): msgfmt reads the first CR as a blank
    and counts lines by their line feeds, so the catalog is read as one of CRLF lines, not of lone CRs (a blank
    line after each): its lines are numbered as msgfmt numbers them, and refresh does not refuse it."""
    from pipeline.catalogs.merge import merge

    path = tmp_path / "de.po"
    body = HEADER.format(lang="de", plural="nplurals=2; plural=(n != 1);")
    body += 'msgid "a"\nmsgstr ""\n\nmsgid "b"\nmsgstr "B"\n'
    path.write_bytes(body.replace("\n", "\r\r\n").encode())
    catalog = read_catalog(path)
    assert [u.line for u in catalog.units] == [7, 10]
    assert catalog.render({}) == path.read_bytes()
    written = catalog.render({0: ("A",)}, mark_fuzzy=False)  # the line written ends with CRLF
    assert written == path.read_bytes().replace(b'msgstr ""\r\r\n\r', b'msgstr "A"\r\n\r')
    path.write_bytes(path.read_bytes() + b'msgid "a"\r\r\nmsgstr "A"\r\r\n')
    with pytest.raises(CatalogError) as info:
        read_catalog(path)
    assert info.value.line == 12  # where msgfmt reports the duplicate
    template = tmp_path / "de.pot"
    template.write_text(body.replace('msgstr "B"', 'msgstr ""'), encoding="utf-8")
    path.write_bytes(body.replace("\n", "\r\r\n").encode())
    merge(path, template)  # not refused as a catalog of old Mac line endings


def test_lone_crs_in_the_first_comment_of_an_lf_catalog_are_no_old_mac_catalog(tmp_path: Path) -> None:
    """A first comment with lone CRs in it (``# title\\r\\r# more``) in a catalog of LF lines: msgfmt reads it as
    one comment line, and so is it read: lines numbered by line feeds, and what is written ends with LF alone."""
    path = tmp_path / "de.po"
    body = HEADER.format(lang="de", plural="nplurals=2; plural=(n != 1);") + 'msgid "a"\nmsgstr ""\n'
    path.write_bytes(b"# Project title\r\r# more\n" + body.encode())
    catalog = read_catalog(path)
    assert [u.line for u in catalog.units] == [8]
    written = catalog.render({0: ("A long translation, " * 6,)})
    assert b"\r" not in written.replace(b"# Project title\r\r# more\n", b"")


NO_WRAP_HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\n'
LONG = "This site is not able to apply these updates automatically, so you will have to do it yourself."


def test_a_catalog_written_without_wrapping_gets_its_new_translations_unwrapped(tmp_path: Path) -> None:
    # WordPress's catalogs (GlotPress) and msgcat --no-wrap: one line per string, split after a \n only.
    path = tmp_path / "de.po"
    path.write_text(
        NO_WRAP_HEADER + f'msgid "{LONG}"\nmsgstr "{LONG}"\n\nmsgid "{LONG} Again."\nmsgstr ""\n\n'
        'msgid "Two\\nlines"\nmsgstr ""\n',
        encoding="utf-8",
    )
    text = read_po(path).render({1: (f"{LONG} Again.",), 2: ("Zwei\nZeilen",)}).decode("utf-8")
    assert f'msgstr "{LONG} Again."\n' in text
    assert 'msgstr ""\n"Zwei\\n"\n"Zeilen"\n' in text


def test_a_wrapped_catalog_gets_its_new_translations_wrapped(tmp_path: Path) -> None:
    # Transifex leaves its header's lines long, and counts an escape as one character.
    path = tmp_path / "de.po"
    msgid = "\n".join(format_field("msgid", LONG))
    team = '"Language-Team: German (https://app.transifex.com/example-community/teams/178115/de/)\\n"\n'
    escaped = 'msgid "Click <a href=\\"%(url)s\\">here</a> to attempt loading the page again ({}). "\nmsgstr ""\n\n'
    body = "".join(escaped.format(n) for n in range(3))
    path.write_text(NO_WRAP_HEADER.replace("\n\n", "\n" + team + "\n") + body + f'{msgid}\nmsgstr ""\n')
    lines = read_po(path).render({3: (LONG,)}).decode("utf-8").splitlines()
    assert lines[-3:] == [
        'msgstr ""',
        '"This site is not able to apply these updates automatically, so you will have "',
        '"to do it yourself."',
    ]


def test_render_in_a_legacy_charset(tmp_path: Path) -> None:
    path = tmp_path / "latin1.po"
    path.write_bytes(
        HEADER.replace("UTF-8", "ISO-8859-1").format(lang="de", plural="nplurals=2; plural=(n != 1);").encode("latin-1")
        + 'msgid "Size"\nmsgstr "Größe"\n\nmsgid "Street"\nmsgstr ""\n'.encode("latin-1")
    )
    catalog = read_catalog(path)
    assert catalog.encoding == "iso8859-1" and catalog.units[0].targets == ("Größe",)
    assert catalog.write_problem("Straße") is None
    assert "cannot hold" in (catalog.write_problem("улица") or "")
    assert "U+0000" in (catalog.write_problem("nul\0") or "")
    assert catalog.write_problem("bell\a") is None
    assert catalog.render({1: ("Straße",)}).endswith('msgstr "Straße"\n'.encode("latin-1"))


def test_escapes_in_a_msgid_are_read_as_msgfmt_reads_them(tmp_path: Path) -> None:
    path = write(tmp_path, 'msgid "\\x41\\102\\a \\\\x41 \\303\\251"\nmsgstr ""\n')
    catalog = read_po(path)
    assert catalog.units[0].sources == ("AB\a \\x41 é",)
    assert [e.msgid for e in catalog.entries if e.msgid] == ["AB\a \\x41 é"]  # polib's entries agree


def test_control_characters_are_written_as_escapes_and_read_back(tmp_path: Path) -> None:
    path = write(tmp_path, 'msgid "Ring \\a and \\001"\nmsgstr ""\n\nmsgid "keep \\x41"\nmsgstr "\\x41"\n')
    catalog = read_catalog(path)
    out = catalog.render({0: ("Klingel \a und \x01",)}, mark_fuzzy=False)
    assert b'msgstr "Klingel \\a und \\001"' in out
    assert out.endswith(b'msgid "keep \\x41"\nmsgstr "\\x41"\n')  # untouched entries stay byte for byte
    path.write_bytes(out)
    assert read_catalog(path).units[0].targets == ("Klingel \a und \x01",)


def test_plural_rule_from_header_and_from_cldr(tmp_path: Path) -> None:
    catalog = read_catalog(write(tmp_path, 'msgid "a"\nmsgstr ""\n'))
    assert catalog.plural is not None
    assert catalog.plural.nplurals == 3 and catalog.plural.source_forms() == (0, 1, 1)
    ar = read_catalog(write(tmp_path, 'msgid "a"\nmsgstr ""\n', lang="ar", plural="x", name="ar.po"))
    assert ar.plural is not None
    assert ar.plural.nplurals == 6 and ar.plural.source_forms() == (1, 0, 1, 1, 1, 1)


def test_format_field_wraps_like_gettext() -> None:
    assert format_field("msgstr", "short") == ['msgstr "short"']
    assert format_field("msgstr", "one\ntwo\n") == ['msgstr ""', '"one\\n"', '"two\\n"']
    long = " ".join(["word"] * 30)
    lines = format_field("msgstr", long)
    assert lines[0] == 'msgstr ""' and all(len(line) <= 79 for line in lines)
    assert "".join(line[1:-1] for line in lines[1:]) == long
    assert format_field("msgstr", 'say "hi"\\') == ['msgstr "say \\"hi\\"\\\\"']


def test_a_template_is_known_by_its_suffix_in_any_case(tmp_path: Path) -> None:
    for name in ("messages.pot", "MESSAGES.POT"):
        path = tmp_path / name
        path.write_bytes(
            b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Open"\nmsgstr ""\n'
        )
        assert read_po(path).is_template, name
    (tmp_path / "de.po").write_bytes((tmp_path / "messages.pot").read_bytes())
    assert not read_po(tmp_path / "de.po").is_template


def test_the_catalog_is_parsed_from_the_bytes_read_even_if_the_file_vanishes_meanwhile(tmp_path: Path) -> None:
    """polib is given the text read, never the path: a path that no longer exists is not parsed as PO text."""
    path = write(tmp_path, 'msgid "Open"\nmsgstr ""\n', lang="de", plural="nplurals=2; plural=(n != 1);")
    catalog = read_po(path)
    path.unlink()  # gone between the read and polib's parse (made when merging asks for its entries)
    assert [u.sources for u in catalog.units] == [("Open",)]
    assert [e.msgid for e in catalog.entries] == ["Open"] and not path.exists()


def test_a_catalog_whose_text_names_an_existing_file_is_parsed_as_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text that happens to be a path is still the text: polib must not open that file instead."""
    header = 'msgid ""\nmsgstr ""\n"Language: de\\n"\n\n'  # no "/" in it: the whole text is a file name
    text = header + 'msgid "Mine"\nmsgstr ""\n'
    monkeypatch.chdir(tmp_path)
    (tmp_path / text).write_text(header + 'msgid "Elsewhere"\nmsgstr ""\n', encoding="utf-8")  # newlines are legal
    path = tmp_path / "x.po"
    path.write_text(text, encoding="utf-8")
    catalog = read_po(path)
    assert [u.sources for u in catalog.units] == [("Mine",)] and [e.msgid for e in catalog.entries] == ["Mine"]


def test_a_removed_catalog_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "gone.po"
    with pytest.raises(CatalogError) as caught:
        read_po(path)
    assert caught.value.path == str(path) and "cannot read" in caught.value.reason


def test_plural_translations_into_a_catalog_without_plural_forms_add_the_header_as_msginit_writes_it(
    tmp_path: Path,
) -> None:
    catalog = read_po(Path(__file__).resolve().parents[1] / "data" / "po" / "plural_header_missing_ru.po")
    assert catalog.units[0].nforms == 3 and "no Plural-Forms header" in catalog.warnings[0]
    out = tmp_path / "ru.po"
    out.write_bytes(catalog.render({0: ("%d файл", "%d файла", "%d файлов")}, mark_fuzzy=False))
    text = out.read_text(encoding="utf-8")
    assert text.count("Plural-Forms") == 1
    written = read_po(out).plural
    assert written is not None
    assert written.nplurals == 3
    assert [written.form_for(n) for n in (1, 21, 2, 24, 5, 11, 111)] == [0, 0, 1, 1, 2, 2, 2]
    if shutil.which("msgfmt"):
        done = subprocess.run(["msgfmt", "-c", "-o", "/dev/null", str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    # A render with only singular translations leaves the header alone.
    assert b"Plural-Forms" not in catalog.render({}, mark_fuzzy=False)


def test_a_files_lines_are_sliced_from_its_bytes_as_split_after_each_newline() -> None:
    from pipeline.catalogs.po_lines import Lines

    for raw in (b"", b"\n", b"a\nb\n", b"a\r\nb", b'msgid "x"\n\nmsgstr ""'):
        split = raw.split(b"\n")
        expected = [line + b"\n" for line in split[:-1]] + ([split[-1]] if split[-1] else [])
        assert list(Lines(raw)) == expected
        assert Lines(raw)[-1:] == expected[-1:]
