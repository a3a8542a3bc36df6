"""Glossaries v3: the eight ``/v3/glossaries`` endpoints.

Any developer key (free or paid) may use them; a glossary belongs to its account and is a 404
for every other account. The writes (POST, PATCH, PUT) take JSON or URL-encoded forms with indexed
fields (``dictionaries[0].source_lang``, see ``http.form_object``), as the official Node.js client
sends them. A creation may hold no dictionary at all (``dictionaries`` empty or absent): the
official clients create glossaries so and fill them with PUT, and the real service accepts it
(``docs/local-service-conformance.md``). Status codes where the spec is silent: creation answers 201, both
deletes 204 with an empty body; a missing glossary or dictionary is 404; every content or
parameter rule is 400 (see ``store.glossary_content`` for the messages, which name the line); a body
over the size limits below is 413. Languages are accepted in any case and answered in lower case;
``ready`` is true in every answer since a local glossary is usable as soon as it is stored.

Body limits follow from the spec's 10 MB of entries per dictionary: a body carrying one
dictionary (PUT, PATCH, and v2 creation) may hold three times that plus 64 KiB, room for JSON
escaping at its worst (``\u00e9`` takes six bytes for the two of ``é``); a creation may carry five
such dictionaries (the spec's own example of a 50 MB glossary; more pairs are added with PUT). A
body declared bigger is refused with 413 before it is read. Bodies are parsed, checked and
stored in a worker thread, so a 10 MB dictionary does not hold up other requests.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.protocol import MAX_GLOSSARY_DICTIONARY_BYTES, Dictionary
from pipeline.service.api.lookups import no_dictionary_message
from pipeline.service.echo import echo
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.json_body import read_json_or_form_object
from pipeline.service.http.params import single_query
from pipeline.service.http.responses import ApiError, bad_request, found, json_response, no_content
from pipeline.service.http.timestamps import iso_millis
from pipeline.service.state import resources_of, service_of
from pipeline.service.store.glossaries import DictionarySummary, GlossaryRecord
from pipeline.service.store.glossary_content import ContentError, check_name, glossary_language, parse_dictionary

#: A body with one full dictionary: JSON writes a byte of entries in at most three (see above).
ONE_DICTIONARY_BODY_LIMIT = 3 * MAX_GLOSSARY_DICTIONARY_BYTES + 64 * 1024
#: A creation body: five full dictionaries, the spec's example of a 50 MB glossary.
CREATE_BODY_LIMIT = 5 * ONE_DICTIONARY_BODY_LIMIT


def summary_json(summary: DictionarySummary) -> dict[str, object]:
    """A dictionary summary as the API shows it."""
    return {"source_lang": summary.source_lang, "target_lang": summary.target_lang, "entry_count": summary.entry_count}


def glossary_json(record: GlossaryRecord) -> dict[str, object]:
    """A v3 glossary (metadata only) as the API shows it."""
    return {
        "glossary_id": record.glossary_id,
        "name": record.name,
        "ready": True,
        "dictionaries": [summary_json(d) for d in record.dictionaries],
        "creation_time": iso_millis(record.created_ms),
    }


def not_found(glossary_id: str) -> ApiError:
    """404 for a glossary the account does not have."""
    return ApiError(404, f"glossary {echo(glossary_id)} not found")


def no_dictionary(glossary_id: str, source: str, target: str) -> ApiError:
    """404 for a language pair the glossary has no dictionary for."""
    return ApiError(404, no_dictionary_message(glossary_id, source, target))


def content(fn: Any, *args: Any) -> Any:
    """Call a content check, turning its ContentError into a 400 with the same message."""
    try:
        return fn(*args)
    except ContentError as exc:
        raise bad_request(str(exc)) from None


def dictionary_from(value: object, where: str) -> Dictionary:
    """A dictionary with content from a request body object (400 on any broken rule)."""
    if not isinstance(value, dict):
        raise bad_request(f"{where} must be an object with source_lang, target_lang, entries, entries_format")
    source = content(glossary_language, value.get("source_lang"), "source_lang")
    target = content(glossary_language, value.get("target_lang"), "target_lang")
    if source == target:
        raise bad_request(f"{where}: source_lang and target_lang must differ (both are {echo(source)})")
    dictionary: Dictionary = content(
        parse_dictionary, source, target, value.get("entries"), value.get("entries_format")
    )
    return dictionary


def query_pair(request: Request) -> tuple[str, str]:
    """The ``source_lang``/``target_lang`` query parameters as base languages (400 when missing or invalid)."""
    source = content(glossary_language, single_query(request, "source_lang"), "source_lang")
    target = content(glossary_language, single_query(request, "target_lang"), "target_lang")
    return source, target


@guarded(Access.DEVELOPER)
async def create_glossary(request: Request, caller: Caller) -> Response:
    """``POST /v3/glossaries``: a glossary with its dictionaries (none is allowed)."""
    body = await read_json_or_form_object(request, CREATE_BODY_LIMIT)
    name = content(check_name, body.get("name"))
    dictionaries = await run_in_threadpool(_dictionaries, body.get("dictionaries"))
    store = resources_of(request).glossaries
    now_ms = service_of(request).now_ms()
    record = await run_in_threadpool(store.create, caller.account.account_id, name, dictionaries, now_ms)
    return json_response(glossary_json(record), status=201)


def _dictionaries(items: object) -> list[Dictionary]:
    """The dictionaries of a creation body, distinct pairs, maybe none (400 on any broken rule)."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise bad_request("'dictionaries' must be an array of dictionaries")
    dictionaries: list[Dictionary] = []
    seen: set[tuple[str, str]] = set()
    for number, item in enumerate(items, 1):
        dictionary = dictionary_from(item, f"dictionaries[{number}]")
        if dictionary.pair in seen:
            raise bad_request(
                f"dictionaries[{number}]: a glossary holds one dictionary per language pair; "
                f"{dictionary.source_lang}->{dictionary.target_lang} is given twice"
            )
        seen.add(dictionary.pair)
        dictionaries.append(dictionary)
    return dictionaries


