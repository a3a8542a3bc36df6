"""The parameters of ``POST /v2/translate``, checked against every rule of the spec.

:func:`parse_translate` turns the body's parameters into a :class:`TranslateJob` or raises a 400
naming the parameter and the rule. Resources named by id (glossary, style rule list, translation
memory) are only checked for form here; finding them needs the account (see ``translate``).

Resolved here so that the engine and the response agree:

- the model (rules 2-5): next-gen (``quality_optimized``) when ``source_lang`` is omitted, when
  ``model_type`` asks for it, or when ``tag_handling_version=v2``, ``style_id``,
  ``custom_instructions`` or ``translation_memory_id`` needs it; classic (``latency_optimized``)
  otherwise. Every local language has a next-gen model, so ``prefer_quality_optimized`` never
  falls back. ``model_type_used`` is set exactly when ``model_type`` was sent;
- sentence splitting (rules 1-2): as sent, default ``1`` (``nonewlines`` with HTML); next-gen
  ignores it and uses ``0`` without and ``nonewlines`` with tag handling;
- formality (rule 9): ``prefer_*`` falls back to ``default`` where formality is unsupported;
- the target: the deprecated ``ZH`` is served as ``ZH-HANS``, as the real service serves it.
"""

import uuid
from typing import Literal, NamedTuple, cast

from pipeline.protocol import (
    FORMALITIES,
    MAX_CUSTOM_INSTRUCTION_CHARS,
    MAX_CUSTOM_INSTRUCTIONS,
    MAX_TEXTS_PER_REQUEST,
    MODEL_TYPES,
    SPLIT_SENTENCES,
    STYLE_LANGUAGES,
    TAG_HANDLING_VERSIONS,
    TAG_HANDLINGS,
    TM_THRESHOLD_DEFAULT,
    TM_THRESHOLD_MAX,
    TM_THRESHOLD_MIN,
)
from pipeline.service import languages
from pipeline.service.echo import echo
from pipeline.service.engine.base import MarkupOptions
from pipeline.service.http.params import Params
from pipeline.service.http.responses import bad_request
from pipeline.service.languages import Language

QUALITY, LATENCY = "quality_optimized", "latency_optimized"


class TranslateJob(NamedTuple):
    """A valid translate request with its effective settings."""

    texts: tuple[str, ...]
    source: Language | None
    target: Language
    context: str | None
    model: str
    model_type_used: str | None
    split_sentences: str
    formality: str
    preserve_formatting: bool
    markup: MarkupOptions | None
    glossary_id: str | None
    style_id: str | None
    memory_id: str | None
    memory_threshold: int
    custom_instructions: tuple[str, ...]
    show_billed_characters: bool

    @property
    def billed_per_text(self) -> tuple[int, ...]:
        """Characters billed for each text: all of it, except for beta targets (free during beta)."""
        if self.target.status == languages.BETA:
            return tuple(0 for _ in self.texts)
        return tuple(len(t) for t in self.texts)


def _choice(params: Params, name: str, allowed: tuple[str, ...]) -> str | None:
    value = params.string(name)
    if value is not None and value not in allowed:
        raise bad_request(f"invalid value {echo(value)} for '{name}'; allowed: {', '.join(allowed)}")
    return value


def _texts(params: Params) -> tuple[str, ...]:
    texts = params.strings("text")
    if texts is None:
        raise bad_request("parameter 'text' is required")
    if not texts:
        raise bad_request("parameter 'text' must hold at least one text")
    if len(texts) > MAX_TEXTS_PER_REQUEST:
        raise bad_request(f"too many texts: {len(texts)}; at most {MAX_TEXTS_PER_REQUEST} per request")
    return tuple(texts)


def target_language(code: str | None) -> Language:
    """The text-translation target for ``code``; 400 when missing or unsupported."""
    if code is None:
        raise bad_request("parameter 'target_lang' is required")
    lang = languages.find(code)
    if lang is not None and languages.accepted_as_target(lang):
        return languages.served_as(lang)
    if lang is not None:
        variants = [x.v2 for x in languages.text_targets(include_beta=False) if x.base == lang.base]
        raise bad_request(f"target_lang {echo(code)} is not supported; use one of {', '.join(variants)}")
    raise bad_request(f"target_lang {echo(code)} is not supported")


def source_language(code: str | None) -> Language | None:
    """The text-translation source for ``code`` (None when omitted); 400 when unsupported."""
    if code is None:
        return None
    lang = languages.find(code)
    if lang is not None and lang.source:
        return lang
    if lang is not None:
        raise bad_request(f"source_lang {echo(code)} is not supported; use the base language {echo(lang.base.upper())}")
    raise bad_request(f"source_lang {echo(code)} is not supported")


def _uuid(params: Params, name: str) -> str | None:
    value = params.string(name)
    if value is None:
        return None
    try:
        uuid.UUID(value)
    except ValueError:
        raise bad_request(f"parameter '{name}' must be a UUID") from None
    return value


