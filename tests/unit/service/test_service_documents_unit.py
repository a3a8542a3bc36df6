"""Document formats with a stand-in translator, hostile packages, and the job worker in-process."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import pytest
from lxml import etree

from pipeline.service.documents import formats, html, ooxml, safezip, text, xliff
from pipeline.service.documents.base import DocumentError
from pipeline.service.engine.pseudo import transliterate
from tests import document_samples as samples
from tests.unit.service.conftest import Clock, Headers, InProcess
from tests.unit.service.documents_support import HeldEngine


class Upper:
    """A translator that upper-cases text outside markup and records what it was sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str | None]] = []

    def __call__(self, texts: Sequence[str], markup: Literal["xml", "html"] | None = None) -> list[str]:
        from pipeline.service.engine.base import MarkupOptions
        from pipeline.service.engine.markup import pieces

        self.sent += [(t, markup) for t in texts]
        options = MarkupOptions(markup) if markup else None
        return ["".join(p.text.upper() if p.translatable else p.text for p in pieces(t, options)) for t in texts]


def test_txt_keeps_lines_and_endings() -> None:
    translated = text.translate_txt(b"Hello\r\n\r\n  world  \nlast", Upper())
    assert translated == b"HELLO\r\n\r\n  WORLD  \nLAST"


def test_txt_keeps_bom_and_refuses_binary() -> None:
    assert text.translate_txt(b"\xef\xbb\xbfhi\n", Upper()) == b"\xef\xbb\xbfHI\n"
    with pytest.raises(DocumentError, match="not valid utf-8"):
        text.check_txt(b"ok \xfa\xfb")


def test_srt_keeps_numbers_and_timings() -> None:
    translator = Upper()
    out = text.translate_srt(samples.srt(2), translator).decode()
    assert "1\n00:00:00,000 --> 00:00:00,900\nHELLO <i>WORLD</i>\nSECOND LINE 0\n" in out
    assert translator.sent[0] == ("Hello <i>world</i>\nSecond line 0", "html")


def test_srt_errors_name_the_line() -> None:
    with pytest.raises(DocumentError, match="srt line 2: expected a timing line"):
        text.check_srt(b"1\nnot a timing\nText\n")
    with pytest.raises(DocumentError, match="srt line 1: expected a cue number"):
        text.check_srt(b"Hello\n")


def test_html_blocks_keep_markup_and_skip_script() -> None:
    translator = Upper()
    out = html.translate_html(samples.html(1), translator).decode()
    assert '<script>var greeting = "Hello";</script>' in out
    assert "<p>PARAGRAPH 0: <b>IMPORTANT</b> OPEN THE SETTINGS PAGE" in out
    assert "<code>make install</code>" in out and "<title>RELEASE NOTES</title>" in out
    assert all(markup == "html" for _, markup in translator.sent)
    assert not any("<p>" in sent for sent, _ in translator.sent)


def test_html_declared_charset_is_kept() -> None:
    page = '<html><head><meta charset="iso-8859-1"></head><body><p>café</p></body></html>'.encode("latin-1")
    assert html.translate_html(page, Upper()) == page.replace("café".encode("latin-1"), "CAFÉ".encode("latin-1"))


@pytest.mark.parametrize("build", [samples.xliff12, samples.xliff21])
def test_xliff_targets_keep_inline_codes(build: Callable[[int], bytes]) -> None:
    out = xliff.translate_xliff(build(1), Upper(), "de")
    root = etree.fromstring(out)
    ns = etree.QName(root).namespace
    targets = root.findall(f".//{{{ns}}}target")
    first = etree.tostring(targets[0], encoding="unicode")
    assert "DELETE" in first and "FOLDER 0" in first
    assert 'id="1"' in first and 'id="2"' in first
    if ns == xliff.NS_12:
        assert [f.get("target-language") for f in root.iter(f"{{{ns}}}file")] == ["de"]
        assert root.find(f".//{{{ns}}}trans-unit[@id='keep']/{{{ns}}}target") is None
        old = root.find(f".//{{{ns}}}trans-unit[@id='old']/{{{ns}}}target")
        assert old is not None and old.text == "SAVE" and old.get("state") == "new"
    else:
        assert root.get("trgLang") == "de"


