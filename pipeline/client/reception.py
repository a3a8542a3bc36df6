"""One answer before its parser sees it: the body read within its bound, an error status or a
transport failure turned into a :class:`~pipeline.errors.ServiceError` (the one place foreign
exceptions are translated), the JSON decoded. I/O-free: the shells feed it what httpx received.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import httpx

from pipeline import protocol
from pipeline.client.requests import ERROR_ANSWER_BYTES, Call
from pipeline.errors import (
    AnswerTooLargeError,
    ProxyRefusedError,
    ServiceError,
    TransportError,
    error_for_status,
    redact,
)
from pipeline.patterns import lazy_regex

T = TypeVar("T")

#: Longest piece of a non-JSON error body quoted in an exception message.
_MAX_QUOTED_BODY = 300

#: What a page holds that is not its words: comments, scripts and styles (an unclosed one runs to the
#: end, as in a browser, and keeps every pattern here linear: nothing is scanned twice).
_NOT_WORDS = lazy_regex(r"<!--.*?(?:-->|\Z)|<(script|style)\b.*?(?:</\1\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_MARKUP = lazy_regex(r"<[A-Za-z/!?][^<>]*>")  # a tag; "a < b" is words
_SPACES = lazy_regex(r"[\s\x00-\x1f\x7f-\x9f]+")  # control characters too: no escape reaches a terminal

#: A JSON escape of half a UTF-16 pair: only an answer holding one can hold a lone surrogate.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = lazy_regex("[\ud800-\udfff]")


@contextmanager
def transport_errors(secrets: Sequence[str]) -> Iterator[None]:
    """Turn httpx's failures to get an answer into :class:`~pipeline.errors.TransportError`.

    The only place in the client where foreign exceptions are translated; both shells wrap
    sending and reading in it (a plain ``with`` works around ``await`` too).
    """
    try:
        yield
    except httpx.ProxyError as exc:  # the proxy refused to open a tunnel to an https service: "407 ..."
        detail = redact(str(exc) or "no detail", secrets)
        if detail.startswith("407"):
            raise ProxyRefusedError(detail[3:].strip() or "no detail") from exc
        raise TransportError(f"ProxyError: {detail}") from exc
    except httpx.TransportError as exc:  # includes TimeoutException, NetworkError, ProtocolError
        detail = str(exc) or "no detail"
        raise TransportError(redact(f"{type(exc).__name__}: {detail}", secrets)) from exc


class BoundedBody:
    """An answer's body, collected chunk by chunk up to the bound of its call.

    A successful answer over the bound fails the call with :class:`AnswerTooLargeError` (before
    reading anything when ``Content-Length`` already says so); an error answer is cut at
    :data:`ERROR_ANSWER_BYTES`, which still holds its message, and the rest is dropped unread.
    """

    def __init__(self, call: Call[Any], status_code: int, headers: Mapping[str, str]) -> None:
        self._what = f"{call.request.method} {call.request.path}"
        self._status = status_code
        self._error = status_code >= 300
        self._limit = ERROR_ANSWER_BYTES if self._error else call.max_answer
        self._chunks: list[bytes] = []
        self._size = 0
        declared = headers.get("Content-Length", "")
        digits = declared.isascii() and declared.isdigit()  # "²" is a digit to isdigit(); int() refuses it
        if not self._error and digits and (len(declared.lstrip("0")) > 18 or int(declared) > self._limit):
            raise AnswerTooLargeError(self._what, self._limit, status_code)

    def add(self, chunk: bytes) -> bool:
        """Keep ``chunk``; False once the body is complete enough (an error's cut), so reading stops."""
        room = self._limit - self._size
        if len(chunk) > room:
            if not self._error:
                raise AnswerTooLargeError(self._what, self._limit, self._status)
            chunk = chunk[:room]
        self._chunks.append(chunk)
        self._size += len(chunk)
        return self._size < self._limit

    @property
    def content(self) -> bytes:
        """The bytes kept."""
        return b"".join(self._chunks)


def error_from_answer(
    status_code: int, headers: Mapping[str, str], content: bytes, reason: str, secrets: Sequence[str]
) -> ServiceError:
    """The :class:`~pipeline.errors.ServiceError` for an error answer, its message redacted."""
    message = _error_message(content, secrets) or redact(reason, secrets) or f"HTTP {status_code}"
    retry_after = parse_retry_after(headers.get(protocol.RETRY_AFTER_HEADER))
    return error_for_status(status_code, message, retry_after)


def _error_message(content: bytes, secrets: Sequence[str]) -> str:
    """The service's own message, or the words of another body (a proxy's or a gateway's page) on one
    line; redacted before it is cut, so no piece of a secret is left at the cut.
    """
    text = content.decode("utf-8-sig", errors="replace").strip()
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser recurses
        data = None
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return redact(data["message"], secrets)
    text = redact(text, secrets)
    if text.startswith("<"):  # an HTML or XML page: its words, not its markup
        text = redact(html.unescape(_MARKUP().sub(" ", _NOT_WORDS().sub(" ", text))), secrets)  # &#x6b;ey...
    words = _SPACES().sub(" ", text).strip()
    if _holds_split_secret(words, secrets):  # "sek<b>ret</b>": both halves would be shown
        return ""
    return words[:_MAX_QUOTED_BODY]


def _holds_split_secret(words: str, secrets: Sequence[str]) -> bool:
    squeezed = _SPACES().sub("", words)
    return any(secret and _SPACES().sub("", secret) in squeezed for secret in secrets)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta seconds or an HTTP date); None if absent or bad."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return max(seconds, 0.0)


def finish(
    call: Call[T],
    status_code: int,
    headers: Mapping[str, str],
    content: bytes,
    reason: str,
    secrets: Sequence[str],
) -> T:
    """The parsed result of ``call`` from its answer, or the error the answer stands for."""
    if status_code >= 300:
        raise error_from_answer(status_code, headers, content, reason, secrets)
    try:
        if call.expect == "json":
            body: Any = _parse_json(content)
        elif call.expect == "text":
            body = content.decode("utf-8")
        elif call.expect == "bytes":
            body = content
        else:
            body = None
        return call.parse(body)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        what = f"{call.request.method} {call.request.path}"
        raise ServiceError(f"unexpected answer to {what}: {type(exc).__name__}: {exc}", status_code) from exc


def _parse_json(content: bytes) -> Any:
    """The JSON value of an answer's body; ValueError for anything a run could not take from it.

    Beyond what :func:`json.loads` refuses: nesting deeper than it recurses, and strings holding a
    lone surrogate (``"\\ud800"`` is valid JSON but no character: no catalog, cache or report can
    hold it, so it would fail the run wherever it is first written).
    """
    try:
        body = json.loads(content)
    except RecursionError:
        raise ValueError("the JSON is nested too deep to be read") from None
    if _SURROGATE_ESCAPE.search(content) and _holds_lone_surrogate(body):
        raise ValueError("a string holds a lone surrogate (half of a UTF-16 pair), which is no character")
    return body


def _holds_lone_surrogate(body: Any) -> bool:
    pending = [body]  # a loop, not recursion: the parser's own depth limit is close to Python's
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if _LONE_SURROGATE().search(value):
                return True
        elif isinstance(value, dict):
            pending.extend(value)
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return False
