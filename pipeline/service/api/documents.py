"""The three document endpoints under ``/v2/document``: upload, status, result.

Status and result take ``document_key`` in a JSON or URL-encoded body. A document id that does
not exist, was already downloaded, or belongs to another account answers 404 (so ids of other
accounts cannot be probed); a known id with a missing key is 400 and with a wrong key 403.
The result of a job still ``queued``/``translating`` answers 503 with ``Retry-After`` (as a
document that is not ready yet); of a job in ``error`` 409 with the job's message. The result
is sent with the media type of its format and a ``Content-Disposition`` naming the file; billing
happens at that moment (456 when the key's limit would be exceeded; the job then stays).

Upload status codes: 415 when the body is not ``multipart/form-data``; 413 over
:data:`MAX_UPLOAD_BYTES`; 400 for a malformed form, a missing ``file`` or ``target_lang``, a file
name with a directory part (path traversal), an unsupported or refused file type, a part type
that contradicts the name, a file whose content is not what its name says (including unsafe ZIP
packages and XML with a DOCTYPE), an impossible ``output_format``, and every language, formality,
glossary, style and memory rule of text translation; 404 for a glossary, style rule list or
translation memory the account does not have. ``model_type`` is accepted and ignored.
"""

from __future__ import annotations

import asyncio
import urllib.parse
import uuid
from collections.abc import AsyncGenerator
from typing import NamedTuple

from python_multipart.multipart import parse_options_header
from starlette.datastructures import FormData, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.protocol import FORMALITIES, TM_THRESHOLD_DEFAULT, TM_THRESHOLD_MAX, TM_THRESHOLD_MIN
from pipeline.service import languages
from pipeline.service.api.lookups import glossary_entries, memory_index, style_for
from pipeline.service.api.translate_params import (
    LATENCY,
    QUALITY,
    effective_formality,
    source_language,
    target_language,
)
from pipeline.service.documents import formats
from pipeline.service.documents.base import DocumentError
from pipeline.service.documents.jobs import DocumentJobs
from pipeline.service.echo import echo
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import (
    LEGACY_AUTH_MESSAGE,
    LEGACY_AUTH_PARAM,
    Params,
    media_type,
    read_body,
    whole_number,
)
from pipeline.service.http.responses import ApiError, bad_request, json_response, quota_exceeded
from pipeline.service.state import service_of
from pipeline.service.store.jobs import DONE, ERROR, TRANSLATING, JobSpec, JobView
from pipeline.service.store.metering import period_of
from pipeline.service.store.resources import Lookups

#: Document formality: as text translation but without ES-419 (spec, document translation).
FORMALITY_TARGETS = frozenset(
    e.language.v2 for e in languages.resource_entries(languages.DOCUMENT) if "formality" in e.features
)
#: Largest request body of an upload (the spec leaves the limit open).
MAX_UPLOAD_BYTES = 30 * 1024 * 1024
MAX_FILENAME_CHARS = 255
_FIELDS = frozenset(
    {
        "file",
        "filename",
        "source_lang",
        "target_lang",
        "formality",
        "glossary_id",
        "output_format",
        "style_id",
        "translation_memory_id",
        "translation_memory_threshold",
        "model_type",
    }
)


class Upload(NamedTuple):
    """The file of an upload: its checked name, its part's content type, its bytes."""

    filename: str
    content_type: str
    data: bytes


class _UploadParser(MultiPartParser):
    """Starlette's multipart parser, with the part named ``file`` always read as a file.

    The spec lets the file name come "in the part's content disposition or in ``filename``"; a part
    without a ``filename`` option is a plain text field to Starlette, refused here and decoded as
    text (a binary document cannot be recovered from that), so it is given an empty one.
    """

    def on_headers_finished(self) -> None:
        disposition = self._current_part.content_disposition
        if disposition is not None:  # without one, Starlette refuses the part
            _, options = parse_options_header(disposition)
            if options.get(b"name") == b"file" and b"filename" not in options:
                self._current_part.content_disposition = disposition + b'; filename=""'
        super().on_headers_finished()


async def read_form(request: Request, body: bytes) -> FormData:
    """The multipart form of an already-read body (400 when malformed)."""

    async def stream() -> AsyncGenerator[bytes, None]:
        yield body

    parser = _UploadParser(request.headers, stream(), max_files=1, max_fields=len(_FIELDS) + 4, max_part_size=64 * 1024)
    try:
        return await parser.parse()
    except MultiPartException as exc:
        raise bad_request(exc.message) from None


