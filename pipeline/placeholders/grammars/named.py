"""Formats whose arguments may be named: ``python``, ``python-brace``, ``perl-brace``, ``ruby``, ``sh``.

Ported from GNU gettext's ``format-python.c``, ``format-python-brace.c``, ``format-perl-brace.c``,
``format-ruby.c`` and ``format-sh.c`` (0.21).
"""

from __future__ import annotations

import re

from pipeline.placeholders.grammars.spec import Arg, Directive, Grammar, Parsed, compare_subset, lazy_regex, merge_args

__all__ = ["PERL_BRACE", "PYTHON", "PYTHON_BRACE", "RUBY", "SH"]

_MAPPING, _TUPLE = "mapping", "tuple"
_MAPPING_FACTS, _TUPLE_FACTS = frozenset({_MAPPING}), frozenset({_TUPLE})

# --- Python % -----------------------------------------------------------------------------------

_PYTHON = lazy_regex(
    r"""
    %
    (?:\((?P<name>(?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\))?  # mapping key, parentheses balanced
    [-+ #0]*                            # flags
    (?P<width>\*|\d+)?                  # width; * reads an int from the tuple
    (?:\.(?P<precision>\*|\d*))?        # precision
    [hlL]?                              # size, ignored by Python
    (?P<conversion>[%csrdiuoxXeEfgG])
    """,
    re.VERBOSE,
)
_PYTHON_TYPES = {**dict.fromkeys("sr", "string"), **dict.fromkeys("diuoxX", "int"), **dict.fromkeys("eEfgG", "float")}
_PYTHON_TYPES["c"] = "char"


def _parse_python(text: str, translated: bool) -> Parsed:
    """``%s``, ``%(name)s``: a string reads either a tuple (unnamed) or a mapping (named), never both."""
    directives: list[Directive] = []
    named: list[Arg] = []
    unnamed: list[Arg] = []
    at = text.find("%")
    while at >= 0:
        m = _PYTHON().match(text, at)
        if m is None:
            return Parsed(tuple(directives), invalid=_bad(text, at, len(directives) + 1))
        name, width, precision, conversion = m.group("name", "width", "precision", "conversion")
        stars = (width == "*") + (precision == "*")
        if stars or (name is None and conversion != "%"):
            if named:
                return Parsed(tuple(directives), invalid="the string uses both named and unnamed arguments")
            unnamed.extend(Arg(len(unnamed) + 1 + i, "int") for i in range(stars))
        type_ = "any" if conversion in "sr" and precision and set(precision) == {"0"} else None
        type_ = type_ or _PYTHON_TYPES.get(conversion, "")
        if name is not None:
            if unnamed:
                return Parsed(tuple(directives), invalid="the string uses both named and unnamed arguments")
            named.append(Arg(name, type_))
        elif conversion != "%":
            unnamed.append(Arg(len(unnamed) + 1, type_))
        takes = conversion != "%" or name is not None or bool(stars)
        directives.append(Directive(at, m.end(), takes, takes and name is None))
        at = text.find("%", m.end())
    if named:
        args, problem = merge_args(named, any_type="any")
        return Parsed(tuple(directives), args, problem, _MAPPING_FACTS)
    return Parsed(tuple(directives), tuple(unnamed), facts=_TUPLE_FACTS if unnamed else frozenset())


def _check_python(source: Parsed, target: Parsed, strict: bool) -> str | None:
    """A mapping stays a mapping; named arguments as usual; unnamed ones always as many as the source's."""
    if _MAPPING in source.facts and _TUPLE in target.facts:
        return "the source's arguments are a mapping (%(name)s), the translation's a tuple"
    if _TUPLE in source.facts and _MAPPING in target.facts:
        return "the source's arguments are a tuple, the translation's a mapping (%(name)s)"
    if _MAPPING in source.facts or _MAPPING in target.facts:
        return compare_subset(source, target, strict, any_type="any")
    if len(source.args) != len(target.args) and (source.args or target.args):
        return "the number of arguments differs from the source's (Python needs all of them)"
    for mine, theirs in zip(target.args, source.args, strict=False):
        if mine.type != theirs.type and (strict or "any" not in (mine.type, theirs.type)):
            return f"argument {mine.key} has another type than in the source"
    return None


