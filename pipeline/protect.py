"""Placeholder protection and restoration.

Before a segment is sent, every placeholder (printf and brace fields, HTML tags and entities,
URLs, e-mail addresses, template variables, interior newlines and tabs) is replaced by a
self-closing ``<x id="N"/>`` tag; the request lists ``x`` in ``ignore_tags`` and uses
``tag_handling=xml``, so the placeholder's own text is never sent, billed or translated.
Leading and trailing whitespace is set aside and put back verbatim.

After translation, :func:`restore` puts the placeholders back and refuses (raising
:class:`PlaceholderMismatch`) anything a careful reviewer would refuse: a placeholder missing,
duplicated or unknown; foreign markup; unnamed printf placeholders out of their source order;
HTML tags that were balanced in the source and no longer are.

Which grammars apply comes from the segment's format flags (``python-format``, ``c-format``,
``python-brace-format``, ...); without a flag, only forms that are safe to detect are protected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pipeline.model import Placeholder, Protected

#: Part of every cache key: bump it when the protected form of any text changes.
SCHEME_VERSION = "x-tags/1"
#: The tag name sent in ``ignore_tags``.
TAG = "x"


class PlaceholderMismatch(ValueError):
    """A translation cannot be restored faithfully; ``str(exc)`` is the reason for the report."""


# Each kind: a verbose regex. Order matters: at one position, the first kind listed wins.
_KIND_PATTERNS: dict[str, str] = {
    "html-comment": r"<!--.*?-->",
    "html-tag": r"""</?[A-Za-z][\w:.-]*(?:\s+(?:[^<>"']|"[^"]*"|'[^']*')*)?/?>""",
    "url": r"""\b(?:https?|ftp)://[^\s<>"']*[^\s<>"'.,;:!?)\]]""",
    "email": r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b",
    "template": r"\{\{.*?\}\}|\{%.*?%\}",
    "icu-head": r"\{\s*[A-Za-z_]\w*\s*,\s*(?:plural|select|selectordinal)\s*,(?:\s*offset:\d+)?",
    "icu-case": r"(?:=\d+|\b(?:zero|one|two|few|many|other))\s*\{",
    "icu-close": r"\}",
    "icu-hash": r"\#",
    "ruby-named": r"%\{[A-Za-z_][\w.]*\}",
    "shell-var": r"\$\{[A-Za-z_]\w*\}|\$[A-Z_][A-Z0-9_]*\b",
    "python-printf": r"""%(?:\([^)]*\))?[#0 +\-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsab%]""",
    "c-printf": r"""%(?:\d+\$)?[-+ #0']*(?:\*(?:\d+\$)?|\d+)?(?:\.(?:\*(?:\d+\$)?|\d+))?
                    (?:hh|h|ll|l|L|q|j|z|Z|t|I64|I32|I)?(?:[diouxXeEfFgGaAcCsSpn%]|<PRI[a-zA-Z0-9]+>)""",
    "safe-printf": r"""%(?:\d+\$)?(?:\([A-Za-z_]\w*\))?[-+#0]?\d*(?:\.\d+)?[sdifuxXeEgGc%]""",
    "qt-arg": r"%L?\d{1,2}",
    "brace": r"""\{\{|\}\}|\{[A-Za-z0-9_]*(?:[.\[][^{}\s]*)?(?:![rsa])?(?::[^{}]*)?\}""",
    "safe-brace": r"\{[A-Za-z_]\w*\}|\{\d+\}",
    "entity": r"&(?:[A-Za-z][A-Za-z0-9]*|\#[0-9]+|\#[xX][0-9A-Fa-f]+);",
    "control": r"[\n\t\r\v\f]",
}

_ALWAYS = ("html-comment", "html-tag", "url", "email", "entity", "control")
_BY_FLAG: dict[str, tuple[str, ...]] = {
    "python-format": ("python-printf",),
    "c-format": ("c-printf",),
    "objc-format": ("c-printf",),
    "gcc-internal-format": ("c-printf",),
    "sh-format": ("shell-var",),
    "php-format": ("c-printf",),
    "javascript-format": ("c-printf",),
    "python-brace-format": ("brace",),
    "perl-brace-format": ("brace",),
    "ruby-format": ("ruby-named", "c-printf"),
    "qt-format": ("qt-arg",),
    "kde-format": ("qt-arg",),
    "boost-format": ("c-printf", "qt-arg"),
}
_SAFE = ("template", "ruby-named", "shell-var", "safe-printf", "safe-brace")
_ICU = ("icu-head", "icu-case", "icu-close", "icu-hash")
_ICU_PRESENT = re.compile(r"\{\s*[A-Za-z_]\w*\s*,\s*(?:plural|select|selectordinal)\s*,")
_ORDER = list(_KIND_PATTERNS)
_PRINTF_KINDS = frozenset({"python-printf", "c-printf", "safe-printf"})
_COMPILED: dict[tuple[str, ...], re.Pattern[str]] = {}


def kinds_for(flags: Iterable[str], text: str = "") -> tuple[str, ...]:
    """The placeholder kinds that apply to a segment with these format flags."""
    flags = set(flags)
    kinds: set[str] = set(_ALWAYS)
    grammars = [_BY_FLAG[f] for f in flags if f in _BY_FLAG and f"no-{f}" not in flags]
    for grammar in grammars:
        kinds.update(grammar)
    if not grammars:
        kinds.update(_SAFE)
        if _ICU_PRESENT.search(text):
            kinds.update(_ICU)
    return tuple(k for k in _ORDER if k in kinds)


def _pattern(kinds: tuple[str, ...]) -> re.Pattern[str]:
    pattern = _COMPILED.get(kinds)
    if pattern is None:
        alternatives = "|".join(f"(?P<{k.replace('-', '_')}>{_KIND_PATTERNS[k]})" for k in kinds)
        pattern = _COMPILED[kinds] = re.compile(alternatives, re.VERBOSE | re.DOTALL)
    return pattern


def _is_ordered(kind: str, text: str) -> bool:
    """Unnamed, non-positional printf conversions must keep their relative order."""
    return kind in _PRINTF_KINDS and text != "%%" and "(" not in text and "$" not in text


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_XML_ENTITY = re.compile(r"&(?:(lt|gt|amp|quot|apos)|#([0-9]+)|#[xX]([0-9A-Fa-f]+));")
_XML_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def _xml_char(match: re.Match[str]) -> str:
    name, dec, hexa = match.groups()
    if name:
        return _XML_NAMED[name]
    code = int(dec) if dec else int(hexa, 16)
    return chr(code) if 0 < code <= 0x10FFFF else match.group()


def _xml_unescape(text: str) -> str:
    return _XML_ENTITY.sub(_xml_char, text)


def split_edges(text: str) -> tuple[str, str, str]:
    """``(leading whitespace, core, trailing whitespace)`` of ``text``."""
    core = text.strip()
    if not core:
        return text, "", ""
    start = text.index(core)
    return text[:start], core, text[start + len(core):]


def protect(text: str, flags: Iterable[str] = ()) -> Protected:
    """Replace every placeholder of ``text`` by an ``<x id="N"/>`` tag, ids counted from 1."""
    prefix, core, suffix = split_edges(text)
    pattern = _pattern(kinds_for(flags, core))
    pieces: list[str] = []
    placeholders: list[Placeholder] = []
    last = 0
    for match in pattern.finditer(core):
        if match.start() == match.end():
            continue
        kind = match.lastgroup.replace("_", "-")  # type: ignore[union-attr]
        pieces.append(_xml_escape(core[last:match.start()]))
        ph = Placeholder(len(placeholders) + 1, match.group(), kind, _is_ordered(kind, match.group()))
        placeholders.append(ph)
        pieces.append(f'<{TAG} id="{ph.id}"/>')
        last = match.end()
    pieces.append(_xml_escape(core[last:]))
    return Protected("".join(pieces), tuple(placeholders), prefix, suffix)


_TOKEN = re.compile(
    rf"""<{TAG}\s+id\s*=\s*["'](?P<id>\d+)["']\s*(?:/>|>\s*</{TAG}\s*>)  # a placeholder tag
       |(?P<markup><[^>]*>?)                                              # anything else tag-like""",
    re.VERBOSE,
)


def restore(translated: str, protected: Protected) -> str:
    """Put the placeholders back into a translation of ``protected.text``; verify everything came back."""
    by_id = {ph.id: ph for ph in protected.placeholders}
    # Strip before restoring: a placeholder that stands for whitespace must survive at the edges.
    translated = translated.strip()
    seen: list[Placeholder] = []
    pieces: list[str] = []
    last = 0
    for match in _TOKEN.finditer(translated):
        if match.group("markup") is not None:
            raise PlaceholderMismatch(f"unexpected markup {match.group('markup')!r} in translation")
        ph = by_id.get(int(match.group("id")))
        if ph is None:
            raise PlaceholderMismatch(f"unknown placeholder id {match.group('id')} in translation")
        pieces.append(_xml_unescape(translated[last:match.start()]))
        pieces.append(ph.text)
        seen.append(ph)
        last = match.end()
    pieces.append(_xml_unescape(translated[last:]))
    _verify(seen, protected.placeholders)
    return f"{protected.prefix}{''.join(pieces)}{protected.suffix}"


def _verify(seen: list[Placeholder], expected: tuple[Placeholder, ...]) -> None:
    counts: dict[int, int] = {}
    for ph in seen:
        counts[ph.id] = counts.get(ph.id, 0) + 1
    for ph in expected:
        n = counts.get(ph.id, 0)
        if n == 0:
            raise PlaceholderMismatch(f"placeholder {ph.text!r} missing from translation")
        if n > 1:
            raise PlaceholderMismatch(f"placeholder {ph.text!r} appears {n} times in translation")
    ordered_out = [ph.id for ph in seen if ph.ordered]
    ordered_in = [ph.id for ph in expected if ph.ordered]
    if ordered_out != ordered_in:
        names = ", ".join(ph.text for ph in expected if ph.ordered)
        raise PlaceholderMismatch(f"unnamed placeholders ({names}) reordered; use positional forms to reorder")
    if _tags_balanced(expected) and not _tags_balanced(seen):
        raise PlaceholderMismatch("HTML tags no longer balanced or nested as in the source")


_TAG_NAME = re.compile(r"<(/?)([A-Za-z][\w:.-]*)")
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


def _tags_balanced(placeholders: Iterable[Placeholder]) -> bool:
    stack: list[str] = []
    for ph in placeholders:
        if ph.kind != "html-tag" or ph.text.endswith("/>"):
            continue
        closing, name = _TAG_NAME.match(ph.text).groups()  # type: ignore[union-attr]
        name = name.lower()
        if name in _VOID:
            continue
        if not closing:
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack
