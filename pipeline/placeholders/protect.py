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

import functools
import re
from collections.abc import Iterable

from pipeline.placeholders import grammar, icu
from pipeline.placeholders.grammars import Grammar, grammars_for, parse
from pipeline.segments import Placeholder, Protected

# SCHEME_VERSION, the version of the protected form made here, is in pipeline.model.
#: The tag name sent in ``ignore_tags``.
TAG = "x"
#: The flag the XLIFF adapter puts on its units: their text is inner XML with inline markup.
XLIFF_INLINE = "xliff-inline"


class PlaceholderMismatch(ValueError):
    """A translation cannot be restored faithfully; ``str(exc)`` is the reason for the report."""


# Each kind: a verbose regex. Order matters: at one position, the first kind listed wins. A format
# flag's directives are not among them: its grammar (pipeline.placeholders.grammars) finds them.
_XML_ATTRS = r"""(?:\s+[^\s=<>/"']+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*"""
_KIND_PATTERNS: dict[str, str] = {
    # XLIFF native code and protected spans (kind "xliff-native") are found by _xliff_protected.
    "xliff-escaped-tag": r"&lt;/?[A-Za-z][\w:.-]*(?:\s(?:(?!&gt;)[^<>])*)?&gt;",
    "xml-special": r"<!\[CDATA\[.*?\]\]>|<\?.*?\?>",
    "html-comment": r"<!--.*?-->",
    "html-tag": r"""</?[A-Za-z][\w:.-]*(?:\s+(?:[^<>"']|"[^"]*"|'[^']*')*)?/?>""",
    "url": r"""\b(?:https?|ftp)://[^\s<>"']*[^\s<>"'.,;:!?)\]]""",
    "email": r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b",
    "template": grammar.TEMPLATE,
    "bracket-markup": grammar.BRACKET_MARKUP,
    "ruby-named": grammar.RUBY_NAMED,
    "dollar-var": grammar.DOLLAR_VARIABLE,
    # Before the printf kind, or %size% would be %s + "ize%".
    "percent-named": grammar.PERCENT_NAMED,
    "safe-printf": grammar.SAFE_PRINTF,
    "safe-brace": grammar.SAFE_BRACE,
    "entity": r"&(?:[A-Za-z][A-Za-z0-9]*|\#[0-9]+|\#[xX][0-9A-Fa-f]+);",
    "control": r"[\n\t\r\v\f]",
}

_ALWAYS = ("html-comment", "html-tag", "url", "email", "entity", "control")
#: Detected without a format flag, where "100%" is just text: only the forms that are safe to detect.
_SAFE = ("template", "bracket-markup", "ruby-named", "dollar-var", "percent-named", "safe-printf", "safe-brace")
_XLIFF = ("xliff-escaped-tag", "xml-special")
_ORDER = list(_KIND_PATTERNS)
#: Kinds that read a printf argument in order when they carry no position or name.
PRINTF_KINDS = frozenset({"safe-printf"})
#: The kind of a format flag's directives ends so: ``c-format``, ``python-brace-format``.
FORMAT_SUFFIX = "-format"
_COMPILED: dict[tuple[str, ...], re.Pattern[str]] = {}


def _flagged(flags: tuple[str, ...]) -> bool:
    """Whether ``flags`` name a format grammar (ICU structure is looked for only where none does)."""
    return bool(grammars_for(flags))


def kinds_for(flags: Iterable[str]) -> tuple[str, ...]:
    """The regex placeholder kinds (besides format directives and ICU structure) these flags select."""
    return _kinds(tuple(flags))


@functools.lru_cache(maxsize=256)
def _kinds(flags: tuple[str, ...]) -> tuple[str, ...]:
    """:func:`kinds_for` worked out once per set of flags: a catalog has a few sets, and thousands of segments."""
    kinds: set[str] = set(_ALWAYS)
    if not _flagged(flags):
        kinds.update(_SAFE)
    if XLIFF_INLINE in flags:
        kinds.update(_XLIFF)
    return tuple(k for k in _ORDER if k in kinds)


def _pattern(kinds: tuple[str, ...]) -> re.Pattern[str]:
    pattern = _COMPILED.get(kinds)
    if pattern is None:
        alternatives = "|".join(f"(?P<{k.replace('-', '_')}>{_KIND_PATTERNS[k]})" for k in kinds)
        pattern = _COMPILED[kinds] = re.compile(alternatives, re.VERBOSE | re.DOTALL)
    return pattern


