"""``GET /v2/usage``: what the account and the calling key consumed in the current period.

``character_count`` is the account's translation plus Write (plus document) characters in the
current UTC calendar month; ``character_limit`` is null because local accounts have no
subscription limit. The key-level figures come as ``api_key_character_count`` /
``api_key_character_limit`` (null = unlimited), the period as ``start_time`` / ``end_time``.
On the paid tier the speech fields are present (the local service has no voice: count 0).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.responses import json_response
from pipeline.service.http.timestamps import iso_seconds
from pipeline.service.state import service_of
from pipeline.service.store.metering import period_bounds, period_of


@guarded(Access.DEVELOPER)
async def usage(request: Request, caller: Caller) -> Response:
    """Usage of the caller's account and key in the current period."""
    service = service_of(request)
    assert caller.key is not None
    now = service.now()
    period = period_of(now)
    start, end = period_bounds(now)
    payload: dict[str, object] = {
        "character_count": service.meter.account_total(caller.account.account_id, period),
        "character_limit": None,
        "api_key_character_count": service.meter.key_total(caller.key.key_id, period),
        "api_key_character_limit": caller.key.character_limit,
        "start_time": iso_seconds(start),
        "end_time": iso_seconds(end),
    }
    if caller.account.tier == "paid":
        payload["speech_to_text_milliseconds_count"] = 0
        payload["speech_to_text_milliseconds_limit"] = caller.key.speech_limit_ms
    return json_response(payload)


routes = [Route("/usage", usage, methods=["GET"])]
