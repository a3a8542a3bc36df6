"""Markup in a segment's text: which tag-like spans a reader takes for markup, which attribute values are
text for the reader, and what markup a translation may not bring in.

Protection (:mod:`pipeline.placeholders.protect`) sends a markup tag as one placeholder, whatever
directives of a format it holds (``<a href="%(url)s">``): a tag cut at a directive would send its
name and attributes as text, and an engine translates them. The values of *text attributes*
(``title``, ``alt``, ``aria-label``, ``placeholder``...) are the exception: a reader sees them, so
the tag is cut into pieces around each such value and the value travels as text between two
placeholders (``<acronym title="`` · HyperText Markup Language · ``">``). The first piece keeps the
kind ``html-tag`` (it names the element), the others are ``html-attr``; restore holds a translation
to the pieces' order, with nothing but the value's own text and placeholders between them.

What is markup in a PO string (in XLIFF every inline element is, and so is every tag of a
``kde-kuit-format`` entry, which msgfmt reads as XML):

- a closing tag, a tag with attributes, a tag that closes itself;
- a tag whose partner is in the text (``<nobr>…</nobr>``), any element of HTML's where the text closes one;
- an element HTML or Qt's rich text formats text with, alone too (``<b>``, ``<br>``, ``<qt>``).

A lone ``<word>`` with none of these is code when a reader types or a program reads it, and text when it
is a help text's metavariable (``cp <source> <dest>``, ``-J<directory>``, ``<new column>``) or a value shown
as it is (``<unspecified>``), which translators translate (:mod:`pipeline.placeholders.code_names`; the
human translations of the same catalogs decided each rule). Bracket markup (BBCode) alike:
the names such catalogs use (``[b]``, ``[url=…]``, ``[doc@page]``) always; any other name when it
closes or has its partner (``[kbd]config[/kbd]``); ``[x]`` and ``[OPTIONS]`` are text.
"""

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from pipeline.patterns import lazy_regex
from pipeline.placeholders import grammar
from pipeline.placeholders.code_names import CODE_NAME, CodeNames
from pipeline.segments import Placeholder

__all__ = [
    "ATTRIBUTE_PIECE",
    "CODE_NAME",
    "TAG_KIND",
    "VOID",
    "OuterSpan",
    "foreign_markup",
    "outer_spans",
    "xliff_protected",
    "tag_groups",
    "tags_balanced",
]

#: The kinds of a tag's pieces: the one that names the element, and those after a translated value.
TAG_KIND, ATTRIBUTE_PIECE = "html-tag", "html-attr"

#: HTML's elements: a ``<word>`` that names none and has no attributes is text (``-J<directory>``,
#: ``<new column>``), which the translator may translate; so is one that names an element other than
#: the formatting ones but has neither attributes nor its partner in the text (``-image_base
#: <address>``, ``cp <source> <dest>``).
HTML_ELEMENTS = frozenset(
    """a abbr acronym address area article aside audio b base bdi bdo big blockquote body br button canvas
    caption center cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset
    figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html i iframe img
    input ins kbd label legend li link main map mark meta meter nav nobr noscript object ol optgroup option
    output p param picture pre progress q rp rt ruby s samp script section select small source span strike
    strong style sub summary sup svg table tbody td template textarea tfoot th thead time title tr track tt
    u ul var video wbr""".split()
)
#: Elements that format running text, HTML's and Qt rich text's (``<qt>``, ``<nobr>``), and CODE_ONLY: markup
#: wherever they appear, a lone ``<strong>`` included (a translation that breaks a pair must still be seen
#: to). Other element names (``<address>``, ``<source>``, ``<option>``) are words of help texts' metavariables.
FORMATTING = frozenset(
    """a abbr acronym b big blockquote br center cite code del div em font h1 h2 h3 h4 h5 h6 hr i img ins
    kbd li mark nobr ol p pre q qt s small span strike strong sub sup table td th tr tt u ul wbr""".split()
)
CODE_ONLY = frozenset("applet frameset iframe noscript script".split())  # misago's lone <script>: no metavariable
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())

