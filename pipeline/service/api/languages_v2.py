"""Deprecated language lists of v2: ``/v2/languages`` and ``/v2/glossary-language-pairs``.

Answers use upper-case codes (``EN-US``), the glossary language pairs included. ``type`` is an
exact lower-case word; an unknown or repeated one answers 400.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.service import languages
from pipeline.service.echo import echo
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import single_query
from pipeline.service.http.responses import bad_request, json_response


@guarded(Access.DEVELOPER)
async def languages_v2(request: Request, caller: Caller) -> Response:
    """Deprecated: stable source or target languages of text translation, upper-case codes."""
    kind = single_query(request, "type", required=False) or "source"
    if kind == "source":
        return json_response([{"language": x.v2, "name": x.name} for x in languages.text_sources()])
    if kind == "target":
        return json_response(
            [
                {"language": x.v2, "name": x.name, "supports_formality": languages.supports_formality(x)}
                for x in languages.text_targets(include_beta=False)
            ]
        )
    raise bad_request(f"invalid value {echo(kind)} for 'type'; allowed: source, target")


@guarded(Access.DEVELOPER)
async def glossary_language_pairs(request: Request, caller: Caller) -> Response:
    """Deprecated: every ordered pair of distinct glossary languages."""
    codes = [x.language.v2 for x in languages.resource_entries("glossary")]
    pairs = [{"source_lang": s, "target_lang": t} for s in codes for t in codes if s != t]
    return json_response({"supported_languages": pairs})


routes = [
    Route("/languages", languages_v2, methods=["GET"]),
    Route("/glossary-language-pairs", glossary_language_pairs, methods=["GET"]),
]
