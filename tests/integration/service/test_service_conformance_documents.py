"""Conformance over HTTP: document translation (upload, status, result), formats and hostile input."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from lxml import etree

from pipeline.service.engine.pseudo import transliterate
from tests import document_samples as samples
from tests.integration.conftest import LiveService
from tests.integration.service.conftest import DevKey, Keys
from tests.waiting import poll

pytestmark = pytest.mark.integration

UPLOAD = "/v2/document"


def de(text: str) -> str:
    """The pseudo engine's German for ``text``."""
    return transliterate(text, "DE")


#: A JSON body as the service sends it.
Json = dict[str, Any]


def upload(
    http: httpx.Client,
    headers: dict[str, str],
    name: str,
    data: bytes,
    part_type: str = "application/octet-stream",
    **fields: str,
) -> httpx.Response:
    """POST /v2/document; the raw response."""
    return http.post(
        UPLOAD, files={"file": (name, data, part_type)}, data={"target_lang": "DE", **fields}, headers=headers
    )


def start(http: httpx.Client, headers: dict[str, str], name: str, data: bytes, **fields: str) -> dict[str, str]:
    response = upload(http, headers, name, data, **fields)
    assert response.status_code == 200, response.text
    handle: dict[str, str] = response.json()
    assert set(handle) == {"document_id", "document_key"}
    return handle


def status(
    http: httpx.Client, headers: dict[str, str], handle: dict[str, str], key: str | None = None
) -> httpx.Response:
    body = {"document_key": handle["document_key"] if key is None else key}
    return http.post(f"{UPLOAD}/{handle['document_id']}", json=body, headers=headers)


def wait(http: httpx.Client, headers: dict[str, str], handle: dict[str, str]) -> Json:
    """The job's status once it ended (done or error), asked for as a client does."""

    def ended() -> Json | None:
        body: Json = status(http, headers, handle).json()
        assert body["status"] in ("queued", "translating", "done", "error"), body
        if body["status"] == "translating":
            assert isinstance(body["seconds_remaining"], int)
        return body if body["status"] in ("done", "error") else None

    return poll(ended, f"document {handle['document_id']} to end")


def download(http: httpx.Client, headers: dict[str, str], handle: dict[str, str]) -> httpx.Response:
    return http.post(
        f"{UPLOAD}/{handle['document_id']}/result", json={"document_key": handle["document_key"]}, headers=headers
    )


def round_trip(
    http: httpx.Client, headers: dict[str, str], name: str, data: bytes, **fields: str
) -> tuple[httpx.Response, Json]:
    handle = start(http, headers, name, data, **fields)
    done = wait(http, headers, handle)
    assert done["status"] == "done", done
    assert set(done) == {"document_id", "status", "billed_characters"}
    result = download(http, headers, handle)
    assert result.status_code == 200, result.text
    return result, done


# --- round trips --------------------------------------------------------------------------------


def test_docx_round_trip(http: httpx.Client, keys: Keys) -> None:
    import docx as python_docx

    result, done = round_trip(http, keys.paid, "notes.docx", samples.docx(2))
    assert done["billed_characters"] == 50_000  # minimum billing
    assert result.headers["content-type"].startswith("application/vnd.openxmlformats-officedocument.wordprocessingml")
    assert 'filename="notes.docx"' in result.headers["content-disposition"]
    document = python_docx.Document(io.BytesIO(result.content))
    assert document.paragraphs[0].text == f"{de('Release')} {de('notes')}"
    style = document.paragraphs[0].style
    assert style is not None and style.name == "Heading 1"
    assert [r.bold for r in document.paragraphs[1].runs] == [None, True, None]
    assert document.paragraphs[1].runs[1].text == f"{de('important')}"


def test_pptx_round_trip(http: httpx.Client, keys: Keys) -> None:
    import pptx as python_pptx

    result, _ = round_trip(http, keys.paid, "deck.pptx", samples.pptx(2))
    presentation = python_pptx.Presentation(io.BytesIO(result.content))
    slide = presentation.slides[1]
    assert slide.shapes.title.text == f"{de('Quarterly')} {de('review')} 1"
    assert slide.notes_slide.notes_text_frame.text == f"{de('Speak')} {de('slowly')}."
    assert len(presentation.slides) == 2


