"""The regex kinds of placeholder: each kind's pattern, what a text must hold for it, and the scan that
finds them in a text as one alternation of every kind would, in their order of precedence.

:mod:`~pipeline.placeholders.protect` runs the scan over the text its markup, quoted code, format
directives and ICU structure leave (:func:`spans`), with the kinds the text can hold (:func:`scanned_in`).
"""

from __future__ import annotations

import functools
import heapq
import re

from pipeline.patterns import lazy_regex
from pipeline.placeholders import grammar
from pipeline.placeholders.runs import Span

# --- Code found translated on published catalogs, of no program's format -------------------------------

#: An ini file's section glued to one of its keys, as a help text names a setting: GNU Mailman's
#: ``[shell]use_python`` (the section alone, named as such, is :data:`grammar.INI_SECTION`).
INI_KEY = r"""(?<![\w\]])\[[a-z][a-z0-9_.:-]*[a-z0-9]\][a-z_][a-z0-9_]*\b"""

#: Code a help text shows on lines of its own: a Python function's definition with its indented body (GNU
#: Mailman's ``withlist`` help: "def listaddr(mlist):" / "    print(mlist.posting_address)", which its
#: translators keep), and a command typed after a shell prompt, with an option (``% mailman withlist -r
#: listaddr -l ant@example.com``; a line that begins "% of …" or "$ 5 …" is prose).
PYTHON_BLOCK = r"""
    (?:^|(?<=\n))
    (?:(?:async[ ])?def[ ][A-Za-z_]\w*\([^()\n]*\)|class[ ][A-Za-z_]\w*(?:\([^()\n]*\))?)[ ]*:
    (?:\n[ \t]+\S[^\n]*)+      # the indented body, up to the first line that is not
"""
PROMPT_LINE = r"""(?:^|(?<=\n))[%$][ ][a-z][\w.-]*[ ][^\n]*?(?<=[ ])--?[A-Za-z][^\n]*   # a prompt, a command, an option
"""

#: An ISO 8601 date and time (Indico's "e.g. 2017-12-03T12:00:00"): the ``T`` is no word.
TIMESTAMP = r"""
    (?<![\w-])[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]+)?)?
    (?:Z|[+-][0-9]{2}:?[0-9]{2})?(?![\w:])
"""

#: A quoted string literal as SQL reads it: one with one of its backslash escapes (phpMyAdmin's ``'a\'b'``,
#: ``'\\xyz'``; a regex's ``\.`` is :data:`grammar.QUOTED_REGEX`), a list of them without a space (its enum
#: values ``'a','b','c'``). Not an apostrophe inside a word ("John's").
SQL_ESCAPED = r"""(?<![\w'])'(?:[^'\\\s]|\\\S)*\\['\\"0nrtbZ%_](?:[^'\\\s]|\\\S)*'(?![\w'])"""
SQL_LIST = r"""(?<![\w'])'[^'\s,]*'(?:,'[^'\s,]*')+(?![\w'])"""

#: The number of an EU act (pretix's "Council Directive 2006/112/EC"): a proper name the engine must not
#: touch, which a translator writes in their language's form (German "2006/112/EG").
LEGAL_REFERENCE = r"""(?<![\w/])[0-9]{2,4}/[0-9]{1,4}/[A-Z]{2,4}\b(?!/)"""

#: A URI scheme named as such without its slashes: gnome-maps' "Invalid maps: URI".
SCHEME_NAMED = r"""(?<![\w:/.-])[a-z][a-z0-9+.-]*:(?=[ ](?:URI|URL)s?\b)"""

#: A TeX or LilyPond command: ``\header``, ``\put-adjacent``, ``\volta-number``, ``\begin{document}`` (with its
#: braced argument), what LilyPond's and LaTeX's users type. A hyphen joins the name only before a small letter:
#: ``\notenames-Format`` is a German compound of the command. One letter alone is a :data:`grammar.ESCAPE`.
BACKSLASH_COMMAND = r"""
    (?<![\w\\])\\              # a backslash starting a word (Folder\Sub is a path's)
    [A-Za-z](?:[A-Za-z0-9]|-(?=[a-z]))+   # the name, two characters or more
    (?:\{[^{}\s]{1,60}\})?      # its braced argument: \begin{document}
    (?!\w)
"""