def test_xliff_lost_markup_is_an_error() -> None:
    def drop_tags(texts: Sequence[str], markup: str | None = None) -> list[str]:
        return ["no tags" for _ in texts]

    with pytest.raises(DocumentError, match="unit 'u0': the translation lost the inline markup"):
        xliff.translate_xliff(samples.xliff12(1), drop_tags, "de")


@pytest.mark.parametrize("data", [samples.external_entity_xliff(), b'<?xml version="1.0"?><xliff version="3.0"/>'])
def test_xliff_refuses_entities_and_unknown_documents(data: bytes) -> None:
    with pytest.raises(DocumentError):
        xliff.check_xliff(data)


def test_docx_runs_keep_their_formatting() -> None:
    import docx as python_docx

    translator = Upper()
    out = ooxml.translate_package(samples.docx(1), "docx", translator)
    document = python_docx.Document(io.BytesIO(out))
    paragraph = document.paragraphs[1]
    assert paragraph.text == "PARAGRAPH 0: IMPORTANT OPEN THE SETTINGS PAGE AND SAVE YOUR CHANGES."
    assert [run.bold for run in paragraph.runs] == [None, True, None]
    assert document.sections[0].header.paragraphs[0].text == "COMPANY CONFIDENTIAL"
    assert document.tables[0].rows[0].cells[1].text == "VALUE"
    # One text per paragraph, its runs as numbered tags; a paragraph of one run is sent bare.
    assert translator.sent == [
        ("Release notes", "xml"),
        (f"<t0>Paragraph 0: </t0><t1>important</t1><t2> {samples.PARAGRAPH}</t2>", "xml"),
        ("Name", "xml"),
        ("Value", "xml"),
        ("Company confidential", "xml"),
    ]


def test_ooxml_copies_every_other_member_unchanged() -> None:
    source = samples.pptx(1)
    out = ooxml.translate_package(source, "pptx", Upper())
    before, after = zipfile.ZipFile(io.BytesIO(source)), zipfile.ZipFile(io.BytesIO(out))
    assert before.namelist() == after.namelist()
    changed = [n for n in before.namelist() if before.read(n) != after.read(n)]
    assert changed and all(n.startswith(("ppt/slides/slide", "ppt/notesSlides/")) for n in changed)


def test_lost_run_tags_put_the_paragraph_in_its_first_run() -> None:
    def flatten(texts: Sequence[str], markup: str | None = None) -> list[str]:
        return [etree.fromstring(f"<r>{t}</r>").xpath("string()").upper() for t in texts]

    import docx as python_docx

    document = python_docx.Document(io.BytesIO(ooxml.translate_package(samples.docx(1), "docx", flatten)))
    runs = document.paragraphs[1].runs
    assert runs[0].text.startswith("PARAGRAPH 0: IMPORTANT") and runs[1].text == ""


def test_zip_bomb_is_refused_before_decompression() -> None:
    with pytest.raises(DocumentError, match="possible zip bomb|declares"):
        formats.FORMATS["docx"].check(samples.zip_bomb(70))


def test_ratio_limit_applies_below_the_size_caps() -> None:
    limits = safezip.Limits(ratio=50, ratio_floor=1024)
    with pytest.raises(DocumentError, match="expands .*-fold"):
        ooxml.check(samples.minimal_docx(**{"word/pad.bin": b"\0" * 200_000}), "docx", limits)


def test_member_count_and_total_caps() -> None:
    many = {f"word/m{i}.xml": "x" for i in range(20)}
    with pytest.raises(DocumentError, match="at most 10 are accepted"):
        ooxml.check(samples.minimal_docx(**many), "docx", safezip.Limits(members=10))
    with pytest.raises(DocumentError, match="in total"):
        ooxml.check(samples.minimal_docx(**many), "docx", safezip.Limits(total_bytes=100))


def test_forged_sizes_end_in_a_clear_error() -> None:
    with pytest.raises(DocumentError, match="cannot be decompressed"):
        ooxml.translate_package(samples.forged_size(), "docx", Upper())