def test_xlsx_round_trip_keeps_numbers_and_formulas(http: httpx.Client, keys: Keys) -> None:
    import openpyxl

    result, _ = round_trip(http, keys.paid, "prices.xlsx", samples.xlsx(3))
    sheet = openpyxl.load_workbook(io.BytesIO(result.content))["Prices"]
    assert sheet["A1"].value == f"{de('Product')}" and sheet["A1"].font.bold
    assert sheet["A2"].value == f"{de('Blue')} {de('chair')} 0" and sheet["B2"].value == 10
    assert sheet["B10"].value == "=SUM(B2:B4)"


def test_html_round_trip(http: httpx.Client, keys: Keys) -> None:
    result, done = round_trip(http, keys.paid, "page.html", samples.html(2))
    page = result.content.decode()
    assert result.headers["content-type"].startswith("text/html")
    assert f"<p>{de('Paragraph')} 0: <b>{de('important')}</b>" in page and "<code>make install</code>" in page
    title = etree.HTML(result.content).find(".//title")
    assert title is not None and title.text == f"{de('Release')} {de('notes')}"
    assert done["billed_characters"] < 50_000


def test_srt_round_trip(http: httpx.Client, keys: Keys) -> None:
    result, _ = round_trip(http, keys.paid, "movie.srt", samples.srt(2))
    assert result.content.decode().startswith(f"1\n00:00:00,000 --> 00:00:00,900\n{de('Hello')} <i>{de('world')}</i>\n")


@pytest.mark.parametrize(("name", "build"), [("app.xlf", samples.xliff12), ("app.xliff", samples.xliff21)])
def test_xliff_round_trip(http: httpx.Client, keys: Keys, name: str, build: Callable[[int], bytes]) -> None:
    result, _ = round_trip(http, keys.paid, name, build(2))
    root = etree.fromstring(result.content)
    ns = etree.QName(root).namespace
    target = root.find(f".//{{{ns}}}target")
    assert target is not None and target.text == f"{de('Delete')} "
    assert len(target) == 2


def test_txt_round_trip_and_htm_keeps_its_extension(http: httpx.Client, keys: Keys) -> None:
    result, _ = round_trip(http, keys.paid, "a.txt", b"Hello\n")
    assert result.content == f"{de('Hello')}\n".encode()
    htm, _ = round_trip(http, keys.paid, "b.HTM", b"<p>Hi</p>", output_format="htm")
    assert 'filename="b.htm"' in htm.headers["content-disposition"]


# --- job rules ----------------------------------------------------------------------------------


