"""Language discovery: ``/v3/languages``, ``/v3/languages/resources`` and the deprecated v2 lists.

v3 answers use v3 codes (``en-US``, ``zh-Hant``); v2 answers use upper case (``EN-US``), the
glossary language pairs included. Query values (``resource``, ``include``, ``type``) are exact
lower-case words; an unknown or repeated one answers 400.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from pipeline.protocol import LANGUAGE_INCLUDES, LANGUAGE_RESOURCES
from pipeline.service import languages
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import single_query
from pipeline.service.http.responses import bad_request, json_response


def _includes(request: Request) -> set[str]:
    values = {part.strip() for raw in request.query_params.getlist("include") for part in raw.split(",")}
    values.discard("")
    unknown = values - set(LANGUAGE_INCLUDES)
    if unknown:
        raise bad_request(
            f"invalid value {sorted(unknown)[0]!r} for 'include'; allowed: {', '.join(LANGUAGE_INCLUDES)}"
        )
    return values


@guarded(Access.DEVELOPER)
async def languages_v3(request: Request, caller: Caller) -> Response:
    """Languages of one resource with their features."""
    resource = single_query(request, "resource", required=False)
    if resource is None:
        raise bad_request(f"query parameter 'resource' is required; one of {', '.join(LANGUAGE_RESOURCES)}")
    if resource not in languages.RESOURCE_FEATURES:
        raise bad_request(f"invalid value {resource!r} for 'resource'; allowed: {', '.join(LANGUAGE_RESOURCES)}")
    include_beta = "beta" in _includes(request)
    listing = [
        {
            "lang": entry.language.code,
            "name": entry.language.name,
            "usable_as_source": entry.source,
            "usable_as_target": entry.target,
            "status": entry.language.status,
            "features": {name: {"status": languages.STABLE} for name in entry.features},
        }
        for entry in languages.resource_entries(resource)
        if include_beta or entry.language.status == languages.STABLE
    ]
    return json_response(listing)


@guarded(Access.DEVELOPER)
async def language_resources(request: Request, caller: Caller) -> Response:
    """Every resource with the sides each of its features needs."""
    listing = [
        {
            "name": name,
            "features": [
                {
                    "name": f.name,
                    "needs_source_support": f.needs_source_support,
                    "needs_target_support": f.needs_target_support,
                }
                for f in features
            ],
        }
        for name, features in languages.RESOURCE_FEATURES.items()
    ]
    return json_response(listing)


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
    raise bad_request(f"invalid value {kind!r} for 'type'; allowed: source, target")


@guarded(Access.DEVELOPER)
async def glossary_language_pairs(request: Request, caller: Caller) -> Response:
    """Deprecated: every ordered pair of distinct glossary languages."""
    codes = [x.language.v2 for x in languages.resource_entries("glossary")]
    pairs = [{"source_lang": s, "target_lang": t} for s in codes for t in codes if s != t]
    return json_response({"supported_languages": pairs})
