"""Formats whose directives name an argument by its position: ``qt``, ``qt-plural``, ``kde``, ``kde-kuit``,
``boost``, ``csharp``, ``java``, ``smalltalk``, ``ycp``, ``object-pascal``.

Ported from GNU gettext's ``format-qt.c``, ``format-qt-plural.c``, ``format-kde.c``,
``format-kde-kuit.c``, ``format-boost.c``, ``format-csharp.c``, ``format-java.c``,
``format-smalltalk.c`` (which also reads YCP) and ``format-pascal.c`` (0.21).
"""

from __future__ import annotations

import re

from pipeline.placeholders.grammars.spec import (
    Arg,
    Directive,
    Grammar,
    Parsed,
    compare_counted,
    compare_exact,
    compare_subset,
    lazy_regex,
    merge_args,
)

__all__ = ["BOOST", "CSHARP", "JAVA", "KDE", "KDE_KUIT", "PASCAL", "QT", "QT_PLURAL", "SMALLTALK", "YCP"]

_NOT_SIMPLE = "not simple"

# --- Qt and KDE ---------------------------------------------------------------------------------

_QT = lazy_regex(r"%(?P<locale>L)?(?P<number>\d\d?)")  # %1 .. %99; %L1 formats a number for the locale


def _parse_qt(text: str, translated: bool) -> Parsed:
    """QString::arg's ``%N``: anything else after ``%`` is text, so every string is valid."""
    found = list(_QT().finditer(text))
    args, _ = merge_args([Arg(int(m["number"])) for m in found])
    simple = all(m["locale"] is None and len(m["number"]) == 1 for m in found)
    directives = tuple(Directive(m.start(), m.end()) for m in found)
    return Parsed(directives, args, facts=frozenset(() if simple else {_NOT_SIMPLE}))


def _check_qt(source: Parsed, target: Parsed, strict: bool) -> str | None:
    """The same arguments in every form (QString::arg fills the lowest-numbered ones, whatever they are)."""
    if _NOT_SIMPLE not in source.facts and _NOT_SIMPLE in target.facts:
        return "the source is a simple format string, the translation has an L flag or a two-digit number"
    return compare_exact(source, target, strict)


_QT_PLURAL = lazy_regex(r"%L?n")


def _parse_qt_plural(text: str, translated: bool) -> Parsed:
    found = list(_QT_PLURAL().finditer(text))
    return Parsed(tuple(Directive(m.start(), m.end()) for m in found), (Arg(1),) if found else ())


def _check_qt_plural(source: Parsed, target: Parsed, strict: bool) -> str | None:
    if target.args and not source.args or strict and source.args and not target.args:
        return "%n is used in one of source and translation only"
    return None


_KDE = lazy_regex(r"%(?P<number>[1-9]\d*)")


def _parse_kde(text: str, translated: bool) -> Parsed:
    """KDE's ``%N``: one argument in the middle may go unused, not two."""
    found = list(_KDE().finditer(text))
    args, _ = merge_args([Arg(int(m["number"])) for m in found])
    used = {int(a.key) for a in args}
    gaps = [n for n in range(1, max(used, default=0)) if n not in used]
    invalid = "the string leaves out two arguments before one it uses" if len(gaps) > 1 else None
    return Parsed(tuple(Directive(m.start(), m.end()) for m in found), args, invalid)


def _check_kde(source: Parsed, target: Parsed, strict: bool) -> str | None:
    problem = compare_subset(source, target, strict)
    if problem is None and not strict:
        missing = {a.key for a in source.args} - {a.key for a in target.args}
        if len(missing) > 1:
            return "the translation leaves out two arguments; only one may be left out"
    return problem


#: KUIT's own entities are XML's; any other ``&`` (a Qt accelerator, ``&nbsp;``) is escaped, as gettext does.
_KUIT_CHARACTER_REFERENCE = lazy_regex(r"&\#(?:[0-9]+|x[0-9A-Fa-f]+);")
_KUIT_TAG = lazy_regex(r"<[^<>]*>")
_KUIT_PREFIX = lazy_regex(r"([A-Za-z_][\w.-]*):(?=[A-Za-z_])")


