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
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from pipeline.patterns import lazy_regex
from pipeline.placeholders.grammars import compiler, lisp, named, positional, printf
from pipeline.placeholders.grammars.spec import Directive, Grammar, Parsed

__all__ = [
    "GRAMMARS",
    "Directive",
    "FormProblem",
    "Grammar",
    "Parsed",
    "check_entry",
    "grammars_for",
    "parse",
    "range_of",
]

#: Every grammar, by its flag, in gettext's order.
GRAMMARS: dict[str, Grammar] = {
    g.flag: g
    for g in (
        printf.C,
        printf.OBJC,
        named.PYTHON,
        named.PYTHON_BRACE,
        positional.JAVA,
        printf.JAVA_PRINTF,
        positional.CSHARP,
        printf.JAVASCRIPT,
        lisp.SCHEME,
        lisp.LISP,
        lisp.ELISP,
        lisp.LIBREP,
        named.RUBY,
        named.SH,
        printf.AWK,
        printf.LUA,
        positional.PASCAL,
        positional.SMALLTALK,
        positional.QT,
        positional.QT_PLURAL,
        positional.KDE,
        positional.KDE_KUIT,
        positional.BOOST,
        printf.TCL,
        printf.PERL,
        named.PERL_BRACE,
        printf.PHP,
        compiler.GCC_INTERNAL,
        compiler.GFC_INTERNAL,
        positional.YCP,
    )
}


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
        if word in GRAMMARS:
            state[word] = on
    return tuple(GRAMMARS[flag] for flag in GRAMMARS if state.get(flag))


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
