"""HTML documents (``html``, ``htm``), translated in place with every byte of markup kept.

The document is cut into blocks at block-level tags (paragraphs, headings, list items, table
cells, ``<br>`` ...), comments, declarations and ignored content (``script``, ``style``,
``code``, ``translate="no"``); each block that holds visible text goes to the engine with
``tag_handling=html``, so inline markup (``<b>``, ``<a href>``) stays inside its sentence. The
file is decoded from its byte-order mark or ``<meta charset>`` (UTF-8 otherwise) and written
back in the same encoding.
"""

from __future__ import annotations

import re

from pipeline.service.documents.base import DocumentError, Translator, decode_text, encode_text
from pipeline.service.echo import echo
from pipeline.service.engine.base import MarkupOptions
from pipeline.service.engine.markup import TOKEN, pieces, visible_text

_HTML = MarkupOptions("html")
_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
#: Tags that end a block of text (a sentence never runs across them).
BLOCK_TAGS = frozenset(
    """address article aside blockquote body br caption dd details dialog div dl dt fieldset figcaption
    figure footer form h1 h2 h3 h4 h5 h6 head header hr html li main nav ol option p pre section
    select summary table tbody td tfoot th thead title tr ul""".split()
)


def _decode(data: bytes) -> tuple[str, str, bytes]:
    declared = _CHARSET.search(data[:4096])
    fallback = declared.group(1).decode("ascii").lower() if declared else None
    return decode_text(data, "html", fallback)


def _splits(piece: str) -> bool:
    """Whether a kept piece ends the current block."""
    match = TOKEN().fullmatch(piece)
    if match is None:
        return True  # ignored content (script, style, code, translate="no")
    name = match.group("name")
    return name is None or name.lower() in BLOCK_TAGS


def _blocks(text: str) -> list[tuple[str, bool]]:
    """(run, translatable) pairs: blocks of text with inline markup, and what lies between them."""
    out: list[tuple[str, bool]] = []
    block: list[str] = []
    for piece in pieces(text, _HTML):
        if piece.translatable or not _splits(piece.text):
            block.append(piece.text)
            continue
        if block:
            out.append(("".join(block), True))
            block = []
        out.append((piece.text, False))
    if block:
        out.append(("".join(block), True))
    # A block counts as the engine will see it: on its own, with visible text.
    return [(run, kind and bool(visible_text(run, _HTML).strip())) for run, kind in out]


def check_html(data: bytes) -> None:
    """Refuse a file whose text cannot be decoded."""
    _decode(data)


def translate_html(data: bytes, translate: Translator) -> bytes:
    """Translate every block with visible text."""
    text, encoding, bom = _decode(data)
    runs = _blocks(text)
    wanted = [i for i, (_, translatable) in enumerate(runs) if translatable]
    done = translate([runs[i][0] for i in wanted], "html")
    for i, translated in zip(wanted, done, strict=True):
        runs[i] = (translated, True)
    try:
        return encode_text("".join(run for run, _ in runs), encoding, bom)
    except LookupError:
        raise DocumentError(f"the html file declares an unknown charset {echo(encoding)}") from None
