"""The ``/v2/admin`` endpoints (admin key, paid tier only): developer keys and usage analytics.

Developer keys (``/v2/admin/developer-keys``). Status codes: 400 for a missing or mistyped field,
and for creating a 26th active key; 404 for a ``key_id`` that is not a key of the caller's account;
413 for a body over 16 KiB; 415 for a non-JSON body. The creating call answers the developer key
plus ``api_key``, the new key's secret, which is shown this one time only (the service keeps a
hash). Deactivation is immediate and permanent; deactivating again changes nothing and answers the
key as it is.

Analytics (``GET /v2/admin/analytics/custom-tags``): characters per ``X-Service-Reporting-Tag``.
Dates are UTC days (``YYYY-MM-DD``; a full ISO datetime is cut to its date), both inclusive;
``end_date - start_date`` may be at most 366 days. Only text translation records tags, so
``text_improvement_characters`` is 0 and ``total_characters`` equals the translation figure. Pages
hold ``ServiceConfig.analytics_page_size`` entries (100 by default), ordered by tag (and day first
with ``aggregate_by=day``); ``next_page`` is null on the last page. Bad or missing query values
answer 400.
"""

from __future__ import annotations

import datetime as dt

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.protocol import MAX_ACTIVE_DEVELOPER_KEYS, MAX_ANALYTICS_RANGE_DAYS
from pipeline.service.echo import echo
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import Params, media_type, read_body, single_query
from pipeline.service.http.responses import ApiError, bad_request, json_response
from pipeline.service.http.timestamps import iso_millis
from pipeline.service.state import service_of
from pipeline.service.store.accounts import DEFAULT_KEY_LABEL, ActiveKeyLimitError, DeveloperKey
from pipeline.service.store.database import MAX_INTEGER
from pipeline.service.store.metering import TagUsage

#: Admin bodies are a few fields; anything larger is a mistake.
MAX_ADMIN_BODY_BYTES = 16 * 1024
#: Largest limit the store can hold.
MAX_LIMIT = MAX_INTEGER


def key_json(key: DeveloperKey) -> dict[str, object]:
    """The developer key resource."""
    out: dict[str, object] = {
        "key_id": key.key_id,
        "label": key.label,
        "creation_time": iso_millis(key.created_ms),
        "is_deactivated": key.is_deactivated,
        "usage_limits": {"characters": key.character_limit, "speech_to_text_milliseconds": key.speech_limit_ms},
    }
    if key.deactivated_ms is not None:
        out["deactivated_time"] = iso_millis(key.deactivated_ms)
    return out


async def _params(request: Request) -> Params:
    body = await read_body(request, MAX_ADMIN_BODY_BYTES)
    return Params.parse(body, media_type(request), allow_form=False)


def _required_string(params: Params, name: str) -> str:
    value = params.string(name)
    if value is None:
        raise bad_request(f"parameter '{name}' is required")
    return value


def _found(key: DeveloperKey | None, key_id: str) -> DeveloperKey:
    if key is None:
        raise ApiError(404, f"developer key {echo(key_id)} not found")
    return key


def _limit(params: Params, name: str) -> int | None:
    value = params.integer(name)
    if value is not None and not 0 <= value <= MAX_LIMIT:
        raise bad_request(f"parameter '{name}' must be from 0 to {MAX_LIMIT}, or null for no limit")
    return value


@guarded(Access.ADMIN)
async def create_key(request: Request, caller: Caller) -> Response:
    """Create a developer key; the answer holds its secret once."""
    service = service_of(request)
    params = await _params(request)
    label = params.string("label")
    try:
        key, secret = service.accounts.create_key(
            caller.account.account_id, DEFAULT_KEY_LABEL if label is None else label, service.now_ms()
        )
    except ActiveKeyLimitError:
        raise bad_request(
            f"at most {MAX_ACTIVE_DEVELOPER_KEYS} developer keys may be active; deactivate one first"
        ) from None
    return json_response({**key_json(key), "api_key": secret})


@guarded(Access.ADMIN)
async def list_keys(request: Request, caller: Caller) -> Response:
    """All developer keys of the account, active and deactivated."""
    keys = service_of(request).accounts.list_keys(caller.account.account_id)
    return json_response([key_json(k) for k in keys])


