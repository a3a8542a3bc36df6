"""The document formats of the service: what each extension is, how it is checked and translated.

Accepted: ``txt``, ``html``/``htm``, ``srt``, ``xlf``/``xliff`` (1.2 and 2.x), ``docx``,
``pptx``, ``xlsx``. Refused at upload with a 400 that says why (see :data:`REFUSED`): ``doc``
and ``pdf`` (no well-kept Python library rewrites them in place while keeping the layout, and
a text-only rebuild would silently drop it) and the images ``jpg``/``jpeg``/``png`` (they need
OCR and text rendering the local service does not have).

The media type of the uploaded file part is checked against the extension: a type that names
another known format (``image/png`` for a ``.docx``) is refused; generic types such as
``application/octet-stream`` are accepted and the content decides.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

from pipeline.service.documents.base import DocumentError, Translator
from pipeline.service.echo import echo

#: Documents of these kinds are billed at least this many characters (spec, limits).
MINIMUM_BILLED = 50_000
_OFFICE = "application/vnd.openxmlformats-officedocument."
GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream", "application/x-www-form-urlencoded"})


class Format(NamedTuple):
    """One accepted input format."""

    extension: str
    media_type: str
    #: Part media types that are plausible for this format besides the generic ones.
    part_types: frozenset[str]
    check: Callable[[bytes], None]
    #: ``translate(data, translator, target_lang)`` -> translated bytes.
    translate: Callable[[bytes, Translator, str], bytes]
    minimum_billed: int = 0


def _module(name: str) -> ModuleType:
    """A format's module, loaded when a document of it first comes: a service that translates only
    texts (the pipeline's embedded one) loads no document format, nor lxml for them."""
    return importlib.import_module(f"pipeline.service.documents.{name}")


def _call(module: str, function: str) -> Callable[..., Any]:
    return lambda *args: getattr(_module(module), function)(*args)


def _ooxml(extension: str, media_type: str) -> Format:
    return Format(
        extension,
        media_type,
        frozenset({media_type, "application/zip", "application/x-zip-compressed"}),
        lambda data: _module("ooxml").check(data, extension),
        lambda data, translate, _target: _module("ooxml").translate_package(data, extension, translate),
        MINIMUM_BILLED,
    )


_TEXT = frozenset({"text/plain"})
_XML = frozenset({"application/xliff+xml", "application/x-xliff+xml", "application/xml", "text/xml"})
_HTML = Format(
    "html",
    "text/html; charset=utf-8",
    frozenset({"text/html", "application/xhtml+xml"}),
    _call("html", "check_html"),
    lambda data, translate, _target: _module("html").translate_html(data, translate),
)
_XLIFF = Format(
    "xliff", "application/xliff+xml", _XML, _call("xliff", "check_xliff"), _call("xliff", "translate_xliff")
)

FORMATS: dict[str, Format] = {
    "txt": Format(
        "txt",
        "text/plain; charset=utf-8",
        _TEXT,
        _call("text", "check_txt"),
        lambda d, t, _l: _module("text").translate_txt(d, t),
    ),
    "srt": Format(
        "srt",
        "application/x-subrip",
        _TEXT | {"application/x-subrip", "text/srt", "text/vtt"},
        _call("text", "check_srt"),
        lambda d, t, _l: _module("text").translate_srt(d, t),
    ),
    "html": _HTML,
    "htm": _HTML,
    "xlf": _XLIFF,
    "xliff": _XLIFF,
    "docx": _ooxml("docx", _OFFICE + "wordprocessingml.document"),
    "pptx": _ooxml("pptx", _OFFICE + "presentationml.presentation"),
    "xlsx": _ooxml("xlsx", _OFFICE + "spreadsheetml.sheet"),
}

REFUSED: dict[str, str] = {
    "doc": (
        "legacy Word documents (.doc) are not supported by the local service: no well-kept Python "
        "library rewrites them in place; save the file as .docx and upload that"
    ),
    "pdf": (
        "PDF documents are not supported by the local service: no well-kept Python library translates "
        "a PDF in place keeping its layout, and a text-only rebuild would silently lose it; upload the "
        "source document (docx, pptx, xlsx, html) instead"
    ),
    **dict.fromkeys(
        ("jpg", "jpeg", "png"),
        "images are not supported by the local service: translating them needs text recognition (OCR) "
        "and rendering it does not have",
    ),
}
_REFUSED_TYPES = {"doc": "application/msword", "pdf": "application/pdf"}
#: Every media type that identifies one format for sure (to spot a part type that contradicts the name).
_KNOWN_TYPES = {
    **{t: ext for ext, f in FORMATS.items() for t in f.part_types if t not in _TEXT and t not in _XML},
    **{t: ext for ext, t in _REFUSED_TYPES.items()},
    "image/png": "png",
    "image/jpeg": "jpg",
}


def extension_of(filename: str) -> str:
    """The lower-case extension of ``filename`` ('' when it has none)."""
    stem, dot, extension = filename.rpartition(".")
    return extension.lower() if dot and stem else ""


def format_for(filename: str, part_type: str) -> Format:
    """The format of an upload; DocumentError for a refused, unknown or contradicting one."""
    extension = extension_of(filename)
    if extension in REFUSED:
        raise DocumentError(REFUSED[extension])
    found = FORMATS.get(extension)
    if found is None:
        # The real service's sentence first: clients show it to users as it is.
        raise DocumentError(
            f"Failed to get the document_type from the file extension ({filename}). "
            f"Supported here: {', '.join(FORMATS)} (refused with a reason: {', '.join(REFUSED)})"
        )
    part_type = part_type.split(";", 1)[0].strip().lower()
    if part_type not in GENERIC_TYPES and part_type not in found.part_types and part_type in _KNOWN_TYPES:
        raise DocumentError(
            f"the file part's content type {echo(part_type)} says {_KNOWN_TYPES[part_type]}, "
            f"but the file name says {extension}; send the right type or application/octet-stream"
        )
    return found


def output_extension(input_extension: str, output_format: str | None) -> str:
    """The result's extension; DocumentError unless it is the input's (or pdf -> docx)."""
    if output_format is None:
        return input_extension
    wanted = output_format.strip().lower().lstrip(".")
    if wanted == input_extension:
        return wanted
    if (input_extension, wanted) == ("pdf", "docx"):
        return wanted
    raise DocumentError(
        f"output_format {echo(output_format)} is not possible for a .{input_extension} document: "
        "only pdf input may be converted (to docx); other documents keep their format"
    )
