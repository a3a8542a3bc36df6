"""Translation options keep their hash from when they were made: it must be the hash of every field they compare."""

from __future__ import annotations

import pickle
from dataclasses import fields, replace

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
COMPARED = [f.name for f in fields(TranslationOptions) if f.compare]


@given(OPTIONS)
def test_the_kept_hash_is_the_hash_of_every_compared_field(options: TranslationOptions) -> None:
    assert len(COMPARED) == 14
    assert hash(options) == hash(tuple(getattr(options, name) for name in COMPARED))


@given(OPTIONS, OPTIONS)
def test_options_alike_are_one_key_and_options_that_differ_are_two(
    a: TranslationOptions, b: TranslationOptions
) -> None:
    alike = [getattr(a, name) for name in COMPARED] == [getattr(b, name) for name in COMPARED]
    assert (a == b) == alike
    assert (b in {a: 1}) == alike


@given(OPTIONS, TEXT)
def test_a_changed_copy_works_its_hash_out_again(options: TranslationOptions, context: str | None) -> None:
    made = TranslationOptions(**{**{name: getattr(options, name) for name in COMPARED}, "context": context})
    assert hash(replace(options, context=context)) == hash(made)


@given(OPTIONS)
def test_a_pickle_carries_the_fields_and_not_the_hash_which_differs_between_processes(
    options: TranslationOptions,
) -> None:
    assert options.__reduce__() == (TranslationOptions, tuple(getattr(options, name) for name in COMPARED))
    copied = pickle.loads(pickle.dumps(options))
    assert copied == options
    assert hash(copied) == hash(options)