def _is_ordered(kind: str, text: str) -> bool:
    """Unnamed, non-positional printf conversions must keep their relative order."""
    return kind in PRINTF_KINDS and text != "%%" and "(" not in text and "$" not in text


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
    return text[:start], core, text[start + len(core) :]


def protect(text: str, flags: Iterable[str] = ()) -> Protected:
    """Replace every placeholder of ``text`` by an ``<x id="N"/>`` tag, ids counted from 1."""
    return _protect(text, tuple(flags))


#: Texts whose protected form is kept. A run protects each source when planning and again at the
#: gate (which protects source and translation to compare their placeholders), so the entries must
#: outlast a run's planning; the result is a frozen record, shared safely.
PROTECT_MEMO = 1 << 15


@functools.lru_cache(maxsize=PROTECT_MEMO)
def _protect(text: str, flags: tuple[str, ...]) -> Protected:
    prefix, core, suffix = split_edges(text)
    if TRIGGERS.search(core) is None and not _flagged(flags) and XLIFF_INLINE not in flags:
        # Most texts: no character any regex kind (nor ICU, which needs a brace) starts with, and no
        # format grammar or XLIFF span to look for. What _spans would find: nothing.
        return Protected(_xml_escape(core), (), prefix, suffix)
    pattern = _pattern(kinds_for(flags))
    pieces: list[str] = []
    placeholders: list[Placeholder] = []
    last = 0
    for start, end, kind, ordered in _spans(core, flags, pattern):
        pieces.append(_xml_escape(core[last:start]))
        text = core[start:end]
        ph = _placeholder(len(placeholders) + 1, text, kind, ordered or _is_ordered(kind, text))
        placeholders.append(ph)
        pieces.append(f'<{TAG} id="{ph.id}"/>')
        last = end
    pieces.append(_xml_escape(core[last:]))
    return Protected("".join(pieces), tuple(placeholders), prefix, suffix)


@functools.lru_cache(maxsize=4096)
def _placeholder(number: int, text: str, kind: str, ordered: bool) -> Placeholder:
    """One record for each placeholder alike: a catalog repeats its ``<b>`` and ``%(count)d`` thousands of times."""
    return Placeholder(number, text, kind, ordered)


_MARKUP = re.compile(r"""<(?:[^<>"']|"[^"]*"|'[^']*')*>""")
#: The characters the regex kinds are made of: each kind needs one of them (``<`` ``&`` ``%`` ``{`` ``}``
#: ``$`` ``@``, ``[`` of bracket markup, ``:`` of a URL, a control character), so a text without any
#: holds none of them.
TRIGGERS = re.compile(r"[<&:@{}%$[\n\t\r\v\f]")


def _spans(core: str, flags: tuple[str, ...], pattern: re.Pattern[str]) -> list[tuple[int, int, str, bool]]:
    """``(start, end, kind, ordered)`` of every placeholder of ``core``, in order.

    The directives of the formats the flags name count first (their grammars find them); ICU
    structure counts only where no flag names a format; XLIFF protected spans always count. The
    regex kinds then apply to the text between them.
    """
    native = _xliff_protected(core) if XLIFF_INLINE in flags else []
    fixed: list[tuple[int, int, str, bool]] = []
    grammars = grammars_for(flags)
    if grammars:
        fixed, valid = _directives(core, grammars)
        if not valid:  # not a format string after all: what is safe to detect is protected too
            pattern = _pattern(tuple(k for k in _ORDER if k in set(kinds_for(flags)) | set(_SAFE)))
    else:
        hidden = core
        if XLIFF_INLINE in flags:  # markup may hold braces (Angular's equiv-text="{{n}}"), protected text too
            hidden = _MARKUP.sub(lambda m: " " * len(m.group()), core)
            for start, end in native:
                hidden = hidden[:start] + " " * (end - start) + hidden[end:]
        fixed = [(s.start, s.end, s.kind, False) for s in icu.spans(hidden) or ()]
    # An ICU part never ends inside a blanked span, so a protected span is either inside one or apart.
    fixed += [
        (start, end, "xliff-native", False)
        for start, end in native
        if not any(s <= start < e or s < end <= e for s, e, _, _ in fixed)
    ]
    found: list[tuple[int, int, str, bool]] = []
    last = 0
    searched = TRIGGERS.search(core) is not None  # most texts: nothing any kind could match
    markup_only = XLIFF_INLINE in flags  # in XLIFF every tag is markup; in a PO string only HTML's
    for start, end, kind, ordered in sorted(fixed) + [(len(core), len(core), "", False)]:
        if searched and start >= last:
            for m in pattern.finditer(core, last, start):
                name = m.lastgroup.replace("_", "-")  # type: ignore[union-attr]
                if m.start() != m.end() and (name != "html-tag" or markup_only or _is_html(m.group(), core)):
                    found.append((m.start(), m.end(), name, False))
        if kind and start >= last:
            found.append((start, end, kind, ordered))
            last = end
    return found


