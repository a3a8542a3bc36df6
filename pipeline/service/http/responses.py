"""Answers of the service: the JSON encoder, the one error exception, and the error handlers.

Every error leaves the service as ``{"message": "..."}`` (``protocol.error_body``) with a status
code; no handler ever returns a stack trace. Unknown paths answer 404 and wrong methods 405
(with ``Allow``), both in the same JSON shape.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TypeVar

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from pipeline.protocol import STATUS_QUOTA_EXCEEDED, encode_json, error_body

_log = logging.getLogger("pipeline.service")

_JSON = "application/json"
_T = TypeVar("_T")


class ApiError(Exception):
    """A request the service refuses: status code, message for the caller, extra headers."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, dict(headers or {})


def bad_request(message: str) -> ApiError:
    """A 400 for a malformed or rule-breaking request."""
    return ApiError(400, message)


def quota_exceeded(detail: str = "") -> ApiError:
    """A 456: the key's character limit for the period is reached (text, Write and documents alike)."""
    return ApiError(
        STATUS_QUOTA_EXCEEDED,
        f"quota exceeded: the character limit of this key for the current period is reached{detail}",
    )


def found(value: _T | None, missing: ApiError) -> _T:
    """``value`` itself, or raise ``missing`` (the endpoint's 404) when it is None."""
    if value is None:
        raise missing
    return value


def no_content(done: bool, missing: ApiError) -> Response:
    """The 204 (empty body) of a delete that ``done``, or raise ``missing`` (its 404)."""
    if not done:
        raise missing
    return Response(status_code=204)


def json_response(payload: object, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    """A compact UTF-8 JSON response."""
    try:
        body = encode_json(payload)
    except UnicodeEncodeError:
        # A lone surrogate that slipped through; escaped JSON is still valid JSON.
        body = json.dumps(payload, separators=(",", ":")).encode("ascii")
    return Response(body, status_code=status, headers=headers, media_type=_JSON)


def error_response(status: int, message: str, headers: Mapping[str, str] | None = None) -> Response:
    """The JSON error answer every failure uses."""
    return json_response(error_body(message), status, headers)


async def handle_api_error(request: Request, exc: Exception) -> Response:
    """Exception handler for :class:`ApiError`."""
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.message, exc.headers)


async def handle_http_exception(request: Request, exc: Exception) -> Response:
    """Exception handler for Starlette's own 404/405 (routing) in the service's JSON shape."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        message = "not found: no such endpoint"
    elif exc.status_code == 405:
        message = f"method {request.method} not allowed for {request.url.path}"
    else:
        message = str(exc.detail)
    return error_response(exc.status_code, message, exc.headers)


async def handle_unexpected(request: Request, exc: Exception) -> Response:
    """Last resort: a bug answers 500 with a fixed message; the trace goes to the log only."""
    if not getattr(exc, "silent", False):  # raised on purpose by a test fault
        _log.error("internal error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal error of the local service")