@guarded(Access.DEVELOPER)
async def list_glossaries(request: Request, caller: Caller) -> Response:
    """``GET /v3/glossaries``: every glossary of the account, without entries."""
    records = resources_of(request).glossaries.list(caller.account.account_id)
    return json_response({"glossaries": [glossary_json(r) for r in records]})


@guarded(Access.DEVELOPER)
async def get_glossary(request: Request, caller: Caller) -> Response:
    """``GET /v3/glossaries/{glossary_id}``: one glossary's metadata."""
    glossary_id = request.path_params["glossary_id"]
    record = found(resources_of(request).glossaries.get(caller.account.account_id, glossary_id), not_found(glossary_id))
    return json_response(glossary_json(record))


@guarded(Access.DEVELOPER)
async def glossary_entries(request: Request, caller: Caller) -> Response:
    """``GET /v3/glossaries/{glossary_id}/entries``: one dictionary with its entries as TSV."""
    glossary_id = request.path_params["glossary_id"]
    source, target = query_pair(request)
    store = resources_of(request).glossaries
    account_id = caller.account.account_id
    tsv = store.entries_tsv(account_id, glossary_id, source, target)
    if tsv is None:
        if store.get(account_id, glossary_id) is None:
            raise not_found(glossary_id)
        raise no_dictionary(glossary_id, source, target)
    # Lines are joined, not terminated, as the real service sends them (clients compare the text).
    entries = tsv.removesuffix("\n")
    item = {"source_lang": source, "target_lang": target, "entries": entries, "entries_format": "tsv"}
    return await run_in_threadpool(json_response, {"dictionaries": [item]})  # up to 10 MB to encode


@guarded(Access.DEVELOPER)
async def put_dictionary(request: Request, caller: Caller) -> Response:
    """``PUT /v3/glossaries/{glossary_id}/dictionaries``: create or replace one dictionary."""
    glossary_id = request.path_params["glossary_id"]
    body = await read_json_or_form_object(request, ONE_DICTIONARY_BODY_LIMIT)
    dictionary = await run_in_threadpool(dictionary_from, body, "the dictionary")
    store = resources_of(request).glossaries
    summary = await run_in_threadpool(content, store.put_dictionary, caller.account.account_id, glossary_id, dictionary)
    return json_response(summary_json(found(summary, not_found(glossary_id))))


@guarded(Access.DEVELOPER)
async def patch_glossary(request: Request, caller: Caller) -> Response:
    """``PATCH /v3/glossaries/{glossary_id}``: rename and/or merge entries into one dictionary."""
    glossary_id = request.path_params["glossary_id"]
    body = await read_json_or_form_object(request, ONE_DICTIONARY_BODY_LIMIT)
    name = None if body.get("name") is None else content(check_name, body["name"])
    dictionary = None
    items = body.get("dictionaries")
    if items is not None:
        if not isinstance(items, list) or len(items) != 1:
            raise bad_request(
                "'dictionaries' must be an array of exactly one dictionary: one PATCH changes one dictionary"
            )
        dictionary = await run_in_threadpool(dictionary_from, items[0], "dictionaries[1]")
    if name is None and dictionary is None:
        raise bad_request("nothing to change: give 'name' and/or 'dictionaries'")
    store = resources_of(request).glossaries
    record = await run_in_threadpool(content, store.update, caller.account.account_id, glossary_id, name, dictionary)
    return json_response(glossary_json(found(record, not_found(glossary_id))))


@guarded(Access.DEVELOPER)
async def delete_glossary(request: Request, caller: Caller) -> Response:
    """``DELETE /v3/glossaries/{glossary_id}``: the glossary and all its dictionaries."""
    glossary_id = request.path_params["glossary_id"]
    deleted = resources_of(request).glossaries.delete(caller.account.account_id, glossary_id)
    return no_content(deleted, not_found(glossary_id))


@guarded(Access.DEVELOPER)
async def delete_dictionary(request: Request, caller: Caller) -> Response:
    """``DELETE /v3/glossaries/{glossary_id}/dictionaries?source_lang=..&target_lang=..``."""
    glossary_id = request.path_params["glossary_id"]
    source, target = query_pair(request)
    store = resources_of(request).glossaries
    deleted = store.delete_dictionary(caller.account.account_id, glossary_id, source, target)
    return no_content(found(deleted, not_found(glossary_id)), no_dictionary(glossary_id, source, target))


routes = [
    Route("/glossaries", create_glossary, methods=["POST"]),
    Route("/glossaries", list_glossaries, methods=["GET"]),
    Route("/glossaries/{glossary_id}", get_glossary, methods=["GET"]),
    Route("/glossaries/{glossary_id}", patch_glossary, methods=["PATCH"]),
    Route("/glossaries/{glossary_id}", delete_glossary, methods=["DELETE"]),
    Route("/glossaries/{glossary_id}/entries", glossary_entries, methods=["GET"]),
    Route("/glossaries/{glossary_id}/dictionaries", put_dictionary, methods=["PUT"]),
    Route("/glossaries/{glossary_id}/dictionaries", delete_dictionary, methods=["DELETE"]),
]
