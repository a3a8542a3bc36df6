"""Conformance over HTTP: developer keys, key limits (456), usage, custom-tag analytics."""

from __future__ import annotations

import datetime as dt
import re
import secrets
from collections.abc import Callable

import httpx
import pytest

from tests.integration.conftest import LiveService
from tests.integration.service.conftest import DevKey, Keys

pytestmark = pytest.mark.integration

KEYS = "/v2/admin/developer-keys"
GUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
MILLIS = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


def translate(
    http: httpx.Client, headers: dict[str, str], text: str = "Hello world", tag: str | None = None, target: str = "DE"
) -> httpx.Response:
    extra = {} if tag is None else {"X-Service-Reporting-Tag": tag}
    return http.post(
        "/v2/translate", json={"text": [text], "source_lang": "EN", "target_lang": target}, headers={**headers, **extra}
    )


def test_create_key_returns_usable_secret_once(http: httpx.Client, keys: Keys, new_key: Callable[..., DevKey]) -> None:
    key = new_key()
    record = key.record
    assert re.fullmatch(f"{GUID}:{GUID}", record["key_id"])
    assert record["label"] == "Developer key"
    assert re.fullmatch(MILLIS, record["creation_time"])
    assert record["is_deactivated"] is False and "deactivated_time" not in record
    assert record["usage_limits"] == {"characters": None, "speech_to_text_milliseconds": None}
    assert translate(http, key.headers).status_code == 200
    listed = {k["key_id"]: k for k in http.get(KEYS, headers=keys.admin).json()}
    assert "api_key" not in listed[key.key_id]
    assert listed[key.key_id]["label"] == "Developer key"


def test_label_and_list(http: httpx.Client, keys: Keys, new_key: Callable[..., DevKey]) -> None:
    key = new_key("ci runner")
    assert key.record["label"] == "ci runner"
    renamed = http.put(f"{KEYS}/label", json={"key_id": key.key_id, "label": "nightly"}, headers=keys.admin)
    assert renamed.status_code == 200 and renamed.json()["label"] == "nightly"
    listed = {k["key_id"]: k for k in http.get(KEYS, headers=keys.admin).json()}
    assert listed[key.key_id]["label"] == "nightly"


def test_deactivate_is_immediate_and_permanent(
    http: httpx.Client, keys: Keys, new_key: Callable[..., DevKey], error: Callable[[httpx.Response, int], str]
) -> None:
    key = new_key()
    assert translate(http, key.headers).status_code == 200
    response = http.put(f"{KEYS}/deactivate", json={"key_id": key.key_id}, headers=keys.admin)
    assert response.status_code == 200
    record = response.json()
    assert record["is_deactivated"] is True and re.fullmatch(MILLIS, record["deactivated_time"])
    assert error(translate(http, key.headers), 403) == "this key has been deactivated"
    again = http.put(f"{KEYS}/deactivate", json={"key_id": key.key_id}, headers=keys.admin).json()
    assert again["deactivated_time"] == record["deactivated_time"]
    http.put(f"{KEYS}/limits", json={"key_id": key.key_id, "characters": None}, headers=keys.admin)
    assert error(translate(http, key.headers), 403) == "this key has been deactivated"
    listed = {k["key_id"]: k for k in http.get(KEYS, headers=keys.admin).json()}
    assert listed[key.key_id]["is_deactivated"] is True