def check_filename(name: str) -> str:
    """A plain file name, or 400 (directories, traversal, control characters, length)."""
    if not name or not name.strip():
        raise bad_request("the file name is empty; send it in the file part or in 'filename'")
    if "/" in name or "\\" in name or name in (".", "..") or ":" in name[:2]:
        raise bad_request(
            f"file name {echo(name)} has a directory part; send a plain file name (path traversal refused)"
        )
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
        raise bad_request("the file name holds control characters")
    if len(name) > MAX_FILENAME_CHARS:
        raise bad_request(f"the file name has {len(name)} characters; at most {MAX_FILENAME_CHARS} are allowed")
    return name


def string_part(form: FormData, name: str) -> str | None:
    """A plain form field given at most once, or None."""
    values = form.getlist(name)
    if not values:
        return None
    if len(values) > 1:
        raise bad_request(f"part '{name}' may be given only once")
    value = values[0]
    if not isinstance(value, str):
        raise bad_request(f"part '{name}' must be a plain form field, not a file")
    return value


async def read_upload(form: FormData) -> Upload:
    """The file part and its name; 400 when missing or malformed."""
    if LEGACY_AUTH_PARAM in form:
        raise ApiError(403, LEGACY_AUTH_MESSAGE)
    files = form.getlist("file")
    if not files:
        raise bad_request("part 'file' is required")
    part = files[0]
    if not isinstance(part, UploadFile):
        raise bad_request("part 'file' must be a file part (with a filename in its Content-Disposition)")
    name = string_part(form, "filename") or part.filename or ""
    data = await part.read()
    if not data:
        raise bad_request("the uploaded file is empty")
    return Upload(check_filename(name), part.content_type or "", data)


def _formality(form: FormData, target: languages.Language) -> str:
    value = string_part(form, "formality") or "default"
    if value not in FORMALITIES:
        raise bad_request(f"invalid value {echo(value)} for 'formality'; allowed: {', '.join(FORMALITIES)}")
    supported = target.v2 in FORMALITY_TARGETS
    return effective_formality(value, supported, target, " for documents")


def _threshold(form: FormData) -> int:
    threshold = string_part(form, "translation_memory_threshold")
    if threshold is None:
        return TM_THRESHOLD_DEFAULT
    number = whole_number(threshold)
    if number is None:
        raise bad_request("part 'translation_memory_threshold' must be an integer")
    if not TM_THRESHOLD_MIN <= number <= TM_THRESHOLD_MAX:
        raise bad_request(
            f"translation_memory_threshold must be between {TM_THRESHOLD_MIN} and {TM_THRESHOLD_MAX}, "
            f"got {echo(number)}"
        )
    return number


def _memory_id(form: FormData) -> str | None:
    memory_id = string_part(form, "translation_memory_id")
    if memory_id is not None:
        try:
            uuid.UUID(memory_id)
        except ValueError:
            raise bad_request("part 'translation_memory_id' must be a UUID") from None
    return memory_id


def job_spec(form: FormData, upload: Upload, extensions: tuple[str, str], lookups: Lookups, account_id: str) -> JobSpec:
    """The job an upload asks for; ``extensions`` are the checked input and output extensions.

    Glossary, style rule list and translation memory are checked exactly as in text translation
    (``api.lookups``); the memory is resolved again when the job runs, so only its id is stored.
    """
    target = target_language(string_part(form, "target_lang"))
    source = source_language(string_part(form, "source_lang"))
    for lang, role in ((target, "target_lang"), (source, "source_lang")):
        if lang is not None and languages.entry(languages.DOCUMENT, lang.code) is None:
            raise bad_request(f"{role} {lang.v2!r} is not supported for document translation")
    formality = _formality(form, target)
    glossary: tuple[tuple[str, str], ...] = ()
    glossary_id = string_part(form, "glossary_id")
    if glossary_id is not None:
        glossary = glossary_entries(lookups, account_id, glossary_id, source, target)
    style = None
    style_id = string_part(form, "style_id")
    if style_id is not None:
        style = style_for(lookups, account_id, style_id, target)
    threshold, memory_id = _threshold(form), _memory_id(form)
    if memory_id is not None:
        memory_index(lookups, account_id, memory_id, source, target)
    return JobSpec(
        filename=upload.filename,
        input_format=extensions[0],
        output_format=extensions[1],
        source=None if source is None else source.v2,
        target=target.v2,
        target_code=target.code,
        formality=formality,
        glossary=glossary,
        instructions=() if style is None else tuple(style.instructions),
        style_rules=() if style is None else tuple(style.configured_rules),
        memory_id=memory_id,
        memory_threshold=threshold,
        free=target.status == languages.BETA,
        # Style rules and memories need the next-gen model (text translation rule 5).
        model=QUALITY if style is not None or memory_id is not None else LATENCY,
    )


