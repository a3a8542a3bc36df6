"""What a format grammar returns, and the comparisons msgfmt makes between two parsed strings.

A grammar (:class:`Grammar`) parses a text into :class:`Parsed`: the spans of its directives (what
protection replaces by tags) and the arguments they consume, or the reason msgfmt gives for not
taking the text as a format string. Its ``check`` compares a translation's arguments with the
source's the way that format's ``format_check`` in GNU gettext does; most formats share one of
the comparisons below, so each rule is written once.

``strict`` is msgfmt's ``equality``: True for a singular entry and for plural forms the plural rule
picks for many numbers; False lets a translation leave arguments out (a form that covers one number).
"""

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from pipeline import patterns

__all__ = [
    "Arg",
    "Directive",
    "Grammar",
    "Parsed",
    "compare_counted",
    "compare_exact",
    "compare_listed",
    "compare_subset",
    "lazy_regex",
    "merge_args",
]


class Directive(NamedTuple):
    """One directive's span in its text, and whether it consumes an argument (``%%`` does not)."""

    start: int
    end: int
    takes_argument: bool = True
    #: Unnumbered printf directives read their arguments in order: moving one changes the program.
    ordered: bool = False


class Arg(NamedTuple):
    """An argument a format string reads: its number (1-based) or name, and the type it needs."""

    key: int | str
    type: str = ""


class Parsed(NamedTuple):
    """A text read by a grammar: its directives, the arguments they need, or why it is no format string.

    ``args`` is sorted by key with duplicates merged; ``facts`` holds what a format compares besides
    arguments (gcc-internal's use of ``%m``, Qt's "simple" strings, Python's mapping vs tuple).
    """

    directives: tuple[Directive, ...] = ()
    args: tuple[Arg, ...] = ()
    invalid: str | None = None
    facts: frozenset[str] = frozenset()


class Grammar(NamedTuple):
    """A format gettext checks: its flag word (``c`` in ``c-format``), name, parser and comparison."""

    word: str
    pretty: str
    parse: Callable[[str, bool], Parsed]
    check: Callable[[Parsed, Parsed, bool], str | None]

    @property
    def flag(self) -> str:
        """The PO flag that turns this grammar on."""
        return f"{self.word}-format"


def lazy_regex(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """``re.compile(pattern, flags | re.ASCII)``, compiled by the first call and kept (:mod:`pipeline.patterns`).

    ASCII: gettext reads a format string byte by byte, so a digit is ``0``-``9`` (``c_isdigit``) and a
    name's letters are ASCII; ``%١`` is no directive to msgfmt, and ``%1١`` is ``%1`` followed by text.
    A run compiles the grammars its catalogs' flags name, not all thirty: a grammar's regexes are
    compiled the first time it parses a text.
    """
    return patterns.lazy_regex(pattern, flags | re.ASCII)


def merge_args(args: Sequence[Arg], any_type: str = "") -> tuple[tuple[Arg, ...], str | None]:
    """``args`` sorted by key with duplicates merged, or the reason two uses of one argument disagree.

    ``any_type`` names a type that fits any other (Python's ``%.0s``), as msgfmt merges them.
    """
    merged: dict[int | str, Arg] = {}
    for arg in sorted(args, key=_order):
        seen = merged.get(arg.key)
        if seen is None or seen.type == arg.type or arg.type == any_type and any_type:
            merged.setdefault(arg.key, arg)
        elif seen.type == any_type and any_type:
            merged[arg.key] = arg
        else:
            return (), f"the string refers to argument {_show(arg.key)} in incompatible ways"
    return tuple(merged.values()), None


def _order(arg: Arg) -> tuple[int, int | str]:
    return (0, arg.key) if isinstance(arg.key, int) else (1, arg.key)


def _show(key: int | str) -> str:
    return str(key) if isinstance(key, int) else f"'{key}'"


def compare_subset(
    source: Parsed, target: Parsed, strict: bool, *, extra_ok: bool = False, any_type: str = ""
) -> str | None:
    """msgfmt's usual rule: every argument of the translation is in the source (unless ``extra_ok``),
    with the same type; ``strict`` also needs every argument of the source in the translation."""
    theirs = {a.key: a for a in source.args}
    ours = {a.key: a for a in target.args}
    for arg in target.args:
        if arg.key not in theirs and not extra_ok:
            return f"the translation has argument {_show(arg.key)}, which the source does not have"
    if strict:
        for arg in source.args:
            if arg.key not in ours:
                return f"argument {_show(arg.key)} of the source is missing from the translation"
    for arg in target.args:
        want = theirs.get(arg.key)
        if want is not None and want.type != arg.type and not (not strict and any_type in (want.type, arg.type)):
            return f"argument {_show(arg.key)} has another type than in the source"
    return None


def compare_listed(source: Parsed, target: Parsed, strict: bool) -> str | None:
    """C's rule: arguments 1..n with no gap; strict needs as many, relaxed at most as many, same types."""
    if len(target.args) != len(source.args) if strict else len(target.args) > len(source.args):
        return "the number of arguments differs from the source's"
    for mine, theirs in zip(target.args, source.args, strict=False):
        if mine.type != theirs.type:
            return f"argument {mine.key} has another type than in the source"
    return None


def compare_exact(source: Parsed, target: Parsed, strict: bool) -> str | None:
    """Lua's and Qt's rule: the same arguments with the same types, whatever the plural form."""
    return compare_subset(source, target, True)


def compare_counted(source: Parsed, target: Parsed, strict: bool) -> str | None:
    """C#'s rule: only how many arguments (the highest index plus one) is compared."""
    mine, theirs = _count(target), _count(source)
    if mine != theirs if strict else mine > theirs:
        return "the number of arguments differs from the source's"
    return None


def _count(parsed: Parsed) -> int:
    return max((a.key for a in parsed.args if isinstance(a.key, int)), default=-1) + 1