#: A CSS declaration a template sets as a style (Odoo's ``<t t-set="label_column_style">width: 23.24%;</t>``):
#: a common property, and a value that is one keyword or a list of them (``display: none;``,
#: ``font-family: Arial, sans-serif;``) or holds a number, a colour or a function (``margin: 0 auto;``,
#: ``background-color: rgb(135, 90, 123);``). Its semicolon ends it: "display: it shows the list;" is prose.
_CSS_VALUE = r"(?:[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:%|[a-z]{1,4})?|\#[0-9a-fA-F]{3,8}|[a-z-]+\([^()\n]{0,60}\))"
_CSS_KEYWORD = r"[a-z]+(?:-[a-z]+)*"
CSS_DECLARATION = rf"""
    (?<![\w-])
    (?:(?:min-|max-)?(?:width|height)          # the property
      |(?:margin|padding|border)(?:-(?:top|right|bottom|left))?(?:-(?:width|style|color|radius))?
      |border-collapse|(?:background|text|font)-[a-z]+|background|color|display|float|vertical-align
      |white-space|overflow|line-height|z-index|opacity|cursor|position|visibility)
    [ ]*:[ ]*
    (?:{_CSS_KEYWORD}(?:[ ]*,[ ]*{_CSS_KEYWORD})*          # a keyword, or a list of them
      |(?:{_CSS_KEYWORD}[ ]+)*{_CSS_VALUE}(?:[ ]+(?:{_CSS_VALUE}|{_CSS_KEYWORD}))*   # or with a number
    )
    (?:[ ]*!important)?[ ]*;
"""