def _bad(text: str, start: int, number: int) -> str:
    rest = text[start : start + 12]
    return (
        f"directive number {number} ({rest!r}) is not valid" if len(rest) > 1 else "the string ends inside a directive"
    )


# --- Python str.format -------------------------------------------------------------------------

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_BRACE_FIELD = lazy_regex(
    rf"""
    \{{
    (?P<name>(?:{_IDENT}|[0-9]+)                # field: a name or an index
       (?:\.{_IDENT}|\[(?:{_IDENT}|[0-9]+)\])*) # getattr and getitem, chained: a.b[0]
    (?::(?P<spec>
        \{{(?:{_IDENT}|[0-9]+)(?:\.{_IDENT}|\[(?:{_IDENT}|[0-9]+)\])*\}}   # a nested field as the whole spec
      | (?:.?[<>=^])?[-+ ]?\#?0?[0-9]*(?:\.[0-9]*)?[bcdoxXneEfFgG%]?       # a standard format spec
    ))?
    \}}
    """,
    re.VERBOSE | re.DOTALL,
)


def _parse_python_brace(text: str, translated: bool) -> Parsed:
    """``{name}``, ``{0}``, ``{a.b[0]:>10}``; ``{{`` and ``}}`` are braces. A lone ``}`` is text to gettext."""
    directives: list[Directive] = []
    names: list[Arg] = []
    at = 0
    while True:
        at = text.find("{", at)
        if at < 0:
            break
        if text.startswith("{{", at):
            directives.append(Directive(at, at + 2, False))
            at += 2
            continue
        m = _BRACE_FIELD().match(text, at)
        if m is None:
            return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1} is not a valid field")
        names.append(Arg(m.group()[1:-1]))  # gettext names a field by all it holds, format spec included
        directives.append(Directive(at, m.end()))
        at = m.end()
    # "}}" is a brace to str.format (gettext reads it as text): kept, so that it comes back doubled.
    for m in re.finditer(r"\}\}", text):
        if not any(d.start <= m.start() < d.end for d in directives):
            directives.append(Directive(m.start(), m.end(), False))
    args, _ = merge_args(names)
    return Parsed(tuple(sorted(directives, key=lambda d: d.start)), args)


def _check_python_brace(source: Parsed, target: Parsed, strict: bool) -> str | None:
    """Strict: the same fields; relaxed: anything (msgfmt compares nothing then)."""
    return compare_subset(source, target, True) if strict else None


# --- Perl brace ---------------------------------------------------------------------------------

_PERL_BRACE = lazy_regex(r"\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}")


def _parse_perl_brace(text: str, translated: bool) -> Parsed:
    """libintl-perl's ``{name}``: anything else between braces is text, so every string is valid."""
    found = list(_PERL_BRACE().finditer(text))
    args, _ = merge_args([Arg(m["name"]) for m in found])
    return Parsed(tuple(Directive(m.start(), m.end()) for m in found), args)


def _check_perl_brace(source: Parsed, target: Parsed, strict: bool) -> str | None:
    """A translation may add fields (they expand to nothing); strict, it keeps all of the source's."""
    return compare_subset(source, target, strict, extra_ok=True)


# --- Shell (envsubst) ---------------------------------------------------------------------------

_SH = lazy_regex(
    r"""
    \$
    (?:
        \{(?P<braced>[^}]*)\}?          # ${name}; checked below: ASCII name, no ${x:-default}
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*) # $name
    )?
    """,
    re.VERBOSE,
)
_SH_NAME = lazy_regex(r"[A-Za-z_][A-Za-z0-9_]*")


def _parse_sh(text: str, translated: bool) -> Parsed:
    """``$name`` and ``${name}``; ``$1``, ``$$``, ``${x:-y}`` and a ``$`` at the end make no format string."""
    directives: list[Directive] = []
    names: list[Arg] = []
    for m in _SH().finditer(text):
        if m["name"] is not None:
            names.append(Arg(m["name"]))
        elif m["braced"] is not None and m.group().endswith("}") and _SH_NAME().fullmatch(m["braced"]):
            names.append(Arg(m["braced"]))
        else:
            return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1} is not a variable")
        directives.append(Directive(m.start(), m.end()))
    args, _ = merge_args(names)
    return Parsed(tuple(directives), args)