def _directives(core: str, grammars: tuple[Grammar, ...]) -> tuple[list[tuple[int, int, str, bool]], bool]:
    """The directives of every format ``grammars`` name (the first grammar's where two overlap), and
    whether every grammar reads ``core`` as a valid format string."""
    spans: list[tuple[int, int, str, bool]] = []
    valid = True
    for each in grammars:
        parsed = parse(each, core, True)
        valid = valid and parsed.invalid is None
        for d in parsed.directives:
            if not any(s < d.end and d.start < e for s, e, _, _ in spans):
                spans.append((d.start, d.end, each.flag, d.ordered))
    return spans, valid


#: HTML's elements: a ``<word>`` that names none and has no attributes is text (``-J<directory>``,
#: ``<new column>``), which the translator may translate; so is one that names an element other than
#: the formatting ones but has neither attributes nor its partner in the text (``-image_base
#: <address>``, ``cp <source> <dest>``).
_HTML_ELEMENTS = frozenset(
    """a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption cite
    code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure
    font footer form h1 h2 h3 h4 h5 h6 head header hr html i iframe img input ins kbd label legend li link
    main map mark meta meter nav noscript object ol optgroup option output p param picture pre progress q
    rp rt ruby s samp script section select small source span strike strong style sub summary sup svg
    table tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr""".split()
)
#: Elements that format running text: markup wherever they appear, a lone ``<strong>`` included (a
#: translation that breaks a pair must still be seen to). Other element names (``<address>``,
#: ``<source>``, ``<option>``) are common words of help texts' metavariables.
_FORMATTING = frozenset(
    """a abbr b big blockquote br cite code del div em font h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p
    pre q s small span strike strong sub sup table td th tr tt u ul wbr""".split()
)
_TAG_PARTS = re.compile(r"<(?P<close>/)?(?P<name>[A-Za-z][\w:.-]*)(?P<rest>[^>]*)>")


def _is_html(tag: str, text: str) -> bool:
    """Whether a tag-like ``<...>`` of a PO string ``text`` is markup: attributes, self-closing, or an HTML
    element that is void or has its partner (``</b>`` for ``<b>``, ``<b>`` or ``<b ...>`` for ``</b>``)."""
    m = _TAG_PARTS.match(tag)
    if m is None:
        return False
    rest, name = m.group("rest").strip(), m.group("name").lower()
    if "=" in rest or (rest == "/" and not m.group("close")) or name in _FORMATTING:
        return True
    if name not in _HTML_ELEMENTS or name in _VOID:
        return False
    return _partner(name, not m.group("close")).search(text) is not None


@functools.lru_cache(maxsize=256)
def _partner(name: str, opening: bool) -> re.Pattern[str]:
    """The other half of an element: its end tag for a start tag, a start tag for an end tag."""
    return re.compile(rf"</{re.escape(name)}\s*>" if opening else rf"<{re.escape(name)}(?:[\s/>])", re.I)


# XLIFF text never sent: 1.2 native code (ph, bpt, ept, it) with its content, a mrk with
# mtype="protected" or translate="no", and 2.x sm translate="no" up to the em that names it.
# A scanner rather than a regex, because such spans nest (mrk in mrk) and sm/em pair by id.
_XML_TOKEN = re.compile(
    rf"""<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>
       |<(?P<close>/)?(?:[\w.-]+:)?(?P<name>[\w.-]+)(?P<attrs>{_XML_ATTRS})(?P<empty>/)?>""",
    re.VERBOSE | re.DOTALL,
)
_NATIVE = frozenset({"ph", "bpt", "ept", "it"})
_NOT_TRANSLATED = re.compile(r"""\s(?:[\w.-]+:)?(?:mtype\s*=\s*["']protected["']|translate\s*=\s*["']no["'])""")


def _attribute(attrs: str, name: str) -> str:
    found = re.search(rf"""\s{name}\s*=\s*(?:"([^"]*)"|'([^']*)')""", attrs)
    return (found.group(1) or found.group(2) or "") if found else ""