# Each kind: a verbose regex, applied to the text between markup, quoted code, a format flag's
# directives and ICU structure. Order matters: at one position, the first kind listed wins. Every
# kind applies whatever the entry's flags say: a flag names the format gettext checks (which
# decides what is an *error*), never all the code a text holds.
_KIND_PATTERNS: dict[str, str] = {
    # Before the printf kinds ("% mailman" is no directive) and the names a code block holds.
    "code-lines": "|".join((PYTHON_BLOCK, PROMPT_LINE)),
    # Before the e-mail addresses and paths a pattern holds: '^.*@example\.com'.
    "quoted-regex": grammar.QUOTED_REGEX,
    "build-macro": grammar.BUILD_MACRO,
    "sql-literal": "|".join((SQL_ESCAPED, SQL_LIST)),
    "timestamp": TIMESTAMP,
    "legal-reference": LEGAL_REFERENCE,
    "url": "|".join((grammar.URL, SCHEME_NAMED)),
    # A path glued before the address is part of it ("/" is a character of an address's local part): the
    # path alone, found first, would leave the address as text (x/y.tar.gzme@x.org).
    "email": r"(?<![\w.+/-])[\w.+/-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b",
    "at-abbreviation": grammar.AT_ABBREVIATION,
    "at-name": grammar.AT_NAME,
    "template": grammar.TEMPLATE,
    "ruby-named": grammar.RUBY_NAMED,
    # Before the printf kinds, or %size% would be %s + "ize%".
    "percent-named": grammar.PERCENT_NAMED,
    "safe-printf": grammar.SAFE_PRINTF,
    # Before the other directives, which would read %Ln as %L and "n".
    "qt-count": grammar.QT_COUNT,
    "qt-numbered": grammar.QT_NUMBERED,
    "percent-directive": grammar.PERCENT_DIRECTIVE,
    "escape": grammar.ESCAPE,
    "backslash-command": BACKSLASH_COMMAND,
    "escaped-brace": "|".join((grammar.ESCAPED_BRACE, grammar.QUOTED_BRACES)),
    "safe-brace": grammar.SAFE_BRACE,
    "icu-arg": grammar.ICU_ARGUMENT,
    "brace-set": grammar.BRACE_SET,
    "fortran-directive": grammar.FORTRAN_DIRECTIVE,
    "css": CSS_DECLARATION,
    "code-identifier": grammar.CODE_IDENTIFIER,
    "dollar-var": grammar.DOLLAR_VARIABLE,
    "ex-command": grammar.EX_COMMAND,
    "option": grammar.OPTION,
    "protocol-command": grammar.PROTOCOL_COMMAND,
    "command-synopsis": grammar.COMMAND_SYNOPSIS,
    # Before paths, or *.vim would be a star and a dotfile, and %s_ascii.spl a name and a file.
    "file-glob": grammar.FILE_GLOB,
    "glued-file-name": grammar.GLUED_FILE_NAME,
    # Before identifiers, or flatpages/default.html would be a word and a file name.
    "path": grammar.PATH,
    "identifier": "|".join((grammar.IDENTIFIER, grammar.INI_SECTION, INI_KEY)),
    "entity": r"&(?:[A-Za-z][A-Za-z0-9]*|\#[0-9]+|\#[xX][0-9A-Fa-f]+);",
    "control": r"[\n\t\r\v\f]",
}
_IDENTIFIER_HINT = lazy_regex(r"_|\w\.\w|::|\(\)|[a-z][A-Z]|[A-Z]{2}[a-z]{2}")
_NAME = "\0"  # stands for a match of _IDENTIFIER_HINT among the characters a text holds
#: :data:`_IDENTIFIER_HINT`'s ``\w\.\w`` written from its dot, and its ``[a-z][A-Z]|[A-Z]{2}[a-z]{2}`` from
#: its (first) capital: each starts with what the regex engine skips ahead to, where the alternation is
#: tried at every position of the text (see :func:`_named`).
_DOTTED = lazy_regex(r"\.(?<=\w\.)(?=\w)")
#: ``[a-z][A-Z]|[A-Z]{2}[a-z]{2}`` (``phpMyAdmin``, ``OAuth``) written from its first capital; protection's
#: trigger looks for it too.
CASED = re.compile(r"[A-Z](?:(?<=[a-z][A-Z])|(?=[A-Z][a-z]{2}))")
#: Three capitals in a row: what every protocol command holds (``CWD``, ``PASV``, ``STARTTLS``). Written
#: with a first capital of its own, which the regex engine skips ahead to (``[A-Z]{3}`` is tried everywhere).
CAPITALS_HINT = re.compile(r"[A-Z][A-Z]{2}")
_CAPITALS = "\1"  # stands for a match of CAPITALS_HINT
_SCHEME = "\2"  # stands for ":/", which every URL holds after its scheme
#: What a text must hold for a kind to match anywhere in it: each string of characters is one of which
#: it holds (``_NAME``: a match of :data:`_IDENTIFIER_HINT`, ``_CAPITALS``: of :data:`CAPITALS_HINT`,
#: ``_SCHEME``: a ``:/``).
#: A text is searched only by the kinds it can hold, which makes protection more than twice as fast on
#: real catalogs. (A kind of :data:`_ALTERNATIVES` says it per alternative.)
_NEEDS: dict[str, tuple[str, ...]] = {
    "timestamp": (":",),
    "legal-reference": ("/",),
    "quoted-regex": (grammar.QUOTED_REGEX_QUOTES, "\\.^$"),
    "build-macro": ("@",),
    "email": ("@",),
    "at-abbreviation": ("@",),
    "at-name": ("@",),
    "template": ("{",),
    "ruby-named": ("%", "{"),
    "percent-named": ("%",),
    "safe-printf": ("%",),
    "qt-count": ("%",),
    "qt-numbered": ("%",),
    "percent-directive": ("%",),
    "escape": ("\\",),
    "backslash-command": ("\\",),
    "escaped-brace": ("\\", "{"),
    "safe-brace": ("{",),
    "icu-arg": ("{",),
    "brace-set": ("{", ","),
    "fortran-directive": ("!", "$"),
    "css": (":", ";"),
    "code-identifier": ("$",),
    "dollar-var": ("$",),
    "ex-command": (":",),
    "option": ("-",),
    "protocol-command": (_CAPITALS,),  # it starts with \b, which the regex engine cannot skip ahead to
    "command-synopsis": ("[",),
    "file-glob": ("*",),
    "glued-file-name": ("%}", "."),
    "identifier": (_NAME,),
    "entity": ("&",),
    "control": ("\n\t\r\v\f",),
}
#: Kinds searched as their alternatives, each with what a text must hold for it: a text without a slash
#: is searched for dotfiles only, not for the paths that a slash starts or separates.
_ALTERNATIVES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "identifier": ((grammar.IDENTIFIER, (_NAME,)), (grammar.INI_SECTION, ("[",)), (INI_KEY, ("[",))),
    "code-lines": ((PYTHON_BLOCK, (":",)), (PROMPT_LINE, ("%$", "-"))),
    "sql-literal": ((SQL_ESCAPED, ("'", "\\")), (SQL_LIST, ("'", ","))),
    "escaped-brace": ((grammar.ESCAPED_BRACE, ("\\", "{")), (grammar.QUOTED_BRACES, ("{}", "\"'"))),
    "url": (
        (grammar.URL_WITH_SCHEME, (_SCHEME,)),
        (grammar.URL_QUERY, ("?", "=")),
        (grammar.WIKI_LINK, ("[", ":")),
        (SCHEME_NAMED, (":",)),
    ),
    "template": ((grammar.TEMPLATE_VARIABLE, ("{",)), (grammar.TEMPLATE_TAG, ("{", "%"))),
    "path": (
        (grammar.PATH_ROOTED, ("/",)),
        (grammar.DOTFILE, (".",)),
        (grammar.PATH_RELATIVE, ("/:", ".")),
        (grammar.WINDOWS_PATH, (":", "\\")),
    ),
}
#: What the scan searches, in order of precedence: (kind, regex, needs) of each kind, or of each of its
#: alternatives (a kind is the alternation of its alternatives, in order).
_SCANNED: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    (kind, pattern, needs)
    for kind in _KIND_PATTERNS
    for pattern, needs in (_ALTERNATIVES[kind] if kind in _ALTERNATIVES else ((_KIND_PATTERNS[kind], _NEEDS[kind]),))
)
#: Alternatives every match of which ends with a closer: searched only up to the text's last one. Where none
#: follows, the lazy ``.*?`` reads on to the text's end from every opener: ``{%`` 10,000 times took seconds.
_ENDS_WITH = {grammar.TEMPLATE_TAG: "%}"}
_MARKERS = {_NAME, _CAPITALS, _SCHEME}
_LOOKED_FOR = "".join(sorted({c for _, _, needs in _SCANNED for group in needs for c in group} - _MARKERS))
#: Any of them: a text's are found in one pass of the regex engine, not one scan of the text per character.
_ONE_LOOKED_FOR = re.compile(f"[{re.escape(_LOOKED_FOR)}]")