NOT_READY_RETRY_SECONDS = 1


def jobs_of(request: Request) -> DocumentJobs:
    """The document jobs of the app serving ``request``."""
    jobs: DocumentJobs = request.app.document_jobs()
    return jobs


@guarded(Access.DEVELOPER)
async def upload(request: Request, caller: Caller) -> Response:
    """Accept a document and queue its translation."""
    service = service_of(request)
    key = caller.key
    assert key is not None
    if media_type(request) != "multipart/form-data":
        raise ApiError(415, f"unsupported content type {echo(media_type(request))}; send multipart/form-data")
    body = await read_body(request, MAX_UPLOAD_BYTES)
    form = await read_form(request, body)
    try:
        file = await read_upload(form)
        try:
            found = formats.format_for(file.filename, file.content_type)
            extension = formats.extension_of(file.filename)
            output = formats.output_extension(extension, string_part(form, "output_format"))
        except DocumentError as exc:
            raise bad_request(str(exc)) from None
        spec = job_spec(form, file, (extension, output), service.lookups, key.account_id)
        try:
            await asyncio.to_thread(found.check, file.data)
        except DocumentError as exc:
            raise bad_request(str(exc)) from None
    finally:
        await form.close()
    limit = key.character_limit
    if limit is not None and service.meter.key_total(key.key_id, period_of(service.now())) >= limit:
        raise quota_exceeded()
    document_id, document_key = jobs_of(request).submit(key.account_id, key.key_id, spec, file.data)
    return json_response({"document_id": document_id, "document_key": document_key})


async def _job(request: Request, caller: Caller) -> JobView:
    """The caller's job named in the path, after checking ``document_key``."""
    body = await read_body(request, 64 * 1024)
    params = Params.parse(body, media_type(request))
    document_key = params.string("document_key")
    job = jobs_of(request).get(request.path_params["document_id"])
    if job is None or job.account_id != caller.account.account_id:
        raise ApiError(404, "document not found: unknown id, or its result was already downloaded")
    if not document_key:
        raise bad_request("parameter 'document_key' is required")
    if not job.key_matches(document_key):
        raise ApiError(403, "document_key does not match this document")
    return job


@guarded(Access.DEVELOPER)
async def status(request: Request, caller: Caller) -> Response:
    """The state of a job."""
    job = await _job(request, caller)
    payload: dict[str, object] = {"document_id": job.document_id, "status": job.status}
    if job.status == TRANSLATING and job.seconds_remaining is not None:
        payload["seconds_remaining"] = job.seconds_remaining
    if job.status == DONE:
        payload["billed_characters"] = job.billed_characters
    if job.status == ERROR and job.message:
        # The real service sends both names; the official clients read error_message.
        payload["error_message"] = job.message
        payload["message"] = job.message
    return json_response(payload)


def _disposition(filename: str, extension: str) -> str:
    stem = filename.rsplit(".", 1)[0]
    name = f"{stem}.{extension}"
    ascii_name = name.encode("ascii", "replace").decode("ascii").replace('"', "_").replace("?", "_")
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{urllib.parse.quote(name)}"


@guarded(Access.DEVELOPER)
async def result(request: Request, caller: Caller) -> Response:
    """The translated file, once; the job and its files are gone afterwards."""
    service = service_of(request)
    key = caller.key
    assert key is not None
    job = await _job(request, caller)
    if job.status == ERROR:
        raise ApiError(409, f"the document translation failed, there is nothing to download: {job.message}")
    if job.status != DONE:
        raise ApiError(
            503,
            f"the document is not ready yet (status {job.status}); poll its status and try again",
            {"Retry-After": str(NOT_READY_RETRY_SECONDS)},
        )
    jobs = jobs_of(request)
    content = jobs.result(job.document_id)
    billed = job.billed_characters or 0
    period = period_of(service.now())
    if not service.meter.charge(key.key_id, key.account_id, period, "document", billed, key.character_limit):
        raise quota_exceeded()
    if content is None or not jobs.delete(job.document_id):
        service.meter.refund(key.key_id, period, "document", billed)
        raise ApiError(404, "document not found: its result was already downloaded")
    extension = job.spec.output_format
    return Response(
        content,
        media_type=formats.FORMATS[extension].media_type,
        headers={"Content-Disposition": _disposition(job.spec.filename, extension)},
    )


routes = [
    Route("/document", upload, methods=["POST"]),
    Route("/document/{document_id}", status, methods=["POST"]),
    Route("/document/{document_id}/result", result, methods=["POST"]),
]
