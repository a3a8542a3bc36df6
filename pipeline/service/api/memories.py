"""``GET /v3/translation_memories``: the memories of the caller's account (see ``store.memories``).

The answer is ``{"translation_memories": [...]}`` with ``translation_memory_id``, ``name``,
``source_language``, ``target_languages`` and ``segment_count`` per memory.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.responses import json_response
from pipeline.service.state import resources_of
from pipeline.service.store.memories import TranslationMemory


def memory_json(memory: TranslationMemory) -> dict[str, object]:
    """A memory as ``GET /v3/translation_memories`` lists it."""
    return {
        "translation_memory_id": memory.memory_id,
        "name": memory.name,
        "source_language": memory.source_lang,
        "target_languages": sorted(memory.by_target),
        "segment_count": memory.segment_count,
    }


@guarded(Access.DEVELOPER)
async def list_memories(request: Request, caller: Caller) -> Response:
    """``GET /v3/translation_memories``: the account's memories."""
    memories = resources_of(request).memories.list(caller.account.account_id)
    return json_response({"translation_memories": [memory_json(m) for m in memories]})


routes = [Route("/translation_memories", list_memories, methods=["GET"])]