@pytest.mark.parametrize("name", ["../evil.xml", "/etc/passwd", "word\\..\\evil.xml", "C:/x.xml", "a/../../b"])
def test_member_path_traversal_is_refused(name: str) -> None:
    with pytest.raises(DocumentError, match="path traversal|absolute"):
        ooxml.check(samples.minimal_docx(**{name: "x"}), "docx")


def test_entities_inside_a_package_part_are_refused() -> None:
    with pytest.raises(DocumentError, match="word/document.xml.*DOCTYPE"):
        ooxml.translate_package(samples.billion_laughs_docx(), "docx", Upper())


def test_wrong_package_kind_and_non_zip_are_refused() -> None:
    with pytest.raises(DocumentError, match="named .docx but its package holds a PowerPoint presentation"):
        ooxml.check(samples.pptx(1), "docx")
    with pytest.raises(DocumentError, match="not a valid ZIP package"):
        ooxml.check(b"plain text", "xlsx")
    with pytest.raises(DocumentError, match="Content_Types"):
        ooxml.check(samples.package({"word/document.xml": "<x/>"}), "docx")


@pytest.mark.parametrize(
    ("name", "part_type", "message"),
    [
        ("a.pdf", "", "PDF documents are not supported"),
        ("a.doc", "", "save the file as .docx"),
        ("a.png", "", "images are not supported"),
        ("a.exe", "", r"^Failed to get the document_type from the file extension \(a\.exe\)\. Supported here: txt, "),
        ("noextension", "", r"^Failed to get the document_type from the file extension \(noextension\)\."),
        ("a.docx", "image/png", "content type 'image/png' says png"),
    ],
)
def test_refused_types(name: str, part_type: str, message: str) -> None:
    with pytest.raises(DocumentError, match=message):
        formats.format_for(name, part_type)


def test_part_types_that_fit_are_accepted() -> None:
    assert formats.format_for("a.DOCX", "application/octet-stream").extension == "docx"
    assert formats.format_for("a.xlf", "application/x-xliff+xml").extension == "xliff"
    assert formats.format_for("a.srt", "text/plain").extension == "srt"


def test_output_format_rules() -> None:
    assert formats.output_extension("docx", None) == "docx"
    assert formats.output_extension("docx", "DOCX") == "docx"
    assert formats.output_extension("pdf", "docx") == "docx"
    with pytest.raises(DocumentError, match="only pdf input may be converted"):
        formats.output_extension("docx", "pdf")
    with pytest.raises(DocumentError):
        formats.output_extension("html", "htm")


# --- jobs in-process ---------------------------------------------------------------------------


def _upload(client: InProcess, headers: dict[str, str], name: str, data: bytes, **fields: str) -> dict[str, str]:
    response = client.post(
        "/v2/document", files={"file": (name, data)}, data={"target_lang": "DE", **fields}, headers=headers
    )
    assert response.status_code == 200, response.text
    handle: dict[str, str] = response.json()
    return handle


def _status(client: InProcess, headers: dict[str, str], handle: dict[str, str]) -> dict[str, Any]:
    body = {"document_key": handle["document_key"]}
    status: dict[str, Any] = client.post(f"/v2/document/{handle['document_id']}", json=body, headers=headers).json()
    return status


def _wait(client: InProcess, headers: dict[str, str], handle: dict[str, str]) -> dict[str, Any]:
    """The job's status once the worker is done with it."""
    assert client.jobs_ended is not None, "the client was made without jobs_ended"
    client.jobs_ended.wait(handle["document_id"])
    return _status(client, headers, handle)


def test_translating_state_reports_seconds_remaining(
    make_client: Callable[..., InProcess], headers: type[Headers], clock: Clock
) -> None:
    engine = HeldEngine(through=1)
    client = make_client(engine=engine, clock=clock)
    lines = "".join(f"Line {n}\n" for n in range(100))  # two engine requests of 50 texts
    handle = _upload(client, headers.paid, "a.txt", lines.encode())
    engine.reached(2)  # half done, the second half held
    clock.now += dt.timedelta(seconds=10)
    seen = _status(client, headers.paid, handle)
    assert seen == {"document_id": handle["document_id"], "status": "translating", "seconds_remaining": 10}
    engine.release()
    done = _wait(client, headers.paid, handle)
    assert done == {"document_id": handle["document_id"], "status": "done", "billed_characters": len(lines) - 100}