# --- Ruby ---------------------------------------------------------------------------------------

_RUBY = lazy_regex(
    r"""
    %
    (?P<parts>(?:[-+ #0]|<[^>]*>|\d+\$?|\*(?:\d+\$)?|\.(?:\*(?:\d+\$)?|\d*))*)  # flags, <name>, N$, width, precision
    (?:\{(?P<braced>[^}]*)\}                    # %{name}: the value as a string
      |(?P<conversion>[%\nspcdiuoxXbBfgGeEaA]))
    """,
    re.VERBOSE,
)
_RUBY_PART = lazy_regex(r"<(?P<name>[^>]*)>|(?P<number>\d+)\$|(?P<star>\*)(?:(?P<star_number>\d+)\$)?")
_RUBY_TYPES = {**dict.fromkeys("diuoxXbB", "int"), **dict.fromkeys("fgGeEaA", "float"), "s": "any", "p": "inspect"}
_RUBY_TYPES["c"] = "char"


def _parse_ruby(text: str, translated: bool) -> Parsed:
    """Ruby's ``format``: ``%<name>d`` and ``%{name}`` read a hash, ``%d`` and ``%1$d`` individual arguments."""
    directives: list[Directive] = []
    named: list[Arg] = []
    numbered: list[Arg] = []
    at = text.find("%")
    while at >= 0:
        m = _RUBY().match(text, at)
        if m is None:
            return Parsed(tuple(directives), invalid=_bad(text, at, len(directives) + 1))
        name, number, stars = m["braced"], None, 0
        for part in _RUBY_PART().finditer(m["parts"]):
            if part["name"] is not None:
                name = part["name"]
            elif part["number"]:
                number = int(part["number"])
            elif part["star"]:
                stars += 1
                numbered.append(Arg(int(part["star_number"]) if part["star_number"] else 0, "int"))
        conversion = m["conversion"]
        type_ = "any" if m["braced"] is not None else _RUBY_TYPES.get(conversion or "", "")
        if name is not None:
            named.append(Arg(name, type_))
        elif type_:
            numbered.append(Arg(number or 0, type_))
        if named and numbered:
            return Parsed(tuple(directives), invalid="the string uses both named and unnamed arguments")
        takes = bool(type_) or bool(stars)
        directives.append(Directive(at, m.end(), takes, takes and name is None and number is None))
        at = text.find("%", m.end())
    if named:
        args, problem = merge_args(named)
        return Parsed(tuple(directives), args, problem, frozenset({_MAPPING}))
    if all(a.key == 0 for a in numbered):
        args = tuple(Arg(i, a.type) for i, a in enumerate(numbered, 1))
        return Parsed(tuple(directives), args, facts=frozenset({_TUPLE} if args else ()))
    if any(a.key == 0 for a in numbered):
        return Parsed(tuple(directives), invalid="numbered (%N$) and unnumbered directives are mixed")
    args, problem = merge_args(numbered)
    return Parsed(tuple(directives), args, problem, frozenset({_TUPLE}))


def _check_ruby(source: Parsed, target: Parsed, strict: bool) -> str | None:
    if _MAPPING in source.facts and _TUPLE in target.facts:
        return "the source's arguments are a hash (%<name>s), the translation's individual arguments"
    if _TUPLE in source.facts and _MAPPING in target.facts:
        return "the source's arguments are individual, the translation's a hash (%<name>s)"
    if _MAPPING in source.facts or _MAPPING in target.facts:
        return compare_subset(source, target, strict)
    if len(source.args) != len(target.args) and (source.args or target.args):
        return "the number of arguments differs from the source's"
    for mine, theirs in zip(target.args, source.args, strict=False):
        if mine.type != theirs.type:
            return f"argument {mine.key} has another type than in the source"
    return None


PYTHON = Grammar("python", "Python", _parse_python, _check_python)
PYTHON_BRACE = Grammar("python-brace", "Python brace", _parse_python_brace, _check_python_brace)
PERL_BRACE = Grammar("perl-brace", "Perl brace", _parse_perl_brace, _check_perl_brace)
SH = Grammar("sh", "Shell", _parse_sh, compare_subset)
RUBY = Grammar("ruby", "Ruby", _parse_ruby, _check_ruby)
