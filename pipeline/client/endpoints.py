"""The endpoints of text and document translation, Write, languages, usage and administration,
as methods written once for both shells (glossaries and style rules are in ``terminology``).

Each method builds a :class:`~pipeline.client.requests.Call` (or a flow of them) and hands it to
``self._run``, which the sync shell performs right away and the async shell turns into a
coroutine. So ``Client.translate(...)`` returns a :class:`TranslateResult` and
``AsyncClient.translate(...)`` a coroutine of one. The annotations below show the sync types; type
checkers see the async ones in ``aio_endpoints.pyi``, generated from these methods by
:mod:`pipeline.client.stubgen` (a unit test fails when it is stale).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any, Literal, TypeVar

from pipeline import protocol
from pipeline.client import limits, requests
from pipeline.client import responses as parse
from pipeline.client.api_data import (
    CustomTagUsageReport,
    DeveloperKey,
    DocumentHandle,
    DocumentStatus,
    Improvement,
    Language,
    LanguageResource,
    LanguageV2,
    TranslatedDocument,
    TranslateResult,
    TranslationMemory,
    Usage,
)
from pipeline.client.requests import Call, Flow, segment
from pipeline.client.retry import DEFAULT_POLL, PollPolicy, RetryPolicy, polling, retrying
from pipeline.errors import ClientLimitError

T = TypeVar("T")

_UNSET: Any = object()


class EndpointBase:
    """What every endpoint method relies on; the shells provide ``_run`` and the settings."""

    _retry: RetryPolicy
    _clock: Callable[[], float]
    _paced = False  # whether the caller paces 429s itself (:meth:`pipeline.client.AsyncClient.with_pacing`)

    def _run(self, flow: Flow[T]) -> T:
        raise NotImplementedError

    def _call(self, call: Call[T]) -> T:
        return self._run(retrying(call, self._retry, self._clock, paced=self._paced))


class TextEndpoints(EndpointBase):
    """Translation, documents, Write, languages, usage, translation memories, administration."""

    # --- Text translation -------------------------------------------------------------------

    def translate(
        self,
        texts: Sequence[str],
        *,
        target_lang: str,
        source_lang: str | None = None,
        context: str | None = None,
        tag_handling: str | None = None,
        ignore_tags: Sequence[str] = (),
        formality: str | None = None,
        glossary_id: str | None = None,
        style_id: str | None = None,
        model_type: str | None = None,
        show_billed_characters: bool = True,
        split_sentences: str | None = None,
        preserve_formatting: bool | None = None,
        custom_instructions: Sequence[str] = (),
        translation_memory_id: str | None = None,
        translation_memory_threshold: int | None = None,
        tag_handling_version: str | None = None,
        outline_detection: bool | None = None,
        non_splitting_tags: Sequence[str] = (),
        splitting_tags: Sequence[str] = (),
    ) -> TranslateResult:
        """Translate up to 50 texts (``POST /v2/translate``); the body is built by :func:`translate_params`."""
        params = requests.translate_params(
            target_lang=target_lang,
            source_lang=source_lang,
            context=context,
            model_type=model_type,
            split_sentences=split_sentences,
            preserve_formatting=preserve_formatting,
            formality=formality,
            glossary_id=glossary_id,
            style_id=style_id,
            custom_instructions=custom_instructions,
            translation_memory_id=translation_memory_id,
            translation_memory_threshold=translation_memory_threshold,
            show_billed_characters=show_billed_characters,
            tag_handling=tag_handling,
            tag_handling_version=tag_handling_version,
            outline_detection=outline_detection,
            non_splitting_tags=non_splitting_tags,
            splitting_tags=splitting_tags,
            ignore_tags=ignore_tags,
        )
        return self._call(requests.translate(texts, params, parse.translate_parser(len(texts))))

    # --- Documents --------------------------------------------------------------------------

    def upload_document(
        self,
        content: bytes,
        filename: str,
        *,
        target_lang: str,
        source_lang: str | None = None,
        formality: str | None = None,
        glossary_id: str | None = None,
        output_format: str | None = None,
        style_id: str | None = None,
        translation_memory_id: str | None = None,
        translation_memory_threshold: int | None = None,
    ) -> DocumentHandle:
        """Start a document translation (``POST /v2/document``); keep the handle to poll and download."""
        return self._call(
            requests.upload_document(
                content,
                filename,
                parse.parse_document_handle,
                target_lang=target_lang,
                source_lang=source_lang,
                formality=formality,
                glossary_id=glossary_id,
                output_format=output_format,
                style_id=style_id,
                translation_memory_id=translation_memory_id,
                translation_memory_threshold=translation_memory_threshold,
            )
        )

    def document_status(self, handle: DocumentHandle) -> DocumentStatus:
        """The job's state (``POST /v2/document/{document_id}``)."""
        return self._call(_document_status_call(handle))

    def download_document(self, handle: DocumentHandle) -> bytes:
        """The translated file (``POST /v2/document/{document_id}/result``); works once only."""
        return self._call(_document_result_call(handle))

    def translate_document(
        self,
        content: bytes,
        filename: str,
        *,
        target_lang: str,
        source_lang: str | None = None,
        formality: str | None = None,
        glossary_id: str | None = None,
        output_format: str | None = None,
        style_id: str | None = None,
        translation_memory_id: str | None = None,
        translation_memory_threshold: int | None = None,
        poll: PollPolicy = DEFAULT_POLL,
    ) -> TranslatedDocument:
        """Upload, poll with exponential back-off until done, and download once."""
        upload = requests.upload_document(
            content,
            filename,
            parse.parse_document_handle,
            target_lang=target_lang,
            source_lang=source_lang,
            formality=formality,
            glossary_id=glossary_id,
            output_format=output_format,
            style_id=style_id,
            translation_memory_id=translation_memory_id,
            translation_memory_threshold=translation_memory_threshold,
        )
        return self._run(self._document_flow(upload, poll))

    def _document_flow(self, upload: Call[DocumentHandle], poll: PollPolicy) -> Flow[TranslatedDocument]:
        handle = yield from retrying(upload, self._retry, self._clock)
        status = yield from polling(_document_status_call(handle), poll, self._retry, self._clock)
        content = yield from retrying(_document_result_call(handle), self._retry, self._clock)
        return TranslatedDocument(content, status)

    # --- Write ------------------------------------------------------------------------------

    def rephrase(
        self,
        texts: Sequence[str],
        *,
        target_lang: str | None = None,
        writing_style: str | None = None,
        tone: str | None = None,
    ) -> tuple[Improvement, ...]:
        """Improve texts broadly (``POST /v2/write/rephrase``); ``writing_style`` and ``tone`` exclude each other."""
        return self._call(
            requests.write(
                "rephrase",
                texts,
                parse.parse_improvements,
                target_lang=target_lang,
                writing_style=writing_style,
                tone=tone,
            )
        )

    def correct(self, texts: Sequence[str], *, target_lang: str | None = None) -> tuple[Improvement, ...]:
        """Correct texts with minimal rewording (``POST /v2/write/correct``)."""
        return self._call(requests.write("correct", texts, parse.parse_improvements, target_lang=target_lang))

    # --- Languages, usage, translation memories ---------------------------------------------

    def languages(self, resource: str = "translate_text", include: Sequence[str] = ()) -> tuple[Language, ...]:
        """Languages and their features for one resource (``GET /v3/languages``)."""
        limits.check_choice("resource", resource, protocol.LANGUAGE_RESOURCES)
        for value in include:
            limits.check_choice("include", value, protocol.LANGUAGE_INCLUDES)
        query = [("resource", resource), *(("include", value) for value in include)]
        return self._call(requests.get("/v3/languages", parse.parse_languages, query))

    def language_resources(self) -> tuple[LanguageResource, ...]:
        """Resources and which sides their features need (``GET /v3/languages/resources``)."""
        return self._call(requests.get("/v3/languages/resources", parse.parse_language_resources))

    def languages_v2(self, type: Literal["source", "target"] = "source") -> tuple[LanguageV2, ...]:
        """The deprecated language listing (``GET /v2/languages``)."""
        limits.check_choice("type", type, ("source", "target"))
        return self._call(requests.get("/v2/languages", parse.parse_languages_v2, [("type", type)]))

    def usage(self) -> Usage:
        """Characters used in the current period (``GET /v2/usage``)."""
        return self._call(requests.get("/v2/usage", parse.parse_usage))

    def translation_memories(self) -> tuple[TranslationMemory, ...]:
        """The account's translation memories (``GET /v3/translation_memories``), every page of them."""
        return self._run(self._memory_pages())

    def _memory_pages(self) -> Flow[tuple[TranslationMemory, ...]]:
        # A short page ends the listing, and so does one with nothing new: a service that does not
        # page answers every page with the whole list.
        found: dict[str, TranslationMemory] = {}
        size = protocol.MEMORY_PAGE_SIZE_MAX
        page = 0
        while True:
            query = [("page", str(page)), ("page_size", str(size))]
            call = requests.get("/v3/translation_memories", parse.parse_translation_memories, query)
            batch = yield from retrying(call, self._retry, self._clock, paced=self._paced)
            new = [m for m in batch if m.translation_memory_id not in found]
            found.update((m.translation_memory_id, m) for m in new)
            if len(batch) < size or not new:
                return tuple(found.values())
            page += 1

    # --- Administration (admin key) ---------------------------------------------------------

    def create_developer_key(self, label: str | None = None) -> DeveloperKey:
        """Create a developer key (``POST /v2/admin/developer-keys``); the service labels it when ``label`` is None."""
        body = {} if label is None else {"label": label}
        return self._call(requests.send_json("POST", "/v2/admin/developer-keys", body, parse.parse_developer_key))

    def list_developer_keys(self) -> tuple[DeveloperKey, ...]:
        """All developer keys, active and deactivated."""
        return self._call(requests.get("/v2/admin/developer-keys", parse.parse_developer_keys))

    def deactivate_developer_key(self, key_id: str) -> DeveloperKey:
        """Deactivate a key for good."""
        body = {"key_id": key_id}
        return self._call(
            requests.send_json("PUT", "/v2/admin/developer-keys/deactivate", body, parse.parse_developer_key)
        )

    def label_developer_key(self, key_id: str, label: str) -> DeveloperKey:
        """Rename a key."""
        body = {"key_id": key_id, "label": label}
        return self._call(requests.send_json("PUT", "/v2/admin/developer-keys/label", body, parse.parse_developer_key))

    def set_developer_key_limits(
        self, key_id: str, characters: int | None, *, speech_to_text_milliseconds: int | None = _UNSET
    ) -> DeveloperKey:
        """Set a key's monthly character limit (None: unlimited, 0: none at all) and optionally its voice limit."""
        for name, value in (("characters", characters), ("speech_to_text_milliseconds", speech_to_text_milliseconds)):
            if value is not None and value is not _UNSET and value < 0:
                raise ClientLimitError(f"{name}={value} must not be negative")
        body: dict[str, object] = {"key_id": key_id, "characters": characters}
        if speech_to_text_milliseconds is not _UNSET:
            body["speech_to_text_milliseconds"] = speech_to_text_milliseconds
        return self._call(requests.send_json("PUT", "/v2/admin/developer-keys/limits", body, parse.parse_developer_key))

    def custom_tag_usage(
        self,
        start_date: date | str,
        end_date: date | str,
        *,
        aggregate_by: Literal["period", "day"] = "period",
        page: int | None = None,
    ) -> CustomTagUsageReport:
        """One page of usage per reporting tag (``GET /v2/admin/analytics/custom-tags``)."""
        limits.check_choice("aggregate_by", aggregate_by, ("period", "day"))
        limits.check_date_range(start_date, end_date)
        query = [("start_date", str(start_date)), ("end_date", str(end_date)), ("aggregate_by", aggregate_by)]
        if page is not None:
            query.append(("page", str(page)))
        return self._call(requests.get("/v2/admin/analytics/custom-tags", parse.parse_custom_tag_usage_report, query))


def _document_status_call(handle: DocumentHandle) -> Call[DocumentStatus]:
    body = requests.document_key_body(handle.document_key)
    return requests.send_json("POST", f"/v2/document/{segment(handle.document_id)}", body, parse.parse_document_status)


def _document_result_call(handle: DocumentHandle) -> Call[bytes]:
    body = requests.document_key_body(handle.document_key)
    return requests.send_json(
        "POST",
        f"/v2/document/{segment(handle.document_id)}/result",
        body,
        _identity,
        "bytes",
        requests.DOCUMENT_ANSWER_BYTES,
    )


def _identity(value: T) -> T:
    return value
