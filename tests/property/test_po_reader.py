"""The PO reader against polib: whatever it accepts, polib reads the same way, entry for entry.

The reader is one pass of its own (no polib) in a run; polib still reads the catalogs that are
merged. Generated files mix valid entries with what catalogs get wrong (comments without a space,
previous-msgid lines, obsolete remnants, escapes, stray strings, spaces and CRs at line ends), so
both the rules and the strings are compared, through the reader's fast path (entries in gettext's
shape) and its strict line scanner alike.
"""

from __future__ import annotations

import re
from pathlib import Path

import polib
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.catalogs.po import read_po
from pipeline.errors import CatalogError

HEADER = [
    'msgid ""',
    'msgstr ""',
    '"Content-Type: text/plain; charset=UTF-8\\n"',
    '"Language: de\\n"',
    '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"',
]
LINES = st.sampled_from(
    [
        'msgid "a"',
        'msgid "b"',
        'msgid "c d"',
        'msgid ""',
        'msgctxt "k"',
        'msgctxt ""',
        'msgid_plural "as"',
        'msgstr "x"',
        'msgstr ""',
        'msgstr[0] "x0"',
        'msgstr[1] "x1"',
        'msgstr[2] "x2"',
        'msgstr[10] "ten"',
        '"cont"',
        '""',
        '"Language: fr\\n"',
        '"X-Other: y\\n"',
        '"no colon"',
        "#, fuzzy",
        "#, python-format",
        "#, fuzzy, c-format",
        "#,",
        "#,fuzzy",
        "#, a,, b",
        "#. note",
        "#.  two spaces",
        "#.",
        "#.note",
        "#: a.py:1 b.py",
        "#:",
        "# tc",
        "#",
        "#xyz",
        "## double",
        '#| msgid "old"',
        '#| msgctxt "oldk"',
        '#| msgid_plural "olds"',
        '#| "oc"',
        "#|",
        "#| msgid",
        '#| foo "x"',
        '#~ msgid "o"',
        '#~ msgid "p"',
        '#~ msgstr "q"',
        '#~ "r"',
        "#~",
        '#~msgid "z"',
        '#~| msgid "w"',
        '#~ | msgid "w"',
        "#~ #, fuzzy",
        "#~ #. old note",
        "",
        "   ",
        "#, fuzzy\t",
        "#. note \r",
        'msgstr "x" \r',
        '"cont"\t',
        "#~|",
        '#~| "w"',
        'msgid "a\\"b"',
        'msgstr "t\\tu\\nv"',
        'msgid "\\q"',
        'msgid "unterminated',
        "msgid a",
        "garbage",
        "msgstr",
        'msgid  "spaced"',
        '  msgid "indented"',
    ]
)
COMMENTS = st.lists(
    st.sampled_from(
        [
            "#, fuzzy",
            "#, python-format",
            "#, fuzzy, c-format",
            "#, a,, b",
            "#. note",
            "#.  two spaces",
            "#: a.py:1 b.py",
            "# tc",
            "#",
            "## double",
            '#| msgid "old"',
            '#| msgctxt "oldk"',
            '#| "oc"',
            "#,",
            "#.",
            "#:",
        ]
    ),
    max_size=3,
)
STRING = st.sampled_from(['""', '"x"', '"t\\tu\\nv"', '"q\\"uote"', '"caf\u00e9"', '"a b"'])


@st.composite
def _entry(draw: st.DrawFn, n: int) -> list[str]:
    """One entry (numbered ``n`` so that msgids differ), live or obsolete, singular or plural."""
    lines = list(draw(COMMENTS))
    body = []
    if draw(st.booleans()):
        body.append(f"msgctxt {draw(STRING)}")
    body.append(f'msgid "m{n}"')
    body += [draw(STRING) for _ in range(draw(st.integers(0, 1)))]
    if draw(st.booleans()):
        body.append(f'msgid_plural "m{n}s"')
        body += [f"msgstr[{i}] {draw(STRING)}" for i in range(draw(st.integers(1, 3)))]
    else:
        body.append(f"msgstr {draw(STRING)}")
    body += [draw(STRING) for _ in range(draw(st.integers(0, 1)))]
    if draw(st.integers(0, 4)) == 0:
        body = [f"#~ {line}" for line in body]
    return lines + body + [""]


@st.composite
def _body(draw: st.DrawFn) -> list[str]:
    """Entries, with up to two lines from anywhere inserted anywhere."""
    lines = [line for n in range(draw(st.integers(0, 5))) for line in draw(_entry(n))]
    for _ in range(draw(st.integers(0, 2))):
        lines.insert(draw(st.integers(0, len(lines))), draw(LINES))
    return lines


BODY = st.one_of(_body(), st.lists(LINES, max_size=24))


#: sources, targets, flags, context, comment, obsolete: a unit as both readers see it.
PolibUnit = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], str | None, str, bool]


#: The generated lines msgfmt reads and polib refuses, as polib reads the same meaning (a table of their own,
#: apart from the reader's rewriting): a marker's words right after it, a keyword whose string is on the next line.
AS_POLIB_READS = {
    "#,fuzzy": "#, fuzzy",
    "#.note": "#. note",
    "#xyz": "# xyz",
    '#~msgid "z"': '#~ msgid "z"',
    "msgstr": 'msgstr ""',
}


def _units_as_polib_reads_them(text: str) -> tuple[list[PolibUnit], dict[str, str]]:
    pofile = polib.pofile("\n".join(AS_POLIB_READS.get(line, line) for line in text.split("\n")))
    units: list[PolibUnit] = []
    for entry in pofile:
        if entry.msgid_plural:
            targets = tuple(entry.msgstr_plural.get(i, "") for i in range(max(2, len(entry.msgstr_plural))))
            sources: tuple[str, ...] = (entry.msgid, entry.msgid_plural)
        else:
            targets, sources = (entry.msgstr,), (entry.msgid,)
        # polib splits flags at commas alone, gettext at blanks too (but "range: 0..10") and drops empty ones
        words = [[flag] if flag.startswith("range:") else re.split(r"[ \t\f\v]+", flag) for flag in entry.flags]
        flags = tuple(word for split in words for word in split if word)
        units.append((sources, targets, flags, entry.msgctxt, entry.comment or "", bool(entry.obsolete)))
    return units, dict(pofile.metadata)


@settings(settings.get_profile("files"), max_examples=400)
@given(st.booleans(), BODY)
def test_what_the_reader_accepts_polib_reads_alike(tmp_path: Path, with_header: bool, body: list[str]) -> None:
    text = "\n".join((HEADER if with_header else []) + body) + "\n"
    path = tmp_path / "de.po"
    path.write_text(text, encoding="utf-8")
    try:
        catalog = read_po(path)
    except CatalogError:
        return
    units, metadata = _units_as_polib_reads_them(text)  # polib must not refuse it either
    assert [
        (u.sources, u.targets, u.flags, u.context, u.notes, u.state.name == "OBSOLETE") for u in catalog.units
    ] == units
    assert dict(catalog.metadata) == metadata
