"""Glossaries v2 (legacy): create, list, get, entries, delete; a v2 glossary is immutable.

v2 and v3 share one store and one id space, as on the real service: a glossary created here is a
v3 glossary with one dictionary (v3 may list, use and even edit it), and the v2 endpoints handle
every glossary that holds exactly one dictionary. A glossary with any other number of
dictionaries is left out of the v2 listing and is a 400 for the v2 endpoints that address it by id
(naming the v3 endpoints to use). Creation takes JSON or a URL-encoded form (the official Node.js
client sends a form). Creation answers 201, delete 204; content rules are those of
v3 (``store.glossary_content``). The entries endpoint answers ``text/tab-separated-values``; an
``Accept`` header that rules that type out is 415 (after the 404/400 of the glossary itself), as the
real service's OpenAPI description and its official mock answer it.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.service.api.glossaries import ONE_DICTIONARY_BODY_LIMIT, content, dictionary_from, not_found
from pipeline.service.echo import echo
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.json_body import read_json_or_form_object
from pipeline.service.http.responses import ApiError, bad_request, found, json_response
from pipeline.service.http.timestamps import iso_millis
from pipeline.service.state import resources_of, service_of
from pipeline.service.store.glossaries import GlossaryRecord
from pipeline.service.store.glossary_content import check_name

TSV_TYPE = "text/tab-separated-values"
_ACCEPTABLE = frozenset({TSV_TYPE, "text/*", "*/*"})


def glossary_v2_json(record: GlossaryRecord) -> dict[str, object]:
    """A single-pair glossary in the v2 shape."""
    (dictionary,) = record.dictionaries
    return {
        "glossary_id": record.glossary_id,
        "ready": True,
        "name": record.name,
        "source_lang": dictionary.source_lang,
        "target_lang": dictionary.target_lang,
        "creation_time": iso_millis(record.created_ms),
        "entry_count": dictionary.entry_count,
    }


def _single_pair(request: Request, caller: Caller) -> GlossaryRecord:
    glossary_id = request.path_params["glossary_id"]
    record = found(resources_of(request).glossaries.get(caller.account.account_id, glossary_id), not_found(glossary_id))
    if len(record.dictionaries) != 1:
        raise bad_request(
            f"glossary {echo(glossary_id)} holds {len(record.dictionaries)} dictionaries; the v2 endpoints handle "
            "single-pair glossaries only; use /v3/glossaries"
        )
    return record


@guarded(Access.DEVELOPER)
async def create_glossary_v2(request: Request, caller: Caller) -> Response:
    """``POST /v2/glossaries``: a single-pair glossary."""
    body = await read_json_or_form_object(request, ONE_DICTIONARY_BODY_LIMIT)
    name = content(check_name, body.get("name"))
    dictionary = await run_in_threadpool(dictionary_from, body, "the glossary")
    store = resources_of(request).glossaries
    now_ms = service_of(request).now_ms()
    record = await run_in_threadpool(store.create, caller.account.account_id, name, [dictionary], now_ms)
    return json_response(glossary_v2_json(record), status=201)


@guarded(Access.DEVELOPER)
async def list_glossaries_v2(request: Request, caller: Caller) -> Response:
    """``GET /v2/glossaries``: the account's single-pair glossaries."""
    records = resources_of(request).glossaries.list(caller.account.account_id)
    return json_response({"glossaries": [glossary_v2_json(r) for r in records if len(r.dictionaries) == 1]})


@guarded(Access.DEVELOPER)
async def get_glossary_v2(request: Request, caller: Caller) -> Response:
    """``GET /v2/glossaries/{glossary_id}``."""
    return json_response(glossary_v2_json(_single_pair(request, caller)))


def _accepts_tsv(accept: str) -> bool:
    """Whether an ``Accept`` header allows TSV (absent, the type itself, ``text/*`` or ``*/*`` with q > 0)."""
    if not accept.strip():
        return True
    for item in accept.split(","):
        kind, *params = item.split(";")
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if kind.strip().lower() in _ACCEPTABLE and quality > 0:
            return True
    return False


@guarded(Access.DEVELOPER)
async def glossary_entries_v2(request: Request, caller: Caller) -> Response:
    """``GET /v2/glossaries/{glossary_id}/entries``: the entries as tab-separated lines."""
    record = _single_pair(request, caller)
    if not _accepts_tsv(request.headers.get("accept", "")):
        raise ApiError(415, f"the entries are available as {TSV_TYPE} only; send 'Accept: {TSV_TYPE}'")
    (dictionary,) = record.dictionaries
    tsv = resources_of(request).glossaries.entries_tsv(
        caller.account.account_id, record.glossary_id, dictionary.source_lang, dictionary.target_lang
    )
    return Response((tsv or "").encode("utf-8"), media_type=f"{TSV_TYPE}; charset=utf-8")


@guarded(Access.DEVELOPER)
async def delete_glossary_v2(request: Request, caller: Caller) -> Response:
    """``DELETE /v2/glossaries/{glossary_id}``."""
    record = _single_pair(request, caller)
    resources_of(request).glossaries.delete(caller.account.account_id, record.glossary_id)
    return Response(status_code=204)


routes = [
    Route("/glossaries", create_glossary_v2, methods=["POST"]),
    Route("/glossaries", list_glossaries_v2, methods=["GET"]),
    Route("/glossaries/{glossary_id}", get_glossary_v2, methods=["GET"]),
    Route("/glossaries/{glossary_id}", delete_glossary_v2, methods=["DELETE"]),
    Route("/glossaries/{glossary_id}/entries", glossary_entries_v2, methods=["GET"]),
]
