"""``GET /v2/usage``: what the account and the calling key consumed in the current period.

The answer has the real service's shape. ``character_count`` is the account's translation plus
Write plus document characters in the current UTC calendar month and ``character_limit`` its
subscription limit: local accounts have none, so it is ``1000000000000``, the figure the real
service sends for "no limit" (clients compare it as a number; null would break them). Key-level
figures: ``api_key_character_count`` and ``api_key_character_limit`` (the key's own monthly limit
set through the admin API, else the same "no limit" figure; ``0`` forbids any consumption), the
period as ``start_time`` / ``end_time``, and ``products``: per product (``translate``, documents
included, and ``write``) the key's and the account's characters. On the paid tier the speech
fields are present: both 0, as the real service's OpenAPI description has them (deprecated, "always
returns 0"; a key's own speech limit is in its admin record, ``usage_limits``).
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

#: What the real service sends as a limit when there is none.
NO_LIMIT = 1_000_000_000_000


@guarded(Access.DEVELOPER)
async def usage(request: Request, caller: Caller) -> Response:
    """Usage of the caller's account and key in the current period."""
    service = service_of(request)
    assert caller.key is not None
    now = service.now()
    period = period_of(now)
    start, end = period_bounds(now)
    kinds = service.meter.by_kind(caller.key.key_id, caller.account.account_id, period)
    translate = (kinds["translation"][0] + kinds["document"][0], kinds["translation"][1] + kinds["document"][1])
    key_limit = caller.key.character_limit
    payload: dict[str, object] = {
        "character_count": sum(account for _, account in kinds.values()),
        "character_limit": NO_LIMIT,
        "api_key_character_count": sum(key for key, _ in kinds.values()),
        "api_key_character_limit": NO_LIMIT if key_limit is None else key_limit,
        "start_time": iso_seconds(start),
        "end_time": iso_seconds(end),
        "products": [
            {"product_type": "translate", "api_key_character_count": translate[0], "character_count": translate[1]},
            {
                "product_type": "write",
                "api_key_character_count": kinds["write"][0],
                "character_count": kinds["write"][1],
            },
        ],
    }
    if caller.account.tier == "paid":
        payload["speech_to_text_milliseconds_count"] = 0
        payload["speech_to_text_milliseconds_limit"] = 0
    return json_response(payload)


routes = [Route("/usage", usage, methods=["GET"])]
