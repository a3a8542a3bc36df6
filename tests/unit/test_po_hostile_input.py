"""PO files an attacker or an unlucky user could hand the pipeline: odd charsets, absurd plural headers,
catalogs msgfmt refuses, files that are no catalog at all. Each is refused (or read safely) by the reader."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline.catalogs.po import read_po
from pipeline.errors import CatalogError

HOSTILE = Path(__file__).resolve().parent.parent / "data" / "hostile_po"
CONTENT_TYPE_LINE = 6  # of every fixture's header (see tests/data/README.md)
PLURAL_FORMS_LINE = 8


def test_charset_comes_from_the_header_entry_not_from_a_comment_above_it(tmp_path: Path) -> None:
    path = tmp_path / "de.po"
    shutil.copy(HOSTILE / "charset_named_in_a_comment_above_the_header.po", path)
    catalog = read_po(path)
    assert catalog.encoding == "utf-8"
    assert catalog.units[1].sources == ("Größe ändern",)
    written = catalog.render({0: ("Größe",)})
    assert written.decode("utf-8").count("Größe") == 2  # the msgid as it was, the msgstr in the same encoding
    assert b"Gr\xf6\xdfe" not in written


@pytest.mark.parametrize(
    "charset",
    [
        "utf-8-sig",
        "unicode_escape",
        "raw_unicode_escape",
        "idna",
        "rot13",
        "base64",
        "hex",
        "zlib",
        "uu",
        "quopri",
        "utf-16",
        "utf-32",
        "utf-7",
        "punycode",
        "iso2022_jp",
        "hz",
        "cp037",
    ],
)
def test_a_charset_that_is_no_ascii_compatible_text_encoding_is_refused_with_file_and_charset(
    tmp_path: Path, charset: str
) -> None:
    text = (HOSTILE / "charset_not_a_text_encoding.po").read_text(encoding="ascii")
    path = tmp_path / "de.po"
    path.write_text(text.replace("charset=utf-8-sig", f"charset={charset}"), encoding="ascii")
    with pytest.raises(CatalogError) as info:
        read_po(path)
    assert info.value.line == CONTENT_TYPE_LINE
    assert charset in info.value.reason
    assert str(info.value).startswith(f"{path}:{CONTENT_TYPE_LINE}:")


@pytest.mark.parametrize(
    "charset",
    [
        "UTF-8",
        "utf8",
        "ISO-8859-1",
        "latin1",
        "KOI8-R",
        "CP1252",
        "EUC-JP",
        "GB18030",
        "Shift_JIS",
        "BIG5",
        "ASCII",
        "CHARSET",
    ],
)
def test_real_gettext_charsets_are_still_read(tmp_path: Path, charset: str) -> None:
    text = (HOSTILE / "charset_not_a_text_encoding.po").read_text(encoding="ascii")
    path = tmp_path / "de.po"
    path.write_text(text.replace("charset=utf-8-sig", f"charset={charset}"), encoding="ascii")
    assert read_po(path).units[0].sources == ("Size",)


def test_a_legacy_header_over_utf8_bytes_is_read_and_written_as_utf8_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "de.po"
    shutil.copy(HOSTILE / "charset_header_latin1_but_bytes_utf8.po", path)
    catalog = read_po(path)
    assert catalog.encoding == "utf-8"
    assert catalog.units[1].sources == ("Größe ändern",)  # not "GrÃ¶ÃŸe Ã¤ndern"
    assert len(catalog.warnings) == 1 and "ISO-8859-1" in catalog.warnings[0] and "UTF-8" in catalog.warnings[0]
    written = catalog.render({0: ("Größe",), 1: ("Größe ändern",)})
    assert written.decode("utf-8").count("Größe") == 3  # one encoding for the whole file


def test_a_real_latin1_catalog_keeps_its_charset_without_a_warning(data_dir: Path) -> None:
    catalog = read_po(data_dir / "po" / "latin1_charset.po")
    assert catalog.encoding == "iso8859-1" and catalog.warnings == ()


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("plural_forms_nplurals_0.po", "nplurals=0"),
        ("plural_forms_nplurals_100000.po", "nplurals=100000"),
        ("plural_forms_division_by_zero.po", "divides by zero"),
        ("plural_forms_picks_a_missing_form.po", "can pick form"),
    ],
)
def test_an_absurd_plural_header_is_an_error_for_that_catalog(name: str, reason: str) -> None:
    with pytest.raises(CatalogError, match=reason) as info:
        read_po(HOSTILE / name)
    assert info.value.line == PLURAL_FORMS_LINE
    assert info.value.path == str(HOSTILE / name)


@pytest.mark.parametrize(
    ("name", "line", "reason"),
    [
        ("refused_invalid_escape.po", 13, "escape sequence gettext does not know"),
        ("refused_duplicate_msgid.po", 16, "entry at line 10"),
        ("refused_duplicate_of_an_obsolete_entry.po", 13, "entry at line 10"),
        ("refused_byte_order_mark.po", 1, "byte-order mark"),
        # Plural forms: msgfmt says "plural form has wrong index", "missing 'msgid_plural' section", at the
        # first form whose number is not its place (the first form, numbered 1; the second, numbered 5).
        ("refused_plural_forms_out_of_order.po", 15, r"msgstr\[1\], msgstr\[0\]: msgfmt requires"),
        ("refused_plural_form_number_skipped.po", 16, r"msgstr\[0\], msgstr\[5\]: msgfmt requires"),
        ("refused_plural_form_skipped_after_a_wrapped_obsolete_form.po", 17, r"msgstr\[0\], msgstr\[2\]: msgfmt"),
        ("refused_plural_form_without_msgid_plural.po", 13, "without a msgid_plural"),
        ("refused_plural_form_of_an_obsolete_entry_without_msgid_plural.po", 13, "without a msgid_plural"),
        ("refused_plain_msgstr_of_a_plural_entry.po", 15, "not a msgstr"),
    ],
)
def test_a_catalog_msgfmt_refuses_is_refused_with_its_line(name: str, line: int | None, reason: str) -> None:
    with pytest.raises(CatalogError, match=reason) as info:
        read_po(HOSTILE / name)
    assert info.value.line == line


def test_the_same_msgid_under_another_context_is_no_duplicate() -> None:
    assert [u.context for u in read_po(HOSTILE / "accepted_same_msgid_other_context.po").units] == [None, "verb"]


def _msgfmt(path: Path) -> int:
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("GNU msgfmt is not installed")
    return subprocess.run([msgfmt, "--check", "-o", "/dev/null", str(path)], capture_output=True).returncode


@pytest.mark.parametrize("name", sorted(p.name for p in HOSTILE.glob("*.po")))
def test_the_fixtures_agree_with_msgfmt(name: str) -> None:
    """What msgfmt --check refuses, the reader refuses; ours is stricter only where the test names it."""
    refused_by_msgfmt = _msgfmt(HOSTILE / name) != 0
    try:
        read_po(HOSTILE / name)
        refused_by_us = False
    except CatalogError:
        refused_by_us = True
    # refused_comment_ended_by_a_bare_cr.po: msgfmt reads its entries as part of a comment, and none is left
    stricter = {
        "charset_not_a_text_encoding.po",
        "plural_forms_nplurals_100000.po",
        "refused_comment_ended_by_a_bare_cr.po",
    }
    # msgfmt compiles it without --check (gettext's defaults), and `pipeline check` reports it as --check does
    read_as_msgfmt_compiles = {"missing_header_read_with_gettexts_defaults.po"}
    assert refused_by_us == ((refused_by_msgfmt and name not in read_as_msgfmt_compiles) or name in stricter)


def test_nothing_of_a_file_that_is_no_catalog_is_quoted() -> None:
    with pytest.raises(CatalogError) as info:
        read_po(HOSTILE / "not_a_catalog_with_a_secret.po")
    assert info.value.line == 1
    for secret in ("SECRET", "abc123", "PASSWORD", "hunter2"):
        assert secret not in str(info.value)


def test_a_misspelt_keyword_is_still_quoted(tmp_path: Path) -> None:
    path = tmp_path / "de.po"
    text = (HOSTILE / "accepted_same_msgid_other_context.po").read_text(encoding="utf-8")
    path.write_text(text + '\nmsgid "x"\nmgsstr ""\n', encoding="utf-8")
    with pytest.raises(CatalogError, match="'mgsstr'"):
        read_po(path)


def test_an_empty_msgid_plural_is_a_plural_entry_as_msgfmt_reads_it(tmp_path: Path) -> None:
    """``msgid_plural ""`` makes a plural entry to msgfmt: its forms are its translation, and a translation
    written to it is written as forms (read as one msgstr, a human's forms were overwritten by a msgstr that
    msgfmt then refused)."""
    path = tmp_path / "de.po"
    path.write_bytes((HOSTILE / "accepted_empty_msgid_plural_with_forms.po").read_bytes())
    catalog = read_po(path)
    translated, untranslated = catalog.units
    assert (translated.plural, translated.targets, translated.state.name) == (True, ("Datei", "Dateien"), "TRANSLATED")
    assert (untranslated.plural, untranslated.nforms, untranslated.state.name) == (True, 2, "UNTRANSLATED")
    path.write_bytes(catalog.render({untranslated.position: ("Ordner", "Ordner")}))
    assert read_po(path).units[untranslated.position].targets == ("Ordner", "Ordner")
    assert _msgfmt(path) == 0


def test_plural_form_numbers_with_spaces_or_leading_zeros_are_read_as_msgfmt_reads_them(tmp_path: Path) -> None:
    """``msgstr[ 0 ]``, ``msgstr[<tab>1]``, ``msgstr[00]``: msgfmt's lexer skips blanks around the number and
    reads it as a number. Such forms are read, written over like any other, and the rest of the file is kept."""
    path = tmp_path / "de.po"
    raw = (HOSTILE / "accepted_plural_form_numbers_spaced_or_zero_padded.po").read_bytes()
    path.write_bytes(raw)
    catalog = read_po(path)
    file, folder, link = catalog.units
    assert (file.targets, folder.targets, link.targets) == (("Datei", "Dateien"), ("Ordner", "Ordner"), ("", ""))
    assert [u.state.name for u in catalog.units] == ["FUZZY", "TRANSLATED", "UNTRANSLATED"]
    assert catalog.render({}) == raw
    path.write_bytes(catalog.render({link.position: ("Verknüpfung", "Verknüpfungen")}))
    written = path.read_bytes()
    assert (
        written.replace(b'#, fuzzy\nmsgid "link"', b'msgid "link"').replace(
            b'msgstr[0] "Verkn\xc3\xbcpfung"\nmsgstr[1] "Verkn\xc3\xbcpfungen"\n', b'msgstr[ 0 ] ""\nmsgstr[01 ] ""\n'
        )
        == raw
    )
    assert read_po(path).units[link.position].targets == ("Verknüpfung", "Verknüpfungen")
    assert _msgfmt(path) == 0
    # polib (the review's reading of comments and previous strings) reads them too
    assert [entry.msgid for entry in catalog.entries] == ["file", "folder", "link"]


@pytest.mark.parametrize(
    ("forms", "line", "reason"),
    [
        ('msgstr[ 1 ] "a"\nmsgstr[0] "b"\n', 12, r"msgstr\[1\], msgstr\[0\]: msgfmt requires"),
        ('msgstr[0] "a"\nmsgstr[002] "b"\n', 13, r"msgstr\[0\], msgstr\[2\]: msgfmt requires"),
        ('msgstr[0] "a"\nmsgstr[00] "b"\n', 13, r"msgstr\[0\] a second time"),
        ('msgstr [1] "a"\nmsgstr [0] "b"\n', 12, r"msgstr\[1\], msgstr\[0\]: msgfmt requires"),
    ],
)
def test_spaced_or_zero_padded_plural_forms_out_of_their_numbers_are_refused_at_their_line(
    tmp_path: Path, forms: str, line: int, reason: str
) -> None:
    path = tmp_path / "de.po"
    header = (HOSTILE / "accepted_empty_msgid_plural_with_forms.po").read_text(encoding="utf-8").split("\n\n")[0]
    path.write_text(header + '\n\nmsgid "file"\nmsgid_plural "files"\n' + forms, encoding="utf-8")
    assert _msgfmt(path) != 0
    with pytest.raises(CatalogError, match=reason) as info:
        read_po(path)
    assert info.value.line == line