def test_admin_request_errors(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    unknown = f"{'0' * 8}-0000-0000-0000-{'0' * 12}:{'1' * 8}-1111-1111-1111-{'1' * 12}"
    assert error(http.put(f"{KEYS}/deactivate", json={}, headers=keys.admin), 400) == "parameter 'key_id' is required"
    assert error(http.put(f"{KEYS}/deactivate", json={"key_id": unknown}, headers=keys.admin), 404) == (
        f"developer key {unknown!r} not found"
    )
    assert error(http.put(f"{KEYS}/label", json={"key_id": unknown}, headers=keys.admin), 400) == (
        "parameter 'label' is required"
    )
    assert error(http.put(f"{KEYS}/label", json={"key_id": unknown, "label": 5}, headers=keys.admin), 400) == (
        "parameter 'label' must be a string"
    )
    assert error(http.put(f"{KEYS}/limits", json={"key_id": unknown}, headers=keys.admin), 400) == (
        "parameter 'characters' is required (an integer, 0, or null for no limit)"
    )
    assert error(http.put(f"{KEYS}/limits", json={"key_id": unknown, "characters": -5}, headers=keys.admin), 400) == (
        "parameter 'characters' must be from 0 to 9223372036854775807, or null for no limit"
    )
    assert (
        error(http.put(f"{KEYS}/limits", json={"key_id": unknown, "characters": "5"}, headers=keys.admin), 400)
        == "parameter 'characters' must be an integer"
    )
    assert error(http.put(f"{KEYS}/limits", json={"key_id": unknown, "characters": 5}, headers=keys.admin), 404) == (
        f"developer key {unknown!r} not found"
    )
    assert error(
        http.post(KEYS, content=b"{oops", headers={**keys.admin, "Content-Type": "application/json"}), 400
    ).startswith("request body is not valid JSON")
    assert error(
        http.post(
            KEYS, content=b"label=x", headers={**keys.admin, "Content-Type": "application/x-www-form-urlencoded"}
        ),
        415,
    ) == ("unsupported content type 'application/x-www-form-urlencoded'; send application/json")
    assert error(http.post(KEYS, json={"label": "x", "auth_key": "k"}, headers=keys.admin), 403).startswith(
        "legacy authentication"
    )


def test_limit_zero_forbids_and_null_unlimits(
    http: httpx.Client, keys: Keys, new_key: Callable[..., DevKey], error: Callable[[httpx.Response, int], str]
) -> None:
    key = new_key()
    set_limit = http.put(f"{KEYS}/limits", json={"key_id": key.key_id, "characters": 0}, headers=keys.admin)
    assert set_limit.status_code == 200 and set_limit.json()["usage_limits"]["characters"] == 0
    assert error(translate(http, key.headers), 456) == (
        "quota exceeded: the character limit of this key for the current period is reached"
    )
    # Beta targets are free, so a zero limit does not stop them.
    assert translate(http, key.headers, target="DE-CH").status_code == 200
    unlimited = http.put(f"{KEYS}/limits", json={"key_id": key.key_id, "characters": None}, headers=keys.admin)
    assert unlimited.json()["usage_limits"]["characters"] is None
    assert translate(http, key.headers).status_code == 200


def test_limit_reached_answers_456(
    http: httpx.Client, keys: Keys, new_key: Callable[..., DevKey], error: Callable[[httpx.Response, int], str]
) -> None:
    key = new_key()
    body = {"key_id": key.key_id, "characters": 25, "speech_to_text_milliseconds": 60000}
    record = http.put(f"{KEYS}/limits", json=body, headers=keys.admin).json()
    assert record["usage_limits"] == {"characters": 25, "speech_to_text_milliseconds": 60000}
    assert translate(http, key.headers, "0123456789").status_code == 200
    assert translate(http, key.headers, "0123456789").status_code == 200
    assert error(translate(http, key.headers, "0123456789"), 456).startswith("quota exceeded")
    assert translate(http, key.headers, "01234").status_code == 200  # exactly 100 %
    assert error(translate(http, key.headers, "0"), 456).startswith("quota exceeded")
    usage = http.get("/v2/usage", headers=key.headers).json()
    assert usage["api_key_character_count"] == 25 and usage["api_key_character_limit"] == 25
    assert usage["speech_to_text_milliseconds_limit"] == 0  # the key's own limit is in its admin record


def test_usage_reports_key_level_figures_as_the_real_service(
    http: httpx.Client, keys: Keys, new_key: Callable[..., DevKey]
) -> None:
    """Account and key figures side by side; "no limit" is the real service's 1000000000000, never null."""
    limited, unlimited = new_key(), new_key()
    http.put(f"{KEYS}/limits", json={"key_id": limited.key_id, "characters": 40}, headers=keys.admin)
    translate(http, limited.headers, "Twelve chars")
    http.post("/v2/write/correct", json={"text": ["This is fine."], "target_lang": "en-US"}, headers=limited.headers)
    usage = http.get("/v2/usage", headers=limited.headers).json()
    assert (usage["api_key_character_count"], usage["api_key_character_limit"]) == (25, 40)
    assert usage["character_limit"] == 1_000_000_000_000 and usage["character_count"] >= 25
    assert usage["start_time"] < usage["end_time"]
    products = {p["product_type"]: p for p in usage["products"]}
    assert (products["translate"]["api_key_character_count"], products["write"]["api_key_character_count"]) == (12, 13)
    assert products["translate"]["character_count"] >= 12 and products["write"]["character_count"] >= 13
    other = http.get("/v2/usage", headers=unlimited.headers).json()
    assert (other["api_key_character_count"], other["api_key_character_limit"]) == (0, 1_000_000_000_000)
    assert other["character_count"] == usage["character_count"]  # the account's figure, whichever key asks
    http.put(f"{KEYS}/limits", json={"key_id": unlimited.key_id, "characters": 0}, headers=keys.admin)
    assert http.get("/v2/usage", headers=unlimited.headers).json()["api_key_character_limit"] == 0


def test_usage_counts_translation_characters(http: httpx.Client, keys: Keys, new_key: Callable[..., DevKey]) -> None:
    key = new_key()
    before = http.get("/v2/usage", headers=key.headers).json()
    assert before["api_key_character_count"] == 0
    translate(http, key.headers, "Twelve chars")
    after = http.get("/v2/usage", headers=key.headers).json()
    assert after["api_key_character_count"] == 12
    assert after["character_count"] >= before["character_count"] + 12
    # Whole numbers, deprecated and always 0 in the real service's description (which moved speech
    # figures to minutes); null, for a key without a speech limit, broke that type.
    assert (after["speech_to_text_milliseconds_count"], after["speech_to_text_milliseconds_limit"]) == (0, 0)
    start, end = dt.datetime.fromisoformat(after["start_time"]), dt.datetime.fromisoformat(after["end_time"])
    assert start.day == 1 and end.day == 1 and start < dt.datetime.now(dt.UTC) < end


def test_free_tier_usage_has_no_speech_fields(http: httpx.Client, keys: Keys) -> None:
    usage = http.get("/v2/usage", headers=keys.free).json()
    assert "character_count" in usage
    assert "speech_to_text_milliseconds_count" not in usage and "speech_to_text_milliseconds_limit" not in usage


def _report(http: httpx.Client, keys: Keys, **query: str) -> httpx.Response:
    return http.get("/v2/admin/analytics/custom-tags", params=query, headers=keys.admin)


def test_custom_tag_analytics(http: httpx.Client, keys: Keys) -> None:
    tag = f"release-{secrets.token_hex(4)}"
    translate(http, keys.paid, "Hello", tag=tag)
    translate(http, keys.paid, "Hello again", tag=tag)
    today = dt.datetime.now(dt.UTC).date()
    query = {"start_date": str(today - dt.timedelta(days=1)), "end_date": str(today)}
    report = _report(http, keys, **query).json()["custom_tag_usage_report"]
    assert report["aggregate_by"] == "period"
    assert report["start_date"] == f"{today - dt.timedelta(days=1)}T00:00:00Z"
    assert report["end_date"] == f"{today}T00:00:00Z"
    mine = [u for u in report["usage"] if u["custom_tag"] == tag]
    assert mine == [
        {
            "custom_tag": tag,
            "breakdown": {"total_characters": 16, "text_translation_characters": 16, "text_improvement_characters": 0},
        }
    ]
    daily = _report(http, keys, aggregate_by="day", **query).json()["custom_tag_usage_report"]
    [entry] = [u for u in daily["usage"] if u["custom_tag"] == tag]
    assert entry["usage_date"] == f"{today}T00:00:00Z" and entry["breakdown"]["total_characters"] == 16
    earlier = {"start_date": "2020-01-01", "end_date": "2020-12-31"}
    assert _report(http, keys, **earlier).json()["custom_tag_usage_report"]["usage"] == []


def test_custom_tag_analytics_pages(http: httpx.Client, keys: Keys) -> None:
    prefix = f"page-{secrets.token_hex(3)}"
    tags = {f"{prefix}-{i:03d}" for i in range(105)}
    for tag in tags:
        translate(http, keys.paid, "x", tag=tag)
    today = str(dt.datetime.now(dt.UTC).date())
    seen, page, pages = set(), None, 0
    while True:
        query = {"start_date": today, "end_date": today, **({} if page is None else {"page": page})}
        report = _report(http, keys, **query).json()["custom_tag_usage_report"]
        pages += 1
        assert len(report["usage"]) <= 100
        seen |= {u["custom_tag"] for u in report["usage"]}
        page = report["next_page"]
        if page is None:
            break
    assert tags <= seen and pages >= 2


def test_analytics_errors(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    assert error(_report(http, keys, end_date="2026-01-02"), 400) == (
        "query parameter 'start_date' is required (a date, YYYY-MM-DD)"
    )
    assert error(_report(http, keys, start_date="2026-01-02"), 400) == (
        "query parameter 'end_date' is required (a date, YYYY-MM-DD)"
    )
    assert error(_report(http, keys, start_date="yesterday", end_date="2026-01-02"), 400) == (
        "query parameter 'start_date' must be a date (YYYY-MM-DD), got 'yesterday'"
    )
    assert error(_report(http, keys, start_date="2026-01-02", end_date="2026-01-01"), 400) == (
        "end_date must not be before start_date"
    )
    assert error(_report(http, keys, start_date="2025-01-01", end_date="2026-01-03"), 400) == (
        "the date range may span at most 366 days"
    )
    assert _report(http, keys, start_date="2024-01-01", end_date="2025-01-01").status_code == 200
    assert error(_report(http, keys, start_date="2026-01-01", end_date="2026-01-02", aggregate_by="week"), 400) == (
        "invalid value 'week' for 'aggregate_by'; allowed: period, day"
    )
    assert error(_report(http, keys, start_date="2026-01-01", end_date="2026-01-02", page="-1"), 400).startswith(
        "query parameter 'page' must be a whole number"
    )
    assert error(
        _report(http, keys, start_date="2026-01-01", end_date="2026-01-02", page="99999999999999999999"), 400
    ).startswith("query parameter 'page' must be a whole number")


def test_active_key_limit(
    launch_service: Callable[..., LiveService], error: Callable[[httpx.Response, int], str]
) -> None:
    import httpx

    service = launch_service()
    admin = {"Authorization": f"Service-Auth-Key {service.admin_key}"}
    with httpx.Client(base_url=service.url, timeout=30) as client:
        created = []
        for _ in range(24):  # the configured --auth-key is the 25th active key
            response = client.post(KEYS, json={}, headers=admin)
            assert response.status_code == 200, response.text
            created.append(response.json()["key_id"])
        assert error(client.post(KEYS, json={}, headers=admin), 400) == (
            "at most 25 developer keys may be active; deactivate one first"
        )
        client.put(f"{KEYS}/deactivate", json={"key_id": created[0]}, headers=admin)
        assert client.post(KEYS, json={"label": "replacement"}, headers=admin).status_code == 200
        listed = client.get(KEYS, headers=admin).json()
        assert len(listed) == 26 and sum(k["is_deactivated"] for k in listed) == 1
