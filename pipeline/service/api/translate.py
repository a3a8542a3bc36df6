"""``POST /v2/translate``: authenticate, read, validate, bill, translate, answer.

Status codes: 400 for a broken rule or malformed body, 403 for authentication (see ``http.auth``),
404 for a glossary, style rule list or translation memory the account does not have, 413 for a
body over 128 KiB, 415 for a body that is neither JSON nor a URL-encoded form, 456 when the
key's monthly character limit would be exceeded (test faults act in ``testing.faults``).

Billing: every character of every ``text`` (markup included) counts; ``context`` does not;
equal-language and variant-to-variant requests are billed; beta targets are free. A request
that would take the key over its limit is refused whole, before translating, so a key at 100 %
of its limit answers 456. The response carries ``billed_characters`` (when asked) and
``model_type_used`` (when ``model_type`` was sent) both at the top level, as the spec words it,
and on every translation, as the real service does; with ``tag_handling``, every translation
also says which ``tag_handling_version`` served it (``v1`` unless asked for ``v2``), as the real
service's OpenAPI description has it (the spec does not show it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.protocol import (
    MAX_TRANSLATE_BODY_BYTES,
    REPORTING_TAG_HEADER,
)
from pipeline.service.api.lookups import glossary_entries, memory_index, style_for
from pipeline.service.api.translate_params import TranslateJob, parse_translate
from pipeline.service.engine.base import EngineRequest, Translation
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import Params, media_type, read_body
from pipeline.service.http.responses import json_response, quota_exceeded
from pipeline.service.state import ServiceState, service_of
from pipeline.service.store.accounts import DeveloperKey
from pipeline.service.store.metering import period_of

if TYPE_CHECKING:  # made by store.memory_files with the first memory file: a service without memories never loads it
    from pipeline.service.engine.tm_match import MemoryIndex


class _Found(NamedTuple):
    """What the resources a request names give the engine."""

    glossary: tuple[tuple[str, str], ...] = ()
    instructions: tuple[str, ...] = ()
    style_rules: tuple[tuple[str, str, str], ...] = ()
    memory: MemoryIndex | None = None


def _resources(service: ServiceState, caller: Caller, job: TranslateJob) -> _Found:
    """Glossary entries, instructions, style rules and memory the job names (404/400 on mismatch)."""
    account_id, lookups = caller.account.account_id, service.lookups
    entries: tuple[tuple[str, str], ...] = ()
    instructions = job.custom_instructions
    rules: tuple[tuple[str, str, str], ...] = ()
    if job.glossary_id is not None:
        entries = glossary_entries(lookups, account_id, job.glossary_id, job.source, job.target)
    if job.style_id is not None:
        style = style_for(lookups, account_id, job.style_id, job.target)
        instructions += style.instructions
        rules = style.configured_rules
    memory = None
    if job.memory_id is not None:
        memory = memory_index(lookups, account_id, job.memory_id, job.source, job.target)
    return _Found(entries, instructions, rules, memory)


def _charge(service: ServiceState, key: DeveloperKey, period: str, total: int) -> None:
    """Bill the request to the key, or 456 when its limit is reached."""
    if not service.meter.charge(key.key_id, key.account_id, period, "translation", total, key.character_limit):
        raise quota_exceeded()


def _engine_request(job: TranslateJob, found: _Found) -> EngineRequest:
    return EngineRequest(
        texts=job.texts,
        source_lang=None if job.source is None else job.source.v2,
        target_lang=job.target.v2,
        markup=job.markup,
        split_sentences=job.split_sentences,
        model_type=job.model,
        formality=job.formality,
        preserve_formatting=job.preserve_formatting,
        context=job.context,
        glossary=found.glossary,
        instructions=found.instructions,
        style_rules=found.style_rules,
        memory=found.memory,
        memory_threshold=job.memory_threshold,
    )


def _payload(job: TranslateJob, translations: Sequence[Translation], billed: tuple[int, ...]) -> dict[str, object]:
    items = []
    for translation, chars in zip(translations, billed, strict=True):
        item: dict[str, object] = {
            "detected_source_language": translation.detected_source_language,
            "text": translation.text,
        }
        if job.show_billed_characters:
            item["billed_characters"] = chars
        if job.model_type_used is not None:
            item["model_type_used"] = job.model_type_used
        if job.markup is not None:
            item["tag_handling_version"] = job.markup.version
        items.append(item)
    payload: dict[str, object] = {"translations": items}
    if job.show_billed_characters:
        payload["billed_characters"] = sum(billed)
    if job.model_type_used is not None:
        payload["model_type_used"] = job.model_type_used
    return payload


@guarded(Access.DEVELOPER)
async def translate(request: Request, caller: Caller) -> Response:
    """Translate up to 50 texts."""
    service = service_of(request)
    key = caller.key
    assert key is not None  # developer-key endpoint
    body = await read_body(request, MAX_TRANSLATE_BODY_BYTES)
    job = parse_translate(Params.parse(body, media_type(request)))
    if job.glossary_id is None and job.memory_id is None:
        found = _resources(service, caller, job)
    else:  # a 10 MB dictionary is read from the store and parsed for its first use
        found = await run_in_threadpool(_resources, service, caller, job)
    billed = job.billed_per_text
    total = sum(billed)
    now = service.now()
    period = period_of(now)
    _charge(service, key, period, total)
    try:
        translations = await service.engine.translate(_engine_request(job, found))
    except BaseException:
        service.meter.refund(key.key_id, period, "translation", total)
        raise
    tag = request.headers.get(REPORTING_TAG_HEADER)
    if tag and total:
        service.meter.record_tag(caller.account.account_id, tag, now.date().isoformat(), total)
    return json_response(_payload(job, translations, billed))


routes = [Route("/translate", translate, methods=["POST"])]