#: Attributes whose values are text for the reader, which a translator translates.
TEXT_ATTRIBUTES = frozenset("title alt placeholder aria-label aria-description label summary".split())

#: BBCode names phpMyAdmin-style and forum catalogs use: markup even without their partner.
_BRACKET_NAMES = frozenset(
    "a b i u s em strong code kbd doc br sup sub dfn tt strike url img quote li ul ol p span color size".split()
)
#: BBCode names that take a value: without one they are words (``[SIZE]`` in a usage line).
_BRACKET_VALUED = frozenset({"color", "size"})

#: One regex over a text finds every span that holds other placeholders and comes back whole: XML
#: specials and comments, code GCC quotes or backquotes, tags, escaped tags of XLIFF, bracket and
#: wiki markup. At one position the first alternative listed wins.
_OUTER = {
    "xml-special": r"<!\[CDATA\[.*?\]\]>|<\?.*?\?>",
    "html-comment": r"<!--.*?-->",
    # a declaration or CDATA in a PO string (in XLIFF CDATA is an xml-special above), also written with
    # entities as a page template shows it: Plone's "for example <!DOCTYPE html>" and "&lt;!DOCTYPE html&gt;"
    "html-declaration": r"<![A-Za-z][^<>]*>|<!\[CDATA\[.*?\]\]>|&lt;![A-Za-z](?:(?!&gt;)[^<>&])*&gt;",
    "quoted-code": "|".join((grammar.GCC_QUOTED, grammar.BACKQUOTED, grammar.CODE_ELEMENT, grammar.VIM_TYPED)),
    "xliff-escaped-tag": r"&lt;/?[A-Za-z][\w:.-]*(?:\s(?:(?!&gt;)[^<>])*)?&gt;",
    TAG_KIND: r"""</?[A-Za-z][\w:.-]*(?:\s+(?:[^<>"']|"[^"]*"|'[^']*')*)?/?>""",
    "wiki": grammar.WIKI,
    "bracket-markup": grammar.BRACKET_MARKUP,
}
#: The kinds only XLIFF's inner XML has (a PO string's ``&lt;b&gt;`` is an entity and a word).
_XLIFF_ONLY = frozenset({"xml-special", "xliff-escaped-tag"})


@functools.cache
def _outer(xliff: bool) -> re.Pattern[str]:
    kinds = [k for k in _OUTER if xliff or k not in _XLIFF_ONLY]
    alternatives = "|".join(f"(?P<{k.replace('-', '_')}>{_OUTER[k]})" for k in kinds)
    return re.compile(alternatives, re.VERBOSE | re.DOTALL | re.IGNORECASE)


#: What a text must hold for an alternative of :data:`_OUTER` to match in it: one of these strings
#: (``<`` for tags, comments, XML specials, code elements, ``%<…%>`` and vim's keys; a backquote; a
#: bracket for BBCode and ``[[``, ``]]`` for wiki links; three apostrophes or braces for wiki markup;
#: ``&lt;!`` for a declaration written with entities).
#: A text with none holds no span and is not scanned: the alternation has no first character the
#: regex engine could skip ahead to, so it is tried at every position of the text.
_OUTER_NEEDS = ("<", "&lt;!", "`", "[", "]]", "'''", "{{{")
#: What XLIFF's inner XML adds: its escaped tags (``&lt;``, in any case: the alternation ignores case).
_XLIFF_NEEDS = "&"


#: Every character a match of :data:`_OUTER` can start with: ``<`` (tags, comments, XML specials, code
#: elements), ``&`` (XLIFF's escaped tags), ``%`` (GCC's ``%<…%>``), a backquote, ``:`` (vim's typed
#: commands), ``[`` and ``]`` (BBCode, wiki links), an apostrophe and ``{`` (wiki markup).
_OUTER_STARTS = re.compile(r"[<&%`:\[\]'{]")


