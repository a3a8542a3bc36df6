"""Deprecated language lists of v2: ``/v2/languages`` and ``/v2/glossary-language-pairs``.

Both derive from the language data (see ``languages``). ``/v2/languages`` uses upper-case codes
(``EN-US``) and ``/v2/glossary-language-pairs`` lower case, as the real service sends them.
``type`` is an exact lower-case word; an unknown or repeated one answers 400. It is read from the
query, else from a form or JSON body, where the official clients send it on a GET.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.service import languages
from pipeline.service.echo import echo
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import Params, media_type, read_body, single_query
from pipeline.service.http.responses import bad_request, json_response

#: A GET body holds a handful of parameters; anything bigger is not a language query.
_MAX_QUERY_BODY_BYTES = 4 * 1024


async def _listing_type(request: Request) -> str:
    """``type`` from the query, else from a form or JSON body; ``source`` when neither has it."""
    kind = single_query(request, "type", required=False)
    if kind is not None:
        return kind
    body = await read_body(request, _MAX_QUERY_BODY_BYTES)
    if not body.strip():
        return "source"
    return Params.parse(body, media_type(request)).string("type") or "source"


@guarded(Access.DEVELOPER)
async def languages_v2(request: Request, caller: Caller) -> Response:
    """Deprecated: source or target languages of text translation, upper-case codes."""
    kind = await _listing_type(request)
    if kind == "source":
        return json_response([{"language": x.v2, "name": x.name} for x in languages.v2_listing("source")])
    if kind == "target":
        return json_response(
            [
                {
                    "language": x.v2,
                    "name": languages.v2_target_name(x),
                    "supports_formality": languages.supports_formality(x),
                }
                for x in languages.v2_listing("target")
            ]
        )
    raise bad_request(f"invalid value {echo(kind)} for 'type'; allowed: source, target")


@guarded(Access.DEVELOPER)
async def glossary_language_pairs(request: Request, caller: Caller) -> Response:
    """Deprecated: every ordered pair of distinct glossary languages, lower-case codes."""
    codes = [x.language.code.lower() for x in languages.resource_entries("glossary")]
    pairs = [{"source_lang": s, "target_lang": t} for s in codes for t in codes if s != t]
    return json_response({"supported_languages": pairs})


routes = [
    Route("/languages", languages_v2, methods=["GET"]),
    Route("/glossary-language-pairs", glossary_language_pairs, methods=["GET"]),
]