@functools.cache
def _scanned_pattern(index: int) -> re.Pattern[str]:
    """The regex of one entry of :data:`_SCANNED`, compiled at its first use."""
    return re.compile(_SCANNED[index][1], re.VERBOSE | re.DOTALL)


@functools.lru_cache(maxsize=1024)
def _scanned_for(present: frozenset[str]) -> tuple[int, ...]:
    """What a text holding the characters ``present`` is searched by (indexes of :data:`_SCANNED`), in order."""
    return tuple(
        i for i, (_, _, needs) in enumerate(_SCANNED) if all(any(c in present for c in group) for group in needs)
    )


def _named(text: str) -> bool:
    """Whether :data:`_IDENTIFIER_HINT` finds something in ``text``: its alternatives looked for one by one."""
    return (
        "_" in text
        or "::" in text
        or "()" in text
        or ("." in text and _DOTTED().search(text) is not None)
        or CASED.search(text) is not None
    )


def scanned_in(text: str) -> tuple[int, ...]:
    """What ``text`` is searched by: the kinds (or their alternatives) it can hold."""
    present = set(_ONE_LOOKED_FOR.findall(text))
    if _named(text):
        present.add(_NAME)
    if CAPITALS_HINT.search(text):
        present.add(_CAPITALS)
    if ":/" in text:
        present.add(_SCHEME)
    return _scanned_for(frozenset(present))


