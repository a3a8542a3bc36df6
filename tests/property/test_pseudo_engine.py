"""The pseudo engine's letters: a word is transliterated alone as it is within a text, codes kept; its memos
and shortcuts change no output."""

from __future__ import annotations

import re
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.service.engine import pseudo
from pipeline.service.engine.base import EngineRequest, MarkupOptions
from pipeline.service.engine.markup import TOKEN
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
    st.text(st.characters(exclude_categories=["Mn", "Mc", "Me", "Cs"]), max_size=40),
    st.lists(PIECES, max_size=12).map("".join),
)


@given(TEXT, st.booleans(), st.sampled_from(["DE", "PL", "EN-US", "RU", "HE", "JA", "ZH-HANS", "AR"]))
def test_a_text_is_transliterated_word_by_word(text: str, next_gen: bool, target: str) -> None:
    by_word = _WORD.sub(lambda m: transliterate(m.group(), target, next_gen), text)
    assert transliterate(text, target, next_gen) == by_word


@given(TEXT, st.booleans())
def test_codes_and_numbers_are_kept(text: str, next_gen: bool) -> None:
    out = transliterate(text, "PL", next_gen)
    kept = [w for w in _WORD.findall(text) if re.match(r"[^\W\d_][^\W_]*\d", w) or w.isdigit()]
    assert all(w in out for w in kept)


_TARGETS = st.sampled_from(["DE", "PL", "EN-US", "RU", "HE", "JA", "ZH-HANS", "AR", "EN-GB"])
_MARKUP_TEXT = st.one_of(
    TEXT,
    st.lists(
        PIECES | st.sampled_from(["<b>", "</b>", "<code>x</code>", '<p translate="no">keep</p>', "&amp;", "&", "<"]),
        max_size=10,
    ).map("".join),
)


@settings(max_examples=200, deadline=None)
@given(TEXT, st.booleans(), _TARGETS, st.integers(1, 4), st.integers(0, 6))
def test_the_word_memo_gives_what_each_word_worked_out_alone_gives(
    text: str, next_gen: bool, target: str, most: int, longest: int
) -> None:
    # Bounds tiny, so the memo starts again and skips words within one text.
    alone = _WORD.sub(lambda m: pseudo._Words(target, 1 if next_gen else 0)[m.group()], text)
    with mock.patch.object(pseudo._WORDS_HELD, "most", most), mock.patch.object(pseudo, "_KEPT_WORD", longest):
        assert transliterate(text, target, next_gen) == alone
        assert transliterate(text, "EN-GB", not next_gen) == transliterate(text, "EN-GB", not next_gen)
        assert transliterate(text, target, next_gen) == alone


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_MARKUP_TEXT, min_size=1, max_size=4),
    st.sampled_from([None, "EN", "DE", "JA"]),
    _TARGETS,
    st.none() | st.sampled_from([MarkupOptions("xml"), MarkupOptions("html")]),
    st.sampled_from(["latency_optimized", "quality_optimized"]),
)
def test_a_request_translates_each_text_as_it_would_alone(
    texts: list[str], source: str | None, target: str, markup: MarkupOptions | None, model: str
) -> None:
    request = EngineRequest(tuple(texts), source, target, markup, model_type=model)
    engine = pseudo.PseudoEngine()
    assert engine._translate_all(request) == [engine.translate_one(text, request) for text in texts]


@given(st.text(st.characters(exclude_characters="<&", exclude_categories=["Cs"]), min_size=1, max_size=60))
def test_a_text_without_lt_or_amp_holds_no_markup_token(text: str) -> None:
    # pieces() takes such a text whole, without its tokenizer.
    assert TOKEN().search(text) is None
