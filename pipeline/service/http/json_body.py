"""Request bodies of the resource endpoints (glossaries, style rules, admin): JSON objects, or forms.

The spec says every endpoint other than translation, Write and document status takes JSON; the
glossary writes also take URL-encoded forms (:func:`read_json_or_form_object`), because the
official Node.js client sends every one of them as a form and the real service accepts it (see
``docs/local-service-conformance.md``). A declared media type the endpoint does not take is 415
(with or without a body, as on every endpoint), a body that is not an object 400, one over the
endpoint's size limit 413; a legacy ``auth_key`` in it is 403 as everywhere. A body past 64 KiB is
parsed in a worker thread: a glossary body of tens of megabytes takes a second to parse, and other
requests must not wait for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from pipeline.service.echo import echo
from pipeline.service.http.form_object import form_object
from pipeline.service.http.params import (
    FORM_TYPE,
    JSON_TYPE,
    LEGACY_AUTH_MESSAGE,
    LEGACY_AUTH_PARAM,
    media_type,
    parse_json_object,
    read_body,
)
from pipeline.service.http.responses import ApiError

#: Bodies up to this size are parsed on the event loop (cheaper than a thread hop).
INLINE_PARSE_BYTES = 64 * 1024


async def read_json_object(request: Request, limit: int, required: str | None = None) -> dict[str, Any]:
    """The request's JSON object: an empty body is ``{}``, or, when ``required`` names what the body
    holds, a 400 (where ``{}`` would change something, as a replacement of every configured rule)."""
    kind = media_type(request)
    body = await read_body(request, limit)
    if kind not in (JSON_TYPE, ""):
        raise ApiError(415, f"unsupported content type {echo(kind)}; send {JSON_TYPE}")
    if required is not None and not body.strip():
        raise ApiError(400, f"a request body is required: {required}")
    return await _parsed(parse_json_object, body)


async def read_json_or_form_object(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object, or the object a URL-encoded form stands for (``http.form_object``)."""
    kind = media_type(request)
    body = await read_body(request, limit)
    if kind == FORM_TYPE:
        return await _parsed(form_object, body)
    if kind not in (JSON_TYPE, ""):
        raise ApiError(415, f"unsupported content type {echo(kind)}; send {JSON_TYPE} or {FORM_TYPE}")
    return await _parsed(parse_json_object, body)


async def _parsed(parse: Callable[[bytes], dict[str, Any]], body: bytes) -> dict[str, Any]:
    value = parse(body) if len(body) <= INLINE_PARSE_BYTES else await run_in_threadpool(parse, body)
    if LEGACY_AUTH_PARAM in value:
        raise ApiError(403, LEGACY_AUTH_MESSAGE)
    return value
