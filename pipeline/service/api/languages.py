"""Language discovery: ``/v3/languages`` and ``/v3/languages/resources`` (v2 lists: ``languages_v2``).

Answers use v3 codes (``en-US``, ``zh-Hant``) and derive from the language data (see
``languages``). Query values (``resource``, ``include``) are exact lower-case words; an unknown or
repeated one answers 400.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.protocol import LANGUAGE_INCLUDES
from pipeline.service import languages
from pipeline.service.echo import echo
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import single_query
from pipeline.service.http.responses import bad_request, json_response


def _includes(request: Request) -> set[str]:
    values = {part.strip() for raw in request.query_params.getlist("include") for part in raw.split(",")}
    values.discard("")
    unknown = values - set(LANGUAGE_INCLUDES)
    if unknown:
        raise bad_request(
            f"invalid value {echo(sorted(unknown)[0])} for 'include'; allowed: {', '.join(LANGUAGE_INCLUDES)}"
        )
    return values


@guarded(Access.DEVELOPER)
async def languages_v3(request: Request, caller: Caller) -> Response:
    """Languages of one resource with their features."""
    resource = single_query(request, "resource", required=False)
    if resource is None:
        raise bad_request(f"query parameter 'resource' is required; one of {', '.join(languages.RESOURCES)}")
    if resource not in languages.RESOURCES:
        raise bad_request(f"invalid value {echo(resource)} for 'resource'; allowed: {', '.join(languages.RESOURCES)}")
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
                for f in languages.resource_features(name)
            ],
        }
        for name in languages.RESOURCES
    ]
    return json_response(listing)


routes = [
    Route("/languages", languages_v3, methods=["GET"]),
    Route("/languages/resources", language_resources, methods=["GET"]),
]
