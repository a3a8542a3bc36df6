"""I/O-free request building: what goes on the wire for each endpoint, and the steps of a call.

A :class:`Call` pairs a :class:`Request` with the function that parses its answer; a *flow* is a
generator that yields calls and :class:`Sleep` steps and returns a result. The sync and async
shells only know how to perform one call and how to sleep; retries and document polling are
flows written once, in :mod:`pipeline.client.retry` and :mod:`pipeline.client.endpoints`.
"""

from collections.abc import Callable, Generator, Sequence
from typing import Any, Generic, Literal, NamedTuple, TypeVar
from urllib.parse import quote

from pipeline import protocol
from pipeline.client import limits
from pipeline.client.api_data import GlossaryDictionary
from pipeline.errors import ClientLimitError, RateLimitedError

T = TypeVar("T")

#: How an answer's body is decoded before it is parsed.
Expect = Literal["json", "text", "bytes", "none"]

# How many bytes of an answer's (decoded) body the client reads: a broken or hostile service
# that streams without end must fail the request, not fill the memory. Each bound is far above
# what the service can legitimately send for the request.
ANSWER_BYTES = 8 * 1024 * 1024  # lists, records, status: kilobytes in practice
ANSWER_FLOOR_BYTES = 256 * 1024  # the least a body-sized bound allows
# A translation of one request byte: longer target text, \uXXXX escapes (6 bytes a character,
# 12 outside the BMP) and the JSON around each text stay well under this.
ANSWER_BYTES_PER_REQUEST_BYTE = 16
GLOSSARY_ENTRIES_ANSWER_BYTES = 4 * protocol.MAX_GLOSSARY_DICTIONARY_BYTES  # one dictionary, escaped in JSON
DOCUMENT_ANSWER_BYTES = 256 * 1024 * 1024  # a translated document
ERROR_ANSWER_BYTES = 64 * 1024  # an error's message is in its first bytes; the rest is dropped unread


def answer_bound(request_bytes: int) -> int:
    """The most bytes an answer to a request of ``request_bytes`` may have (translate, Write)."""
    return max(ANSWER_FLOOR_BYTES, ANSWER_BYTES_PER_REQUEST_BYTE * request_bytes)