def test_result_before_done_is_503_then_once_only(
    make_client: Callable[..., InProcess], headers: type[Headers]
) -> None:
    engine = HeldEngine()
    client = make_client(engine=engine)
    handle = _upload(client, headers.paid, "a.txt", b"Hello\n")
    engine.reached()
    body = {"document_key": handle["document_key"]}
    early = client.post(f"/v2/document/{handle['document_id']}/result", json=body, headers=headers.paid)
    assert early.status_code == 503 and early.headers["retry-after"] == "1"
    engine.release()
    _wait(client, headers.paid, handle)
    first = client.post(f"/v2/document/{handle['document_id']}/result", json=body, headers=headers.paid)
    assert first.status_code == 200 and first.content.startswith(transliterate("Hello", "DE").encode())
    again = client.post(f"/v2/document/{handle['document_id']}/result", json=body, headers=headers.paid)
    assert again.status_code == 404
    assert _status(client, headers.paid, handle) == {"message": again.json()["message"]}


def test_jobs_survive_a_restart(make_client: Callable[..., InProcess], headers: type[Headers], tmp_path: Path) -> None:
    engine = HeldEngine()
    client = make_client(data_dir=tmp_path, engine=engine)
    handle = _upload(client, headers.paid, "a.txt", b"Hello\n")
    engine.reached()
    assert _status(client, headers.paid, handle)["status"] == "translating"
    client.close()  # the held job is cut off mid-translation
    restarted = make_client(data_dir=tmp_path)
    done = _wait(restarted, headers.paid, handle)
    assert done["status"] == "done"
    result = restarted.post(
        f"/v2/document/{handle['document_id']}/result",
        json={"document_key": handle["document_key"]},
        headers=headers.paid,
    )
    assert result.content == (transliterate("Hello", "DE") + "\n").encode()


def test_equal_languages_end_in_error(client: InProcess, headers: type[Headers]) -> None:
    handle = _upload(client, headers.paid, "a.txt", b"Hello\n", source_lang="DE")
    status = _wait(client, headers.paid, handle)
    message = "Source and target language are equal"
    # Both names, as the real service sends them; the official clients read error_message.
    assert status == {
        "document_id": handle["document_id"],
        "status": "error",
        "message": message,
        "error_message": message,
    }
    result = client.post(
        f"/v2/document/{handle['document_id']}/result",
        json={"document_key": handle["document_key"]},
        headers=headers.paid,
    )
    assert result.status_code == 409 and "Source and target language are equal" in result.json()["message"]


def test_a_document_detected_in_its_target_language_ends_in_error(client: InProcess, headers: type[Headers]) -> None:
    """Without source_lang the document's detected language counts as its source (the official clients' suites)."""
    german_page = "<html><body><p>Das ist ein <b>schöner</b> Tag in Berlin.</p></body></html>".encode()
    for name, data in (("de.txt", b"Protonenstrahl\n"), ("de.html", german_page)):
        handle = _upload(client, headers.paid, name, data)
        status = _wait(client, headers.paid, handle)
        assert (status["status"], status.get("error_message")) == ("error", "Source and target language are equal")
        assert "billed_characters" not in status
    into_french = _wait(
        client, headers.paid, _upload(client, headers.paid, "fr.txt", b"Protonenstrahl\n", target_lang="FR")
    )
    assert into_french["status"] == "done"
    no_letters = _wait(client, headers.paid, _upload(client, headers.paid, "n.txt", b"1, 2, 3\n", target_lang="EN-US"))
    assert no_letters["status"] == "done"


def test_minimum_billing_for_office_documents(client: InProcess, headers: type[Headers]) -> None:
    handle = _upload(client, headers.paid, "a.docx", samples.docx(1))
    assert _wait(client, headers.paid, handle)["billed_characters"] == formats.MINIMUM_BILLED
    small = _upload(client, headers.paid, "a.html", samples.html(1))
    assert _wait(client, headers.paid, small)["billed_characters"] < 1000
