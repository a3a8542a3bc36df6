"""Where elements are in an XML document's text, so edits can be spliced into the original bytes.

lxml knows the structure but not where each element starts and ends in the file, and writing
its tree back changes bytes nobody asked to change (quotes, the declaration, namespace
declarations, character references). So the XLIFF adapter reads the structure with the one safe
parser (:func:`pipeline.safexml.parse`) and the positions with :func:`element_spans`, a tokenizer
that is only ever run on text that parser has already accepted as well-formed; the adapter then
checks the two agree element by element before it trusts a single offset.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping
from typing import NamedTuple, cast

_TOKEN = re.compile(
    r"""
      <!--.*?-->
    | <!\[CDATA\[.*?\]\]>
    | <\?.*?\?>
    | </(?P<end>[^\s>]+)\s*>
    | <(?P<start>[^\s/>!?]+)(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*(?P<empty>/)?>
    """,
    re.S | re.X,
)
_ATTR = re.compile(r"""(\s+)([^\s=/>]+)(\s*=\s*)(["'])(.*?)\4""", re.S)
_TAG_END = re.compile(r"\s*/?>$")
_DECLARED = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']""")


class Span(NamedTuple):
    """One element's place in the text (character offsets, end exclusive; lines 1-based)."""

    name: str  # qualified name as written, prefix included
    start: int  # the start tag's "<"
    open_end: int  # just after the start tag
    close_start: int  # the end tag's "<" (== open_end for an empty-element tag)
    end: int  # just after the element
    line: int

    @property
    def empty(self) -> bool:
        """Written as a single empty-element tag (``<target/>``)."""
        return self.open_end == self.end

    @property
    def prefix(self) -> str:
        """``"xlf:"`` for ``<xlf:source>``, ``""`` for ``<source>``."""
        head, colon, _ = self.name.rpartition(":")
        return head + colon


def element_spans(text: str) -> list[Span]:
    """Every element of a well-formed document, in document order (the order of lxml's ``iter()``)."""
    spans: list[Span | None] = []
    open_: list[tuple[int, str, int, int, int]] = []  # (slot, name, start, open_end, line)
    line, counted = 1, 0
    for token in _TOKEN.finditer(text):
        name = token.group("start")
        if name is None and token.group("end") is None:
            continue
        line += text.count("\n", counted, token.start())
        counted = token.start()
        if name is not None:
            if token.group("empty"):
                spans.append(Span(name, token.start(), token.end(), token.end(), token.end(), line))
            else:
                open_.append((len(spans), name, token.start(), token.end(), line))
                spans.append(None)
        else:
            slot, name, start, open_end, first_line = open_.pop()
            spans[slot] = Span(name, start, open_end, token.start(), token.end(), first_line)
    if open_ or any(s is None for s in spans):
        raise ValueError("unbalanced tags")
    return cast(list[Span], spans)  # no None left: checked just above


def decode(data: bytes, declared: str | None) -> tuple[str, str]:
    """``(text, codec)`` such that ``text.encode(codec) == data``; ValueError when no codec gives that."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):  # before UTF-16 LE's, which starts its LE one
        codec = "utf-32-le" if data.startswith(codecs.BOM_UTF32_LE) else "utf-32-be"
    elif data.startswith(codecs.BOM_UTF16_LE):
        codec = "utf-16-le"  # explicit byte order keeps the BOM as a character, so it is written back as read
    elif data.startswith(codecs.BOM_UTF16_BE):
        codec = "utf-16-be"
    else:
        found = _DECLARED.match(data)
        name = found.group(1).decode("ascii") if found else (declared or "utf-8")
        try:
            codec = codecs.lookup(name).name
        except LookupError:
            raise ValueError(f"unknown encoding {name!r}") from None
        if codec == "utf-8-sig":
            codec = "utf-8"
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        raise ValueError(f"not valid {codec}: {exc.reason}") from None
    if text.encode(codec) != data:
        raise ValueError(f"its {codec} bytes would not be written back identically")
    return text, codec


def set_attributes(start_tag: str, values: Mapping[str, str | None]) -> str:
    """``start_tag`` (``<name ...>`` or ``<name .../>``) with ``values`` set (None: removed), other bytes as written."""
    end, tag_name = _TAG_END.search(start_tag), re.match(r"<[^\s/>]+", start_tag)
    if end is None or tag_name is None:
        raise ValueError(f"not a start tag: {start_tag!r}")
    head_end, name_end = len(start_tag) - len(end.group()), tag_name.end()
    attrs = start_tag[name_end:head_end]
    left = dict(values)
    first = _ATTR.search(attrs)
    quote = first.group(4) if first else '"'  # new attributes follow the tag's own quoting
    pieces: list[str] = []
    last = 0
    for found in _ATTR.finditer(attrs):
        space, name, equals, q, _ = found.groups()
        if name in left:
            value = left.pop(name)
            pieces.append(attrs[last : found.start()])
            if value is not None:
                pieces.append(f"{space}{name}{equals}{q}{escape_attribute(value, q)}{q}")
            last = found.end()
    pieces.append(attrs[last:])
    added = "".join(
        f" {name}={quote}{escape_attribute(value, quote)}{quote}" for name, value in left.items() if value is not None
    )
    return start_tag[:name_end] + "".join(pieces) + added + start_tag[head_end:]


def escape_attribute(value: str, quote: str = '"') -> str:
    """``value`` escaped for an attribute delimited by ``quote``."""
    value = value.replace("&", "&amp;").replace("<", "&lt;")
    return value.replace(quote, "&quot;" if quote == '"' else "&apos;")


def escape_text(text: str) -> str:
    """``text`` escaped for element content."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def leading_indent(text: str, offset: int) -> str:
    """The line break and indentation just before ``offset``, or "" when something else precedes it."""
    start = offset
    while start > 0 and text[start - 1] in " \t\r\n":
        start -= 1
    blank = text[start:offset]
    return blank if "\n" in blank else ""