class Request(NamedTuple):
    """One HTTP request, relative to the client's base URL; the client adds auth and user agent."""

    method: str
    path: str
    query: tuple[tuple[str, str], ...] = ()
    content: bytes | None = None
    content_type: str | None = None
    #: multipart/form-data fields and files (document upload only)
    form: tuple[tuple[str, str], ...] = ()
    files: tuple[tuple[str, tuple[str, bytes, str]], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()

    def httpx_arguments(self) -> dict[str, Any]:
        """Keyword arguments for ``httpx.Client.request`` / ``httpx.AsyncClient.request``."""
        headers = dict(self.headers)
        if self.content_type:
            headers["Content-Type"] = self.content_type
        arguments: dict[str, Any] = {"method": self.method, "url": self.path, "headers": headers}
        if self.query:
            arguments["params"] = list(self.query)
        if self.content is not None:
            arguments["content"] = self.content
        if self.files:
            arguments["data"] = dict(self.form)
            arguments["files"] = list(self.files)
        return arguments


class Call(NamedTuple, Generic[T]):
    """A request and how to turn its successful answer into a result."""

    request: Request
    parse: Callable[[Any], T]
    expect: Expect = "json"
    max_answer: int = ANSWER_BYTES  # bytes of a successful answer's body; more fails the call


class Sleep(NamedTuple):
    """A flow step: wait this many seconds (through the client's injected sleep).

    ``rate_limited``: the wait follows a 429; a caller that paces its own requests
    (:meth:`pipeline.client.AsyncClient.with_pacing`) waits as it decides instead, and the shell
    sends the flow back the seconds that took (a paced wait is not the request's own time).
    """

    seconds: float
    rate_limited: RateLimitedError | None = None


#: A generator that yields calls and sleeps, receives each call's result, and returns a value.
Flow = Generator["Call[Any] | Sleep", Any, T]


def get(
    path: str, parse: Callable[[Any], T], query: Sequence[tuple[str, str]] = (), max_answer: int = ANSWER_BYTES
) -> Call[T]:
    """A GET call."""
    return Call(Request("GET", path, query=tuple(query)), parse, max_answer=max_answer)


def send_json(
    method: str,
    path: str,
    body: object,
    parse: Callable[[Any], T],
    expect: Expect = "json",
    max_answer: int = ANSWER_BYTES,
) -> Call[T]:
    """A call with a JSON body encoded by :func:`pipeline.protocol.encode_json`."""
    request = Request(method, path, content=protocol.encode_json(body), content_type="application/json")
    return Call(request, parse, expect, max_answer)


def _post_json_within(what: str, max_bytes: int, path: str, body: object, parse: Callable[[Any], T]) -> Call[T]:
    """A JSON ``POST``, refused before sending when the body is over ``max_bytes``; encoded only once."""
    content = protocol.encode_json(body)
    limits.check_body_size(what, len(content), max_bytes)
    return Call(
        Request("POST", path, content=content, content_type="application/json"),
        parse,
        max_answer=answer_bound(len(content)),
    )


def delete(path: str, query: Sequence[tuple[str, str]] = ()) -> Call[None]:
    """A DELETE call whose answer body is ignored."""
    return Call(Request("DELETE", path, query=tuple(query)), _none, expect="none")


def _none(_: object) -> None:
    return None


def segment(value: str) -> str:
    """``value`` quoted as one path segment, so an id can never reach another path."""
    if value in ("", ".", ".."):
        raise ValueError(f"{value!r} is not a valid id")
    return quote(value, safe="")


def flag(value: bool) -> str:
    """A boolean as a query parameter."""
    return "true" if value else "false"


# --- Text translation -----------------------------------------------------------------------


def translate_params(
    *,
    target_lang: str,
    source_lang: str | None = None,
    context: str | None = None,
    model_type: str | None = None,
    split_sentences: str | None = None,
    preserve_formatting: bool | None = None,
    formality: str | None = None,
    glossary_id: str | None = None,
    style_id: str | None = None,
    custom_instructions: Sequence[str] = (),
    translation_memory_id: str | None = None,
    translation_memory_threshold: int | None = None,
    show_billed_characters: bool = True,
    tag_handling: str | None = None,
    tag_handling_version: str | None = None,
    outline_detection: bool | None = None,
    non_splitting_tags: Sequence[str] = (),
    splitting_tags: Sequence[str] = (),
    ignore_tags: Sequence[str] = (),
) -> dict[str, object]:
    """The JSON body of ``POST /v2/translate`` without ``text``; None and empty values are left out.

    The body sent is exactly ``protocol.encode_json({**params, "text": list(texts)})``, so
    ``protocol.translate_body_size(params, texts)`` is the size of the request. Values are checked
    against the spec's enums, ranges and rules first (:class:`~pipeline.errors.ClientLimitError`).
    """
    instructions = _strings("custom_instructions", custom_instructions)
    limits.check_choice("split_sentences", split_sentences, protocol.SPLIT_SENTENCES)
    limits.check_choice("model_type", model_type, protocol.MODEL_TYPES)
    limits.check_choice("formality", formality, protocol.FORMALITIES)
    limits.check_choice("tag_handling", tag_handling, protocol.TAG_HANDLINGS)
    limits.check_choice("tag_handling_version", tag_handling_version, protocol.TAG_HANDLING_VERSIONS)
    limits.check_tm_threshold(translation_memory_threshold)
    limits.check_custom_instructions(instructions)
    # Spec order; the encoded body follows it.
    candidates: dict[str, object] = {
        "source_lang": source_lang,
        "target_lang": target_lang,
        "context": context,
        "model_type": model_type,
        "split_sentences": split_sentences,
        "preserve_formatting": preserve_formatting,
        "formality": formality,
        "glossary_id": glossary_id,
        "style_id": style_id,
        "custom_instructions": instructions,
        "translation_memory_id": translation_memory_id,
        "translation_memory_threshold": translation_memory_threshold,
        "show_billed_characters": show_billed_characters,
        "tag_handling": tag_handling,
        "tag_handling_version": tag_handling_version,
        "outline_detection": outline_detection,
        "non_splitting_tags": _strings("non_splitting_tags", non_splitting_tags),
        "splitting_tags": _strings("splitting_tags", splitting_tags),
        "ignore_tags": _strings("ignore_tags", ignore_tags),
    }
    params = {name: value for name, value in candidates.items() if value is not None and value != [] and value != ""}
    limits.check_translate_combinations(params)
    return params


def _strings(name: str, values: Sequence[str]) -> list[str]:
    limits.check_strings(name, values)
    return list(values)


def translate(texts: Sequence[str], params: dict[str, object], parse: Callable[[Any], T]) -> Call[T]:
    """``POST /v2/translate`` for ``texts`` with ``params`` from :func:`translate_params`."""
    limits.check_texts(texts, protocol.MAX_TEXTS_PER_REQUEST)
    body = {**params, "text": list(texts)}
    return _post_json_within("translate", protocol.MAX_TRANSLATE_BODY_BYTES, "/v2/translate", body, parse)


# --- Write ----------------------------------------------------------------------------------


def write(
    endpoint: Literal["rephrase", "correct"],
    texts: Sequence[str],
    parse: Callable[[Any], T],
    *,
    target_lang: str | None = None,
    writing_style: str | None = None,
    tone: str | None = None,
) -> Call[T]:
    """``POST /v2/write/rephrase`` or ``/v2/write/correct``; at most 10 KiB of body."""
    limits.check_texts(texts)
    limits.check_write_options(writing_style, tone)
    body: dict[str, object] = {"text": list(texts)}
    for name, value in (("target_lang", target_lang), ("writing_style", writing_style), ("tone", tone)):
        if value is not None:
            body[name] = value
    return _post_json_within("write", protocol.MAX_WRITE_BODY_BYTES, f"/v2/write/{endpoint}", body, parse)


# --- Documents ------------------------------------------------------------------------------


def upload_document(
    content: bytes,
    filename: str,
    parse: Callable[[Any], T],
    *,
    target_lang: str,
    source_lang: str | None = None,
    formality: str | None = None,
    glossary_id: str | None = None,
    output_format: str | None = None,
    style_id: str | None = None,
    translation_memory_id: str | None = None,
    translation_memory_threshold: int | None = None,
) -> Call[T]:
    """``POST /v2/document`` as ``multipart/form-data``; the file name goes in both places the spec allows."""
    limits.check_choice("formality", formality, protocol.FORMALITIES)
    limits.check_tm_threshold(translation_memory_threshold)
    limits.check_glossary_source(glossary_id, source_lang)
    fields = {
        "filename": filename,
        "source_lang": source_lang,
        "target_lang": target_lang,
        "formality": formality,
        "glossary_id": glossary_id,
        "output_format": output_format,
        "style_id": style_id,
        "translation_memory_id": translation_memory_id,
        "translation_memory_threshold": None
        if translation_memory_threshold is None
        else str(translation_memory_threshold),
    }
    form = tuple((name, value) for name, value in fields.items() if value is not None)
    files = (("file", (filename, content, "application/octet-stream")),)
    return Call(Request("POST", "/v2/document", form=form, files=files), parse)


def document_key_body(document_key: str) -> dict[str, str]:
    """The body of the status and result requests of a document job."""
    return {"document_key": document_key}


# --- Glossaries -----------------------------------------------------------------------------


def dictionary_body(dictionary: GlossaryDictionary) -> dict[str, str]:
    """A dictionary with content, checked against the glossary content rules."""
    limits.parse_entries(dictionary.entries, dictionary.entries_format, dictionary.source_lang, dictionary.target_lang)
    return {
        "source_lang": dictionary.source_lang,
        "target_lang": dictionary.target_lang,
        "entries": dictionary.entries,
        "entries_format": dictionary.entries_format,
    }


def glossary_body(name: str, dictionaries: Sequence[GlossaryDictionary]) -> dict[str, object]:
    """The body of ``POST /v3/glossaries``: a checked name and one or more distinct dictionaries."""
    limits.check_glossary_name(name)
    if not dictionaries:
        raise ClientLimitError("a glossary needs at least one dictionary")
    pairs = [(d.source_lang.lower(), d.target_lang.lower()) for d in dictionaries]
    if len(set(pairs)) != len(pairs):
        raise ClientLimitError("a glossary holds one dictionary per language pair")
    return {"name": name, "dictionaries": [dictionary_body(d) for d in dictionaries]}


def dictionary_from_pairs(
    source_lang: str, target_lang: str, pairs: Sequence[tuple[str, str]] | dict[str, str]
) -> GlossaryDictionary:
    """A TSV dictionary for ``pairs`` (source -> target), checked against the content rules."""
    items = list(pairs.items()) if isinstance(pairs, dict) else list(pairs)
    entries = limits.format_entries(items)
    for number, (source, target) in enumerate(items, 1):
        # TSV cannot carry a tab or newline; check before formatting hides where it came from.
        limits.check_glossary_phrase(source, f"{source_lang}->{target_lang} entry {number} (source)")
        limits.check_glossary_phrase(target, f"{source_lang}->{target_lang} entry {number} (target)")
    limits.parse_entries(entries, "tsv", source_lang, target_lang)
    return GlossaryDictionary(source_lang, target_lang, entries, "tsv")
