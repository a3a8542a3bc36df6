"""``POST /v2/write/rephrase`` and ``POST /v2/write/correct`` (paid tier only).

Status codes: 403 for a free-tier account (see ``http.auth``), 413 for a body over 10 KiB, 415 for a
body that is neither JSON nor a URL-encoded form, 400 for every broken rule (unsupported
``target_lang`` for the endpoint, unknown ``writing_style``/``tone``, both given with a value
other than ``default``, an unprefixed value for a language without style/tone support, style or
tone sent to ``correct``, a text reliably detected in another language than ``target_lang`` or,
without ``target_lang``, in a language Write does not improve),
with the wordings the official clients match ("Value for 'target_lang' not supported", "Language
ja does not support setting a tone", "Both writing_style and tone defined"), 456 when the key's monthly
character limit would be exceeded. The language check runs before billing and applies only
above :func:`detect.detect_reliably`'s thresholds (20 letters, probability 0.99), so a short
or ambiguous text is never refused.

Both endpoints run the deterministic corrections of :mod:`pipeline.service.engine.improve` with the
conventions of the target language (or, without ``target_lang``, of the detected language).
Every character of every ``text`` is billed as Write usage. ``target_language`` echoes the
caller's ``target_lang`` in its canonical form; without one it is the detected base language, one
of the Write languages (``Hello`` is English or another of them, never Finnish; a long Russian text
is refused, not taken for the nearest Write language). ``detected_source_language`` is the lower-case
base of ``target_language``, as the real service writes it: a text is taken to be in the target's
language, since one reliably in another was refused.
Rephrase also takes the base codes ``en`` and ``pt`` (not in the spec's list, but sent by the
official clients) and answers them as ``en-US`` and ``pt-PT``, as the real service does.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.protocol import MAX_WRITE_BODY_BYTES
from pipeline.service import languages
from pipeline.service.echo import echo
from pipeline.service.engine import detect, improve
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import Params, media_type, read_body
from pipeline.service.http.responses import bad_request, json_response, quota_exceeded
from pipeline.service.state import service_of
from pipeline.service.store.metering import period_of

WRITING_STYLES = ("simple", "business", "academic", "casual")
TONES = ("enthusiastic", "friendly", "confident", "diplomatic")
REPHRASE_TARGETS = ("de", "en-GB", "en-US", "es", "fr", "it", "ja", "ko", "pt-BR", "pt-PT", "zh", "zh-Hans")
#: Targets of /write/rephrase and /write/correct together, and those with a writing style or tone
#: (the Write table is read with this route group, not with the text-translation ones).
CORRECT_TARGETS = tuple(e.language.code for e in languages.resource_entries("write"))
STYLE_TARGETS = frozenset(e.language.code for e in languages.resource_entries("write") if "writing_style" in e.features)
#: Base languages Write improves: what a text without ``target_lang`` must be written in.
WRITE_BASES = frozenset(languages.base_of(code) for code in CORRECT_TARGETS)
#: Base codes the official clients send to rephrase, answered as the variant the real service picks.
REPHRASE_ALIASES = {"en": "en-US", "pt": "pt-PT"}
BOTH_DEFINED = "Both writing_style and tone defined. Currently only style OR tone can be chosen for a single request."

Endpoint = Literal["rephrase", "correct"]


class WriteJob(NamedTuple):
    """A valid Write request: texts, the canonical target (or None) and the effective mode."""

    texts: tuple[str, ...]
    target: str | None
    #: ``writing_style:<value>``, ``tone:<value>`` or ``default``.
    mode: str


def _allowed(values: tuple[str, ...]) -> tuple[str, ...]:
    return ("default", *values, *(f"prefer_{v}" for v in values))


def _target(params: Params, endpoint: Endpoint) -> str | None:
    code = params.string("target_lang")
    if code is None:
        return None
    key = code.strip().lower()
    if endpoint == "rephrase" and key in REPHRASE_ALIASES:
        return REPHRASE_ALIASES[key]
    allowed = REPHRASE_TARGETS if endpoint == "rephrase" else CORRECT_TARGETS
    canonical = {c.lower(): c for c in allowed}.get(key)
    if canonical is None:
        raise bad_request(
            f"Value for 'target_lang' not supported: {echo(code)} is not a target of /v2/write/{endpoint}; "
            f"use one of {', '.join(allowed)}"
        )
    return canonical


def _unsupported(name: str, value: str, target: str | None) -> str:
    what = "a writing style" if name == "writing_style" else "a tone"
    who = f"Language {target.lower()} does" if target else "A request without target_lang does"
    return (
        f"{who} not support setting {what} ({name} {echo(value)}); supported for "
        f"{', '.join(sorted(STYLE_TARGETS))}; use prefer_{value} to fall back to the default"
    )


def _mode(params: Params, target: str | None) -> str:
    modes: list[str] = []
    for name, values in (("writing_style", WRITING_STYLES), ("tone", TONES)):
        value = params.string(name)
        if value is None or value == "default":
            continue
        if value not in _allowed(values):
            raise bad_request(f"invalid value {echo(value)} for '{name}'; allowed: {', '.join(_allowed(values))}")
        if target in STYLE_TARGETS:
            modes.append(f"{name}:{value.removeprefix('prefer_')}")
        elif value.startswith("prefer_"):
            modes.append("default")
        else:
            raise bad_request(_unsupported(name, value, target))
    if len(modes) == 2:
        raise bad_request(BOTH_DEFINED)
    return modes[0] if modes else "default"


def parse_write(params: Params, endpoint: Endpoint) -> WriteJob:
    """Validate Write parameters into a job; 400 on the first broken rule."""
    texts = params.strings("text")
    if texts is None:
        raise bad_request("parameter 'text' is required")
    if not texts:
        raise bad_request("parameter 'text' must hold at least one text")
    target = _target(params, endpoint)
    if endpoint == "correct":
        sent = [name for name in ("writing_style", "tone") if params.present(name)]
        if sent:
            raise bad_request(f"/v2/write/correct does not accept {' or '.join(sent)}; use /v2/write/rephrase")
        return WriteJob(tuple(texts), target, "default")
    return WriteJob(tuple(texts), target, _mode(params, target))


def _check_languages(texts: tuple[str, ...], target: str | None) -> None:
    """Spec rule 1: the text's language must equal the target's (400), where detection is reliable.

    Without ``target_lang`` the text's own language is the target, so it must be one Write improves.
    """
    for index, text in enumerate(texts):
        if target is None:
            outside = detect.detect_outside(text, "write")
            if outside is not None:
                raise bad_request(
                    f"text {index} is in {outside}, which Write does not improve; without target_lang the "
                    f"text's own language is the target, and it must be one of {', '.join(sorted(WRITE_BASES))}"
                )
            continue
        detected = detect.detect_reliably(text)
        if detected is not None and detected.lower() != languages.base_of(target):
            raise bad_request(
                f"text {index} is in {detected} but target_lang is {target!r}: Write improves a text in "
                "its own language (or another variant of it); translate it first"
            )


async def _improve(request: Request, caller: Caller, endpoint: Endpoint) -> Response:
    service = service_of(request)
    key = caller.key
    assert key is not None  # developer-key endpoint
    body = await read_body(request, MAX_WRITE_BODY_BYTES)
    job = parse_write(Params.parse(body, media_type(request)), endpoint)
    _check_languages(job.texts, job.target)
    total = sum(len(t) for t in job.texts)
    period = period_of(service.now())
    if not service.meter.charge(key.key_id, key.account_id, period, "write", total, key.character_limit):
        raise quota_exceeded()
    items = []
    for text in job.texts:
        # A text is taken to be in the target's language (a reliable other one was refused above).
        language = job.target or detect.detect(text, "write").lower()
        items.append(
            {
                "text": improve.improve(text, language),
                "target_language": language,
                "detected_source_language": languages.base_of(language),
            }
        )
    return json_response({"improvements": items})


@guarded(Access.PAID_DEVELOPER)
async def rephrase(request: Request, caller: Caller) -> Response:
    """Improve texts (the local engine corrects; style and tone are validated, see ``engine.improve``)."""
    return await _improve(request, caller, "rephrase")


@guarded(Access.PAID_DEVELOPER)
async def correct(request: Request, caller: Caller) -> Response:
    """Correct texts with minimal changes."""
    return await _improve(request, caller, "correct")


routes = [
    Route("/write/rephrase", rephrase, methods=["POST"]),
    Route("/write/correct", correct, methods=["POST"]),
]
