"""Documents for the document-translation tests and benchmark, built in code (small and explicit).

Office files are made with the standard libraries (python-docx, python-pptx, openpyxl: the
``test`` extra) so that what the service reads is what real users upload; the hostile packages
are made by hand with :mod:`zipfile` because no well-behaved writer produces them.
"""

from __future__ import annotations

import io
import struct
import zipfile

PARAGRAPH = "Open the settings page and save your changes."


def docx(paragraphs: int = 3) -> bytes:
    """A Word document: a heading, paragraphs with a bold run, a table, a header."""
    import docx as python_docx

    document = python_docx.Document()
    document.sections[0].header.paragraphs[0].text = "Company confidential"
    document.add_heading("Release notes", level=1)
    for number in range(paragraphs):
        paragraph = document.add_paragraph(f"Paragraph {number}: ")
        paragraph.add_run("important").bold = True
        paragraph.add_run(f" {PARAGRAPH}")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "Name"
    table.rows[0].cells[1].text = "Value"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pptx(slides: int = 2) -> bytes:
    """A presentation: title slides with a subtitle, and speaker notes."""
    import pptx as python_pptx

    presentation = python_pptx.Presentation()
    for number in range(slides):
        slide = presentation.slides.add_slide(presentation.slide_layouts[0])
        slide.shapes.title.text = f"Quarterly review {number}"
        slide.placeholders[1].text = PARAGRAPH
        slide.notes_slide.notes_text_frame.text = "Speak slowly."
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def xlsx(rows: int = 3) -> bytes:
    """A workbook: a header row, text cells, numbers and a formula."""
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Prices"
    sheet.append(["Product", "Price", "Comment"])
    for number in range(rows):
        sheet.append([f"Blue chair {number}", 10 + number, PARAGRAPH])
    sheet["B10"] = "=SUM(B2:B4)"
    sheet["A1"].font = openpyxl.styles.Font(bold=True)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def html(paragraphs: int = 2) -> bytes:
    """An HTML page with inline markup, a script and a code element."""
    body = "".join(f"<p>Paragraph {n}: <b>important</b> {PARAGRAPH}</p>\n" for n in range(paragraphs))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Release notes</title>'
        '<script>var greeting = "Hello";</script></head>\n<body>\n'
        f"{body}<p>Run <code>make install</code> now.<br>Done.</p>\n</body></html>\n"
    ).encode()


def srt(cues: int = 2) -> bytes:
    """A SubRip file with two-line cues and an italic tag."""

    def at(n: int, millis: int) -> str:
        return f"{n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d},{millis:03d}"

    blocks = [f"{n + 1}\n{at(n, 0)} --> {at(n, 900)}\nHello <i>world</i>\nSecond line {n}\n" for n in range(cues)]
    return "\n".join(blocks).encode()


def xliff12(units: int = 2) -> bytes:
    """XLIFF 1.2 with inline codes, a translate="no" unit and an existing target."""
    body = "".join(
        f'<trans-unit id="u{n}"><source>Delete <x id="1"/> files from <g id="2">folder {n}</g>?</source></trans-unit>'
        for n in range(units)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
        '<file original="app" source-language="en" datatype="plaintext"><body>'
        f'{body}<trans-unit id="keep" translate="no"><source>Brand</source></trans-unit>'
        '<trans-unit id="old"><source>Save</source><target state="new">x</target></trans-unit>'
        "</body></file></xliff>\n"
    ).encode()


def xliff21(units: int = 2) -> bytes:
    """XLIFF 2.1 with an inline ph and pc."""
    body = "".join(
        f'<unit id="u{n}"><segment><source>Delete <ph id="1"/> files from <pc id="2">folder {n}</pc>?</source>'
        "</segment></unit>"
        for n in range(units)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xliff version="2.1" xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en">'
        f'<file id="f1">{body}</file></xliff>\n'
    ).encode()


# --- hostile packages ------------------------------------------------------------------------

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    "</Types>"
)
_DOCUMENT = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
    "<w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:body></w:document>"
)


def package(members: dict[str, bytes | str]) -> bytes:
    """A ZIP package with exactly these members (deflated), in this order."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return out.getvalue()


def minimal_docx(document: str | None = None, /, **extra: bytes | str) -> bytes:
    """A hand-made two-part docx; ``document`` replaces word/document.xml."""
    return package(
        {
            "[Content_Types].xml": _CONTENT_TYPES,
            "word/document.xml": document or _DOCUMENT.format(text="Hello"),
            **extra,
        }
    )


def zip_bomb(megabytes: int = 80) -> bytes:
    """A docx whose one extra member inflates from ~100 KB to ``megabytes`` of zeros."""
    return minimal_docx(**{"word/media/padding.bin": b"\0" * (megabytes * 1024 * 1024)})


def forged_size() -> bytes:
    """A docx whose document.xml declares 10 bytes but inflates to far more (headers patched)."""
    data = bytearray(minimal_docx(_DOCUMENT.format(text="Hello " * 2000)))
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = 0
        while (start := data.find(signature, start)) != -1:
            name_length_at = start + (26 if signature == b"PK\x03\x04" else 28)
            (name_length,) = struct.unpack_from("<H", data, name_length_at)
            header = 30 if signature == b"PK\x03\x04" else 46
            name = bytes(data[start + header : start + header + name_length])
            if name == b"word/document.xml":
                struct.pack_into("<I", data, start + offset, 10)
            start += 4
    return bytes(data)


def billion_laughs_docx() -> bytes:
    """A docx whose document.xml defines nested entities."""
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
        "<w:p><w:r><w:t>&lol2;</w:t></w:r></w:p></w:body></w:document>"
    )
    return minimal_docx(laughs)


def external_entity_xliff() -> bytes:
    """XLIFF that tries to read a local file through an external entity."""
    return (
        b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
        b'<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file source-language="en">'
        b'<body><trans-unit id="1"><source>&xxe;</source></trans-unit></body></file></xliff>'
    )
