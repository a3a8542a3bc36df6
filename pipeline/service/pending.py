"""Paid-only endpoints whose implementation comes with part 2 (Write, style rules).

They exist now so that the tier rule holds for them already: a free-tier key gets 403 as on the
real service; a paid-tier key gets 404 with a message saying the endpoint is not there yet.
Part 2 replaces each route with its real endpoint and removes it from here.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.service.auth import Access, Caller, guarded
from pipeline.service.responses import ApiError


@guarded(Access.PAID_DEVELOPER)
async def not_yet(request: Request, caller: Caller) -> Response:
    """404: the endpoint is not implemented by this local service yet."""
    raise ApiError(404, f"{request.method} {request.url.path} is not implemented by the local service yet")


PENDING_WRITE_ROUTES = [
    Route("/v2/write/rephrase", not_yet, methods=["POST"]),
    Route("/v2/write/correct", not_yet, methods=["POST"]),
]

PENDING_STYLE_ROUTES = [
    Route("/v3/style_rules", not_yet, methods=["GET", "POST"]),
    Route("/v3/style_rules/{style_id}", not_yet, methods=["GET", "PATCH", "DELETE"]),
    Route("/v3/style_rules/{style_id}/configured_rules", not_yet, methods=["PUT"]),
    Route("/v3/style_rules/{style_id}/custom_instructions", not_yet, methods=["POST"]),
    Route("/v3/style_rules/{style_id}/custom_instructions/{instruction_id}", not_yet, methods=["GET", "PUT", "DELETE"]),
]