def test_download_once_then_gone(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    handle = start(http, keys.paid, "a.txt", b"Hello\n")
    wait(http, keys.paid, handle)
    assert download(http, keys.paid, handle).status_code == 200
    assert "already downloaded" in error(download(http, keys.paid, handle), 404)
    assert "not found" in error(status(http, keys.paid, handle), 404)


def test_document_key_checks(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    handle = start(http, keys.paid, "a.txt", b"Hello\n")
    assert "does not match" in error(status(http, keys.paid, handle, key="0" * 64), 403)
    assert "does not match" in error(
        http.post(f"{UPLOAD}/{handle['document_id']}/result", json={"document_key": "x"}, headers=keys.paid), 403
    )
    assert "'document_key' is required" in error(
        http.post(f"{UPLOAD}/{handle['document_id']}", json={}, headers=keys.paid), 400
    )
    assert "not found" in error(status(http, keys.paid, {**handle, "document_id": "0" * 32}), 404)
    form = http.post(
        f"{UPLOAD}/{handle['document_id']}", data={"document_key": handle["document_key"]}, headers=keys.paid
    )
    assert form.status_code == 200 and form.json()["document_id"] == handle["document_id"]


@pytest.mark.parametrize("other", ["free", "other_paid"])
def test_other_accounts_cannot_see_a_document(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], other: str
) -> None:
    handle = start(http, keys.paid, "a.txt", b"Hello\n")
    assert "not found" in error(status(http, getattr(keys, other), handle), 404)
    assert wait(http, keys.paid, handle)["status"] == "done"
    assert "not found" in error(download(http, getattr(keys, other), handle), 404)
    assert download(http, keys.paid, handle).status_code == 200


def test_free_tier_may_translate_documents(http: httpx.Client, keys: Keys) -> None:
    result, _ = round_trip(http, keys.free, "a.txt", b"Hello\n")
    assert result.content == f"{de('Hello')}\n".encode()


def test_equal_languages_end_in_error(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    handle = start(http, keys.paid, "a.txt", b"Hallo\n", source_lang="de", target_lang="DE")
    body = wait(http, keys.paid, handle)
    assert body["status"] == "error" and "equal" in body["message"]
    assert "nothing to download" in error(download(http, keys.paid, handle), 409)


def test_a_document_detected_in_its_target_language_ends_in_error(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    """Without source_lang the detected language counts as the source (the official clients' suites)."""
    handle = start(http, keys.paid, "a.txt", b"Protonenstrahl\n", target_lang="DE")
    body = wait(http, keys.paid, handle)
    assert (body["status"], body["error_message"]) == ("error", "Source and target language are equal")
    assert "nothing to download" in error(download(http, keys.paid, handle), 409)


def test_a_style_rule_lists_length_instruction_applies_to_documents(http: httpx.Client, keys: Keys) -> None:
    prompt = {"label": "length", "prompt": "Use no more than 12 characters."}
    style = http.post(
        "/v3/style_rules", json={"name": "l", "language": "de", "custom_instructions": [prompt]}, headers=keys.paid
    )
    style_id = style.json()["style_id"]
    try:
        text = b"I am testing if custom instructions are working correctly.\nShort\n"
        result, _ = round_trip(http, keys.paid, "notes.txt", text, source_lang="EN", style_id=style_id)
        lines = result.content.decode("utf-8").split("\n")
        assert [0 < len(line) <= 12 for line in lines[:2]] == [True, True] and lines[2:] == [""]
    finally:
        http.delete(f"/v3/style_rules/{style_id}", headers=keys.paid)


def test_billing_happens_at_download(http: httpx.Client, new_key: Callable[..., DevKey]) -> None:
    key = new_key()
    handle = start(http, key.headers, "a.txt", b"Hello world\n")
    assert wait(http, key.headers, handle)["billed_characters"] == 11
    assert http.get("/v2/usage", headers=key.headers).json()["api_key_character_count"] == 0
    download(http, key.headers, handle)
    assert http.get("/v2/usage", headers=key.headers).json()["api_key_character_count"] == 11


def test_key_limit_refuses_download_and_upload(
    http: httpx.Client, keys: Keys, new_key: Callable[..., DevKey], error: Callable[[httpx.Response, int], str]
) -> None:
    key = new_key()
    http.put("/v2/admin/developer-keys/limits", json={"key_id": key.key_id, "characters": 5}, headers=keys.admin)
    handle = start(http, key.headers, "a.txt", b"Hello world\n")
    wait(http, key.headers, handle)
    assert "quota exceeded" in error(download(http, key.headers, handle), 456)
    http.put("/v2/admin/developer-keys/limits", json={"key_id": key.key_id, "characters": 11}, headers=keys.admin)
    assert download(http, key.headers, handle).status_code == 200
    assert "quota exceeded" in error(upload(http, key.headers, "b.txt", b"More\n"), 456)


# --- upload rules -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"target_lang": "XX"}, "target_lang 'XX' is not supported"),
        ({"source_lang": "EN-GB"}, "source_lang 'EN-GB' is not supported"),
        ({"formality": "more", "target_lang": "ES-419"}, "Target language 'ES-419' does not support formality for"),
        ({"formality": "polite"}, "invalid value 'polite' for 'formality'"),
        ({"glossary_id": "6b9e6b4e-7c71-4b7e-8f6e-0d6a4c0a1b2c"}, "glossary_id requires source_lang"),
        ({"translation_memory_threshold": "101"}, "between 0 and 100"),
        ({"translation_memory_id": "not-a-uuid"}, "must be a UUID"),
        ({"output_format": "pdf"}, "only pdf input may be converted"),
    ],
)
def test_parameter_rules(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], fields: dict[str, str], message: str
) -> None:
    assert message in error(upload(http, keys.paid, "a.txt", b"Hello\n", **fields), 400)