@guarded(Access.ADMIN)
async def deactivate_key(request: Request, caller: Caller) -> Response:
    """Deactivate a key for good."""
    service = service_of(request)
    key_id = _required_string(await _params(request), "key_id")
    key = service.accounts.deactivate(caller.account.account_id, key_id, service.now_ms())
    return json_response(key_json(_found(key, key_id)))


@guarded(Access.ADMIN)
async def label_key(request: Request, caller: Caller) -> Response:
    """Rename a key."""
    params = await _params(request)
    key_id, label = _required_string(params, "key_id"), _required_string(params, "label")
    key = service_of(request).accounts.set_label(caller.account.account_id, key_id, label)
    return json_response(key_json(_found(key, key_id)))


@guarded(Access.ADMIN)
async def limit_key(request: Request, caller: Caller) -> Response:
    """Set a key's monthly character limit (0 forbids, null unlimited) and optionally its speech limit."""
    params = await _params(request)
    key_id = _required_string(params, "key_id")
    if not params.present("characters"):
        raise bad_request("parameter 'characters' is required (an integer, 0, or null for no limit)")
    characters = _limit(params, "characters")
    set_speech = params.present("speech_to_text_milliseconds")
    speech = _limit(params, "speech_to_text_milliseconds")
    key = service_of(request).accounts.set_limits(caller.account.account_id, key_id, characters, speech, set_speech)
    return json_response(key_json(_found(key, key_id)))


AGGREGATIONS = ("period", "day")


def _date(request: Request, name: str) -> dt.date:
    value = single_query(request, name, required=False)
    if value is None:
        raise bad_request(f"query parameter '{name}' is required (a date, YYYY-MM-DD)")
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        pass
    try:
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).date()
    except ValueError:
        raise bad_request(f"query parameter '{name}' must be a date (YYYY-MM-DD), got {echo(value)}") from None


#: Far beyond any real report; keeps the row offset inside SQLite's integer range.
MAX_PAGE = 1_000_000


def _page(request: Request) -> int:
    value = single_query(request, "page", required=False)
    if value is None:
        return 0
    if not (value.isascii() and value.isdigit() and len(value) <= 9) or int(value) > MAX_PAGE:
        raise bad_request(f"query parameter 'page' must be a whole number from 0 to {MAX_PAGE}, got {echo(value)}")
    return int(value)


def _midnight(day: dt.date | str) -> str:
    return f"{day}T00:00:00Z"


def _entry(row: TagUsage) -> dict[str, object]:
    entry: dict[str, object] = {"custom_tag": row.custom_tag}
    if row.day is not None:
        entry["usage_date"] = _midnight(row.day)
    entry["breakdown"] = {
        "total_characters": row.translation_chars,
        "text_translation_characters": row.translation_chars,
        "text_improvement_characters": 0,
    }
    return entry


@guarded(Access.ADMIN)
async def custom_tags(request: Request, caller: Caller) -> Response:
    """Usage per custom reporting tag over a date range, paged."""
    service = service_of(request)
    start, end = _date(request, "start_date"), _date(request, "end_date")
    if end < start:
        raise bad_request("end_date must not be before start_date")
    if (end - start).days > MAX_ANALYTICS_RANGE_DAYS:
        raise bad_request(f"the date range may span at most {MAX_ANALYTICS_RANGE_DAYS} days")
    aggregate_by = single_query(request, "aggregate_by", required=False) or "period"
    if aggregate_by not in AGGREGATIONS:
        raise bad_request(f"invalid value {echo(aggregate_by)} for 'aggregate_by'; allowed: period, day")
    page = _page(request)
    size = service.config.analytics_page_size
    rows = service.meter.tag_report(
        caller.account.account_id, start.isoformat(), end.isoformat(), aggregate_by == "day", page * size, size + 1
    )
    report = {
        "aggregate_by": aggregate_by,
        "start_date": _midnight(start),
        "end_date": _midnight(end),
        "next_page": page + 1 if len(rows) > size else None,
        "usage": [_entry(r) for r in rows[:size]],
    }
    return json_response({"custom_tag_usage_report": report})


routes = [
    Route("/admin/developer-keys", create_key, methods=["POST"]),
    Route("/admin/developer-keys", list_keys, methods=["GET"]),
    Route("/admin/developer-keys/deactivate", deactivate_key, methods=["PUT"]),
    Route("/admin/developer-keys/label", label_key, methods=["PUT"]),
    Route("/admin/developer-keys/limits", limit_key, methods=["PUT"]),
    Route("/admin/analytics/custom-tags", custom_tags, methods=["GET"]),
]
