"""Administration of developer keys (``/v2/admin/developer-keys``): admin key, paid tier only.

Status codes: 400 for a missing or mistyped field, and for creating a 26th active key; 404 for
a ``key_id`` that is not a key of the caller's account; 413 for a body over 16 KiB; 415 for a
non-JSON body.
The creating call answers the developer key plus ``api_key``, the new key's secret, which is
shown this one time only (the service keeps a hash). Deactivation is immediate and permanent;
deactivating again changes nothing and answers the key as it is.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from pipeline.protocol import MAX_ACTIVE_DEVELOPER_KEYS
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import Params, media_type, read_body
from pipeline.service.http.responses import ApiError, bad_request, json_response
from pipeline.service.http.timestamps import iso_millis
from pipeline.service.state import service_of
from pipeline.service.store.accounts import (
    DEFAULT_KEY_LABEL,
    ActiveKeyLimitError,
    DeveloperKey,
)

#: Admin bodies are a few fields; anything larger is a mistake.
MAX_ADMIN_BODY_BYTES = 16 * 1024
#: Largest limit the store can hold (SQLite INTEGER).
MAX_LIMIT = 2**63 - 1


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
        raise ApiError(404, f"developer key {key_id!r} not found")
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
