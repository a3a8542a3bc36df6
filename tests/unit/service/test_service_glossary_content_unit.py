"""Glossary content: parsing TSV/CSV entries, every rule, round-trips, and the phrase matcher."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.service.engine.glossary_match import TermIndex
from pipeline.service.store.glossary_content import (
    ContentError,
    from_tsv,
    glossary_language,
    merge,
    parse_dictionary,
    phrase_problem,
    to_tsv,
)

# Phrases that pass every content rule: no control characters, no line breaks, no edge whitespace.
_inner = st.text(st.characters(exclude_categories=["Cc", "Cs", "Zl", "Zp"]), min_size=1, max_size=12)
phrases = _inner.map(str.strip).filter(lambda p: p and phrase_problem(p) is None)
entries = st.dictionaries(phrases, phrases, min_size=1, max_size=8).map(lambda d: tuple(d.items()))


@given(entries)
def test_tsv_round_trip(pairs: tuple[tuple[str, str], ...]) -> None:
    assert parse_dictionary("en", "de", to_tsv(pairs), "tsv").entries == pairs
    assert from_tsv(to_tsv(pairs)) == pairs


@given(entries)
def test_csv_written_by_the_csv_module_reads_back(pairs: tuple[tuple[str, str], ...]) -> None:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(pairs)
    assert parse_dictionary("en", "de", out.getvalue(), "csv").entries == pairs


def test_crlf_blank_lines_and_language_columns() -> None:
    text = 'a,b\r\n\r\n"c ""q""",d,en,de\r\ne,f,en-GB,DE\r\ng,h,fr,de\r\n'
    assert parse_dictionary("en", "de", text, "csv").entries == (("a", "b"), ('c "q"', "d"), ("e", "f"))


@pytest.mark.parametrize(
    ("text", "fmt", "message"),
    [
        ("a\tb\nb\tc\na\td", "tsv", "dictionary en->de, line 3: duplicate source phrase 'a' (already on line 1)"),
        ("a\tb\n\n\u00a0a\tb", "tsv", "dictionary en->de, line 3: source phrase: leading or trailing whitespace"),
        ("a\tb\u2029", "tsv", "dictionary en->de, line 1: target phrase: control character or line break U+2029"),
        ("a\u009fb\tc", "tsv", "dictionary en->de, line 1: source phrase: control character or line break U+009F"),
        ("a,b,c,d,e", "csv", "dictionary en->de, line 1: expected source phrase, target phrase"),
        ('a,"b', "csv", "dictionary en->de, line 1: invalid CSV"),
        ("a,b,fr,it", "csv", "dictionary en->de: no entries"),
    ],
)
def test_rules_name_the_line(text: str, fmt: str, message: str) -> None:
    with pytest.raises(ContentError) as caught:
        parse_dictionary("en", "de", text, fmt)
    assert str(caught.value).startswith(message)


def test_size_limit_counts_utf8_bytes() -> None:
    line = "é" * 400 + "\t" + "x" * 10 + "\n"  # 811 bytes a line
    lines = [f"{i:06d}{line}" for i in range(12_300)]
    with pytest.raises(ContentError, match="at most 10000000 bytes"):
        parse_dictionary("en", "de", "".join(lines), "tsv")


def test_language_codes() -> None:
    assert glossary_language("EN", "source_lang") == "en"
    assert glossary_language("zh", "target_lang") == "zh"
    with pytest.raises(ContentError, match="base languages"):
        glossary_language("pt-BR", "target_lang")
    with pytest.raises(ContentError, match="not a supported"):
        glossary_language("tlh", "source_lang")


def test_merge_replaces_existing_and_appends_new() -> None:
    assert merge((("a", "1"), ("b", "2")), (("b", "3"), ("c", "4"))) == (("a", "1"), ("b", "3"), ("c", "4"))


def _regex_replace(pairs: tuple[tuple[str, str], ...], text: str, gap: Callable[[str], str]) -> str:
    """The former regular-expression matcher, as the reference for TermIndex."""
    targets = {s.lower(): t for s, t in pairs}
    pattern = re.compile(
        r"(?<!\w)(?:" + "|".join(re.escape(s) for s in sorted(targets, key=len, reverse=True)) + r")(?!\w)", re.I
    )
    out, pos = [], 0
    for match in pattern.finditer(text):
        out += [gap(text[pos : match.start()]), targets[match.group().lower()]]
        pos = match.end()
    return "".join([*out, gap(text[pos:])])


_ascii_phrase = st.text("abc -.+'", min_size=1, max_size=6).map(str.strip).filter(bool)


@given(
    st.dictionaries(_ascii_phrase, st.text("XYZ", min_size=1, max_size=3), min_size=1, max_size=6),
    st.text("abc -.+'!", max_size=30),
)
def test_term_index_finds_what_the_regex_found(glossary: dict[str, str], text: str) -> None:
    pairs = tuple(glossary.items())
    assert TermIndex(pairs).replace(text, str.upper) == _regex_replace(pairs, text, str.upper)


def test_term_index_whole_words_longest_first() -> None:
    index = TermIndex((("file", "Datei"), ("the file", "die Datei"), ("C++", "C-plus-plus")))
    assert index.replace("The FILE, files, C++!", lambda gap: gap) == "die Datei, files, C-plus-plus!"