def _parse_kuit(text: str, translated: bool) -> Parsed:
    """KDE's ``%N``, in text that must be well-formed XML once put in an element (``format-kde-kuit.c``):
    an unclosed ``<filename>``, a bare ``<``, an unquoted attribute make no KUIT string."""
    if "<" in text or "&" in text:
        problem = _xml_problem(text)
        if problem:
            return Parsed(invalid=f"error while parsing: {problem}")
    return _parse_kde(text, translated)


def _xml_problem(text: str) -> str | None:
    """Why ``text`` in a ``<kuit>`` element is no well-formed XML, or None (gettext keeps only character
    references as they are and escapes every other ``&``)."""
    from pipeline.safexml import UnsafeXmlError, parse

    escaped, last = [], 0
    for m in re.finditer("&", text):
        escaped.append(text[last : m.start()])
        escaped.append("&" if _KUIT_CHARACTER_REFERENCE().match(text, m.start()) else "&amp;")
        last = m.end()
    escaped.append(text[last:])
    # A prefix no declaration binds (<ns:a>) is an error to lxml, a warning to libxml2's reader: names only.
    body = _KUIT_TAG().sub(lambda m: _KUIT_PREFIX().sub(r"\1_", m.group()), "".join(escaped))
    try:
        parse(f"<kuit>{body}</kuit>".encode())
    except UnsafeXmlError as exc:
        return exc.reason.removeprefix("not well-formed XML: ")
    return None


# --- Boost --------------------------------------------------------------------------------------

_BOOST = lazy_regex(
    r"""
    %
    (?:
        (?P<percent>%)                              # %% is a percent sign
      | (?P<positional>[1-9]\d*)%                   # %1%: the argument, any type
      | (?P<bar>\|)?                                # %|...|: the conversion is optional
        (?:(?P<number>[1-9]\d*)\$)?                 # argument number
        [-+ #0'_=hl]*                               # flags
        (?P<width>\*(?:[1-9]\d*\$)?|\d+)?           # width, maybe read from an argument
        (?:\.(?P<precision>\*(?:[1-9]\d*\$)?|\d+))? # precision
        [hlL]*                                      # size
        (?P<conversion>[cCsSdiouxXeEfgGpnt]|T.)?    # conversion; T with its fill character
        (?P<close>\|)?
    )
    """,
    re.VERBOSE | re.DOTALL,
)
_BOOST_TYPES = {**dict.fromkeys("cC", "char"), **dict.fromkeys("sS", "any"), **dict.fromkeys("diouxX", "int")}
_BOOST_TYPES.update(dict.fromkeys("eEfgG", "float"), p="pointer", n="count")


def _parse_boost(text: str, translated: bool) -> Parsed:
    directives: list[Directive] = []
    numbered: list[Arg] = []
    unnumbered = 0
    at = text.find("%")
    while at >= 0:
        m = _BOOST().match(text, at)
        bad = m is None or (
            not m["percent"]
            and not m["positional"]
            and (bool(m["bar"]) != bool(m["close"]) or not (m["bar"] or m["conversion"]))
        )
        if m is None or bad:
            return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1} is not valid")
        if m["percent"]:
            directives.append(Directive(at, m.end(), False))
            at = text.find("%", m.end())
            continue
        wanted: list[tuple[int | None, str]] = []
        for star in (m["width"], m["precision"]):
            if star and star.startswith("*"):
                wanted.append((int(star[1:-1]) if star.endswith("$") else None, "int"))
        conversion = m["conversion"] or ""
        if m["positional"]:
            wanted.append((int(m["positional"]), "any"))
        elif conversion != "t" and not conversion.startswith("T"):
            wanted.append((int(m["number"]) if m["number"] else None, _BOOST_TYPES.get(conversion, "any")))
        for number, type_ in wanted:
            if number is None:
                if any(isinstance(a.key, int) and a.key > 0 for a in numbered if a.type != "#"):
                    return Parsed(tuple(directives), invalid="numbered and unnumbered directives are mixed")
                unnumbered += 1
                numbered.append(Arg(-unnumbered, type_))
            elif unnumbered:
                return Parsed(tuple(directives), invalid="numbered and unnumbered directives are mixed")
            else:
                numbered.append(Arg(number, type_))
        directives.append(Directive(at, m.end(), bool(wanted), any(n is None for n, _ in wanted)))
        at = text.find("%", m.end())
    args, problem = merge_args(
        [Arg(-a.key if isinstance(a.key, int) and a.key < 0 else a.key, a.type) for a in numbered]
    )
    return Parsed(tuple(directives), args, problem)


