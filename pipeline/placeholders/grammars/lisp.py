"""Lisp-family formats: ``lisp`` and ``scheme`` (``~A``), ``elisp`` and ``librep`` (``%s``).

``elisp`` and ``librep`` are ported from GNU gettext's ``format-elisp.c`` and ``format-librep.c``
(0.21). ``lisp`` and ``scheme`` follow ``format-lisp.c`` and ``format-scheme.c`` for the directives
that read arguments in sequence (``~A ~S ~D ~X ~F ~C ~P ~*``, parameters, ``v`` and ``#``); their
control structures (``~[ ~{ ~< ~( ~?``, Common Lisp's ``~/name/`` with its function's name, CLISP's ``~!``;
a few thousand lines of constraint solving in gettext) are protected as directives and compared as
written: a translation keeps each of them as often as the source does. A stricter rule than msgfmt's
there, and said so in docs/plurals-placeholders.md.
"""

from __future__ import annotations

import re
from collections import Counter

from pipeline.placeholders.grammars.spec import Arg, Directive, Grammar, Parsed, compare_subset, lazy_regex, merge_args

__all__ = ["ELISP", "LIBREP", "LISP", "SCHEME"]

_CONTROL = "control"

# --- Emacs Lisp and librep ------------------------------------------------------------------------

_ELISP = lazy_regex(
    r"""
    %
    (?:(?P<number>\d+)\$)?              # sets the current argument number
    [-+ #0]*                            # flags
    (?P<width>\*|\d+)?                  # width; * reads the current argument
    (?:\.(?P<precision>\*|\d+))?        # precision
    (?P<conversion>[%cdiXxoeEfgGsS])
    """,
    re.VERBOSE,
)
_LIBREP = lazy_regex(
    r"""
    %
    (?:(?P<number>\d+)\$)?              # sets the current argument number
    [-^0+ ]*                            # flags
    \d*(?:\.\d+)?                       # width and precision
    (?P<conversion>[%cdxXosS])
    """,
    re.VERBOSE,
)
_TYPES = {**dict.fromkeys("cdiXxo", "int"), **dict.fromkeys("eEfgG", "float"), **dict.fromkeys("sS", "any")}
_TYPES["c"] = "char"


def _parse_current(text: str, pattern: re.Pattern[str]) -> Parsed:
    """A ``%N$`` sets the current argument; every argument read moves it on by one."""
    directives: list[Directive] = []
    args: list[Arg] = []
    current = 1
    at = text.find("%")
    while at >= 0:
        m = pattern.match(text, at)
        if m is None:
            return Parsed(tuple(directives), invalid=f"directive number {len(directives) + 1} is not valid")
        if m["number"] is not None:
            if int(m["number"]) == 0:
                return Parsed(tuple(directives), invalid="argument number 0 is not a positive integer")
            current = int(m["number"])
        taken = 0
        for star in (m.groupdict().get("width"), m.groupdict().get("precision")):
            if star == "*":
                args.append(Arg(current, "int"))
                current, taken = current + 1, taken + 1
        if m["conversion"] != "%":
            args.append(Arg(current, _TYPES[m["conversion"]]))
            current, taken = current + 1, taken + 1
        directives.append(Directive(at, m.end(), bool(taken), bool(taken) and m["number"] is None))
        at = text.find("%", m.end())
    merged, problem = merge_args(args)
    return Parsed(tuple(directives), merged, problem)


# --- Common Lisp and Scheme FORMAT ----------------------------------------------------------------

