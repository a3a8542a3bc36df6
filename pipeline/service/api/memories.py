"""``/v3/translation_memories``: the memories of the caller's account (see ``store.memories``).

``GET /v3/translation_memories`` answers ``{"translation_memories": [...], "total_count": N}``, a
page at a time (``page`` from 0, ``page_size`` 1..25, default 10, as the real service's OpenAPI
description has them), with ``translation_memory_id``, ``name``, ``source_language``,
``target_languages``, ``segment_count``, ``creation_time`` and ``updated_time`` per memory (the
official clients' fields; the update time changes with the memory's content:
``store.memories.MemoryStore``); ``GET .../{id}`` one of them,
and ``GET .../{id}/segments`` its segments a page at a time (``page_size`` 1..100, default 50; an
opaque ``page_cursor``; ``filter_text`` of at least 2 characters, case-insensitive unless
``filter_case_sensitive=true``), as the official clients read them. Importing, exporting, job
status and deleting answer 404 "not available": the contract announces them but does not offer
them, and the local service reads its memories from files.
"""

from __future__ import annotations

import uuid

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.protocol import MEMORY_PAGE_SIZE_DEFAULT, MEMORY_PAGE_SIZE_MAX, MEMORY_PAGE_SIZE_MIN
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import int_query, single_query
from pipeline.service.http.responses import ApiError, bad_request, json_response
from pipeline.service.http.timestamps import iso_millis
from pipeline.service.state import resources_of
from pipeline.service.store.memories import TranslationMemory

#: Segment listing page size: default and largest (as the official clients document them).
SEGMENT_PAGE_DEFAULT, SEGMENT_PAGE_MAX = 50, 100


def memory_json(memory: TranslationMemory) -> dict[str, object]:
    """A memory as ``GET /v3/translation_memories`` lists it."""
    return {
        "translation_memory_id": memory.memory_id,
        "name": memory.name,
        "source_language": memory.source_lang,
        "target_languages": sorted(memory.by_target),
        "segment_count": memory.segment_count,
        "creation_time": iso_millis(memory.created_ms),
        "updated_time": iso_millis(memory.updated_ms),
    }


@guarded(Access.DEVELOPER)
async def list_memories(request: Request, caller: Caller) -> Response:
    """``GET /v3/translation_memories?page=&page_size=``: one page of the account's memories, and their number."""
    page = int_query(request, "page", 0, 0, None)
    size = int_query(request, "page_size", MEMORY_PAGE_SIZE_DEFAULT, MEMORY_PAGE_SIZE_MIN, MEMORY_PAGE_SIZE_MAX)
    memories = list(resources_of(request).memories.list(caller.account.account_id))
    shown = memories[page * size : (page + 1) * size]
    return json_response({"translation_memories": [memory_json(m) for m in shown], "total_count": len(memories)})


def _memory(request: Request, caller: Caller) -> TranslationMemory:
    memory_id = request.path_params["memory_id"]
    memory = resources_of(request).memories.get(caller.account.account_id, memory_id)
    if memory is None:
        raise ApiError(404, "translation memory not found")
    return memory


@guarded(Access.DEVELOPER)
async def get_memory(request: Request, caller: Caller) -> Response:
    """``GET /v3/translation_memories/{memory_id}``: one memory, as the listing shows it."""
    return json_response(memory_json(_memory(request, caller)))


@guarded(Access.DEVELOPER)
async def list_segments(request: Request, caller: Caller) -> Response:
    """``GET /v3/translation_memories/{memory_id}/segments``: one page of source segments with their targets."""
    memory = _memory(request, caller)
    page_size = int_query(request, "page_size", SEGMENT_PAGE_DEFAULT, 1, SEGMENT_PAGE_MAX)
    start = int_query(request, "page_cursor", 0, 0, None)
    needle = single_query(request, "filter_text", required=False)
    if needle is not None and len(needle) < 2:
        raise bad_request("query parameter 'filter_text' must hold at least 2 characters")
    exact = single_query(request, "filter_case_sensitive", required=False) == "true"
    segments = [s for s in segments_of(memory) if needle is None or _contains(s, needle, exact)]
    payload: dict[str, object] = {"segments": segments[start : start + page_size], "segment_count": len(segments)}
    if start + page_size < len(segments):
        payload["next_page_cursor"] = str(start + page_size)
    return json_response(payload)


def segments_of(memory: TranslationMemory) -> list[dict[str, object]]:
    """The memory's source segments in file order, each with its translations (ids derived, so stable)."""
    by_source: dict[str, list[tuple[str, str]]] = {}
    for target_lang, index in sorted(memory.by_target.items()):
        for source, target in index.segments:
            by_source.setdefault(source, []).append((target_lang, target))
    namespace = uuid.UUID(memory.memory_id)
    return [
        {
            "source_segment_id": str(uuid.uuid5(namespace, source)),
            "source_text": source,
            "targets": [
                {
                    "target_segment_id": str(uuid.uuid5(namespace, f"{lang}\t{source}")),
                    "target_language": lang,
                    "target_text": text,
                }
                for lang, text in targets
            ],
        }
        for source, targets in by_source.items()
    ]


def _contains(segment: dict[str, object], needle: str, exact: bool) -> bool:
    targets = segment["targets"]
    assert isinstance(targets, list)
    texts = [str(segment["source_text"]), *(str(t["target_text"]) for t in targets)]
    if exact:
        return any(needle in text for text in texts)
    return any(needle.casefold() in text.casefold() for text in texts)


@guarded(Access.DEVELOPER)
async def not_available(request: Request, caller: Caller) -> Response:
    """Changing memories through the API: announced by the contract, not available (404)."""
    raise ApiError(
        404,
        "not available: uploading, modifying, deleting and exporting translation memories through the API "
        "is announced but not available; the local service reads memories from files (pipeline serve "
        "--translation-memory NAME=FILE)",
    )


routes = [
    Route("/translation_memories", list_memories, methods=["GET"]),
    Route("/translation_memories/import", not_available, methods=["POST"]),
    Route("/translation_memories/jobs/{job_id}", not_available, methods=["GET"]),
    Route("/translation_memories/{memory_id}", get_memory, methods=["GET"]),
    Route("/translation_memories/{memory_id}", not_available, methods=["DELETE"]),
    Route("/translation_memories/{memory_id}/segments", list_segments, methods=["GET"]),
    Route("/translation_memories/{memory_id}/export", not_available, methods=["POST"]),
]
