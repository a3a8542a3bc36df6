"""``GET /v2/admin/analytics/custom-tags``: characters per ``X-Service-Reporting-Tag``.

Dates are UTC days (``YYYY-MM-DD``; a full ISO datetime is cut to its date), both inclusive;
``end_date - start_date`` may be at most 366 days. Only text translation records tags, so
``text_improvement_characters`` is 0 and ``total_characters`` equals the translation figure.
Pages hold ``ServiceConfig.analytics_page_size`` entries (100 by default), ordered by tag (and
day first with ``aggregate_by=day``); ``next_page`` is null on the last page. Bad or missing
query values answer 400.
"""

from __future__ import annotations

import datetime as dt

from starlette.requests import Request
from starlette.responses import Response

from pipeline.protocol import MAX_ANALYTICS_RANGE_DAYS
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import single_query
from pipeline.service.http.responses import bad_request, json_response
from pipeline.service.state import service_of
from pipeline.service.store.metering import TagUsage

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
        raise bad_request(f"query parameter '{name}' must be a date (YYYY-MM-DD), got {value!r}") from None


#: Far beyond any real report; keeps the row offset inside SQLite's integer range.
MAX_PAGE = 1_000_000


def _page(request: Request) -> int:
    value = single_query(request, "page", required=False)
    if value is None:
        return 0
    if not value.isdigit() or int(value) > MAX_PAGE:
        raise bad_request(f"query parameter 'page' must be a whole number from 0 to {MAX_PAGE}, got {value!r}")
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
        raise bad_request(f"invalid value {aggregate_by!r} for 'aggregate_by'; allowed: period, day")
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
