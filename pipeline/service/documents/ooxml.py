"""Office Open XML packages (``docx``, ``pptx``, ``xlsx``), translated in place.

Only text nodes change: every paragraph (Word ``w:p``, PowerPoint ``a:p``) and every string
(Excel shared strings ``si`` and inline strings ``is``) is sent to the engine as one text, its
runs as numbered tags (``<t0>Hello </t0><t1>world</t1>``, ``tag_handling=xml``), and each run
gets its part of the translation back. Run properties, styles, layout, images, formulas and
every other member of the package are copied unchanged, in their original order. Should a
translation lose the run tags, the paragraph's whole text goes into its first run (formatting of
the later runs is then lost for that paragraph only).

Which parts are translated is read from ``[Content_Types].xml``: the main document, headers,
footers, footnotes, endnotes and comments (Word), slides and notes (PowerPoint), shared strings
and worksheets (Excel). Slide masters and layouts are left alone (their text is placeholder
prompts). Untrusted input: the package passes :mod:`safezip` and every XML part
:mod:`pipeline.safexml`.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from typing import NamedTuple
from xml.sax.saxutils import escape

from lxml import etree

from pipeline import safexml
from pipeline.service.documents import safezip
from pipeline.service.documents.base import DocumentError, Translator
from pipeline.service.echo import echo

CONTENT_TYPES = "[Content_Types].xml"
_CT_NS = "http://schemas.openxmlformats.org/package/2006/content-types"
_OFFICE = "application/vnd.openxmlformats-officedocument."
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"

W_NS = (
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "http://purl.oclc.org/ooxml/wordprocessingml/main",
)
A_NS = ("http://schemas.openxmlformats.org/drawingml/2006/main", "http://purl.oclc.org/ooxml/drawingml/main")
S_NS = ("http://schemas.openxmlformats.org/spreadsheetml/2006/main", "http://purl.oclc.org/ooxml/spreadsheetml/main")


class Kind(NamedTuple):
    """One OOXML document kind: its main content type and the content types of its text parts."""

    extension: str
    name: str
    main: str
    parts: frozenset[str]


WORD = Kind(
    "docx",
    "Word document",
    _OFFICE + "wordprocessingml.document.main+xml",
    frozenset(
        _OFFICE + f"wordprocessingml.{p}+xml"
        for p in ("document.main", "header", "footer", "footnotes", "endnotes", "comments")
    ),
)
POWERPOINT = Kind(
    "pptx",
    "PowerPoint presentation",
    _OFFICE + "presentationml.presentation.main+xml",
    frozenset(_OFFICE + f"presentationml.{p}+xml" for p in ("slide", "notesSlide")),
)
EXCEL = Kind(
    "xlsx",
    "Excel workbook",
    _OFFICE + "spreadsheetml.sheet.main+xml",
    frozenset(_OFFICE + f"spreadsheetml.{p}+xml" for p in ("sharedStrings", "worksheet")),
)
KINDS = {kind.extension: kind for kind in (WORD, POWERPOINT, EXCEL)}


def _parse_part(name: str, data: bytes) -> etree._ElementTree:
    try:
        return safexml.parse(data)
    except safexml.UnsafeXmlError as exc:
        raise DocumentError(f"package part {echo(name)} is refused: {exc}") from None


def _content_types(archive: zipfile.ZipFile) -> dict[str, str]:
    """Member name -> content type, from ``[Content_Types].xml``."""
    try:
        info = archive.getinfo(CONTENT_TYPES)
    except KeyError:
        raise DocumentError(f"not an Office Open XML package: {CONTENT_TYPES} is missing") from None
    root = _parse_part(CONTENT_TYPES, safezip.read_member(archive, info)).getroot()
    defaults = {d.get("Extension", "").lower(): d.get("ContentType", "") for d in root.iter(f"{{{_CT_NS}}}Default")}
    overrides = {
        o.get("PartName", "").lstrip("/"): o.get("ContentType", "") for o in root.iter(f"{{{_CT_NS}}}Override")
    }
    types = {}
    for member in archive.infolist():
        name = member.filename
        types[name] = overrides.get(name) or defaults.get(name.rsplit(".", 1)[-1].lower(), "")
    return types


def _open(data: bytes, kind: Kind, limits: safezip.Limits) -> tuple[zipfile.ZipFile, dict[str, str]]:
    try:
        archive = safezip.inspect(data, limits)
        types = _content_types(archive)
    except safezip.PackageError as exc:
        raise DocumentError(f"the {kind.extension} file is refused: {exc}") from None
    mains = set(types.values()) & {k.main for k in KINDS.values()}
    if kind.main not in mains:
        found = next((k for k in KINDS.values() if k.main in mains), None)
        actual = f"a {found.name} ({found.extension})" if found else "no document kind this service knows"
        raise DocumentError(f"the file is named .{kind.extension} but its package holds {actual}")
    return archive, types


def check(data: bytes, extension: str, limits: safezip.Limits = safezip.DEFAULT_LIMITS) -> None:
    """Refuse a package that is unsafe to open or is not the kind its extension says."""
    _open(data, KINDS[extension], limits)[0].close()


def _local(element: etree._Element | None) -> str:
    return etree.QName(element).localname if element is not None and isinstance(element.tag, str) else ""


def _groups(root: etree._Element) -> Iterator[list[etree._Element]]:
    """Lists of text elements that form one text (a paragraph or a string item)."""
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        qname = etree.QName(element)
        if qname.localname == "p" and qname.namespace in (*W_NS, *A_NS):
            tag = f"{{{qname.namespace}}}t"
            # Text of a paragraph nested inside this one (text box) belongs to that paragraph.
            yield [t for t in element.iter(tag) if next(t.iterancestors(element.tag)) is element]
        elif qname.localname in ("si", "is") and qname.namespace in S_NS:
            tag = f"{{{qname.namespace}}}t"
            yield [t for t in element.iter(tag) if _local(t.getparent()) in ("si", "is", "r")]


def _flatten(slots: list[etree._Element]) -> str:
    if len(slots) == 1:
        return escape(slots[0].text or "")
    return "".join(f"<t{i}>{escape(t.text or '')}</t{i}>" for i, t in enumerate(slots))


def _set(slot: etree._Element, text: str) -> None:
    slot.text = text
    if text != text.strip():
        slot.set(XML_SPACE, "preserve")


def _apply(slots: list[etree._Element], translated: str) -> None:
    try:
        result = safexml.parse(f"<r>{translated}</r>".encode()).getroot()
    except safexml.UnsafeXmlError:
        texts = [translated]
    else:
        expected = [f"t{i}" for i in range(len(slots))]
        if [child.tag for child in result] == expected and all(len(child) == 0 for child in result):
            texts = [child.text or "" for child in result]
        else:  # a single run (sent without tags), or the run tags were lost: all text goes to the first run
            texts = ["".join(result.itertext())]
    for slot, text in zip(slots, [*texts, *[""] * (len(slots) - len(texts))], strict=True):
        _set(slot, text)


def translate_package(
    data: bytes, extension: str, translate: Translator, limits: safezip.Limits = safezip.DEFAULT_LIMITS
) -> bytes:
    """The package with every text part translated; all other members copied as they were."""
    kind = KINDS[extension]
    archive, types = _open(data, kind, limits)
    with archive:
        trees: dict[str, etree._ElementTree] = {}
        groups: list[list[etree._Element]] = []
        try:
            for info in archive.infolist():
                if types.get(info.filename) in kind.parts:
                    tree = _parse_part(info.filename, safezip.read_member(archive, info, limits))
                    trees[info.filename] = tree
                    groups.extend(g for g in _groups(tree.getroot()) if g and any((t.text or "").strip() for t in g))
            done = translate([_flatten(g) for g in groups], "xml")
            for slots, translated in zip(groups, done, strict=True):
                _apply(slots, translated)
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w") as package:
                for info in archive.infolist():
                    if info.filename in trees:
                        tree = trees[info.filename]
                        content = etree.tostring(
                            tree, xml_declaration=True, encoding="UTF-8", standalone=tree.docinfo.standalone
                        )
                    else:
                        content = safezip.read_member(archive, info, limits)
                    copy = zipfile.ZipInfo(info.filename, info.date_time)
                    copy.compress_type, copy.external_attr = info.compress_type, info.external_attr
                    package.writestr(copy, content)
        except safezip.PackageError as exc:
            raise DocumentError(f"the {extension} file is refused: {exc}") from None
    return out.getvalue()
