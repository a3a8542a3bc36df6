"""Resolution of translate parameters: defaults, model, sentence splitting, formality."""

from __future__ import annotations

import pytest

from pipeline.service.api.translate_params import TranslateJob, parse_translate
from pipeline.service.http.params import Params
from pipeline.service.http.responses import ApiError


def job(**values: object) -> TranslateJob:
    return parse_translate(Params({"text": ["Hello"], "target_lang": "DE", "source_lang": "EN", **values}, form=False))


def form_job(pairs: list[tuple[str, str]]) -> TranslateJob:
    values: dict[str, list[str]] = {}
    for key, value in pairs:
        values.setdefault(key, []).append(value)
    return parse_translate(Params(values, form=True))


@pytest.mark.parametrize(
    ("values", "split"),
    [
        ({}, "1"),
        ({"tag_handling": "xml"}, "1"),
        ({"tag_handling": "html"}, "nonewlines"),
        ({"split_sentences": "0"}, "0"),
        ({"split_sentences": "nonewlines", "tag_handling": "html"}, "nonewlines"),
        ({"model_type": "quality_optimized", "split_sentences": "1"}, "0"),
        ({"model_type": "quality_optimized", "tag_handling": "xml", "split_sentences": "0"}, "nonewlines"),
        ({"source_lang": None, "split_sentences": "1"}, "0"),
    ],
)
def test_split_sentences_effective(values: dict[str, object], split: str) -> None:
    assert job(**values).split_sentences == split


@pytest.mark.parametrize(
    ("values", "model", "used"),
    [
        ({}, "latency_optimized", None),
        ({"source_lang": None}, "quality_optimized", None),
        ({"tag_handling": "xml", "tag_handling_version": "v2"}, "quality_optimized", None),
        ({"custom_instructions": ["Be brief"]}, "quality_optimized", None),
        ({"style_id": "s"}, "quality_optimized", None),
        ({"model_type": "latency_optimized"}, "latency_optimized", "latency_optimized"),
        ({"model_type": "prefer_quality_optimized"}, "quality_optimized", "quality_optimized"),
        ({"model_type": "latency_optimized", "source_lang": None}, "quality_optimized", "quality_optimized"),
    ],
)
def test_model_resolution(values: dict[str, object], model: str, used: str | None) -> None:
    resolved = job(**values)
    assert (resolved.model, resolved.model_type_used) == (model, used)


@pytest.mark.parametrize(
    ("target", "asked", "effective"),
    [
        ("DE", "prefer_more", "more"),
        ("DE", "less", "less"),
        ("EN-US", "prefer_less", "default"),
        ("JA", "prefer_less", "less"),
        ("ES-419", "more", "more"),
        ("DE", None, "default"),
    ],
)
def test_formality_resolution(target: str, asked: str | None, effective: str) -> None:
    assert job(target_lang=target, formality=asked).formality == effective


def test_form_values() -> None:
    resolved = form_job(
        [
            ("text", "a"),
            ("text", "b"),
            ("target_lang", "fr"),
            ("show_billed_characters", "1"),
            ("tag_handling", "xml"),
            ("ignore_tags", "x, y"),
            ("ignore_tags", "z"),
            ("outline_detection", "0"),
            ("translation_memory_threshold", "80"),
        ]
    )
    assert resolved.texts == ("a", "b") and resolved.target.v2 == "FR" and resolved.source is None
    assert resolved.show_billed_characters and resolved.memory_threshold == 80
    assert resolved.markup is not None and resolved.markup.ignore_tags == {"x", "y", "z"}
    assert resolved.markup.outline_detection is False


def test_json_null_means_absent() -> None:
    resolved = job(model_type=None, formality=None, context=None)
    assert resolved.model_type_used is None and resolved.formality == "default"


def test_beta_target_is_free() -> None:
    assert job(target_lang="de-ch").billed_per_text == (0,)
    assert job(text=["abc", "de"]).billed_per_text == (3, 2)


def test_first_broken_rule_is_reported() -> None:
    with pytest.raises(ApiError) as caught:
        job(formality="more", target_lang="EN-GB")
    assert caught.value.status == 400
    assert caught.value.message.startswith("Target language 'EN-GB' does not support formality;")
