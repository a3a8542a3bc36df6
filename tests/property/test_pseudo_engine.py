"""The pseudo engine's letters: a word is transliterated alone as it is within a text, codes kept."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pipeline.service.engine.pseudo import transliterate

_WORD = re.compile(r"[^\W_]+")

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
        '<x id="1"/>',
        "\n",
        "é",
        "1a",
        "Łódź",
    ]
)
TEXT = st.one_of(
    st.text(st.characters(blacklist_categories=("Mn", "Mc", "Me", "Cs")), max_size=40),
    st.lists(PIECES, max_size=12).map("".join),
)


@given(TEXT, st.booleans(), st.sampled_from(["DE", "PL", "EN-US", "RU", "HE", "JA", "ZH-HANS", "AR"]))
def test_a_text_is_transliterated_word_by_word(text, next_gen, target):
    by_word = _WORD.sub(lambda m: transliterate(m.group(), target, next_gen), text)
    assert transliterate(text, target, next_gen) == by_word


@given(TEXT, st.booleans())
def test_codes_and_numbers_are_kept(text, next_gen):
    out = transliterate(text, "PL", next_gen)
    kept = [w for w in _WORD.findall(text) if re.match(r"[^\W\d_][^\W_]*\d", w) or w.isdigit()]
    assert all(w in out for w in kept)