#: What :data:`_SCANNED` holds of the kinds that match only what holds a ``%`` (the directives of printf and
#: its kin): a gap without one, between the directives a format flag names, is not searched for them.
_PERCENT_KINDS = frozenset(i for i, (_, _, needs) in enumerate(_SCANNED) if "%" in needs)


@functools.lru_cache(maxsize=1024)
def _without_percent(scanned: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(i for i in scanned if i not in _PERCENT_KINDS)


@functools.lru_cache(maxsize=1024)
def _compiled(scanned: tuple[int, ...]) -> tuple[tuple[re.Pattern[str], ...], tuple[str, ...], tuple[str, ...]]:
    """The regexes of ``scanned`` (indexes of :data:`_SCANNED`), their kinds and closers (:data:`_ENDS_WITH`,
    "" for none), in order."""
    return (
        tuple(_scanned_pattern(i) for i in scanned),
        tuple(_SCANNED[i][0] for i in scanned),
        tuple(_ENDS_WITH.get(_SCANNED[i][1], "") for i in scanned),
    )


def _searched_until(core: str, closer: str, start: int, end: int) -> int:
    """Where a regex whose matches end with ``closer`` is searched up to: the last one's end (``start``: none)."""
    if not closer:
        return end
    last = core.rfind(closer, start, end)
    return start if last < 0 else last + len(closer)


def spans(core: str, scanned: tuple[int, ...], start: int, end: int) -> list[Span]:
    """The matches of ``scanned`` (indexes of :data:`_SCANNED`) in ``core[start:end]``, as one alternation of
    them in their order would find them: the leftmost match, the first listed where two start at one
    place, then on from its end.

    Each is its own regex, searched again only once the scan has passed its next match: one alternation
    per set of kinds a text can hold would be compiled anew for each set (a run's texts hold dozens,
    ~3 ms each), and a single alternation of every kind tries them all at every position. No kind
    matches the empty string (a unit test checks), so none is passed over as ``finditer`` would.
    """
    if core.find("%", start, end) < 0:
        scanned = _without_percent(scanned)
    patterns, names, closers = _compiled(scanned)
    ends = [_searched_until(core, closer, start, end) for closer in closers]
    if len(patterns) == 1:  # one regex alone: its own matches, one after another
        return [(m.start(), m.end(), names[0], False) for m in patterns[0].finditer(core, start, ends[0])]
    # Each regex's next match as (where it starts, the regex's place in the order, the match): the
    # smallest is the leftmost match, the first listed among those that start there.
    upcoming = [(m.start(), i, m) for i, p in enumerate(patterns) if (m := p.search(core, start, ends[i]))]
    heapq.heapify(upcoming)
    found: list[Span] = []
    while upcoming:
        at, i, first = heapq.heappop(upcoming)
        after = first.end()
        found.append((at, after, names[i], False))
        passed = [i]  # this regex and every other whose next match starts before this one's end
        while upcoming and upcoming[0][0] < after:
            passed.append(heapq.heappop(upcoming)[1])
        for i in passed:
            m = patterns[i].search(core, after, ends[i])
            if m is not None:
                heapq.heappush(upcoming, (m.start(), i, m))
    return found