def test_unknown_resources_are_404(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    unknown = "6b9e6b4e-7c71-4b7e-8f6e-0d6a4c0a1b2c"
    assert "not found" in error(upload(http, keys.paid, "a.txt", b"x", source_lang="EN", glossary_id=unknown), 404)
    assert "not found" in error(upload(http, keys.paid, "a.txt", b"x", style_id=unknown), 404)
    assert "not found" in error(upload(http, keys.paid, "a.txt", b"x", translation_memory_id=unknown), 404)


def test_prefer_formality_falls_back_and_model_type_is_ignored(http: httpx.Client, keys: Keys) -> None:
    result, _ = round_trip(
        http, keys.paid, "a.txt", b"Hello\n", target_lang="EN-GB", formality="prefer_more", model_type="anything"
    )
    assert result.status_code == 200


def test_filename_part_and_missing_parts(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    named = http.post(
        UPLOAD, files={"file": ("blob", b"Hello\n")}, data={"target_lang": "DE", "filename": "a.txt"}, headers=keys.paid
    )
    assert named.status_code == 200, named.text
    assert "part 'file' is required" in error(
        http.post(UPLOAD, files={"x": ("a.txt", b"x")}, data={"target_lang": "DE"}, headers=keys.paid), 400
    )
    assert "target_lang' is required" in error(
        http.post(UPLOAD, files={"file": ("a.txt", b"x")}, headers=keys.paid), 400
    )
    assert "empty" in error(upload(http, keys.paid, "a.txt", b""), 400)


def multipart_without_file_name(fields: dict[str, str], data: bytes) -> tuple[bytes, str]:
    """A multipart body whose ``file`` part has no ``filename`` in its Content-Disposition; body and its type."""
    boundary = "spec-boundary-7f3a"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{n}"\r\n\r\n{v}\r\n'.encode() for n, v in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + data
        + b"\r\n"
    )
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def test_the_file_name_may_come_in_the_filename_part_alone(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    """Spec: the file name is "in the part's content disposition or in filename". A file part without one
    was refused (400 "must be a file part"), and its bytes would have been decoded as text."""
    package = samples.docx(2)
    body, content_type = multipart_without_file_name({"target_lang": "DE", "filename": "notes.docx"}, package)
    response = http.post(UPLOAD, content=body, headers={**keys.paid, "Content-Type": content_type})
    assert response.status_code == 200, response.text
    handle: dict[str, str] = response.json()
    assert wait(http, keys.paid, handle)["status"] == "done"
    result = download(http, keys.paid, handle)
    assert 'filename="notes.docx"' in result.headers["content-disposition"]
    assert zipfile.ZipFile(io.BytesIO(result.content)).testzip() is None
    nameless, content_type = multipart_without_file_name({"target_lang": "DE"}, b"Hello\n")
    refused = http.post(UPLOAD, content=nameless, headers={**keys.paid, "Content-Type": content_type})
    assert "file name is empty" in error(refused, 400)


def test_not_multipart_is_415(http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]) -> None:
    assert "multipart/form-data" in error(http.post(UPLOAD, json={"target_lang": "DE"}, headers=keys.paid), 415)


def test_upload_over_the_limit_is_413(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    assert "too large" in error(upload(http, keys.paid, "a.txt", b"a" * (30 * 1024 * 1024 + 1)), 413)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("scan.pdf", "PDF documents are not supported"),
        ("old.doc", "save the file as .docx"),
        ("photo.jpg", "images are not supported"),
        ("photo.jpeg", "images are not supported"),
        ("photo.png", "images are not supported"),
        ("tool.exe", "Failed to get the document_type from the file extension (tool.exe)."),
    ],
)
def test_refused_formats_are_400(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], name: str, message: str
) -> None:
    assert message in error(upload(http, keys.paid, name, b"%PDF-1.7 whatever"), 400)
    if name == "scan.pdf":
        assert message in error(upload(http, keys.paid, name, b"%PDF", output_format="docx"), 400)


# --- hostile input ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../../etc/passwd.txt", "dir/a.txt", "..\\a.txt", "C:\\a.txt"])
def test_path_traversal_in_file_names_is_refused(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], name: str
) -> None:
    if not name.startswith("C:"):  # the multipart parser itself cuts a Windows drive path to its last part
        assert "path traversal" in error(upload(http, keys.paid, name, b"Hello\n"), 400)
    field = http.post(
        UPLOAD, files={"file": ("a.txt", b"Hello\n")}, data={"target_lang": "DE", "filename": name}, headers=keys.paid
    )
    assert "path traversal" in error(field, 400)