_TILDE = lazy_regex(
    r"""
    ~
    (?P<params>(?:(?:[-+]?\d+|'.|[vV#])?,)*(?:[-+]?\d+|'.|[vV#])?)  # parameters: 5, 'c, v (an argument), #
    (?P<modifiers>[:@]*)                                          # modifiers
    (?P<directive>[\s\S])
    """,
    re.VERBOSE,
)
_ARG_TYPES = {**dict.fromkeys("aAsSwW", "any"), **dict.fromkeys("dDbBoOxXrR", "integer"), "c": "char", "C": "char"}
_ARG_TYPES.update(dict.fromkeys("fFeEgG$", "real"))
_NO_ARG = set("%&|~\ntT_iI\r")
#: CLISP's ~! calls a function with an argument: compared as written, as the control structures are.
_STRUCTURE = set("[]{}<>()?^;*/pP!")
#: Guile's own (format-scheme.c): ~y pretty-prints an argument, ~i prints a complex number (Common Lisp's ~i
#: indents), ~! flushes the output, ~q prints Guile's name, ~k is ~?'s other name.
_SCHEME_ARG_TYPES = {**_ARG_TYPES, "y": "any", "Y": "any", "i": "complex", "I": "complex"}
_SCHEME_NO_ARG = (_NO_ARG - set("iI")) | set("!qQ")
_SCHEME_STRUCTURE = (_STRUCTURE - {"!"}) | set("kK")


def _parse_tilde(text: str, scheme: bool) -> Parsed:
    arg_types, no_arg, control = (
        (_SCHEME_ARG_TYPES, _SCHEME_NO_ARG, _SCHEME_STRUCTURE) if scheme else (_ARG_TYPES, _NO_ARG, _STRUCTURE)
    )
    directives: list[Directive] = []
    args: list[Arg] = []
    structure: Counter[str] = Counter()
    current = 1
    at = text.find("~")
    while at >= 0:
        m = _TILDE().match(text, at)
        if m is None:
            return Parsed(tuple(directives), invalid="the string ends inside a directive")
        directive, end = m["directive"], m.end()
        for param in m["params"].split(","):
            if param in ("v", "V"):
                args.append(Arg(current, "integer"))
                current += 1
        if directive in arg_types:
            args.append(Arg(current, arg_types[directive]))
            current += 1
        elif directive in control:
            structure[m["modifiers"] + directive.lower()] += 1
            if directive == "/" and not scheme:  # ~/name/ calls the function it names (Scheme's ~/ is a tab)
                end = text.find("/", end) + 1
                if end == 0:
                    return Parsed(tuple(directives), invalid="the string ends in the middle of a ~/.../ directive")
        elif directive not in no_arg:
            return Parsed(
                tuple(directives), invalid=f"directive number {len(directives) + 1} ('~{directive}') is unknown"
            )
        directives.append(Directive(at, end, directive not in no_arg))
        at = text.find("~", end)
    if structure:
        # Control structures reorder, repeat and skip arguments: compared as written, see the module docstring.
        shape = ",".join(f"{k}{n}" for k, n in sorted(structure.items()))
        return Parsed(
            tuple(directives), tuple(Arg(i, a.type) for i, a in enumerate(args)), facts=frozenset({_CONTROL, shape})
        )
    merged, problem = merge_args(args)
    return Parsed(tuple(directives), merged, problem)


def _check_tilde(source: Parsed, target: Parsed, strict: bool) -> str | None:
    if _CONTROL in source.facts or _CONTROL in target.facts:
        if source.facts != target.facts or [a.type for a in source.args] != [a.type for a in target.args]:
            return "the translation's control directives (~[ ~{ ~< ~( ~? ~* ~P) or arguments differ from the source's"
        return None
    return compare_subset(source, target, strict)


ELISP = Grammar("elisp", "Emacs Lisp", lambda text, translated: _parse_current(text, _ELISP()), compare_subset)
LIBREP = Grammar("librep", "librep", lambda text, translated: _parse_current(text, _LIBREP()), compare_subset)
LISP = Grammar("lisp", "Lisp", lambda text, translated: _parse_tilde(text, scheme=False), _check_tilde)
SCHEME = Grammar("scheme", "Scheme", lambda text, translated: _parse_tilde(text, scheme=True), _check_tilde)
