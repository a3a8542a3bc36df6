"""The three document endpoints: upload, status, result.

Status and result take ``document_key`` in a JSON or URL-encoded body. A document id that does
not exist, was already downloaded, or belongs to another account answers 404 (so ids of other
accounts cannot be probed); a known id with a missing key is 400 and with a wrong key 403.
The result of a job still ``queued``/``translating`` answers 503 with ``Retry-After`` (as a
document that is not ready yet); of a job in ``error`` 409 with the job's message. The result
is sent with the media type of its format and a ``Content-Disposition`` naming the file; billing
happens at that moment (456 when the key's limit would be exceeded; the job then stays).
"""

from __future__ import annotations

import asyncio
import urllib.parse

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.service.api.document_upload import MAX_UPLOAD_BYTES, job_spec, read_form, read_upload, string_part
from pipeline.service.documents import formats
from pipeline.service.documents.base import DocumentError
from pipeline.service.documents.jobs import DONE, ERROR, TRANSLATING, DocumentJobs, JobView
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.params import Params, media_type, read_body
from pipeline.service.http.responses import ApiError, bad_request, json_response, quota_exceeded
from pipeline.service.state import service_of
from pipeline.service.store.metering import period_of

NOT_READY_RETRY_SECONDS = 1


def jobs_of(request: Request) -> DocumentJobs:
    """The document jobs of the app serving ``request``."""
    jobs: DocumentJobs = request.app.state.documents
    return jobs


@guarded(Access.DEVELOPER)
async def upload(request: Request, caller: Caller) -> Response:
    """Accept a document and queue its translation."""
    service = service_of(request)
    key = caller.key
    assert key is not None
    if media_type(request) != "multipart/form-data":
        raise ApiError(415, f"unsupported content type {media_type(request)!r}; send multipart/form-data")
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


ROUTES = [
    Route("/v2/document", upload, methods=["POST"]),
    Route("/v2/document/{document_id}", status, methods=["POST"]),
    Route("/v2/document/{document_id}/result", result, methods=["POST"]),
]
