"""The PO reader's fast path against its strict path: every catalog reads alike, entry for entry.

The fast path reads an entry in the shape gettext writes it with one match and leaves every other
line to the strict line scanner. The oracle is the strict path alone (the fast path's pattern
replaced by one that never matches). Generated catalogs put near misses of that shape side by
side with it: bare comment markers, comments out of order, trailing spaces, CRLF, obsolete
entries, duplicate plural forms, escapes either parser reads apart, previous strings, blank lines
and strings where an entry might have ended.
"""

from __future__ import annotations

import re
from pathlib import Path
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.catalogs.po import PoRead, read_po_file
from pipeline.catalogs.po_scan import blocks
from pipeline.errors import CatalogError

HEADER = [
    'msgid ""',
    'msgstr ""',
    '"Content-Type: text/plain; charset=UTF-8\\n"',
    '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"',
]
COMMENTS = [
    "# tc",
    "#",
    "#  two",
    "#\ttab",
    "#. note",
    "#.",
    "#.  ",
    "#.note",
    "#. a, b",
    "#: a.py:1",
    "#:",
    "#, fuzzy",
    "#, c-format, fuzzy",
    "#,",
    "#,fuzzy",
    "#, a,, b ",
    '#| msgid "old"',
    '#| msgctxt "k"',
    '#| "more"',
    "#| msgid",
    '#|  msgid "x"',
    "## double",
    "#~ #, fuzzy",
    '#~| msgid "w"',
]
STRINGS = [
    '""',
    '"x"',
    '"a b"',
    '"t\\tu\\nv"',
    '"q\\"t"',
    '"\\\\"',
    '"\\a"',
    '"\\101"',
    '"\\x41"',
    '"\\q"',
    '"caf\u00e9"',
]
KEYWORD_SPACES = [" ", " ", " ", "  ", "\t"]
ENDS = ["", "", "", " ", "\t", "\r"]


@st.composite
def _entry(draw: st.DrawFn, n: int) -> list[str]:
    """One entry (numbered ``n`` so that msgids differ), mostly well formed, sometimes not quite."""
    lines = draw(st.lists(st.sampled_from(COMMENTS), max_size=4))
    lines += draw(
        st.lists(st.sampled_from(['#~| msgid "w"', "#~|", '#~| "v"']), max_size=2)
    )  # msgmerge's, before "#~ msgid"
    obsolete = draw(st.integers(0, 3)) == 0
    body = []
    if draw(st.booleans()):
        body.append(f"msgctxt{draw(st.sampled_from(KEYWORD_SPACES))}{draw(st.sampled_from(STRINGS))}")
    body.append(f'msgid{draw(st.sampled_from(KEYWORD_SPACES))}"m{n}"')
    body += draw(st.lists(st.sampled_from(STRINGS), max_size=2))
    if draw(st.booleans()):
        body.append(f'msgid_plural "m{n}s"')
        forms = draw(st.lists(st.sampled_from(["0", "1", "2", "1", "10"]), min_size=1, max_size=3))
        for form in forms:
            body.append(f"msgstr[{form}] {draw(st.sampled_from(STRINGS))}")
            body += draw(st.lists(st.sampled_from(STRINGS), max_size=1))
    else:
        body.append(f"msgstr {draw(st.sampled_from(STRINGS))}")
        body += draw(st.lists(st.sampled_from(STRINGS), max_size=2))
    if obsolete:
        body = [f"#~ {line}" for line in body]
    lines += body
    lines = [line + draw(st.sampled_from(ENDS)) for line in lines]
    return lines + draw(st.lists(st.sampled_from(["", " ", '"after"', '#~ "after"', 'msgstr "again"']), max_size=1))


@st.composite
def _catalog(draw: st.DrawFn) -> str:
    lines = HEADER + [""] + [line for n in range(draw(st.integers(0, 6))) for line in draw(_entry(n)) + [""]]
    for _ in range(draw(st.integers(0, 2))):  # now and then a line from elsewhere
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from([*COMMENTS, *STRINGS, "", '  msgid "i"'])))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return newline.join(lines) + draw(st.sampled_from([newline, ""]))


def _read(path: Path) -> PoRead | tuple[str, int | None]:
    try:
        return read_po_file(path)
    except CatalogError as exc:
        return exc.reason, exc.line


@settings(settings.get_profile("files"), max_examples=500)
@given(_catalog())
def test_the_fast_path_reads_as_the_strict_path_does(tmp_path: Path, text: str) -> None:
    path = tmp_path / "de.po"
    path.write_bytes(text.encode("utf-8"))
    fast = _read(path)
    with mock.patch.object(blocks, "pattern", lambda text: re.compile("(?!)")):  # every line by the strict path
        strict = _read(path)
    assert fast == strict


def test_a_catalog_as_gettext_writes_it_is_read_entry_by_entry_without_the_strict_path(data_dir: Path) -> None:
    """The fast path takes every entry of a catalog msgmerge wrote (a pattern that stopped matching would not show
    otherwise: the strict path reads the same)."""
    path = data_dir / "po" / "msgctxt_and_comments.po"
    with mock.patch("pipeline.catalogs.po_scan.scanner._Scanner._line", side_effect=AssertionError) as strict:
        read = read_po_file(path)
    assert strict.call_count == 0
    assert len(read.spans) > 3


def test_an_entry_opened_by_its_keyword_after_previous_strings_of_an_obsolete_one_has_its_lines(tmp_path: Path) -> None:
    """ "#~|" lines neither open nor close an entry: the keyword after them is the entry's first line."""
    path = tmp_path / "de.po"
    body = ['msgid "a"', 'msgstr "b"', "", '#~| msgid "old"', '#~ msgid "new"', '#~ msgstr "neu"', ""]
    path.write_text("\n".join([*HEADER, "", *body]), encoding="utf-8")
    read = read_po_file(path)
    with mock.patch.object(blocks, "pattern", lambda text: re.compile("(?!)")):
        assert read_po_file(path) == read
    obsolete = read.spans[-1]
    assert (obsolete.first, obsolete.msgid_line, obsolete.insert_flags_at, obsolete.msgstr_start) == (9, 9, 9, 10)


def test_no_block_starts_at_a_line_the_strict_path_skips() -> None:
    """A run of "#~|" lines is skipped a line at a time: a block matched from each of them would read
    the whole run again each time (quadratic in a file made of them)."""
    run = '#~| msgctxt "c"\n#~| msgid "old"\n#~| "er"\n#~ msgid "new"\n#~ msgstr "neu"\n'
    for block in (blocks.BLOCK, blocks.BLOCK_CR()):
        assert block.match(run) is None
        assert block.match("#, fuzzy\n" + run) is not None


def _found(matched: re.Match[str] | None) -> tuple[tuple[int, int], tuple[str | None, ...]] | None:
    return None if matched is None else (matched.span(), matched.groups())


@settings(settings.get_profile("files"), max_examples=300)
@given(_catalog())
def test_the_pattern_for_a_text_without_a_cr_reads_as_the_one_for_any_text(text: str) -> None:
    """The fast path reads a text without a CR with a pattern of its own (a line is ``.*\\n``): from every
    line, it matches what the pattern for any text matches."""
    text = text.replace("\r", "")
    assert blocks.pattern(text) is blocks.BLOCK
    for at in [0, *(newline.end() for newline in re.finditer("\n", text))]:
        assert _found(blocks.BLOCK.match(text, at)) == _found(blocks.BLOCK_CR().match(text, at))