def test_zip_bomb_is_refused_at_upload(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    message = error(upload(http, keys.paid, "bomb.docx", samples.zip_bomb(70)), 400)
    assert "word/media/padding.bin" in message and "accepted" in message


def test_traversal_inside_a_package_is_refused(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    data = samples.minimal_docx(**{"../evil.xml": "<x/>"})
    assert "path traversal" in error(upload(http, keys.paid, "a.docx", data), 400)


@pytest.mark.parametrize(
    ("name", "data", "part_type", "message"),
    [
        ("a.docx", samples.package({"a.txt": "x"}), "application/octet-stream", "Content_Types"),
        ("a.docx", b"not a zip at all", "application/octet-stream", "not a valid ZIP package"),
        ("a.xlsx", None, "application/octet-stream", "named .xlsx but its package holds a Word document"),
        ("a.docx", None, "image/png", "content type 'image/png'"),
        ("a.xlf", samples.external_entity_xliff(), "application/xml", "DOCTYPE"),
        ("a.xlf", b"<html/>", "application/xml", "not XLIFF"),
        ("a.srt", b"just text\n", "text/plain", "expected a cue number"),
        ("a.txt", b"\xff\xfe\x00\xd8", "text/plain", "not valid"),
    ],
)
def test_wrong_content_is_refused(
    http: httpx.Client,
    keys: Keys,
    error: Callable[[httpx.Response, int], str],
    name: str,
    data: bytes | None,
    part_type: str,
    message: str,
) -> None:
    data = samples.docx(1) if data is None else data
    assert message in error(upload(http, keys.paid, name, data, part_type), 400)


def test_unsafe_parts_and_forged_sizes_end_the_job_in_error(http: httpx.Client, keys: Keys) -> None:
    for data, message in (
        (samples.billion_laughs_docx(), "DOCTYPE"),
        (samples.forged_size(), "cannot be decompressed"),
    ):
        handle = start(http, keys.paid, "a.docx", data)
        body = wait(http, keys.paid, handle)
        assert body["status"] == "error" and message in body["message"], body


def test_result_is_a_valid_package_even_with_odd_members(http: httpx.Client, keys: Keys) -> None:
    data = samples.minimal_docx(**{"customXml/item1.xml": "<a>Keep me</a>"})
    result, _ = round_trip(http, keys.paid, "a.docx", data)
    package = zipfile.ZipFile(io.BytesIO(result.content))
    assert package.read("customXml/item1.xml") == b"<a>Keep me</a>"
    assert f"{de('Hello')}".encode() in package.read("word/document.xml")


def test_jobs_and_files_survive_a_restart(launch_service: Callable[..., LiveService], tmp_path: Path) -> None:
    import httpx

    data_dir = tmp_path / "data"
    first = launch_service(data_dir=data_dir)
    headers = {"Authorization": f"Service-Auth-Key {first.auth_key}"}
    with httpx.Client(base_url=first.url, timeout=30) as http:
        handle = start(http, headers, "a.docx", samples.docx(1))
        wait(http, headers, handle)
    assert first.stop() == 0
    second = launch_service(
        data_dir=data_dir, auth_key=first.auth_key, admin_key=first.admin_key, free_auth_key=first.free_auth_key
    )
    with httpx.Client(base_url=second.url, timeout=30) as http:
        assert wait(http, headers, handle)["status"] == "done"
        result = download(http, headers, handle)
        assert result.status_code == 200 and zipfile.ZipFile(io.BytesIO(result.content)).testzip() is None


def test_a_document_nobody_downloads_expires_after_the_retention(
    launch_service: Callable[..., LiveService], error: Callable[[httpx.Response, int], str]
) -> None:
    import httpx

    # When it expires, from its upload or its end, is pinned on a virtual clock by
    # test_service_document_expiry_unit.py; here the flag of `pipeline serve` takes effect.
    service = launch_service(extra_args=("--document-retention-hours", "0.0005"))  # 1.8 seconds
    headers = {"Authorization": f"Service-Auth-Key {service.auth_key}"}
    with httpx.Client(base_url=service.url, timeout=30) as http:
        handle = start(http, headers, "a.txt", b"Hello\n", source_lang="EN")

        def gone() -> httpx.Response | None:
            answer = status(http, headers, handle)
            if answer.status_code == 200:
                assert answer.json()["status"] in ("queued", "translating", "done"), answer.text
                return None
            return answer

        assert "not found" in error(poll(gone, "the document to expire"), 404)
        assert "not found" in error(download(http, headers, handle), 404)


def test_style_rule_list_applies_to_documents_as_to_text(http: httpx.Client, keys: Keys) -> None:
    # Spec: "pass style_id to text or document translation"; the configured rules apply to both.
    curly = {"punctuation": {"apostrophe": "use_curly_apostrophes"}}
    body = {"name": "doc", "language": "de", "configured_rules": curly}
    made = http.post("/v3/style_rules", json=body, headers=keys.paid)
    assert made.status_code == 201, made.text
    style_id = made.json()["style_id"]
    try:
        text = http.post(
            "/v2/translate", json={"text": ["It's here"], "target_lang": "DE", "style_id": style_id}, headers=keys.paid
        ).json()["translations"][0]["text"]
        result, _ = round_trip(http, keys.paid, "a.txt", b"It's here\n", style_id=style_id)
        assert "\u2019" in text and result.content.decode("utf-8") == text + "\n"
    finally:
        http.delete(f"/v3/style_rules/{style_id}", headers=keys.paid)
