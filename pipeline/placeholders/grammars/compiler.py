"""GCC's diagnostic formats: ``gcc-internal`` (the C family front ends) and ``gfc-internal`` (Fortran).

Ported from GNU gettext's ``format-gcc-internal.c`` and ``format-gfc-internal.c`` (0.21). Besides
arguments, gcc-internal has directives that take none: ``%<`` and ``%>`` (quotes around a keyword),
``%'`` (an apostrophe), ``%%``; and ``%m`` (the error text of errno), which a translation must keep
or leave out as its source does. gfc-internal's ``%C`` (the current locus) is such a fact too.
"""

from __future__ import annotations

import re

from pipeline.placeholders.grammars.spec import (
    Arg,
    Directive,
    Grammar,
    Parsed,
    compare_listed,
    compare_subset,
    lazy_regex,
    merge_args,
)

__all__ = ["GCC_INTERNAL", "GFC_INTERNAL"]

_MIXED = "numbered (%N$) and unnumbered directives are mixed"
_ERRNO, _LOCUS = "uses %m", "uses %C"

_GCC = lazy_regex(
    r"""
    %
    (?:
        (?P<plain>[%<>'m])              # no argument: %% %< %> %' and %m (errno's text)
      | (?:(?P<number>\d+)\$)?          # argument number
        (?P<flags>[qlw+\#]*)            # q quotes, l/ll/w size, + and # for trees
        (?:
            \.(?P<precision>\d+|\*(?:(?P<star>\d+)\$)?)s   # %.*s: a string with an int precision
          | (?P<conversion>[csdiouxpHJKDFTEACLOPQV])
        )
    )
    """,
    re.VERBOSE,
)
_TREE = {"D": "decl", "F": "funcdecl", "T": "type", "E": "expression", "A": "argument", "V": "cv"}
_TREE.update(J="decl", K="statement")
_SIMPLE = {"c": "char", "s": "string", "p": "pointer", "H": "location", "C": "tree code", "L": "languages"}
_SIMPLE.update(O="tree code binop", P="int funcparam", Q="tree code assop")


def _gcc_type(conversion: str, flags: str) -> str | None:
    """The argument type, or None when the flags do not go with the conversion."""
    if len(set(flags)) != len(flags.replace("ll", "l")) or ("w" in flags and "l" in flags):
        return None
    size = "ll" if "ll" in flags else "l" if "l" in flags else "w" if "w" in flags else ""
    if conversion in "di":
        return f"int/{size}"
    if conversion in "oux":
        return f"uint/{size}"
    if size or "+" in flags or "#" in flags:  # sizes and tree flags go with integers and trees only
        return f"tree/{_TREE[conversion]}" if conversion in _TREE and not size else None
    return f"tree/{_TREE[conversion]}" if conversion in _TREE else _SIMPLE[conversion]


def _parse_gcc(text: str, translated: bool) -> Parsed:
    directives: list[Directive] = []
    numbered: list[Arg] = []
    unnumbered: list[Arg] = []
    facts: set[str] = set()
    at = text.find("%")
    while at >= 0:
        m = _GCC().match(text, at)
        if m is None:
            return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1} is not valid")
        if m["plain"]:
            if m["plain"] == "m":
                facts.add(_ERRNO)
            directives.append(Directive(at, m.end(), False))
            at = text.find("%", m.end())
            continue
        number = int(m["number"]) if m["number"] else None
        if number == 0:
            return Parsed(tuple(directives), invalid="argument number 0 is not a positive integer")
        kinds: list[tuple[int | None, str]] = []
        if m["precision"] is not None:
            if m["precision"].startswith("*"):
                star = int(m["star"]) if m["star"] else None
                if star is not None and (number is None or star != number - 1):
                    return Parsed(tuple(directives), invalid="the precision's argument must be the one before")
                kinds.append((star, "int/"))
            kinds.append((number, "string"))
        else:
            type_ = _gcc_type(m["conversion"], m["flags"].replace("q", ""))
            if type_ is None:
                return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1}: invalid flags")
            kinds.append((number, type_))
        for key, type_ in kinds:
            if (key is None and numbered) or (key is not None and unnumbered):
                return Parsed(tuple(directives), invalid=_MIXED)
            (numbered if key is not None else unnumbered).append(Arg(key or len(unnumbered) + 1, type_))
        directives.append(Directive(at, m.end(), True, number is None))
        at = text.find("%", m.end())
    if unnumbered:
        return Parsed(tuple(directives), tuple(unnumbered), facts=frozenset(facts))
    args, problem = merge_args(numbered)
    return Parsed(tuple(directives), args, problem, frozenset(facts))


def _check_gcc(source: Parsed, target: Parsed, strict: bool) -> str | None:
    problem = compare_subset(source, target, strict)
    if problem is None and (_ERRNO in source.facts) != (_ERRNO in target.facts):
        problem = "%m (the system error text) is used in one of source and translation only"
    return problem


_GFC = lazy_regex(
    r"""
    %
    (?:
        (?P<percent>%)                  # %% is a percent sign
      | (?:(?P<number>\d+)\$)?          # sets the current argument number
        (?P<conversion>[CLcs]|l?[idu])  # C: the current locus (counts as an argument)
    )
    """,
    re.VERBOSE,
)
_GFC_TYPES = {"C": "void", "L": "locus", "c": "char", "s": "string", "i": "int", "d": "int", "u": "uint"}


def _parse_gfc(text: str, translated: bool) -> Parsed:
    directives: list[Directive] = []
    numbered: list[Arg] = []
    facts: set[str] = set()
    current = 1
    at = text.find("%")
    while at >= 0:
        m = _GFC().match(text, at)
        if m is None:
            return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1} is not valid")
        if m["percent"]:
            directives.append(Directive(at, m.end(), False))
        else:
            if m["number"] is not None:
                if int(m["number"]) == 0:
                    return Parsed(tuple(directives), invalid="argument number 0 is not a positive integer")
                current = int(m["number"])
            conversion = m["conversion"]
            if conversion == "C":
                facts.add(_LOCUS)
            numbered.append(Arg(current, _GFC_TYPES[conversion[-1]] + ("/long" if conversion[0] == "l" else "")))
            current += 1
            directives.append(Directive(at, m.end(), True, m["number"] is None))
        at = text.find("%", m.end())
    args, problem = merge_args(numbered)
    for expected, arg in enumerate(args, 1):
        if problem is None and arg.key != expected:
            problem = f"the string refers to argument number {arg.key} but ignores argument number {expected}"
    if problem:
        return Parsed(tuple(directives), invalid=problem)
    # %C reads no argument of the caller's: only the others are counted and compared.
    return Parsed(tuple(directives), tuple(a for a in args if a.type != "void"), facts=frozenset(facts))


def _check_gfc(source: Parsed, target: Parsed, strict: bool) -> str | None:
    problem = compare_listed(source, target, strict)
    if problem is None and (_LOCUS in source.facts) != (_LOCUS in target.facts):
        problem = "%C (the current locus) is used in one of source and translation only"
    return problem


GCC_INTERNAL = Grammar("gcc-internal", "GCC internal", _parse_gcc, _check_gcc)
GFC_INTERNAL = Grammar("gfc-internal", "GFC internal", _parse_gfc, _check_gfc)