def _instructions(params: Params, target: Language) -> tuple[str, ...]:
    items = params.strings("custom_instructions") or []
    if len(items) > MAX_CUSTOM_INSTRUCTIONS:
        raise bad_request(f"too many custom_instructions: {len(items)}; at most {MAX_CUSTOM_INSTRUCTIONS} are allowed")
    for number, item in enumerate(items, 1):
        if len(item) > MAX_CUSTOM_INSTRUCTION_CHARS:
            raise bad_request(
                f"custom instruction {number} has {len(item)} characters; "
                f"at most {MAX_CUSTOM_INSTRUCTION_CHARS} are allowed"
            )
    if items and not languages.supports_style(target):
        raise bad_request(
            f"custom_instructions are not supported for target language {target.v2!r}; "
            f"supported: {', '.join(STYLE_LANGUAGES)} and their variants"
        )
    return tuple(items)


def effective_formality(value: str, supported: bool, target: Language, what: str = "") -> str:
    """The formality to apply: ``prefer_*`` falls back where unsupported, ``more``/``less`` are 400 there.

    The message starts as the real service's does ("Target language ... formality"), which the
    official clients match; ``what`` names the kind of request when it matters (documents).
    """
    if value in ("more", "less") and not supported:
        raise bad_request(
            f"Target language {target.v2!r} does not support formality{what}; "
            "use prefer_more or prefer_less to fall back to the default formality"
        )
    if value.startswith("prefer_"):
        return value.removeprefix("prefer_") if supported else "default"
    return value


def _formality(params: Params, target: Language) -> str:
    value = _choice(params, "formality", FORMALITIES) or "default"
    return effective_formality(value, languages.supports_formality(target), target)


def _threshold(params: Params) -> int:
    value = params.integer("translation_memory_threshold")
    if value is None:
        return TM_THRESHOLD_DEFAULT
    if not TM_THRESHOLD_MIN <= value <= TM_THRESHOLD_MAX:
        raise bad_request(
            f"translation_memory_threshold must be between {TM_THRESHOLD_MIN} and {TM_THRESHOLD_MAX}, got {echo(value)}"
        )
    return value


def _quality_only(
    tag_version: str | None, style_id: str | None, instructions: tuple[str, ...], memory_id: str | None
) -> list[str]:
    """The options asked for that only the quality-optimized models serve (spec rules 4-5)."""
    return [
        name
        for name, present in (
            ("tag_handling_version=v2", tag_version == "v2"),
            ("style_id", style_id is not None),
            ("custom_instructions", bool(instructions)),
            ("translation_memory_id", memory_id is not None),
        )
        if present
    ]


def _model(
    model_type: str | None, split: str | None, detect: bool, tag_handling: str | None, needs_quality: list[str]
) -> tuple[str, str]:
    """The model that serves the request and the sentence splitting it uses (spec rules 1-5)."""
    if needs_quality and model_type == LATENCY:
        raise bad_request(
            f"{needs_quality[0]} requires quality_optimized models and cannot be combined with "
            "model_type=latency_optimized"
        )
    next_gen = detect or bool(needs_quality) or model_type in (QUALITY, "prefer_quality_optimized")
    if next_gen:
        return QUALITY, "nonewlines" if tag_handling else "0"
    if split is None:
        split = "nonewlines" if tag_handling == "html" else "1"
    return LATENCY, split


def parse_translate(params: Params) -> TranslateJob:
    """Validate translate parameters into a job; 400 on the first broken rule."""
    texts = _texts(params)
    target = target_language(params.string("target_lang"))
    source = source_language(params.string("source_lang"))
    context = params.string("context")
    model_type = _choice(params, "model_type", MODEL_TYPES)
    split = _choice(params, "split_sentences", SPLIT_SENTENCES)
    tag_handling = _choice(params, "tag_handling", TAG_HANDLINGS)
    tag_version = _choice(params, "tag_handling_version", TAG_HANDLING_VERSIONS)
    formality = _formality(params, target)
    instructions = _instructions(params, target)
    glossary_id = params.string("glossary_id")
    style_id = params.string("style_id")
    memory_id = _uuid(params, "translation_memory_id")
    threshold = _threshold(params)
    preserve = bool(params.boolean("preserve_formatting"))
    show_billed = bool(params.boolean("show_billed_characters"))
    outline = params.boolean("outline_detection")
    ignore, splitting = params.tag_names("ignore_tags"), params.tag_names("splitting_tags")
    non_splitting = params.tag_names("non_splitting_tags")

    if glossary_id is not None and source is None:
        raise bad_request("glossary_id requires source_lang: glossaries cannot be used with language detection")
    needs_quality = _quality_only(tag_version, style_id, instructions, memory_id)
    model, split = _model(model_type, split, source is None, tag_handling, needs_quality)
    markup = None
    if tag_handling is not None:
        markup = MarkupOptions(
            cast(Literal["xml", "html"], tag_handling),
            ignore,
            splitting,
            non_splitting,
            True if outline is None else outline,
            cast(Literal["v1", "v2"], tag_version or "v1"),
        )
    return TranslateJob(
        texts=texts,
        source=source,
        target=target,
        context=context,
        model=model,
        model_type_used=model if model_type is not None else None,
        split_sentences=split,
        formality=formality,
        preserve_formatting=preserve,
        markup=markup,
        glossary_id=glossary_id,
        style_id=style_id,
        memory_id=memory_id,
        memory_threshold=threshold,
        custom_instructions=instructions,
        show_billed_characters=show_billed,
    )
