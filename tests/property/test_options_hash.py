"""Translation options key dicts and memos: equal exactly when every field is, alike after a copy or a pickle."""

from __future__ import annotations

import pickle

from hypothesis import given
from hypothesis import strategies as st

from pipeline.segments import TranslationOptions

TEXT = st.one_of(st.none(), st.text(max_size=8))
OPTIONS = st.builds(
    TranslationOptions,
    source_lang=st.sampled_from(["EN", "DE", "FR"]),
    target_lang=st.sampled_from(["DE", "PT-BR", "JA"]),
    context=TEXT,
    formality=TEXT,
    glossary_id=TEXT,
    style_id=TEXT,
    model_type=TEXT,
    glossary_hash=TEXT,
    style_version=TEXT,
    custom_instructions=st.lists(st.text(max_size=5), max_size=2).map(tuple),
    translation_memory_id=TEXT,
    translation_memory_threshold=st.one_of(st.none(), st.integers(0, 100)),
    tag_handling_version=TEXT,
    translation_memory_version=TEXT,
)
FIELDS = TranslationOptions._fields


@given(OPTIONS, OPTIONS)
def test_options_alike_are_one_key_and_options_that_differ_are_two(
    a: TranslationOptions, b: TranslationOptions
) -> None:
    assert len(FIELDS) == 14
    alike = [getattr(a, name) for name in FIELDS] == [getattr(b, name) for name in FIELDS]
    assert (a == b) == alike
    assert (b in {a: 1}) == alike


@given(OPTIONS, TEXT)
def test_a_changed_copy_is_the_options_made_with_that_change(options: TranslationOptions, context: str | None) -> None:
    made = TranslationOptions(**{**options._asdict(), "context": context})
    changed = options._replace(context=context)
    assert changed == made
    assert hash(changed) == hash(made)


@given(OPTIONS)
def test_a_pickle_carries_every_field(options: TranslationOptions) -> None:
    copied = pickle.loads(pickle.dumps(options))
    assert type(copied) is TranslationOptions
    assert copied == options
    assert hash(copied) == hash(options)
