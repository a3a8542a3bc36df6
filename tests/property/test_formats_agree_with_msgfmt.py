"""Every format grammar against GNU msgfmt: the same generated entries, the same verdicts.

Each example is a batch of entries of one format (singular, and plural with a two-form rule whose
form 0 covers one number), written to a PO file for ``msgfmt -c`` and checked by
:func:`pipeline.placeholders.grammars.check_entry`; an entry is rejected by both or by neither.
Skipped where msgfmt is missing. ``lisp``, ``scheme``, ``java``, ``elisp`` and ``librep`` are
left out: their control structures and argument-number rules are judged more strictly than
msgfmt does (see docs/plurals-placeholders.md).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.placeholders.grammars import check_entry

MSGFMT = shutil.which("msgfmt")
pytestmark = pytest.mark.skipif(MSGFMT is None, reason="GNU msgfmt is not installed")

#: Per format, directives (valid and not) that generated strings are made of.
PIECES = {
    "c-format": [
        "%d",
        "%s",
        "%1$s",
        "%2$d",
        "%%",
        "%ld",
        "%*d",
        "%5.2f",
        "%<PRId64>",
        "%zu",
        "%m",
        "%",
        "%.*s",
        "%c",
        "%٥d",
    ],
    "objc-format": ["%@", "%d", "%s", "%1$@", "%2$d", "%%", "%"],
    "python-format": ["%s", "%d", "%(a)s", "%(b)d", "%%", "%r", "%.0s", "%*d", "% d", "%", "%c", "%(a)d"],
    "python-brace-format": ["{}", "{0}", "{a}", "{a.b}", "{a[0]}", "{0:>10}", "{{", "}}", "{", "}", "{a!r}", "{٠}"],
    "gcc-internal-format": ["%qD", "%qE", "%<", "%>", "%d", "%s", "%m", "%1$s", "%2$qD", "%wd", "%lu", "%.*s", "%q"],
    "gfc-internal-format": ["%C", "%L", "%d", "%s", "%ld", "%1$s", "%2$d", "%%", "%c", "%u", "%x"],
    "sh-format": ["$a", "${b}", "$x_y", "$1", "$$", "${a:-b}", "$"],
    "php-format": ["%s", "%d", "%1$s", "%2$s", "%%", "%'.10d", "%05.2f", "%b", "%", "%u"],
    "javascript-format": ["%s", "%d", "%1$s", "%2$j", "%%", "%f", "%j", "%"],
    "awk-format": ["%s", "%d", "%1$s", "%2$d", "%%", "%*d", "%u", "%"],
    "lua-format": ["%s", "%d", "%q", "%%", "%5.2f", "%c", "%-5d", "%"],
    "tcl-format": ["%s", "%d", "%1$s", "%2$d", "%%", "%*d", "%hd", "%"],
    "perl-format": ["%s", "%d", "%1$s", "%2$d", "%%", "%vd", "%*d", "%lf", "%", "%D"],
    "java-printf-format": ["%s", "%d", "%1$s", "%2$d", "%%", "%n", "%<s", "%tY", "%,d", "%"],
    "ruby-format": ["%s", "%d", "%<a>s", "%{a}", "%1$s", "%2$d", "%%", "%*d", "%p", "%"],
    "perl-brace-format": ["{a}", "{b}", "{1}", "{ a}", "{", "}"],
    "qt-format": ["%1", "%2", "%L1", "%10", "%%", "%0", "%a", "%1١"],
    "qt-plural-format": ["%n", "%Ln", "%1", "%%"],
    "kde-format": ["%1", "%2", "%3", "%4", "%%", "%0", "%١", "%1١"],
    "kde-kuit-format": [
        "%1",
        "%2",
        "%3",
        "%%",
        "<b>",
        "</b>",
        "<i/>",
        "<",
        "&",
        "&#65;",
        "&#0;",
        "<a href=x>",
        "<a:b>",
    ],
    "boost-format": ["%s", "%d", "%1%", "%2%", "%1$s", "%|1$s|", "%|s|", "%%", "%*d", "%t", "%"],
    "csharp-format": ["{0}", "{1}", "{0,5}", "{0:x}", "{{", "}}", "{", "}"],
    "smalltalk-format": ["%1", "%2", "%%", "%", "%a"],
    "ycp-format": ["%1", "%2", "%%", "%", "%a"],
    "object-pascal-format": ["%s", "%d", "%0:s", "%1:d", "%%", "%*d", "%-5.2f", "%", "%x"],
}
HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n'
)


def _texts(flag: str) -> st.SearchStrategy[str]:
    piece = st.one_of(st.sampled_from(PIECES[flag]), st.sampled_from(["x", " ", "%", "{", "}", "$", "1"]))
    return st.lists(piece, min_size=1, max_size=4).map("".join)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _msgfmt_rejects(tmp: Path, flag: str, entries: Sequence[tuple[str, ...]]) -> list[bool]:
    """Per entry, whether ``msgfmt -c`` reports it (it names the line of the entry's first msgstr)."""
    lines, where = [HEADER], []
    at = HEADER.count("\n") + 1
    for i, entry in enumerate(entries):
        block = [f"#, {flag}", f'msgctxt "{i}"', f'msgid "{_escape(entry[0])}"']
        if len(entry) == 2:
            block.append(f'msgstr "{_escape(entry[1])}"')
        else:
            block += [f'msgid_plural "{_escape(entry[1])}"', f'msgstr[0] "{_escape(entry[2])}"']
            block.append(f'msgstr[1] "{_escape(entry[3])}"')
        where.append(at + 1 + (3 if len(entry) == 2 else 4))
        lines.append("\n" + "\n".join(block) + "\n")
        at += len(block) + 1
    path = tmp / "entries.po"
    path.write_text("".join(lines), encoding="utf-8")
    assert MSGFMT is not None
    done = subprocess.run(
        [MSGFMT, "-c", "-o", "/dev/null", str(path)], capture_output=True, text=True, errors="replace"
    )
    reported = {int(m.group(1)) for m in re.finditer(r"entries\.po:(\d+): (?!warning)", done.stderr)}
    return [line in reported for line in where]


def _ours(flag: str, entry: tuple[str, ...]) -> bool:
    if len(entry) == 2:
        return bool(check_entry([flag], entry[:1], entry[1:]))
    return bool(check_entry([flag], entry[:2], entry[2:], often=(False, True)))


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.parametrize("flag", sorted(PIECES))
@given(data=st.data())
def test_a_grammar_rejects_what_msgfmt_rejects(tmp_path: Path, flag: str, data: st.DataObject) -> None:
    text = _texts(flag)
    singular = st.tuples(text, text)
    plural = st.tuples(text, text, text, text)
    entries = data.draw(st.lists(st.one_of(singular, plural), min_size=1, max_size=12))
    theirs = _msgfmt_rejects(tmp_path, flag, entries)
    for entry, rejected in zip(entries, theirs, strict=True):
        assert _ours(flag, entry) == rejected, f"{flag}: {entry!r}: msgfmt {'rejects' if rejected else 'accepts'}"
