"""Request bodies: reading them within a size limit, and typed access to their parameters.

Translate, Write and document status take JSON objects or URL-encoded forms (the glossary writes
too, read as objects by ``http.json_body``); the other endpoints take JSON only. :class:`Params`
hides the difference: in a form every value is a
string, a parameter may repeat (``text=a&text=b``), booleans are ``1``/``0`` and tag lists are
comma-separated; in JSON values have their JSON types and ``null`` counts as not given. ``NaN``
and ``Infinity``, which Python's JSON reader accepts, are not JSON (RFC 8259): a body holding them
is 400.
A parameter named ``auth_key`` in a body is legacy authentication and is refused with 403.
Query parameters, which every endpoint reads the same way, go through :func:`single_query`.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterable
from typing import Any

from starlette.requests import ClientDisconnect, Request

from pipeline.patterns import lazy_regex
from pipeline.service.echo import echo
from pipeline.service.http.responses import ApiError, bad_request

JSON_TYPE = "application/json"
FORM_TYPE = "application/x-www-form-urlencoded"
LEGACY_AUTH_PARAM = "auth_key"
#: Fields a URL-encoded form may hold, as Starlette's, Django's and PHP's form parsers allow by default.
#: The body's byte limit alone let ``a&a&...`` be millions of fields, each a Python object: one
#: glossary body of tens of megabytes grew the server by 1.7 GiB. A translate form holds at most
#: 50 texts and a few options; a glossary form four fields per dictionary.
MAX_FORM_FIELDS = 1000
#: Arrays, objects and elements a JSON body may hold (see _json_values_past): a translate body holds
#: at most 50 texts, a style list 200 instructions, a glossary its dictionaries.
MAX_JSON_VALUES = 100_000
#: Past the limit the body is still read (and dropped) up to this much more, so that the client
#: finishes sending and reads the 413 instead of meeting a reset connection.
_DRAIN_LIMIT = 16 * 1024 * 1024

LEGACY_AUTH_MESSAGE = (
    "legacy authentication (auth_key as a query or body parameter) is no longer accepted; "
    "send the header 'Authorization: Service-Auth-Key <key>'"
)


#: A whole number as a form or a query writes it: ASCII digits after an optional minus sign.
_WHOLE_NUMBER = lazy_regex(r"-?[0-9]{1,4000}")


def whole_number(text: str) -> int | None:
    """``text`` as a whole number, or None when it is not one.

    Python's ``int()`` also reads digits of other scripts (``٥٠``), a plus sign, spaces around and
    ``_`` between digits, none of which a client writes on purpose.
    """
    return int(text) if _WHOLE_NUMBER().fullmatch(text) else None


def _declared_length(request: Request) -> int | None:
    value = request.headers.get("content-length", "")
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 18 else None


def _refused_by_its_head(request: Request, declared: int | None, limit: int) -> ApiError | None:
    """What the request head alone refuses: a compressed body (415), or one declared too large (413)."""
    encoding = request.headers.get("content-encoding", "").strip().lower()
    if encoding not in ("", "identity"):
        return ApiError(415, f"unsupported content encoding {echo(encoding)}; send the body uncompressed")
    if declared is not None and declared > limit:
        return ApiError(413, f"request body too large: {declared} bytes, at most {limit} bytes are allowed")
    return None


async def read_body(request: Request, limit: int) -> bytes:
    """The whole request body; 413 when it is larger than ``limit`` bytes, 415 when it is compressed.

    A body that its head already refuses (a ``Content-Length`` over the limit, a ``Content-Encoding``)
    is refused before any of it is kept. A client that sent ``Expect: 100-continue`` hears so at once
    and sends nothing; from any other the body is drained (up to ``limit`` plus 16 MiB) first, so that
    the client reads the answer instead of meeting a reset connection.
    """
    declared = _declared_length(request)
    refused = _refused_by_its_head(request, declared, limit)
    if refused is not None and request.headers.get("expect", "").strip().lower() == "100-continue":
        raise refused  # before the first read, which is what answers "100 Continue"
    keep = refused is None
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if keep and size <= limit:
                chunks.append(chunk)
            elif size > limit + _DRAIN_LIMIT:
                break
    except ClientDisconnect:
        raise bad_request("request body incomplete: the client disconnected") from None
    if size > limit:
        shown = max(size, declared or 0)
        raise ApiError(413, f"request body too large: {shown} bytes, at most {limit} bytes are allowed")
    if refused is not None:
        raise refused
    return b"".join(chunks)


def media_type(request: Request) -> str:
    """The request's content type without parameters, lower case ('' when absent)."""
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def single_query(request: Request, name: str, required: bool = True) -> str | None:
    """One query parameter: 400 when repeated, or missing while required."""
    values = request.query_params.getlist(name)
    if len(values) > 1:
        raise bad_request(f"query parameter '{name}' may be given only once")
    if not values:
        if required:
            raise bad_request(f"query parameter '{name}' is required")
        return None
    return values[0]