def _outer_matches(text: str, xliff: bool) -> Iterator[re.Match[str]]:
    """What ``_outer(xliff).finditer(text)`` finds, the alternation tried only where a match can start.

    No alternative has a first character the regex engine could skip ahead to, so ``finditer`` tries
    them all at every position of the text; here they are tried at the characters that start one.
    """
    return _matches(_outer(xliff), _OUTER_STARTS, text)


def _matches(pattern: re.Pattern[str], starts: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` finds, ``pattern`` tried only where ``starts`` finds a character a
    match starts with, and not where an opener that reads on has no closer (:class:`_Closers`)."""
    at = 0
    closers = _Closers(text)
    while (start := starts.search(text, at)) is not None:
        m = pattern.match(text, start.start()) if closers.may_start(start.start()) else None
        if m is None:
            at = start.start() + 1
        else:
            yield m
            at = m.end()  # no alternative matches the empty string (a unit test checks)


_LESS_THAN = re.compile("<")


class _Closers:
    """Whether a markup pattern's alternative that reads on until its closer may start at a position.

    In each pattern searched so (:data:`_OUTER`, :data:`_TOKEN`, :data:`_XML_TOKEN`) each of these is
    the only alternative that starts with its opener, and tried where nothing closes it, it reads on
    to the text's end (or the line's): ``<!--`` 10,000 times took a minute, Ruby's ``%<n>d`` 4,000
    times seconds. Each closer is looked for once for every opener before it.
    """

    __slots__ = ("text", "found")

    #: (opener, closer, where the closer may start after the opener, the characters it must come before).
    READS_ON = (
        ("%<", "%>", 2, "\n"),  # GCC's %<…%>: on its line
        ("<!--", "-->", 4, ""),
        ("<![CDATA[", "]]>", 9, ""),
        ("<?", "?>", 2, ""),
        ("{{{", "}}}", 3, ""),  # wiki code
    )

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: dict[str, int] = {}  # a closer (or stop) -> where it was last found (len(text): nowhere after)

    def may_start(self, at: int) -> bool:
        """False where an opener at ``at`` has no closer (any other position: True)."""
        text = self.text
        if text[at] == "&":  # XLIFF's &lt;…&gt;, its closer in any case, before any < or >
            return not text.startswith("&lt;", at) or self._next(_ESCAPED_END, at + 4) < self._next(_ANGLE, at)
        for opener, closer, after, stops in self.READS_ON:
            if text.startswith(opener, at):
                found = self._next(closer, at + after)
                return found < len(text) and not any(self._next(stop, at) < found for stop in stops)
        return True

    def _next(self, what: str | re.Pattern[str], at: int) -> int:
        """Where ``what`` is next at ``at`` or after (``len(text)``: nowhere); the positions asked for only rise."""
        key = what if isinstance(what, str) else what.pattern
        found = self.found.get(key, -1)
        if found < at:
            if isinstance(what, str):
                found = self.text.find(what, at)
            else:
                m = what.search(self.text, at)
                found = m.start() if m is not None else -1
            found = self.found[key] = len(self.text) if found < 0 else found
        return found


_ESCAPED_END = re.compile("&gt;", re.IGNORECASE)
_ANGLE = re.compile("[<>]")


class OuterSpan(NamedTuple):
    """A span protected whole (a tag, or a piece of one cut around a text attribute's value)."""

    start: int
    end: int
    kind: str


def outer_spans(text: str, xliff: bool, every_tag: bool) -> list[OuterSpan]:
    """The markup and quoted code of ``text``, in order; a tag with text attributes in pieces around
    their values, which are left to the other placeholder kinds, as text.

    ``every_tag``: every tag is markup (XLIFF's inner XML, a KUIT entry).
    """
    spans: list[OuterSpan] = []
    if not any(map(text.__contains__, _OUTER_NEEDS)) and not (xliff and _XLIFF_NEEDS in text):
        return spans
    code_name = CodeNames(text)  # a <word> is judged once per text
    # the elements the text closes, found once (searched for per tag, a text of n tags cost n squared)
    closed = functools.cache(lambda: {name.lower() for name in _END_TAGS().findall(text)} if "</" in text else set())
    closed_brackets = functools.cache(lambda: set(_BRACKET_ENDS().findall(text)) if "[/" in text else set())
    wiki_opened = text.find("[[")  # a "]]" ends a wiki link only after it (-1: none)
    for m in _outer_matches(text, xliff):
        assert m.lastgroup is not None  # every alternative of the pattern is a named group
        kind = m.lastgroup.replace("_", "-")
        tag = m.group()
        if kind == TAG_KIND:
            if not (every_tag or is_markup(tag, closed)):
                if code_name(tag):
                    spans.append(OuterSpan(m.start(), m.end(), CODE_NAME))
                continue
            values = [] if xliff else _text_values(tag)
            start = m.start()
            for value_start, value_end in values:
                piece = TAG_KIND if start == m.start() else ATTRIBUTE_PIECE
                spans.append(OuterSpan(start, m.start() + value_start, piece))
                start = m.start() + value_end
            spans.append(OuterSpan(start, m.end(), TAG_KIND if start == m.start() else ATTRIBUTE_PIECE))
            continue
        if kind == "bracket-markup" and not _is_bracket_markup(tag, closed_brackets):
            continue
        if kind == "wiki" and tag == "]]" and not 0 <= wiki_opened <= m.start() - 2:
            continue  # a usage line's nested brackets: [--init [--filter=<spec>]]
        spans.append(OuterSpan(m.start(), m.end(), kind))
    return spans


_TAG_PARTS = lazy_regex(r"<(?P<close>/)?(?P<name>[A-Za-z][\w:.-]*)(?P<rest>[^>]*)>")


#: An end tag, its element's name (the names :data:`_TAG_PARTS` reads).
_END_TAGS = lazy_regex(r"</([A-Za-z][\w:.-]*)\s*>")
_BRACKET_ENDS = lazy_regex(r"\[/([A-Za-z][A-Za-z0-9]*)\]")  # [/kbd]: bracket markup's end, and its name


def is_markup(tag: str, closed: Callable[[], set[str]]) -> bool:
    """Whether a tag-like ``<...>`` of a PO string is markup (see the module docstring); ``closed()``: the
    elements that string closes, in lower case."""
    m = _TAG_PARTS().match(tag)
    if m is None:
        return False
    rest, name = m.group("rest").strip(), m.group("name").lower()
    if m.group("close") or "=" in rest or rest.endswith("/") or name in FORMATTING or name in CODE_ONLY:
        return True
    if rest and not rest.endswith("/"):  # "<new column>": words, no attribute
        return False
    if name in VOID:  # <source>, <input>: no partner to look for
        return False
    closes = closed()  # HTML: roundup's "<html><head>…</head>\n<body>", whose end tags another string writes
    return name in closes or (bool(closes) and name in HTML_ELEMENTS)


def _is_bracket_markup(tag: str, closed: Callable[[], set[str]]) -> bool:
    """Whether a ``[name]`` is BBCode: it closes, or has its partner (``closed``: the names the text's
    ``[/name]`` ends close), or is a name such catalogs use in small letters (``[em]``; with a value:
    ``[a@url]``, ``[color=red]``). A usage line's ``[SIZE]`` and git's ``[a]ccept`` are text."""
    m = re.match(r"\[(/?)([A-Za-z][A-Za-z0-9]*)([@=]?)", tag)
    if m is None:
        return False
    closing, name, value = m.groups()
    if closing or name in closed():
        return True
    if name not in _BRACKET_NAMES:
        return False
    return bool(value) or (len(name) > 1 and name not in _BRACKET_VALUED)


#: An attribute of a tag with its quoted value (the value's group says which quote).
_ATTRIBUTE = lazy_regex(r"""\s(?P<name>[\w:.-]+)\s*=\s*(?:"(?P<double>[^"]*)"|'(?P<single>[^']*)')""")
#: What a value holds besides words.
_NOT_WORDS = lazy_regex(
    r"""%\([^)]*\)\w            # %(name)s
      | %\w                     # %s, %1
      | \{[^{}]*\}              # {field}
      | \$\w+                   # $name
      | &\w+;                   # &amp;""",
    re.VERBOSE,
)
_LETTERS = lazy_regex(r"[^\W\d_]{2}")


def _text_values(tag: str) -> list[tuple[int, int]]:
    """Where in ``tag`` the values of its text attributes that hold words are: the pieces' cuts."""
    if "=" not in tag:
        return []
    found = []
    for m in _ATTRIBUTE().finditer(tag):
        group = "double" if m.group("double") is not None else "single"
        value = m.group(group)
        if m.group("name").lower() in TEXT_ATTRIBUTES and _LETTERS().search(_NOT_WORDS().sub(" ", value)):
            found.append((m.start(group), m.end(group)))
    return found


def tag_groups(placeholders: Iterable[Placeholder]) -> list[list[int]]:
    """The ids of each tag cut into pieces, in order (a piece that is a whole tag is no group)."""
    groups: list[list[int]] = []
    current: list[int] | None = None
    for ph in placeholders:
        if ph.kind == ATTRIBUTE_PIECE and current is not None:
            current.append(ph.id)
            if ph.text.endswith(">"):
                current = None
        elif ph.kind == TAG_KIND and not ph.text.endswith(">"):
            current = [ph.id]
            groups.append(current)
    return groups


#: Angular's XLIFF 1.2 stands for an element's start and end with two empty ``x`` elements whose
#: ids pair up: ``START_TAG_SPAN`` / ``CLOSE_TAG_SPAN``, ``START_BOLD_TEXT_1`` / ``CLOSE_BOLD_TEXT_1``.
_ANGULAR_PAIR = lazy_regex(r"""<x\s[^>]*?\bid\s*=\s*["'](?P<edge>START|CLOSE)_(?P<name>[A-Z0-9_]+)["']""")
_TAG_NAME = lazy_regex(r"<(/?)([A-Za-z][\w:.-]*)")


def tags_balanced(placeholders: Iterable[Placeholder]) -> bool:
    """Whether the HTML tags among ``placeholders`` (and Angular's start/close pairs) nest properly."""
    stack: list[str] = []
    for ph in placeholders:
        if ph.kind == ATTRIBUTE_PIECE:
            if ph.text.endswith("/>") and stack:  # the last piece of a tag that closes itself
                stack.pop()
            continue
        if ph.kind != TAG_KIND:
            continue
        pair = _ANGULAR_PAIR().match(ph.text) if ph.text.startswith("<x") else None
        if pair is not None:
            closing, name = ("/" if pair.group("edge") == "CLOSE" else ""), "angular:" + pair.group("name")
        elif ph.text.endswith("/>"):
            continue
        else:
            tag = _TAG_NAME().match(ph.text)
            assert tag is not None  # a markup placeholder is a tag
            closing, name = tag.groups()
            name = name.lower()
        if name in VOID:
            continue
        if not closing:
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack


#: Tag-like tokens in text, as a browser or an XML reader would see them.
_TOKEN = lazy_regex(
    r"""<
    (?: /?[A-Za-z][^<>]*        # a start or end tag, attributes and all
      | !--.*?--                # a comment
      | \?.*?\?                 # a processing instruction
      | !\[CDATA\[.*?\]\]       # a CDATA section
      | ![A-Za-z][^<>]*         # a declaration: <!DOCTYPE ...>
    )>""",
    re.DOTALL | re.VERBOSE,
)
#: Elements that run code or load content, and attributes that do: never brought in by a translation.
ACTIVE_ELEMENTS = frozenset("applet base embed form frame frameset iframe math meta object script style svg".split())
_ACTIVE_ATTRIBUTE = lazy_regex(
    r"""\son[a-z]+\s*=                                      # an event handler: onclick=, onerror=
      | \s(?:src|srcset|poster|background|data)\s*=         # a resource loaded: a tracking image
      | \s(?:href|action|formaction)\s*=\s*["']?\s*        # a link or form target
        (?:javascript|vbscript|data):                     #   that runs a script or holds a document""",
    re.IGNORECASE | re.VERBOSE,
)


def foreign_markup(text: str, source: str, escaped: bool = False) -> list[str]:
    """Tag-like tokens of ``text`` that ``source`` does not have and a reader takes for markup.

    A token is markup here when it closes, holds attributes, is a comment, a processing
    instruction, CDATA or a declaration, or names an HTML or Qt element: ``<script>`` is, a
    translated metavariable (``<quelle>``) is not. ``escaped`` also reads ``&lt;...&gt;``, which is
    markup once XLIFF's text is unescaped by the program that shows it.
    """
    found: list[str] = []
    spellings = [(text, source)]
    if escaped and "&lt;" in text:
        spellings.append((_unescape(text), _unescape(source)))
    for mine, theirs in spellings:
        if "<" not in mine:
            continue
        known = list(_shapes(theirs))
        for token in (m.group() for m in _matches(_TOKEN(), _LESS_THAN, mine)):
            if _shape(token) in known:
                known.remove(_shape(token))
            elif _reads_as_markup(token):
                found.append(token)
    return found


@functools.lru_cache(maxsize=1 << 10)
def _shapes(source: str) -> tuple[str, ...]:
    """The shapes of ``source``'s tag-like tokens: one source is compared with its answer in every language."""
    return tuple(_shape(m.group()) for m in _matches(_TOKEN(), _LESS_THAN, source))


_TEXT_VALUE = lazy_regex(rf"""(\s(?:{"|".join(sorted(TEXT_ATTRIBUTES))})\s*=\s*)(?:"[^"]*"|'[^']*')""", re.IGNORECASE)


def _shape(token: str) -> str:
    """A tag without the values of its text attributes, which a translation may change."""
    return _TEXT_VALUE().sub(r'\1""', token) if "=" in token else token


def active(token: str) -> bool:
    """Whether a tag runs code or loads content (``<script>``, ``<img src=…>``, ``onclick=``)."""
    m = _TAG_PARTS().match(token)
    name = m.group("name").lower() if m else ""
    return name in ACTIVE_ELEMENTS or _ACTIVE_ATTRIBUTE().search(token) is not None or token.startswith("<!")


def _reads_as_markup(token: str) -> bool:
    m = _TAG_PARTS().match(token)
    if m is None:
        return True  # a comment, processing instruction, CDATA or declaration
    name = m.group("name").lower()
    return bool(m.group("close")) or "=" in m.group("rest") or name in HTML_ELEMENTS or name in FORMATTING


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")


# XLIFF text never sent: 1.2 native code (ph, bpt, ept, it) with its content, a mrk with
# mtype="protected" or translate="no", and 2.x sm translate="no" up to the em that names it.
# A scanner rather than a regex, because such spans nest (mrk in mrk) and sm/em pair by id.
_XML_ATTRS = r"""(?:\s+[^\s=<>/"']+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*"""
_XML_TOKEN = lazy_regex(
    rf"""<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>
       |<(?P<close>/)?(?:[\w.-]+:)?(?P<name>[\w.-]+)(?P<attrs>{_XML_ATTRS})(?P<empty>/)?>""",
    re.VERBOSE | re.DOTALL,
)
_NATIVE = frozenset({"ph", "bpt", "ept", "it"})
_NOT_TRANSLATED = lazy_regex(r"""\s(?:[\w.-]+:)?(?:mtype\s*=\s*["']protected["']|translate\s*=\s*["']no["'])""")


def _attribute(attrs: str, name: str) -> str:
    found = re.search(rf"""\s{name}\s*=\s*(?:"([^"]*)"|'([^']*)')""", attrs)
    return (found.group(1) or found.group(2) or "") if found else ""


def xliff_protected(core: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every span of XLIFF inline content that must not be sent, outermost only."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    depth = 0
    until_em: str | None = None  # the sm id whose em closes the open span
    for tag in _matches(_XML_TOKEN(), _LESS_THAN, core):
        name, attrs, closing, empty = tag.group("name", "attrs", "close", "empty")
        if name is None:  # comment, CDATA, processing instruction
            continue
        if start is None:
            protected = not closing and _NOT_TRANSLATED().search(attrs) is not None
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