# --- C#, Java MessageFormat ------------------------------------------------------------------------

_CSHARP = lazy_regex(r"\{(?P<number>\d+)(?:,-?\d+)?(?::[^{}]*)?\}")


def _parse_csharp(text: str, translated: bool) -> Parsed:
    """``{0}``, ``{0,-5:x}``; ``{{`` and ``}}`` are braces, any other brace is an error."""
    directives: list[Directive] = []
    args: list[Arg] = []
    at = 0
    while at < len(text):
        if text.startswith(("{{", "}}"), at):
            directives.append(Directive(at, at + 2, False))
            at += 2
        elif text[at] == "{":
            m = _CSHARP().match(text, at)
            if m is None:
                return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1} is not valid")
            args.append(Arg(int(m["number"])))
            directives.append(Directive(at, m.end()))
            at = m.end()
        elif text[at] == "}":
            return Parsed(tuple(directives), invalid="a '}' that ends no directive (write '}}')")
        else:
            at += 1
    merged, _ = merge_args(args)
    return Parsed(tuple(directives), merged)


_JAVA_ELEMENT = lazy_regex(r"\{\s*(?P<number>\d+)\s*(?:,\s*(?P<type>[A-Za-z]+)\s*(?:,(?P<style>.*))?)?\}", re.DOTALL)
#: A choice format's case: a limit, then ``#``, ``<`` or ``≤``, then a message whose arguments count too.
_JAVA_CHOICE = lazy_regex(
    r"\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+|\u221e)(?:[eE][-+]?\d+)?\s*[#<\u2264](?P<message>.*)", re.DOTALL
)
_JAVA_TYPES = {"number": "number", "choice": "number", "date": "date", "time": "date"}


def _parse_java(text: str, translated: bool) -> Parsed:
    """MessageFormat's ``{0}``, ``{0,number,integer}``; text between single quotes is literal, ``''`` a quote."""
    directives: list[Directive] = []
    args: list[Arg] = []
    at, quoted = 0, False
    while at < len(text):
        char = text[at]
        if char == "'":
            at += 2 if text.startswith("''", at) else 1
            quoted = quoted if text.startswith("''", at - 2) and not quoted else not quoted
            continue
        if not quoted and char == "{":
            end = _matching_brace(text, at)
            m = _JAVA_ELEMENT().fullmatch(text, at, end) if end else None
            if m is None:
                return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1} is not valid")
            type_, style = m["type"], m["style"]
            if type_ is not None and type_ not in _JAVA_TYPES:
                return Parsed(tuple(directives), invalid=f"unknown element type {type_!r}")
            if style is not None and ("{" in style or "}" in style) and type_ != "choice":
                return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1} is not valid")
            args.append(Arg(int(m["number"]), _JAVA_TYPES.get(type_ or "", "object")))
            if type_ == "choice" and style is not None:
                inner = _java_choice_args(style, translated)
                if isinstance(inner, str):
                    return Parsed(tuple(directives), invalid=inner)
                args.extend(inner)
            directives.append(Directive(at, end))
            at = end
            continue
        if not quoted and char == "}":
            return Parsed(tuple(directives), invalid="a '}' that ends no directive")
        at += 1
    merged, problem = merge_args(args)
    return Parsed(tuple(directives), merged, problem)