def int_query(request: Request, name: str, default: int, low: int, high: int | None) -> int:
    """A whole-number query parameter between ``low`` and ``high`` (None: no upper bound); 400 otherwise."""
    raw = single_query(request, name, required=False)
    if raw is None:
        return default
    value = whole_number(raw)
    if value is None:
        raise bad_request(f"query parameter '{name}' must be an integer, got {echo(raw)}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise bad_request(f"query parameter '{name}' must be {bound}, got {echo(value)}")
    return value


class Params:
    """Typed, validated access to the parameters of a JSON object or a URL-encoded form."""

    def __init__(self, values: dict[str, Any], form: bool) -> None:
        self._values, self.form = values, form
        if LEGACY_AUTH_PARAM in values:
            raise ApiError(403, LEGACY_AUTH_MESSAGE)

    @classmethod
    def parse(cls, body: bytes, content_type: str, allow_form: bool = True) -> Params:
        """Parameters of a body of the given media type (400/415 when it cannot be read)."""
        # Without a content type, a body that looks like a JSON object is read as one.
        looks_json = not content_type and body.lstrip()[:1] == b"{"
        if content_type == JSON_TYPE or (not content_type and (looks_json or not allow_form)):
            return cls(parse_json_object(body), form=False)
        if allow_form and content_type in (FORM_TYPE, ""):
            return cls(parse_form(body), form=True)
        accepted = f"{JSON_TYPE} or {FORM_TYPE}" if allow_form else JSON_TYPE
        raise ApiError(415, f"unsupported content type {echo(content_type)}; send {accepted}")

    def present(self, name: str) -> bool:
        """Whether the parameter appears at all, JSON null included."""
        return name in self._values

    def _single(self, name: str) -> Any:
        value = self._values.get(name)
        if self.form and value is not None:
            if len(value) > 1:
                raise bad_request(f"parameter '{name}' may be given only once")
            return value[0]
        return value

    def string(self, name: str) -> str | None:
        """A string parameter, or None when absent."""
        value = self._single(name)
        if value is not None and not isinstance(value, str):
            raise bad_request(f"parameter '{name}' must be a string")
        return value

    def boolean(self, name: str) -> bool | None:
        """A boolean: JSON ``true``/``false``, form ``1``/``0``."""
        value = self._single(name)
        if value is None:
            return None
        if self.form:
            if value not in ("0", "1"):
                raise bad_request(f"parameter '{name}' must be 1 or 0")
            return bool(value == "1")
        if not isinstance(value, bool):
            raise bad_request(f"parameter '{name}' must be a boolean (true or false)")
        return bool(value)

    def integer(self, name: str) -> int | None:
        """An integer parameter, or None when absent."""
        value = self._single(name)
        if value is None:
            return None
        if self.form:
            number = whole_number(value)
            if number is None:
                raise bad_request(f"parameter '{name}' must be an integer")
            return number
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad_request(f"parameter '{name}' must be an integer")
        return value

    def strings(self, name: str) -> list[str] | None:
        """A list of strings: a JSON array, or a repeated form field."""
        value = self._values.get(name)
        if value is None:
            return None
        if not self.form and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            raise bad_request(f"parameter '{name}' must be an array of strings")
        return list(value)

    def tag_names(self, name: str) -> frozenset[str]:
        """A tag-name list: comma-separated string(s) or a JSON array of names."""
        value = self._values.get(name)
        if value is None:
            return frozenset()
        items: Iterable[Any] = value if isinstance(value, list) else [value]
        names: set[str] = set()
        for item in items:
            if not isinstance(item, str):
                raise bad_request(f"parameter '{name}' must be a comma-separated string or an array of strings")
            names.update(part.strip() for part in item.split(",") if part.strip())
        return frozenset(names)


def parse_json_object(body: bytes) -> dict[str, Any]:
    """A JSON object body (an empty body is an empty object); 400 otherwise."""
    if not body.strip():
        return {}
    if _json_values_past(body, MAX_JSON_VALUES):
        raise bad_request(f"request body has too many JSON values: at most {MAX_JSON_VALUES} are allowed")
    try:
        value = json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise bad_request("request body is not valid UTF-8") from None
    except ValueError as exc:
        raise bad_request(f"request body is not valid JSON: {exc}") from None
    except RecursionError:
        raise bad_request("request body is not valid JSON: nested too deeply") from None
    if not isinstance(value, dict):
        raise bad_request("request body must be a JSON object")
    if b"\\u" in body:
        try:
            _refuse_lone_surrogates(value)
        except RecursionError:
            raise bad_request("request body is not valid JSON: nested too deeply") from None
    return value


#: A string (whatever it holds), or what starts a value in an array or object: ``[``, ``{`` or ``,``.
_JSON_STRUCTURE = lazy_regex(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{,]')


def _json_values_past(body: bytes, most: int) -> bool:
    """Whether ``body`` (JSON) holds more than ``most`` arrays, objects and elements, counted before it is parsed.

    Each is a Python object once parsed: ``[[],[],...]`` or ``["a","a",...]`` within a glossary's body
    limit was tens of millions of them (a 20 MiB body grew the server by 530 MiB). Counting the three
    bytes anywhere is an upper bound, and enough for almost every body; past it, strings (a CSV
    dictionary's commas) are skipped in a second count, which stops at the bound.
    """
    if body.count(b",") + body.count(b"[") + body.count(b"{") <= most:
        return False
    count = 0
    for match in _JSON_STRUCTURE().finditer(body):
        if match.end() - match.start() == 1:
            count += 1
            if count > most:
                return True
    return False


def _refuse_constant(name: str) -> Any:
    """``json.loads`` hook for ``NaN``, ``Infinity`` and ``-Infinity``, which are not JSON."""
    raise ValueError(f"{name} is not a JSON value")


def _refuse_lone_surrogates(value: Any) -> None:
    """400 for strings holding a lone UTF-16 surrogate (a JSON escape such as ``\\ud800``)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise bad_request("request body holds a string with an unpaired surrogate escape") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_lone_surrogates(key)
            _refuse_lone_surrogates(item)
    elif isinstance(value, list):
        for item in value:
            _refuse_lone_surrogates(item)


def parse_form(body: bytes) -> dict[str, list[str]]:
    """The fields of a URL-encoded form body, each name with its values in order (400 when undecodable,
    or past :data:`MAX_FORM_FIELDS` fields: counted before anything is split)."""
    if body.count(b"&") >= MAX_FORM_FIELDS:
        raise bad_request(f"request body has too many form fields: at most {MAX_FORM_FIELDS} fields are allowed")
    try:
        pairs = urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise bad_request("request body is not a valid URL-encoded form (UTF-8, percent-encoded)") from None
    values: dict[str, list[str]] = {}
    for key, value in pairs:
        values.setdefault(key, []).append(value)
    return values
