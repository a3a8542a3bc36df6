"""I/O-free answer handling: error mapping, the one place foreign exceptions are translated,
and the parsers that turn the service's JSON into records.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import httpx

from pipeline import protocol
from pipeline.client.api_data import (
    CustomInstruction,
    CustomTagUsage,
    CustomTagUsageReport,
    DeveloperKey,
    DictionarySummary,
    DocumentHandle,
    DocumentStatus,
    FeatureDescriptor,
    Glossary,
    GlossaryDictionary,
    GlossaryV2,
    Improvement,
    Language,
    LanguagePair,
    LanguageResource,
    LanguageV2,
    StyleRuleList,
    TranslateResult,
    Translation,
    TranslationMemory,
    Usage,
    frozen_mapping,
)
from pipeline.client.requests import ERROR_ANSWER_BYTES, Call
from pipeline.errors import (
    AnswerTooLargeError,
    ProxyRefusedError,
    ServiceError,
    TransportError,
    error_for_status,
    redact,
)

T = TypeVar("T")

#: Longest piece of a non-JSON error body quoted in an exception message.
_MAX_QUOTED_BODY = 300

_MARKUP = re.compile(r"<[^<>]*>")
_SPACES = re.compile(r"\s+")

#: A JSON escape of half a UTF-16 pair: only an answer holding one can hold a lone surrogate.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


# --- Errors ---------------------------------------------------------------------------------


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
        if not self._error and declared.isdigit() and int(declared) > self._limit:
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
    text = content.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser recurses
        data = None
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return redact(data["message"], secrets)
    text = redact(text, secrets)
    if text.startswith("<"):  # an HTML or XML page: its words, not its markup
        text = _MARKUP.sub(" ", text)
    return _SPACES.sub(" ", text).strip()[:_MAX_QUOTED_BODY]


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
            if _LONE_SURROGATE.search(value):
                return True
        elif isinstance(value, dict):
            pending.extend(value)
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return False


# --- Parsers --------------------------------------------------------------------------------


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _count(data: Mapping[str, Any], field: str) -> int | None:
    """``data[field]`` as a whole number of at least 0, None when absent or null; ValueError naming it otherwise.

    JSON has no integer type: a number such as ``1e400`` or ``Infinity`` reaches Python as a
    float that no count can be.
    """
    value = data.get(field)
    if value is None:
        return None
    if type(value) is int and value >= 0:
        return value
    if type(value) is float and value.is_integer() and value >= 0:
        return int(value)
    raise ValueError(f"{field} is not a count: {str(value)[:40]}")


def _billed(data: Mapping[str, Any]) -> int | None:
    """The billed characters of a translation answer, None when absent or no count.

    The translations beside a nonsensical figure are still good, and refusing them would make the
    run pay for them again; without the figure the run counts what it sent.
    """
    try:
        return _count(data, "billed_characters")
    except ValueError:
        return None


def parse_translate(data: Mapping[str, Any]) -> TranslateResult:
    """``POST /v2/translate``."""
    translations = tuple(
        Translation(text=item["text"], detected_source_language=item.get("detected_source_language", ""))
        for item in data["translations"]
    )
    return TranslateResult(translations, _billed(data), data.get("model_type_used"))


def translate_parser(count: int) -> Callable[[Mapping[str, Any]], TranslateResult]:
    """:func:`parse_translate` for a request of ``count`` texts: another number of translations is refused.

    One translation too many (or too few) leaves no way to tell which answer belongs to which text.
    """

    def parse(data: Mapping[str, Any]) -> TranslateResult:
        result = parse_translate(data)
        if len(result.translations) != count:
            raise ValueError(f"{len(result.translations)} translations for {count} texts")
        return result

    return parse


def parse_document_handle(data: Mapping[str, Any]) -> DocumentHandle:
    """``POST /v2/document``."""
    return DocumentHandle(data["document_id"], data["document_key"])


def parse_document_status(data: Mapping[str, Any]) -> DocumentStatus:
    """``POST /v2/document/{id}``."""
    return DocumentStatus(
        document_id=data["document_id"],
        status=data["status"],
        seconds_remaining=_opt_int(data.get("seconds_remaining")),
        billed_characters=_billed(data),
        message=data.get("message"),
    )


def parse_improvements(data: Mapping[str, Any]) -> tuple[Improvement, ...]:
    """``POST /v2/write/rephrase`` and ``/v2/write/correct``."""
    return tuple(
        Improvement(item["text"], item.get("target_language"), item.get("detected_source_language"))
        for item in data["improvements"]
    )


def parse_dictionary_summary(data: Mapping[str, Any]) -> DictionarySummary:
    """A v3 dictionary summary (also the answer of ``PUT .../dictionaries``)."""
    return DictionarySummary(data["source_lang"], data["target_lang"], int(data.get("entry_count", 0)))


def parse_glossary(data: Mapping[str, Any]) -> Glossary:
    """A v3 glossary."""
    return Glossary(
        glossary_id=data["glossary_id"],
        name=data["name"],
        dictionaries=tuple(parse_dictionary_summary(d) for d in data.get("dictionaries", ())),
        creation_time=data.get("creation_time"),
        ready=data.get("ready"),
    )


def parse_glossaries(data: Mapping[str, Any]) -> tuple[Glossary, ...]:
    """``GET /v3/glossaries``."""
    return tuple(parse_glossary(item) for item in data["glossaries"])


def parse_glossary_entries(data: Mapping[str, Any]) -> GlossaryDictionary:
    """``GET /v3/glossaries/{id}/entries``: the one requested dictionary."""
    (item,) = data["dictionaries"]
    return GlossaryDictionary(
        item["source_lang"], item["target_lang"], item["entries"], item.get("entries_format", "tsv")
    )


def parse_glossary_v2(data: Mapping[str, Any]) -> GlossaryV2:
    """A v2 glossary."""
    return GlossaryV2(
        glossary_id=data["glossary_id"],
        name=data["name"],
        source_lang=data["source_lang"],
        target_lang=data["target_lang"],
        entry_count=int(data.get("entry_count", 0)),
        ready=data.get("ready"),
        creation_time=data.get("creation_time"),
    )


def parse_glossaries_v2(data: Mapping[str, Any]) -> tuple[GlossaryV2, ...]:
    """``GET /v2/glossaries``."""
    return tuple(parse_glossary_v2(item) for item in data["glossaries"])


def parse_language_pairs(data: Mapping[str, Any]) -> tuple[LanguagePair, ...]:
    """``GET /v2/glossary-language-pairs``."""
    return tuple(LanguagePair(item["source_lang"], item["target_lang"]) for item in data["supported_languages"])


def parse_custom_instruction(data: Mapping[str, Any]) -> CustomInstruction:
    """A custom instruction of a style rule list."""
    return CustomInstruction(data["label"], data["prompt"], data.get("source_language"), data.get("id"))


def parse_style_rule_list(data: Mapping[str, Any]) -> StyleRuleList:
    """A style rule list, summary or detailed."""
    rules = data.get("configured_rules")
    instructions = data.get("custom_instructions")
    return StyleRuleList(
        style_id=data["style_id"],
        name=data["name"],
        language=data["language"],
        version=int(data["version"]),
        creation_time=data.get("creation_time"),
        updated_time=data.get("updated_time"),
        configured_rules=None
        if rules is None
        else frozen_mapping({category: frozen_mapping(chosen) for category, chosen in rules.items()}),
        custom_instructions=None if instructions is None else tuple(parse_custom_instruction(i) for i in instructions),
    )


def parse_style_rule_lists(data: Mapping[str, Any]) -> tuple[StyleRuleList, ...]:
    """``GET /v3/style_rules``."""
    return tuple(parse_style_rule_list(item) for item in data["style_rules"])


def _feature_status(value: Any) -> str:
    return value if isinstance(value, str) else str(value.get("status", "stable"))


def parse_language(data: Mapping[str, Any]) -> Language:
    """A v3 language object."""
    features = data.get("features") or {}
    if isinstance(features, list):  # the pre-GA shape: a list of names
        features = {name: "stable" for name in features}
    return Language(
        code=data["lang"],
        name=data["name"],
        usable_as_source=bool(data.get("usable_as_source", False)),
        usable_as_target=bool(data.get("usable_as_target", False)),
        status=data.get("status", "stable"),
        features=frozen_mapping({name: _feature_status(value) for name, value in features.items()}),
    )


def parse_languages(data: Sequence[Mapping[str, Any]]) -> tuple[Language, ...]:
    """``GET /v3/languages``."""
    return tuple(parse_language(item) for item in data)


def parse_language_resources(data: Sequence[Mapping[str, Any]]) -> tuple[LanguageResource, ...]:
    """``GET /v3/languages/resources``."""
    return tuple(
        LanguageResource(
            item["name"],
            tuple(
                FeatureDescriptor(f["name"], bool(f.get("needs_source_support")), bool(f.get("needs_target_support")))
                for f in item.get("features", ())
            ),
        )
        for item in data
    )


def parse_languages_v2(data: Sequence[Mapping[str, Any]]) -> tuple[LanguageV2, ...]:
    """``GET /v2/languages``."""
    return tuple(LanguageV2(item["language"], item["name"], item.get("supports_formality")) for item in data)


def parse_translation_memories(data: Any) -> tuple[TranslationMemory, ...]:
    """``GET /v3/translation_memories``; the spec does not show the shape, so both a bare list and
    an object with a ``translation_memories`` list are read, ids under ``translation_memory_id`` or ``id``.
    """
    items = data["translation_memories"] if isinstance(data, dict) else data
    memories = []
    for item in items:
        known = {"translation_memory_id", "id", "name"}
        memory_id = item.get("translation_memory_id", item.get("id"))
        if memory_id is None:
            raise KeyError("translation_memory_id")
        extra = {k: v for k, v in item.items() if k not in known}
        memories.append(TranslationMemory(str(memory_id), item.get("name"), frozen_mapping(extra)))
    return tuple(memories)


_USAGE_FIELDS = (
    "character_count",
    "character_limit",
    "speech_to_text_milliseconds_count",
    "speech_to_text_milliseconds_limit",
)


def parse_usage(data: Mapping[str, Any]) -> Usage:
    """``GET /v2/usage``."""
    count = _count(data, "character_count")
    if count is None:
        raise KeyError("character_count")
    return Usage(
        character_count=count,
        character_limit=_count(data, "character_limit"),
        speech_to_text_milliseconds_count=_count(data, "speech_to_text_milliseconds_count"),
        speech_to_text_milliseconds_limit=_count(data, "speech_to_text_milliseconds_limit"),
        extra=frozen_mapping({k: v for k, v in data.items() if k not in _USAGE_FIELDS}),
    )


def parse_developer_key(data: Mapping[str, Any]) -> DeveloperKey:
    """A developer key record of the admin endpoints."""
    limits = data.get("usage_limits") or {}
    return DeveloperKey(
        key_id=data["key_id"],
        label=data.get("label", ""),
        creation_time=data.get("creation_time"),
        is_deactivated=bool(data.get("is_deactivated", False)),
        deactivated_time=data.get("deactivated_time"),
        characters_limit=_opt_int(limits.get("characters")),
        speech_to_text_milliseconds_limit=_opt_int(limits.get("speech_to_text_milliseconds")),
        api_key=data.get("api_key"),
    )


def parse_developer_keys(data: Sequence[Mapping[str, Any]]) -> tuple[DeveloperKey, ...]:
    """``GET /v2/admin/developer-keys``."""
    return tuple(parse_developer_key(item) for item in data)


def parse_custom_tag_usage_report(data: Mapping[str, Any]) -> CustomTagUsageReport:
    """``GET /v2/admin/analytics/custom-tags``: one page."""
    report = data["custom_tag_usage_report"]
    usage = []
    for item in report.get("usage", ()):
        breakdown = item.get("breakdown", {})
        usage.append(
            CustomTagUsage(
                custom_tag=item["custom_tag"],
                total_characters=int(breakdown.get("total_characters", 0)),
                text_translation_characters=int(breakdown.get("text_translation_characters", 0)),
                text_improvement_characters=int(breakdown.get("text_improvement_characters", 0)),
                usage_date=item.get("usage_date"),
            )
        )
    return CustomTagUsageReport(
        aggregate_by=report["aggregate_by"],
        start_date=report["start_date"],
        end_date=report["end_date"],
        usage=tuple(usage),
        next_page=_opt_int(report.get("next_page")),
    )