def _xliff_protected(core: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every span of XLIFF inline content that must not be sent, outermost only."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    depth = 0
    until_em: str | None = None  # the sm id whose em closes the open span
    for tag in _XML_TOKEN.finditer(core):
        name, attrs, closing, empty = tag.group("name", "attrs", "close", "empty")
        if name is None:  # comment, CDATA, processing instruction
            continue
        if start is None:
            protected = not closing and _NOT_TRANSLATED.search(attrs) is not None
            if empty and name == "sm" and protected:
                start, until_em = tag.start(), _attribute(attrs, "id")
                continue
            if closing or empty or not (protected or name in _NATIVE):
                continue
            start, depth = tag.start(), 0
        if until_em is not None:
            if empty and name == "em" and _attribute(attrs, "startRef") == until_em:
                spans.append((start, tag.end()))
                start = until_em = None
            continue
        if not empty:
            depth += -1 if closing else 1
        if depth == 0:
            spans.append((start, tag.end()))
            start = None
    if start is not None:  # an sm whose em is in a later segment
        spans.append((start, len(core)))
    return spans


_TOKEN = re.compile(
    rf"""<{TAG}\s+id\s*=\s*["'](?P<id>\d+)["']\s*(?:/>|>\s*</{TAG}\s*>)  # a placeholder tag
       |(?P<markup><[^>]*>?)                                              # anything else tag-like""",
    re.VERBOSE,
)


def restore(translated: str, protected: Protected) -> str:
    """Put the placeholders back into a translation of ``protected.text``; verify everything came back."""
    # Strip before restoring: a placeholder that stands for whitespace must survive at the edges.
    translated = translated.strip()
    if not protected.placeholders and _TOKEN.search(translated) is None:
        return f"{protected.prefix}{_xml_unescape(translated)}{protected.suffix}"  # nothing to put back or check
    by_id = {ph.id: ph for ph in protected.placeholders}
    seen: list[Placeholder] = []
    parts: list[icu.Part] = []
    last = 0
    for match in _TOKEN.finditer(translated):
        if match.group("markup") is not None:
            raise PlaceholderMismatch(f"unexpected markup {match.group('markup')!r} in translation")
        ph = by_id.get(int(match.group("id")))
        if ph is None:
            raise PlaceholderMismatch(f"unknown placeholder id {match.group('id')} in translation")
        parts.append(icu.Part(_xml_unescape(translated[last : match.start()])))
        parts.append(icu.Part(ph.text, ph.id, ph.kind))
        seen.append(ph)
        last = match.end()
    parts.append(icu.Part(_xml_unescape(translated[last:])))
    _verify(seen, protected.placeholders)
    if any(ph.kind in icu.STRUCTURE for ph in protected.placeholders):
        parts = icu.quote_apostrophes(parts)
        problem = icu.check(parts, [(ph.id, ph.kind) for ph in protected.placeholders])
        if problem:
            raise PlaceholderMismatch(problem)
    return f"{protected.prefix}{''.join(p.text for p in parts)}{protected.suffix}"


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
    if tags_balanced(expected) and not tags_balanced(seen):
        raise PlaceholderMismatch("HTML tags no longer balanced or nested as in the source")


_TAG_NAME = re.compile(r"<(/?)([A-Za-z][\w:.-]*)")
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


#: Angular's XLIFF 1.2 stands for an element's start and end with two empty ``x`` elements whose
#: ids pair up: ``START_TAG_SPAN`` / ``CLOSE_TAG_SPAN``, ``START_BOLD_TEXT_1`` / ``CLOSE_BOLD_TEXT_1``.
_ANGULAR_PAIR = re.compile(r"""<x\s[^>]*?\bid\s*=\s*["'](?P<edge>START|CLOSE)_(?P<name>[A-Z0-9_]+)["']""")


def tags_balanced(placeholders: Iterable[Placeholder]) -> bool:
    """Whether the HTML tags among ``placeholders`` (and Angular's start/close pairs) nest properly."""
    stack: list[str] = []
    for ph in placeholders:
        if ph.kind != "html-tag":
            continue
        pair = _ANGULAR_PAIR.match(ph.text) if ph.text.startswith("<x") else None
        if pair is not None:
            closing, name = ("/" if pair.group("edge") == "CLOSE" else ""), "angular:" + pair.group("name")
        elif ph.text.endswith("/>"):
            continue
        else:
            closing, name = _TAG_NAME.match(ph.text).groups()  # type: ignore[union-attr]
            name = name.lower()
        if name in _VOID:
            continue
        if not closing:
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack
