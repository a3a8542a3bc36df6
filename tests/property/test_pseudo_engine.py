"""The pseudo engine's accents: its one-pass shortcut marks exactly what marking word by word marks."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pipeline.service.engine.pseudo import _accent

_WORD = re.compile(r"[^\W_]+")
_CODE = re.compile(r"[^\W\d_][^\W_]*\d")
_FIRST = re.compile(r"(?<![^\W\d_])([^\W\d_])")
_LAST = re.compile(r"([^\W\d_])(?![^\W\d_])")


def _word_by_word(text: str, mark: str, next_gen: bool) -> str:
    """The rule as the module docstring states it: each word alone, codes kept as they are."""
    letter = _LAST if next_gen else _FIRST
    return _WORD.sub(lambda m: m.group() if _CODE.match(m.group()) else letter.sub(r"\1" + mark, m.group()), text)


# Words, codes, digits, underscores and separators next to each other, and any text at all.
PIECES = st.sampled_from(
    [
        "word",
        "Wört",
        "MP3",
        "A4",
        "3D",
        "x2y",
        "42",
        "_",
        "__init__",
        "a_b",
        " ",
        "-",
        ".",
        "'",
        "日本",
        "ǅ",
        "ß",
        "\u0301",
        '<x id="1"/>',
        "\n",
        "é",
        "1a",
    ]
)
TEXT = st.one_of(st.text(max_size=40), st.lists(PIECES, max_size=12).map("".join))


@given(TEXT, st.booleans())
def test_accents_are_those_of_marking_word_by_word(text, next_gen):
    assert _accent(text, "\u0308", next_gen) == _word_by_word(text, "\u0308", next_gen)
