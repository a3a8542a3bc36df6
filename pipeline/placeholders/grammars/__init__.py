"""Every format GNU gettext checks, one grammar each, and msgfmt's check of an entry with them.

A PO entry's flags name its formats (``c-format``, ``python-brace-format``, ``possible-sh-format``);
``no-X-format`` turns one off, and the last word about a format wins, as gettext reads flags. Each
:class:`~pipeline.placeholders.grammars.spec.Grammar` gives the directives of a text (what
protection replaces by tags) and compares a translation with its source as that format's
``format_check`` in GNU gettext does; :func:`check_entry` is msgfmt's ``check_msgid_msgstr_format``
over a whole entry: which source the forms are compared with (the plural one when there is one),
which forms may leave arguments out, and the ``range:`` flag.

Nothing here is imported at start-up: the grammars are loaded by the first text that needs them,
and each grammar's regexes are compiled the first time it parses a text
(:func:`~pipeline.placeholders.grammars.spec.lazy_regex`).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from pipeline.patterns import lazy_regex

if TYPE_CHECKING:  # loaded with the first grammar (each grammar's module imports it)
    from pipeline.placeholders.grammars.spec import Grammar, Parsed

__all__ = [
    "FORMATS",
    "NO_PRINTF_FLAGS",
    "FormProblem",
    "check_entry",
    "grammar",
    "grammars_for",
    "parse",
    "range_of",
]

#: Every format gettext checks, by its flag, in gettext's order, and the module of this package that
#: holds its grammar. A module is loaded by the first text whose flags name one of its formats
#: (:func:`grammar`): a run meets the two or three formats its catalogs use, of thirty.
FORMATS: dict[str, str] = {
    "c-format": "printf",
    "objc-format": "printf",
    "python-format": "named",
    "python-brace-format": "named",
    "java-format": "positional",
    "java-printf-format": "printf",
    "csharp-format": "positional",
    "javascript-format": "printf",
    "scheme-format": "lisp",
    "lisp-format": "lisp",
    "elisp-format": "lisp",
    "librep-format": "lisp",
    "ruby-format": "named",
    "sh-format": "named",
    "awk-format": "printf",
    "lua-format": "printf",
    "object-pascal-format": "positional",
    "smalltalk-format": "positional",
    "qt-format": "positional",
    "qt-plural-format": "positional",
    "kde-format": "positional",
    "kde-kuit-format": "positional",
    "boost-format": "positional",
    "tcl-format": "printf",
    "perl-format": "printf",
    "perl-brace-format": "named",
    "php-format": "printf",
    "gcc-internal-format": "compiler",
    "gfc-internal-format": "compiler",
    "ycp-format": "positional",
}


@functools.cache
def grammar(flag: str) -> Grammar:
    """The grammar of the format ``flag`` names (a key of :data:`FORMATS`), its module loaded at the first call."""
    from pipeline.placeholders.grammars.spec import Grammar

    module = importlib.import_module(f"{__name__}.{FORMATS[flag]}")
    return next(g for g in vars(module).values() if isinstance(g, Grammar) and g.flag == flag)


@functools.lru_cache(maxsize=256)
def _grammars(flags: tuple[str, ...]) -> tuple[Grammar, ...]:
    state: dict[str, bool] = {}
    for flag in flags:
        word = flag.strip()
        on = not word.startswith("no-")
        for prefix in ("no-", "possible-", "impossible-"):
            if word.startswith(prefix):
                on = prefix == "possible-"
                word = word[len(prefix) :]
                break
        if word in FORMATS:
            state[word] = on
    return tuple(grammar(flag) for flag in FORMATS if state.get(flag))


#: Flags by which the programmer says a text is no printf format, against xgettext's guess (glib's no-c-format
#: "Invalid %-encoding in URI"): no program passes it to printf, so its "%-e" is text.
NO_PRINTF_FLAGS = frozenset(f"no-{name}-format" for name in ("c", "objc", "python", "php", "perl", "tcl", "awk", "lua"))


def grammars_for(flags: Iterable[str]) -> tuple[Grammar, ...]:
    """The grammars ``flags`` turn on (``X-format`` or ``possible-X-format``, not undone by ``no-X-format``)."""
    return _grammars(tuple(flags))


@functools.lru_cache(maxsize=1 << 14)
def parse(grammar: Grammar, text: str, translated: bool) -> Parsed:
    """``text`` read by ``grammar``: as a source (``translated=False``) or a translation, which may use more."""
    return grammar.parse(text, translated)


class FormProblem(NamedTuple):
    """What msgfmt says of one form: its index (None for a singular entry), the format and the reason."""

    form: int | None
    grammar: Grammar
    reason: str

    def __str__(self) -> str:
        where = "the translation" if self.form is None else f"plural form {self.form}"
        return f"{where}: {self.grammar.pretty} format: {self.reason}"


_RANGE = lazy_regex(r"^range:\s*([0-9]+)\.\.([0-9]+)$")


def range_of(flags: Sequence[str]) -> tuple[int, int] | None:
    """The ``range: min..max`` flag (the numbers a plural entry is used for), as gettext reads it."""
    for flag in flags:
        m = _RANGE().match(flag.strip())
        if m and int(m.group(1)) <= int(m.group(2)):
            return int(m.group(1)), int(m.group(2))
    return None


def check_entry(
    flags: Sequence[str],
    sources: Sequence[str],
    targets: Sequence[str],
    often: Sequence[bool] | None = None,
    form_of: Callable[[int], int] | None = None,
    strict: Sequence[bool] | None = None,
) -> list[FormProblem]:
    """msgfmt's format checks of an entry: ``sources`` is (msgid,) or (msgid, msgid_plural).

    Every form is compared with the plural source when there is one. A form may leave arguments
    out unless the entry is singular, has a single form, or ``often[form]`` says the plural rule
    picks that form for at least 5 numbers in 0..1000 (and a ``range:`` flag does not narrow it
    to one number); without ``often`` (no usable plural rule) every form may. ``form_of`` is the
    plural rule, for the ``range:`` flag. ``strict`` overrides all that, per form: one text judged
    apart from its entry (a plural form of a number sentence) says itself whether it may leave out.
    """
    plural = len(sources) > 1
    window = range_of(flags) if plural and form_of is not None else None
    problems: list[FormProblem] = []
    for grammar in grammars_for(flags):
        source = parse(grammar, sources[-1], False)
        if source.invalid is not None:
            continue  # msgfmt checks nothing against a source that is no valid format string
        for index, target in enumerate(targets):
            form = index if plural else None
            parsed = parse(grammar, target, True)
            if parsed.invalid is not None:
                problems.append(FormProblem(form, grammar, f"not a valid format string: {parsed.invalid}"))
                continue
            if strict is not None:
                equal = strict[index]
            else:
                equal = not plural or len(targets) == 1 or _often(often, index, window, form_of)
            reason = grammar.check(source, parsed, equal)
            if reason:
                problems.append(FormProblem(form, grammar, reason))
    return problems


def _often(
    often: Sequence[bool] | None,
    index: int,
    window: tuple[int, int] | None,
    form_of: Callable[[int], int] | None,
) -> bool:
    if often is None or index >= len(often) or not often[index]:
        return False
    if window is None or form_of is None:
        return True
    low, high = window[0], min(window[1], window[0] + 1000)
    return sum(1 for n in range(low, high + 1) if form_of(n) == index) > 1
