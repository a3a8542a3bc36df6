"""Tag handling for the engine: which parts of a text are translatable and which are kept.

A small tokenizer rather than an XML parser, because the engine must give back every byte of
markup exactly as it came (attribute quoting, entity spelling, ``<x id="1"/>``), which a
parse-and-serialise round trip does not; and it must accept the ill-formed fragments that real
callers send. The tokens are tags, comments, CDATA sections, processing instructions,
declarations and character/entity references; everything else is text.

Kept byte-identical: every token, and all content of an ignored element (``ignore_tags``; in
HTML mode also ``code``, ``script``, ``style`` and any element with ``translate="no"``).
HTML tag names are matched case-insensitively and void elements (``<br>``) need no end tag;
XML names are case-sensitive.
"""

import re
from collections.abc import Iterator
from typing import NamedTuple

from pipeline.patterns import lazy_regex
from pipeline.service.engine.base import MarkupOptions

#: A character or entity reference, kept whole as a token.
REFERENCE = r"&(?:\#[0-9]+|\#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);"

# Linear time on hostile input: an unterminated comment, CDATA section or processing
# instruction runs to the end of the text (as in HTML parsers) instead of being searched for
# again from every later start, and no other token may contain "<", so a failed attempt never
# scans past the next "<". (Hence a "<" inside a quoted attribute value is not supported; XML
# forbids it anyway.)
TOKEN = lazy_regex(
    r"""
      <!--.*?(?:-->|\Z)                            # comment
    | <!\[CDATA\[.*?(?:\]\]>|\Z)                   # CDATA section
    | <\?.*?(?:\?>|\Z)                             # processing instruction
    | <![A-Za-z][^<>]*>                           # declaration (DOCTYPE)
    | (?P<tag>
        <(?P<close>/)?
        (?P<name>[A-Za-z_:][-\w.:]*)
        (?P<attrs>(?:[^<>"'/]|/(?!>)|"[^"<]*"|'[^'<]*')*)
        (?P<selfclose>/)?>
      )
    | """
    + REFERENCE,
    re.S | re.X,
)

HTML_ALWAYS_IGNORED = frozenset({"code", "script", "style"})
HTML_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
)
_TRANSLATE_NO = lazy_regex(r"""\btranslate\s*=\s*(?:"no"|'no'|no\b)""", re.I)


class Piece(NamedTuple):
    """A run of a text: ``translatable`` text, or markup / ignored content kept as is.

    A named tuple, the cheapest record to make: the engine cuts every text it translates into pieces.
    """

    text: str
    translatable: bool


def _starts_ignored(name: str, attrs: str, ignore: frozenset[str], html: bool) -> bool:
    if name in ignore:
        return True
    return html and (name in HTML_ALWAYS_IGNORED or bool(_TRANSLATE_NO().search(attrs)))


def pieces(text: str, options: MarkupOptions | None) -> Iterator[Piece]:
    """``text`` cut into translatable and kept runs; joining them gives ``text`` back."""
    if options is None or (text and "<" not in text and "&" not in text):  # every token starts with one of them
        yield Piece(text, True)
        return
    html = options.mode == "html"
    ignore = frozenset(t.lower() for t in options.ignore_tags) if html else options.ignore_tags
    ignoring: str | None = None
    depth = 0
    pos = 0
    for match in TOKEN().finditer(text):
        start, end = match.span()
        if start > pos:
            yield Piece(text[pos:start], ignoring is None)
        pos = end
        yield Piece(match.group(), False)
        if match.group("tag") is None:
            continue
        name = match.group("name")
        if html:
            name = name.lower()
        closing = match.group("close") is not None
        empty = match.group("selfclose") is not None or (html and name in HTML_VOID)
        if ignoring is not None:
            if name == ignoring and not empty:
                depth += -1 if closing else 1
                if depth == 0:
                    ignoring = None
        elif not closing and not empty and _starts_ignored(name, match.group("attrs"), ignore, html):
            ignoring, depth = name, 1
    if pos < len(text):
        yield Piece(text[pos:], ignoring is None)


def visible_text(text: str, options: MarkupOptions | None) -> str:
    """The translatable text only (for language detection)."""
    return "".join(p.text for p in pieces(text, options) if p.translatable)