def _java_choice_args(style: str, translated: bool) -> list[Arg] | str:
    """The arguments the messages of a choice format's cases use (as gettext does), or why it is not valid."""
    args: list[Arg] = []
    for case in _top_level_split(style, "|"):
        m = _JAVA_CHOICE().fullmatch(case)
        if m is None:
            return "a choice format's case is not 'limit#message'"
        parsed = _parse_java(m["message"], translated)
        if parsed.invalid is not None:
            return parsed.invalid
        args.extend(parsed.args)
    return args


def _top_level_split(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside braces."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == separator and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    parts.append(text[start:])
    return parts


def _matching_brace(text: str, start: int) -> int:
    depth = 0
    for at in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[at], 0)
        if depth == 0:
            return at + 1
    return 0


# --- Smalltalk and YCP, Object Pascal -----------------------------------------------------------------

_SMALLTALK = lazy_regex(r"%(?P<rest>%|[1-9])?")


def _parse_smalltalk(text: str, translated: bool) -> Parsed:
    """``%1`` to ``%9`` and ``%%``; any other character after ``%`` makes no format string."""
    directives: list[Directive] = []
    args: list[Arg] = []
    for m in _SMALLTALK().finditer(text):
        if m["rest"] is None:
            return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1} is not %1 to %9")
        if m["rest"] != "%":
            args.append(Arg(int(m["rest"])))
        directives.append(Directive(m.start(), m.end(), m["rest"] != "%"))
    merged, _ = merge_args(args)
    return Parsed(tuple(directives), merged)


def _check_smalltalk(source: Parsed, target: Parsed, strict: bool) -> str | None:
    return compare_subset(source, target, strict)


_PASCAL = lazy_regex(
    r"""
    %
    (?:
        (?P<percent>%)                  # %% is a percent sign
      | (?:(?P<index>\*|\d*):)?         # index: N: or *: (read from an argument), 0-based
        -?                              # flag
        (?P<width>\*|\d+)?              # width
        (?:\.(?P<precision>\*|\d+))?    # precision
        (?P<conversion>[dDuUxXeEfFgGnNmMsSpP])
    )
    """,
    re.VERBOSE,
)


def _parse_pascal(text: str, translated: bool) -> Parsed:
    directives: list[Directive] = []
    args: list[Arg] = []
    current = 0
    at = text.find("%")
    while at >= 0:
        m = _PASCAL().match(text, at)
        if m is None:
            return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1} is not valid")
        if m["percent"]:
            directives.append(Directive(at, m.end(), False))
            at = text.find("%", m.end())
            continue
        index = m["index"]
        for star in (index, m["width"], m["precision"]):
            if star == "*":
                args.append(Arg(current, "int"))
                current += 1
        conversion = m["conversion"].lower()
        type_ = "int" if conversion in "dux" else "float" if conversion in "efgnm" else conversion
        if index not in (None, "*"):
            args.append(Arg(int(index or 0), type_))
        else:
            args.append(Arg(current, type_))
            current += 1
        directives.append(Directive(at, m.end(), True, index is None))
        at = text.find("%", m.end())
    merged, problem = merge_args(args)
    return Parsed(tuple(directives), merged, problem)


QT = Grammar("qt", "Qt", _parse_qt, _check_qt)
QT_PLURAL = Grammar("qt-plural", "Qt plural", _parse_qt_plural, _check_qt_plural)
KDE = Grammar("kde", "KDE", _parse_kde, _check_kde)
KDE_KUIT = Grammar("kde-kuit", "KDE KUIT", _parse_kuit, _check_kde)
BOOST = Grammar("boost", "Boost", _parse_boost, compare_subset)
CSHARP = Grammar("csharp", "C#", _parse_csharp, compare_counted)
JAVA = Grammar("java", "Java MessageFormat", _parse_java, compare_subset)
SMALLTALK = Grammar("smalltalk", "Smalltalk", _parse_smalltalk, _check_smalltalk)
YCP = Grammar("ycp", "YCP", _parse_smalltalk, _check_smalltalk)
PASCAL = Grammar("object-pascal", "Object Pascal", _parse_pascal, compare_subset)
