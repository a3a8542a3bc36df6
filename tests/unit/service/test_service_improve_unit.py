"""The local Write engine: each correction, its limits, and that it settles (idempotent)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.service.engine.improve import NARROW_NBSP, improve


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("en-US", "Keep  it   short.", "Keep it short."),
        ("en-US", "  Indented\tline", "  Indented\tline"),
        ("en-US", "Line one\n\nLine two", "Line one\n\nLine two"),
        ("en-US", "It is the the best.", "It is the best."),
        ("en-US", "He had had enough.", "He had had enough."),
        ("en-US", "The the end.", "The end."),
        ("de", "Er sagt, die die Frau kennt.", "Er sagt, die die Frau kennt."),
        ("de", "Das ist ist gut.", "Das ist gut."),
        ("en-US", "Hello , world !", "Hello, world!"),
        ("en-US", "Yes ,really", "Yes, really"),
        ("en-US", "Done.Next step", "Done. Next step"),
        ("en-US", "Pi is 3.14 at 10:30 on example.com and file.txt", "Pi is 3.14 at 10:30 on example.com and file.txt"),
        ("fr", "Vraiment ? Oui !", f"Vraiment{NARROW_NBSP}? Oui{NARROW_NBSP}!"),
        ("fr", "Note: voir ci-dessous; merci", f"Note{NARROW_NBSP}: voir ci-dessous{NARROW_NBSP}; merci"),
        ("fr", 'Il a dit "bonjour".', f"Il a dit «{NARROW_NBSP}bonjour{NARROW_NBSP}»."),
        ("en-US", "she left. then he came", "She left. Then he came"),
        ("en-US", "See e.g. the manual. it helps", "See e.g. the manual. It helps"),
        ("de", "Siehe z. B. den Text", "Siehe z. B. den Text"),
        ("en-US", "iPhone sales rose", "iPhone sales rose"),
        ("en-US", "www.example.com is up", "www.example.com is up"),
        ("en-US", 'She said "yes" twice', "She said \u201cyes\u201d twice"),
        ("de", 'Er sagte "ja" laut', "Er sagte \u201eja\u201c laut"),
        ("es", 'Dijo "sí" ayer', "Dijo \u00abs\u00ed\u00bb ayer"),
        ("pt-PT", 'Disse "sim"', "Disse \u00absim\u00bb"),
        ("pt-BR", 'Disse "sim"', "Disse \u201csim\u201d"),
        ("ja", '彼は"はい"と言った', "彼は\u300cはい\u300dと言った"),
        ("en-US", 'An odd " quote', 'An odd " quote'),
        ("en-US", "don't stop", "Don\u2019t stop"),
        ("ja", "これは  テストです", "これは テストです"),
        ("en-US", "", ""),
        ("en-US", "go go go", "Go"),  # one pass used to leave "Go go"
        ("en-US", "the The end", "The end"),  # used to become "The The end"
    ],
)
def test_corrections(language: str, text: str, expected: str) -> None:
    assert improve(text, language) == expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["the", "The", "a", "he", "had", "e.g.", ".", ",", "!", "?", ":", '"', "'", " ", "  ", "\n", "x1"]
        ),
        max_size=30,
    ),
    st.sampled_from(["en-US", "de", "fr", "ja", "pt-PT"]),
)
def test_improvement_settles(words: list[str], language: str) -> None:
    once = improve("".join(words), language)
    assert improve(once, language) == once
