"""printf-like formats: ``c``, ``objc``, ``awk``, ``javascript``, ``php``, ``lua``, ``tcl``, ``perl``, ``java-printf``.

Each is ported from GNU gettext's ``format-<name>.c`` (0.21): which characters make a directive,
which argument type each conversion reads, whether numbered (``%2$s``) and unnumbered directives
may be mixed, whether an argument may be skipped, and which comparison msgfmt makes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pipeline.placeholders.grammars.spec import (
    Arg,
    Directive,
    Grammar,
    Parsed,
    compare_exact,
    compare_listed,
    compare_subset,
    lazy_regex,
    merge_args,
)

__all__ = ["AWK", "C", "JAVA_PRINTF", "JAVASCRIPT", "LUA", "OBJC", "PERL", "PHP", "TCL"]

_MIXED = "numbered (%N$) and unnumbered directives are mixed"

# --- C and Objective-C ------------------------------------------------------------------------

_C_DIRECTIVE = lazy_regex(
    r"""
    %
    (?:(?P<number>\d+)\$)?                  # argument number: %2$s
    (?P<flags>[-+ #0'I]*)                   # flags; I (locale digits) only in translations
    (?P<width>\*(?:\d+\$)?|\d+)?            # width: digits, or * / *N$ reading an int argument
    (?:\.(?P<precision>\*(?:\d+\$)?|\d*))?  # precision, the same ways
    (?:
        <PRI(?P<macro>[diouxX])             # an <inttypes.h> macro as xgettext writes it: <PRId64>
        (?P<macro_size>MAX|PTR|(?:LEAST|FAST)?(?:8|16|32|64))>
      | (?P<size>[hlLqjzZt]*)               # size: h hh l ll L q j z Z t (the last one counts)
        (?P<conversion>[%mcCsSidouxXeEfFgGaA@pn])
    )
    """,
    re.VERBOSE,
)
_C_SIZES = {"h": "short", "hh": "char", "l": "long", "ll": "longlong", "L": "longlong", "q": "longlong"}
_C_SIZES.update(j="intmax", z="size", Z="size", t="ptrdiff")


def _c_size(size: str) -> str:
    """The size a run of size letters gives, as gettext folds them (h twice is char, l twice long long)."""
    result = ""
    for letter in size:
        if letter == "h":
            result = "char" if result in ("short", "char") else "short"
        elif letter == "l":
            result = "longlong" if result in ("long", "longlong") else "long"
        else:
            result = _C_SIZES[letter]
    return result


def _c_type(m: re.Match[str], objc: bool) -> str | None:
    """The type of the argument a C conversion reads ('' for none); None for an unknown conversion."""
    if m["macro"]:
        return ("uint" if m["macro"] in "ouxX" else "int") + "/" + m["macro_size"]
    conversion, size = m["conversion"], _c_size(m["size"])
    wide = "/wide" if size in ("long", "longlong") else ""
    if conversion in "%m":
        return ""
    if conversion == "@":
        return "object" if objc else None
    return {
        "c": "char" + wide,
        "C": "char/wide",
        "s": "string" + wide,
        "S": "string/wide",
        "p": "pointer",
        "n": "count/" + size,
    }.get(conversion) or (
        ("int/" if conversion in "di" else "uint/") + size
        if conversion in "diouxX"
        else "double" + ("/long" if size == "longlong" else "")
    )


def _parse_c(text: str, translated: bool, objc: bool) -> Parsed:
    directives: list[Directive] = []
    numbered: list[Arg] = []
    unnumbered: list[Arg] = []

    def add(number: str | None, type_: str) -> str | None:
        if number is not None:
            if int(number) == 0:
                return "argument number 0 is not a positive integer"
            if unnumbered:
                return _MIXED
            numbered.append(Arg(int(number), type_))
        else:
            if numbered:
                return _MIXED
            unnumbered.append(Arg(len(unnumbered) + 1, type_))
        return None

    start = text.find("%")
    while start >= 0:
        m = _C_DIRECTIVE().match(text, start)
        if m is None or "I" in m["flags"] and not translated:
            return Parsed(tuple(directives), invalid=_bad_directive(text, start, len(directives) + 1))
        type_ = _c_type(m, objc)
        if type_ is None:
            return Parsed(tuple(directives), invalid=_bad_directive(text, start, len(directives) + 1))
        for star in (m["width"], m["precision"]):
            if star and star.startswith("*"):
                problem = add(star[1:-1] if star.endswith("$") else None, "int/")
                if problem:
                    return Parsed(tuple(directives), invalid=problem)
        if type_:
            problem = add(m["number"], type_)
            if problem:
                return Parsed(tuple(directives), invalid=problem)
        elif m["number"] is not None and int(m["number"]) == 0:
            return Parsed(tuple(directives), invalid="argument number 0 is not a positive integer")
        takes = bool(type_) or "*" in m.group()
        directives.append(Directive(start, m.end(), takes, takes and m["number"] is None and "$" not in m.group()))
        start = text.find("%", m.end())
    if unnumbered:
        return Parsed(tuple(directives), tuple(unnumbered))
    args, problem = merge_args(numbered)
    problem = problem or _gap(args)
    return Parsed(tuple(directives), args, problem)


def _gap(args: tuple[Arg, ...]) -> str | None:
    """C's rule: using argument N needs every argument before it used too."""
    for expected, arg in enumerate(args, 1):
        if arg.key != expected:
            return f"the string refers to argument number {arg.key} but ignores argument number {expected}"
    return None


def _bad_directive(text: str, start: int, number: int) -> str:
    rest = text[start : start + 12]
    return (
        f"directive number {number} ({rest!r}) is not valid" if len(rest) > 1 else "the string ends inside a directive"
    )


def _scan(
    text: str, pattern: re.Pattern[str], read: Callable[[re.Match[str]], Directive | str | None]
) -> tuple[list[Directive], str | None]:
    """Directives of ``text``, each ``%`` matched by ``pattern`` and read by ``read`` (a reason when invalid)."""
    directives: list[Directive] = []
    at = text.find("%")
    while at >= 0:
        m = pattern.match(text, at)
        if m is None:
            return directives, _bad_directive(text, at, len(directives) + 1)
        found = read(m)
        if isinstance(found, str):
            return directives, found
        if found is not None:
            directives.append(found)
        at = text.find("%", m.end())
    return directives, None


class _Args:
    """Arguments collected while scanning: numbered and unnumbered, and whether they may mix."""

    def __init__(self, may_mix: bool = False) -> None:
        self.numbered: list[Arg] = []
        self.unnumbered = 0
        self.explicit = 0
        self.may_mix = may_mix

    def add(self, number: str | int | None, type_: str) -> str | None:
        if number is not None:
            if int(number) == 0:
                return "argument number 0 is not a positive integer"
            if self.unnumbered and not self.may_mix:
                return _MIXED
            self.explicit += 1
            self.numbered.append(Arg(int(number), type_))
        else:
            if self.explicit and not self.may_mix:
                return _MIXED
            self.unnumbered += 1
            self.numbered.append(Arg(self.unnumbered, type_))
        return None

    def parsed(self, directives: list[Directive], invalid: str | None, any_type: str = "") -> Parsed:
        if invalid:
            return Parsed(tuple(directives), invalid=invalid)
        if not self.explicit:  # unnumbered alone: arguments 1, 2, ... once each, in order, as merged
            return Parsed(tuple(directives), tuple(self.numbered))
        args, problem = merge_args(self.numbered)
        return Parsed(tuple(directives), args, problem)


# --- awk, JavaScript, PHP, Tcl, Lua ---------------------------------------------------------------

_AWK = lazy_regex(
    r"""
    %
    (?:(?P<number>\d+)\$)?              # argument number
    [-+ #0]*                            # flags
    (?P<width>\*(?:\d+\$)?|\d+)?        # width, maybe read from an argument
    (?:\.(?P<precision>\*(?:\d+\$)?|\d*))?
    (?P<conversion>[%csiduoxXeEfgG])
    """,
    re.VERBOSE,
)
_AWK_TYPES = {**dict.fromkeys("di", "int"), **dict.fromkeys("uoxX", "uint"), **dict.fromkeys("eEfgG", "float")}
_AWK_TYPES.update(c="char", s="string")


def _parse_starred(text: str, pattern: re.Pattern[str], types: dict[str, str], may_mix: bool = False) -> Parsed:
    """awk and Tcl: printf with ``*`` widths reading arguments, numbered or not."""
    args = _Args(may_mix)

    def read(m: re.Match[str]) -> Directive | str | None:
        for star in (m["width"], m["precision"]):
            if star and star.startswith("*"):
                problem = args.add(star[1:-1] if star.endswith("$") else None, "int")
                if problem:
                    return problem
        conversion = m["conversion"]
        if conversion == "%":
            return Directive(m.start(), m.end(), False)
        problem = args.add(m["number"], ("short " if m.groupdict().get("short") else "") + types[conversion])
        return problem or Directive(m.start(), m.end(), True, m["number"] is None)

    directives, invalid = _scan(text, pattern, read)
    return args.parsed(directives, invalid)


_JAVASCRIPT = lazy_regex(
    r"""
    %
    (?:(?P<number>\d+)\$)?              # argument number
    [-+ 0I]*                            # flags
    \d*(?:\.\d*)?                       # width and precision
    (?P<conversion>[%csbdoxXfj])        # j: any value, as JSON
    """,
    re.VERBOSE,
)
_JS_TYPES = {**dict.fromkeys("bdoxX", "int"), "f": "float", "c": "char", "s": "string", "j": "any"}


def _parse_simple(
    text: str, pattern: re.Pattern[str], types: dict[str, str], may_mix: bool = False, keep: bool = False
) -> Parsed:
    """JavaScript and PHP: printf without ``*``; PHP's numbered directives do not move the unnumbered count."""
    args = _Args(may_mix)

    def read(m: re.Match[str]) -> Directive | str | None:
        conversion = m["conversion"]
        if conversion == "%":
            return Directive(m.start(), m.end(), False)
        problem = args.add(m["number"], types[conversion])
        return problem or Directive(m.start(), m.end(), True, m["number"] is None)

    directives, invalid = _scan(text, pattern, read)
    return args.parsed(directives, invalid)


_PHP = lazy_regex(
    r"""
    %
    (?:
        (?P<percent>%)                  # %% is a percent sign
      | (?:(?P<number>\d+)\$)?          # argument number
        (?:[-0 ]|'.)*                   # flags; 'c pads with the character c
        \d*                             # width
        (?:\.\d+)?                      # precision
        l?                              # size, ignored
        (?P<conversion>[bduoxXefcs])
    )
    """,
    re.VERBOSE | re.DOTALL,
)
_PHP_TYPES = {**dict.fromkeys("bduoxX", "int"), **dict.fromkeys("ef", "float"), "c": "char", "s": "string"}


def _parse_php(text: str) -> Parsed:
    args = _Args(may_mix=True)

    def read(m: re.Match[str]) -> Directive | str | None:
        if m["percent"]:
            return Directive(m.start(), m.end(), False)
        problem = args.add(m["number"], _PHP_TYPES[m["conversion"]])
        return problem or Directive(m.start(), m.end(), True, m["number"] is None)

    directives, invalid = _scan(text, _PHP(), read)
    return args.parsed(directives, invalid)


_TCL = lazy_regex(
    r"""
    %
    (?:
        (?P<percent>%)                  # %% is a percent sign
      | (?:(?P<number>\d+)\$)?          # argument number
        [-+ #0]*                        # flags
        (?P<width>\*|\d+)?              # width; * reads the next argument
        (?:\.(?P<precision>\*|\d*))?    # precision
        (?:(?P<short>h)|l)?             # size
        (?P<conversion>[csiduoxXeEfgG])
    )
    """,
    re.VERBOSE,
)


def _parse_tcl(text: str) -> Parsed:
    """Tcl: a numbered directive sets the argument the next unnumbered ``*`` or conversion reads."""
    numbered: list[Arg] = []
    state = {"number": 1, "numbered": False, "unnumbered": False}

    def read(m: re.Match[str]) -> Directive | str | None:
        if m["percent"]:
            return Directive(m.start(), m.end(), False)
        if m["number"] is not None:
            if int(m["number"]) == 0:
                return "argument number 0 is not a positive integer"
            if state["unnumbered"]:
                return _MIXED
            state["number"], state["numbered"] = int(m["number"]), True
        else:
            if state["numbered"]:
                return _MIXED
            state["unnumbered"] = True
        for star in (m["width"], m["precision"]):
            if star == "*":
                numbered.append(Arg(int(state["number"]), "int"))
                state["number"] += 1
        short = "short " if m["short"] and m["conversion"] in "diuoxX" else ""
        numbered.append(Arg(int(state["number"]), short + _AWK_TYPES[m["conversion"]]))
        state["number"] += 1
        return Directive(m.start(), m.end(), True, m["number"] is None)

    directives, invalid = _scan(text, _TCL(), read)
    if invalid:
        return Parsed(tuple(directives), invalid=invalid)
    args, problem = merge_args(numbered)
    return Parsed(tuple(directives), args, problem)


_LUA = lazy_regex(
    r"""
    %
    (?:
        (?P<percent>%)                  # %% is a percent sign
      | \d*(?:\.\d*)?                   # width and precision (no flags)
        (?P<conversion>[csqdioxXuaAeEfgG])
    )
    """,
    re.VERBOSE,
)
_LUA_TYPES = {**dict.fromkeys("dioxXu", "int"), **dict.fromkeys("aAeEfgG", "float"), "c": "char", "s": "string"}
_LUA_TYPES["q"] = "escaped string"


def _parse_lua(text: str) -> Parsed:
    args = _Args()

    def read(m: re.Match[str]) -> Directive | str | None:
        if m["percent"]:
            return Directive(m.start(), m.end(), False)
        args.add(None, _LUA_TYPES[m["conversion"]])
        return Directive(m.start(), m.end(), True, True)

    directives, invalid = _scan(text, _LUA(), read)
    return args.parsed(directives, invalid)


# --- Perl and Java printf ----------------------------------------------------------------------

_PERL = lazy_regex(
    r"""
    %
    (?:(?P<number>[1-9]\d*)\$)?                 # argument number
    [-+ #0]*                                    # flags
    (?P<vector>v|\*(?:[1-9]\d*\$)?v)?           # vector flag, its join string maybe from an argument
    (?P<width>\*(?:[1-9]\d*\$)?|[1-9]\d*)?      # width
    (?:\.(?P<precision>\*(?:[1-9]\d*\$)?|\d*))? # precision
    (?P<size>hh|h|ll|l|L|q|V|I64|I32|I)?        # size
    (?P<conversion>[%csdiuboxXeEfFgGpnDUO_])
    """,
    re.VERBOSE,
)
_PERL_SIZES = {"hh": "h", "ll": "L", "q": "L", "I64": "L", "I32": "", "I": "ptr"}  # what _perl_type reads
_PERL_OTHER = {"c": "char", "s": "string", "p": "pointer"}


def _parse_perl(text: str) -> Parsed:
    """Perl's sprintf: numbered and unnumbered may mix; ``%v`` formats a vector of numbers."""
    args = _Args(may_mix=True)

    def read(m: re.Match[str]) -> Directive | str | None:
        if m.end() - m.start() == 2 and m["conversion"] != "%":  # %s, %d: nothing between % and the conversion
            type_ = "vector" if m["conversion"] == "_" else _perl_type(m["conversion"], "")
            return args.add(None, type_) or Directive(m.start(), m.end(), True, True)
        vector = m["vector"]
        if vector and vector.startswith("*"):
            problem = args.add(vector[1:-2] if "$" in vector else None, "string")
            if problem:
                return problem
        for star in (m["width"], m["precision"]):
            if star and star.startswith("*"):
                problem = args.add(star[1:-1] if star.endswith("$") else None, "int/")
                if problem:
                    return problem
        conversion, size = m["conversion"], m["size"] or ""
        if conversion == "%":
            return Directive(m.start(), m.end(), False)
        if conversion in "eEfFgG" and size in ("h", "l"):
            return f"the size {size} does not go with %{conversion}"
        type_ = "vector" if vector or conversion == "_" else _perl_type(conversion, size)
        problem = args.add(m["number"], type_)
        return problem or Directive(m.start(), m.end(), True, m["number"] is None)

    directives, invalid = _scan(text, _PERL(), read)
    return args.parsed(directives, invalid)


def _perl_type(conversion: str, size: str) -> str:
    size = _PERL_SIZES.get(size, size)
    if conversion in "DUO":
        return ("int" if conversion == "D" else "uint") + "/V"
    if conversion in "di":
        return "int/" + size
    if conversion in "ubxXo":
        return "uint/" + size
    if conversion in "eEfFgG":
        return "double/" + size
    return _PERL_OTHER.get(conversion, "count/" + size)


_JAVA_PRINTF = lazy_regex(
    r"""
    %
    (?P<index><|(?P<number>\d+)\$)?     # argument: <N>$, or < for the previous one
    (?P<flags>[-#+ 0,(]*)               # flags
    \d*                                 # width
    (?:\.\d+)?                          # precision
    (?P<conversion>[%nbBhHsScCdoxXeEfgGaA]|[tT][HIklMSLNpzZsQBbhAaCYyjmdeRTrDFc])
    """,
    re.VERBOSE,
)
_JAVA_TYPES = {**dict.fromkeys("bBhHsS", "general"), **dict.fromkeys("cC", "char")}
_JAVA_TYPES.update(dict.fromkeys("doxX", "integer"))
_JAVA_TYPES.update(dict.fromkeys("eEfgGaA", "float"))


def _parse_java_printf(text: str) -> Parsed:
    """Java's Formatter: ``%<s`` reuses the previous argument; numbered and unnumbered may mix."""
    args = _Args(may_mix=True)
    last = {"number": 0}

    def read(m: re.Match[str]) -> Directive | str | None:
        conversion = m["conversion"]
        if conversion in ("%", "n"):
            # %% takes no flag but '-' and no precision; %n takes nothing at all.
            bare = m.group()[1:-1]
            if conversion == "n" and bare or conversion == "%" and (set(m["flags"]) - {"-"} or "." in bare):
                return f"directive number {args.unnumbered + 1}: flags that %{conversion} does not take"
            return Directive(m.start(), m.end(), False)
        type_ = "date" if conversion[0] in "tT" else _JAVA_TYPES[conversion]
        if m["index"] == "<":
            if not last["number"]:
                return "'%<' refers to no previous argument"
            problem = args.add(last["number"], type_)
        else:
            problem = args.add(m["number"], type_)
            last["number"] = int(m["number"]) if m["number"] else args.unnumbered
        return problem or Directive(m.start(), m.end(), True, m["index"] is None)

    directives, invalid = _scan(text, _JAVA_PRINTF(), read)
    return args.parsed(directives, invalid)


def _check_any(source: Parsed, target: Parsed, strict: bool) -> str | None:
    return compare_subset(source, target, strict, any_type="any")


C = Grammar("c", "C", lambda text, translated: _parse_c(text, translated, objc=False), compare_listed)
OBJC = Grammar("objc", "Objective C", lambda text, translated: _parse_c(text, translated, objc=True), compare_listed)
AWK = Grammar("awk", "awk", lambda text, translated: _parse_starred(text, _AWK(), _AWK_TYPES), compare_subset)
JAVASCRIPT = Grammar(
    "javascript", "JavaScript", lambda text, translated: _parse_simple(text, _JAVASCRIPT(), _JS_TYPES), _check_any
)
PHP = Grammar("php", "PHP", lambda text, translated: _parse_php(text), compare_subset)
TCL = Grammar("tcl", "Tcl", lambda text, translated: _parse_tcl(text), compare_subset)
LUA = Grammar("lua", "Lua", lambda text, translated: _parse_lua(text), compare_exact)
PERL = Grammar("perl", "Perl", lambda text, translated: _parse_perl(text), compare_subset)
JAVA_PRINTF = Grammar("java-printf", "Java printf", lambda text, translated: _parse_java_printf(text), compare_subset)
