"""The rules a translation is judged by, each a plain function, with two severities.

Judgement follows gettext. An *error* breaks the program or the catalog: msgfmt rejects the entry
(a format directive of the entry's flags, a leading or trailing newline), or a placeholder the
source has is missing, added or changed (markup, variables, ICU structure), or markup that runs code
is added, or a control character appears that the source lacks. A *warning* is style, or a matter
for a reviewer: a translation longer than its unit's length limit (:mod:`pipeline.limits`),
an entity written as its character or the reverse, other edge whitespace, a translated attribute
(``title=``, ``alt=``), a URL pointing at a localised page, a bidi or invisible character, a
directive that reads no argument (``%%``, ``%<``), markup whose balance differs where the source's
own is unusual, code protection keeps from the engine but no flag of the entry names (a date
format, an option, a path, another format's placeholder), which a translator may adapt, and a usage
line's command moved among its options or a ``%<PRIuMAX>`` glued to a word. Edges,
characters and length are :mod:`pipeline.placeholders.text_rules`.

:func:`check_translation` judges one text against its source; the gate
(:mod:`pipeline.run.gate`) runs it over every form of a unit, with msgfmt's format check of the
whole entry (:func:`pipeline.placeholders.grammars.check_entry`) for plural ones.
"""

import functools
import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from pipeline.model import Severity
from pipeline.patterns import lazy_regex
from pipeline.placeholders import glue, icu, icu_plurals, markup, synopsis
from pipeline.placeholders.code_names import without_translated_names
from pipeline.placeholders.grammars import FORMATS, NO_PRINTF_FLAGS, check_entry, grammar, grammars_for, parse
from pipeline.placeholders.grammars.argument_numbers import numbered_alike
from pipeline.placeholders.markup import tags_balanced
from pipeline.placeholders.problems import Problem, Rule, warning
from pipeline.placeholders.protect import XLIFF_INLINE, protect
from pipeline.placeholders.runs import FORMAT_SUFFIX
from pipeline.placeholders.text_rules import (
    INVISIBLE,
    character_problems,
    edge_problems,
    length_problems,
    newline_problems,
)
from pipeline.segments import Placeholder, Protected

__all__ = [
    "INVISIBLE",
    "Problem",
    "Rule",
    "check_translation",
    "format_problems",
    "length_problems",
    "newline_problems",
]


def check_translation(
    source: str,
    target: str,
    flags: Sequence[str] = (),
    *,
    strict: bool = True,
    edges_from: str | None = None,
    formats_too: bool = True,
) -> list[Problem]:
    """Problems of one translation of ``source``; ``strict=False`` lets it leave arguments out.

    ``edges_from`` is the text whose edge whitespace the translation follows (a plural's singular
    for the form of one); ``formats_too=False`` leaves the format directives to the caller, who
    judges a plural entry's forms together as msgfmt does.
    """
    edges = source if edges_from is None else edges_from
    # The target's ICU categories are what a translation is held to, not a source expanded with them.
    judged = icu_plurals.without_locale(tuple(flags))
    return list(_checked(source, target, judged, strict, edges, formats_too))


#: Translations whose problems are kept. The same translation is judged when it comes back and again, with the
#: rest of its unit, before it is written: the second judgement finds the first's answer here while segments fit.
CHECK_MEMO = 1 << 15


@functools.lru_cache(maxsize=CHECK_MEMO)
def _checked(
    source: str, target: str, flags: tuple[str, ...], strict: bool, edges: str, formats_too: bool
) -> tuple[Problem, ...]:
    """:func:`check_translation`, a pure function of its arguments: the rules run once per distinct question."""
    problems = newline_problems(edges, target)
    problems.extend(length_problems(target, flags))
    problems.extend(edge_problems(edges, target))
    problems.extend(character_problems(source, target))
    problems.extend(_foreign_markup_problems(source, target, XLIFF_INLINE in flags))
    if formats_too:
        problems.extend(format_problems(flags, [source], [target], strict=(strict,)))
    src = protect(source, flags)
    tgt = protect(target, flags)
    problems.extend(_icu_problems(src, tgt))
    problems.extend(_icu_argument_problems(src, tgt))
    if "{" in source and "{" in target:  # a plural's cases are the target's: each is held to the source's own
        held = icu_plurals.held_to_cases(source, target)  # or, one the source lacks, to its "other"
        src = src if held == source else protect(held, flags)
    tgt = synopsis.kept_in(src, _plural_as_argument(src, synopsis.names_as_in_source(source, target, tgt)))
    problems.extend(_stray_problems(source, target, flags))
    theirs, ours = numbered_alike(src.placeholders, tgt.placeholders, _MARKUP_KINDS)
    if theirs != ours:  # the same ones in the same order: nothing to judge, style or not
        style = _style_of(source, target, src, tgt, flags)
        judged_src, judged_tgt = without_translated_names(theirs, ours, target)
        problems.extend(_placeholder_problems(judged_src, judged_tgt, strict, style))
    touching = glue.in_translation(src, tgt)  # refused in an engine's answer; a program reads it all the same
    if touching is not None:
        problems.append(warning(touching, Rule.PLACEHOLDER))
    if not tags_balanced(tgt.placeholders) and tags_balanced(src.placeholders):
        problems.append(Problem("HTML/XML tags are not balanced and nested as in the source", rule=Rule.MARKUP))
    elif _tag_shape(theirs) != _tag_shape(ours) and not tags_balanced(src.placeholders):
        problems.append(warning("the source's markup is not balanced, and the translation's differs", Rule.MARKUP))
    return tuple(problems)


def format_problems(
    flags: Sequence[str],
    sources: Sequence[str],
    targets: Sequence[str],
    often: Sequence[bool] | None = None,
    strict: Sequence[bool] | None = None,
) -> list[Problem]:
    """msgfmt's format check of an entry, as errors (see :func:`pipeline.placeholders.grammars.check_entry`)."""
    if not grammars_for(flags):
        return []
    return [
        Problem(str(p) if p.form is not None else f"{p.grammar.pretty} format: {p.reason}", rule=Rule.ARGUMENT)
        for p in check_entry(flags, sources, targets, often, strict=strict)
    ]


_LONE_BRACE = lazy_regex(r"\{\{|\}\}|(?P<lone>\})")


def _stray_problems(source: str, target: str, flags: tuple[str, ...]) -> list[Problem]:
    """A lone ``}`` is text to msgfmt, but str.format raises on it: the program breaks."""
    if "}" not in target or all(g.flag != "python-brace-format" for g in grammars_for(flags)):
        return []

    def lone(text: str) -> int:
        stripped = protect(text, flags).text
        return sum(1 for m in _LONE_BRACE().finditer(stripped) if m.group("lone"))

    if lone(target) > lone(source):
        return [Problem("a '}' that is not part of a field (write '}}' for a brace)", rule=Rule.STRAY)]
    return []


def _foreign_markup_problems(source: str, target: str, xliff: bool) -> list[Problem]:
    """Markup that runs code or loads content (``<script>``, ``<img src=…>``, ``onclick=``) which the
    source does not have: an error, whoever wrote it. Other markup added is judged with the placeholders."""
    if "<" not in target and "&lt;" not in target:
        return []
    return [
        Problem(f"markup {token!r} that the source does not have runs code or loads content", rule=Rule.MARKUP)
        for token in dict.fromkeys(markup.foreign_markup(target, source, escaped=xliff))
        if markup.active(token)
    ]


# --- ICU ------------------------------------------------------------------------------------


def _icu_argument_problems(source: Protected, target: Protected) -> list[Problem]:
    """An ICU argument written with another type or style (``{n, number}`` as ``{n}``): a warning."""

    def written(protected: Protected) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for ph in protected.placeholders:
            if ph.kind == "icu-arg" and "," in ph.text:
                found.setdefault(_identity(ph), set()).add(_SPACES().sub("", ph.text))
        return found

    theirs = written(source)
    if not theirs:  # nothing to compare with (most texts): each list below asks the source's forms
        return []
    mine = written(target)
    return [
        warning(
            f"ICU argument {name} is written {sorted(forms)[0]!r}, the source has {sorted(theirs[name])[0]!r}", Rule.ICU
        )
        for name, forms in mine.items()
        if name in theirs and forms != theirs[name]
    ] + [
        warning(f"ICU argument {name} is written without the source's type {sorted(forms)[0]!r}", Rule.ICU)
        for name, forms in theirs.items()
        if name not in mine and any(_identity(ph) == name for ph in target.placeholders)
    ]


_SPACES = lazy_regex(r"\s+")


def _plural_as_argument(source: Protected, target: Protected) -> Protected:
    """``target`` without the simple arguments that stand for a plural or select of the source written
    as its argument (``{count} 评论``: a language with one plural form needs no cases)."""
    heads = {
        f"{{{m.group(1)}}}"
        for ph in source.placeholders
        if ph.kind == icu.HEAD
        for m in [_ICU_NAME().match(ph.text)]
        if m
    }
    if not heads or any(ph.kind in icu.STRUCTURE for ph in target.placeholders):  # the source's first: most have none
        return target
    kept = tuple(
        ph for ph in target.placeholders if not (ph.kind in ("icu-arg", "safe-brace") and _identity(ph) in heads)
    )
    return Protected(target.text, kept, target.prefix, target.suffix)


def _icu_problems(source: Protected, target: Protected) -> list[Problem]:
    """An ICU source needs an ICU translation with the same arguments and select keys; a plural's
    categories are the target language's (:func:`pipeline.placeholders.icu.structure_problem`)."""
    src = [(ph.kind, ph.text) for ph in source.placeholders if ph.kind in icu.STRUCTURE]
    if not src:
        return []
    tgt = [(ph.kind, ph.text) for ph in target.placeholders if ph.kind in icu.STRUCTURE]
    if not tgt:
        names = {_identity(ph) for ph in target.placeholders if ph.kind in ("icu-arg", "safe-brace")}
        heads = {f"{{{m.group(1)}}}" for kind, text in src if kind == icu.HEAD for m in [_ICU_NAME().match(text)] if m}
        if heads and heads <= names:  # {count} 评论: one form, no cases needed
            return [warning("the translation writes the ICU plural or select as its bare argument", Rule.ICU)]
        return [Problem("the translation is not a well-formed ICU message like its source", rule=Rule.ICU)]
    dropped: list[str] = []
    problem = icu.structure_problem(src, tgt, dropped)
    if problem:
        return [Problem(problem, rule=Rule.ICU)]
    if dropped:  # ICU takes "other" for them: right in some languages, a grammar mistake in others
        cases = ", ".join(dict.fromkeys(dropped))
        return [warning(f"the ICU plural leaves out the source's case(s) {cases}", Rule.ICU)]
    return []


# --- placeholders -----------------------------------------------------------------------------

#: Kinds an argument of which may be used more than once, or not at all where a form may leave out.
_SET_KINDS = frozenset({"safe-printf", "safe-brace", "dollar-var", "percent-named", "ruby-named", "icu-arg"})
#: Style, not the program: a URL to a localised page, an entity for a character or the reverse.
_WARN_KINDS = frozenset({"url", "email", "entity"})
#: Newlines may move; ICU structure has its own rule; a plural case, its number in words; an EU act, its German "EG".
_IGNORED_KINDS = frozenset({"control", icu.HASH, "legal-reference"}) | icu.STRUCTURE
#: Attributes whose values are text for the reader, which a translator translates, and XLIFF's
#: descriptions of an inline element's original code (``equiv-text``, ``disp``, ``equiv``): the
#: tools that merge a translation back go by the element's name and id, never by these.
_TEXT_ATTRIBUTES = lazy_regex(
    r"""(\s(?:title|alt|placeholder|aria-label|aria-description|label|summary|equiv-text|disp|equiv)\s*=\s*)"""
    r"""(?:"[^"]*"|'[^']*')""",
    re.I,
)
#: HTML's void elements written ``<br>``, ``<br/>``, ``<br />`` or ``<br >``: one element.
_VOID_TAG = lazy_regex(r"<(?:area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)\b", re.I)
_EMPTY_END = lazy_regex(r"\s*/?\s*>$")
_TAG_END = lazy_regex(r"\s+(/?>)$")  # <a href="%s" > is <a href="%s">
#: An XML namespace declaration: where a tool serialised the element, not what it is.
_XMLNS = lazy_regex(r"""\s+xmlns(?::[\w.-]+)?\s*=\s*(?:"[^"]*"|'[^']*')""")


def _identity(ph: Placeholder) -> str:
    """What must come back unchanged: a tag's text without the values of its text attributes; a
    variable whatever its braces (``${SHELL}`` is ``$SHELL``)."""
    if ph.kind == "html-tag":
        text = _TAG_END().sub(r"\1", _TEXT_ATTRIBUTES().sub(r'\1""', _XMLNS().sub("", ph.text)))
        text = _TAG_NAME().sub(lambda m: m.group().lower(), text, count=1)  # HTML's names: any case
        return _EMPTY_END().sub(">", text) if _VOID_TAG().match(text) else text
    if ph.kind == "xliff-escaped-tag":
        return _ESCAPED_TAG_NAME().sub(lambda m: m.group().lower(), ph.text, count=1)
    if ph.kind == "dollar-var" and ph.text.startswith("${"):
        return "$" + ph.text[2:-1]
    if ph.kind == "icu-arg":  # the program passes the argument by name; its type and style are how it shows
        name = _ICU_NAME().match(ph.text)
        return f"{{{name.group(1)}}}" if name else ph.text
    return ph.text


_ICU_NAME = lazy_regex(r"\{\s*([A-Za-z_0-9]+)")
_TAG_NAME = lazy_regex(r"^</?[A-Za-z][\w:.-]*")
_ESCAPED_TAG_NAME = lazy_regex(r"^&lt;/?[A-Za-z][\w:.-]*")


def _set_like(kind: str, text: str) -> bool:
    """Named substitutions (and ``%%``): using one more or fewer times breaks nothing."""
    return kind in _SET_KINDS and text != "%%" or (kind == "template" and text.startswith("{{"))


#: strftime's conversions that printf does not have: an unflagged text holding one is a date format,
#: which a translator adapts to the language ("%b %e %H:%M" -> "%e. %b %H.%M").
_STRFTIME = lazy_regex(r"%[-_0^#]?\d*[aAbBChHIjkmMPrRStTUVwWyYzZ+]")
#: glibc's alternative digits and era (%Od, %Ey): a translation that uses them reads a date format.
_STRFTIME_ALT = lazy_regex(r"%[EO][A-Za-z]")


class _Style(NamedTuple):
    """Which placeholder differences are style (warnings) for one source and translation.

    Unflagged placeholders are guesses; where the guess and a human translator disagree in a way that
    breaks no program, the difference is a warning. Machine output is held to every placeholder by
    :func:`~pipeline.placeholders.protect.restore` whatever the severity here.
    """

    date_format: bool  # an unflagged strftime format, or no printf format ("Use%", no-c-format): its % are text
    #: A flag's grammar reads the source: the flag says which format the program uses, so what other
    #: grammars guess (``{name}`` in a python-format entry) is the translator's to keep or not.
    flagged: bool
    #: HTML in a PO string (not XLIFF's inline elements) whose tags carry the same values in both texts
    #: (``href="%s"`` kept, ``target=`` dropped): emphasis and attributes are the translator's.
    markup_is_style: bool
    literal: bool  # the source has no word outside guessed placeholders ("{erroneous}"): it is literal text
    #: The unflagged printf conversions read the same arguments with the same types, as msgfmt would judge
    #: them under c-format (``%s`` and ``%1$s``, ``%1s`` and ``%s``): written otherwise, not changed.
    printf_agrees: bool | None  # None: not a text c-format reads, or flagged
    source_braces: bool  # the source has a brace field


_GUESSED = frozenset({"template", "ruby-named", "dollar-var", "percent-named", "safe-printf", "safe-brace", "icu-arg"})
#: Code of other programs, protected from the engine whatever the flag says but no format msgfmt
#: checks: a human translator who adapts a date format, a quoted word or a path is warned, not refused.
_CODE_KINDS = frozenset(
    """percent-directive qt-count qt-numbered quoted-code html-declaration code-lines timestamp sql-literal option
    path code-identifier identifier code-run fortran-directive wiki ex-command protocol-command command-synopsis
    quoted-command quoted-regex build-macro file-glob glued-file-name code-name escape backslash-command css
    escaped-brace brace-set program-word at-name""".split()
)
#: e2fsck's abbreviations that hold directives (its po's message.c entries "E@e '%Dn' in %p (%i)", "Ffor @i
#: %i (%Q) is"): a translator who writes one out adds them.
_E2FSCK_EXPANSIONS = {"@E": frozenset({"%Dn", "%p", "%i"}), "@F": frozenset({"%i", "%Q"})}
_LETTER = lazy_regex(r"[^\W\d_]")
#: A name of capitals only: a metavariable of a help text ({INTEGER}, %REGEXP%), which translators translate.
_METAVARIABLE = lazy_regex(r"[{%]?[A-Z][A-Z0-9_]+[}%]?")


def _style_of(source: str, target: str, src: Protected, tgt: Protected, flags: tuple[str, ...]) -> _Style:
    guessed = any(ph.kind in _GUESSED for ph in src.placeholders)
    grammars = grammars_for(flags)
    # A flag whose grammar cannot read the source ("%b %d, %Y" flagged python-format) says nothing.
    unflagged = not grammars or any(parse(g, source, False).invalid for g in grammars)
    agrees = _printf_agrees(source, target, src) if unflagged else None
    dates = unflagged and (
        _STRFTIME().search(source) is not None
        or _STRFTIME_ALT().search(target) is not None
        or _lone_percent(source, src)
        or not NO_PRINTF_FLAGS.isdisjoint(flags)
    )
    return _Style(
        date_format=dates,
        flagged=not unflagged,
        markup_is_style=XLIFF_INLINE not in flags and _values(src, agrees, dates) == _values(tgt, agrees, dates),
        literal=guessed and _LETTER().search(_unguessed_text(src)) is None,
        source_braces=any(ph.kind == "safe-brace" for ph in src.placeholders),
        printf_agrees=agrees,
    )


def _printf_agrees(source: str, target: str, src: Protected) -> bool | None:
    if not any(ph.kind == "safe-printf" for ph in src.placeholders):
        return None
    c = grammar("c-format")
    if parse(c, source, False).invalid or parse(c, target, True).invalid:
        return None
    return not check_entry(["c-format"], [source], [target])


def _lone_percent(source: str, protected: Protected) -> bool:
    """Whether the source has a ``%`` that starts no conversion ("Use%", "public key %08"): then it is
    no printf format, which a program could not pass to printf, and a translation's ``%u`` is text."""
    percents = source.count("%")
    used = sum(ph.text.count("%") for ph in protected.placeholders)  # a URL's %20 or a width="100%" too
    return percents > used


def _unguessed_text(protected: Protected) -> str:
    """The protected text with the guessed placeholders' tags out and the others' texts back in."""
    others = {str(ph.id): ph.text for ph in protected.placeholders if ph.kind not in _GUESSED}
    return re.sub(r'<x id="(\d+)"/>', lambda m: others.get(m.group(1), ""), protected.text)


def _severity(kind: str, text: str, want: int, style: _Style) -> Severity:
    """An error where a program would show or run something else; a warning where only style differs."""
    if kind in _WARN_KINDS or kind in _CODE_KINDS or kind == "dollar-var":  # $NAME: a help text's variable
        return Severity.WARNING
    if style.flagged and kind in _GUESSED:
        return Severity.WARNING
    if style.literal and kind in _GUESSED:
        return Severity.WARNING
    if kind == "safe-printf" and (style.date_format or text == "%%"):  # "%%" reads no argument
        return Severity.WARNING
    if kind == "percent-named" and style.date_format and not want:
        return Severity.WARNING  # French "%Hh%M" for "%H:%M": an hour, a letter and a minute to strftime
    if kind in ("safe-brace", "percent-named") and _METAVARIABLE().fullmatch(text):
        return Severity.WARNING
    if kind == "safe-brace" and text == "{}" and not want and not style.source_braces:
        return Severity.WARNING  # "{}" added to a text that has no field: a brace pair, not a field
    if kind in _MARKUP_KINDS and style.markup_is_style:
        return Severity.WARNING  # emphasis or a link added or left out; broken nesting stays an error
    return Severity.ERROR


def _values(protected: Protected, printf_agrees: bool | None, dates: bool) -> Counter[str]:
    """The values the program fills in, in markup (``<a href="%s">``, ``<!--%s-->``) or not, counted.

    printf conversions count as one kind where both texts read them alike (``%2$s`` and ``%s``), and
    not at all in a date format (or a text no printf reads); ``%%`` is never a value.
    """
    found: Counter[str] = Counter()
    for ph in protected.placeholders:
        if ph.kind in _MARKUP_KINDS and any(c in ph.text for c in "%{$"):
            inner = protect(ph.text.replace("<", " ").replace(">", " ")).placeholders
            found.update(p.text for p in inner if p.kind in _GUESSED)
        elif ph.kind in _GUESSED:
            found[ph.text] += 1
    values: Counter[str] = Counter()
    for text, count in found.items():
        if text == "%%" or (dates and _PRINTF_VALUE().fullmatch(text)):
            continue
        values["%" if printf_agrees and _PRINTF_VALUE().fullmatch(text) else text] += count
    return values


_PRINTF_VALUE = lazy_regex(r"%(?:\d+\$)?[-+#0]?\d*(?:\.\d+)?[a-zA-Z@]+")


_MARKUP_KINDS = frozenset({"html-tag", "html-attr", "html-comment", "bracket-markup", "wiki"})


def _placeholder_problems(
    source: Sequence[Placeholder], target: Sequence[Placeholder], strict: bool, style: _Style
) -> list[Problem]:
    """Placeholders missing, added or changed, each an error or (``style``) a warning."""
    if not source and not target:  # nothing below has anything to compare
        return []
    problems: list[Problem] = []
    # e2fsck expands its @-codes in the translated message, so a translator may write the word out (or use a
    # code where the source has the word); an engine's answer that loses one is refused by restore.
    src = [ph for ph in source if ph.kind not in _IGNORED_KINDS and ph.kind != "at-abbreviation"]
    tgt = [ph for ph in target if ph.kind not in _IGNORED_KINDS and ph.kind != "at-abbreviation"]
    written_out = {d for ph in source if ph.kind == "at-abbreviation" for d in _E2FSCK_EXPANSIONS.get(ph.text, ())}
    tgt = [ph for ph in tgt if ph.text not in written_out or any(p.text == ph.text for p in src)]
    src_count, tgt_count = Counter(_identity(ph) for ph in src), Counter(_identity(ph) for ph in tgt)
    kinds = {_identity(ph): ph.kind for ph in (*src, *tgt)}
    for text in sorted(set(src_count) | set(tgt_count)):
        want, have, kind = src_count[text], tgt_count[text], kinds[text]
        if kind.endswith(FORMAT_SUFFIX):
            if want != have and not _takes_argument(text, kind):
                problems.append(warning(f"{text!r} appears {have} times, the source has it {want}", Rule.ARGUMENT))
            continue  # the format's arguments are msgfmt's to judge
        if kind == "safe-printf" and style.printf_agrees is True:
            continue
        severity = _severity(kind, text, want, style)
        rule = Rule.MARKUP if _label(kind) == "markup" else Rule.PLACEHOLDER
        set_like = _set_like(kind, text)
        if set_like:
            want, have = min(want, 1), min(have, 1)
        if have > want:
            where = "not in the source" if want == 0 else f"{have} times, the source has it {want}"
            problems.append(Problem(f"{_label(kind)} {text!r} {where}", severity, rule))
        elif have < want and (strict or not set_like):
            problems.append(
                Problem(f"{_label(kind)} {text!r} missing" + (f" ({have} of {want})" if have else ""), severity, rule)
            )
    problems.extend(_attribute_problems(src, tgt))
    ordered_in = [ph.text for ph in src if ph.ordered and not ph.kind.endswith(FORMAT_SUFFIX)]
    ordered_out = [ph.text for ph in tgt if ph.ordered and not ph.kind.endswith(FORMAT_SUFFIX)]
    if strict and sorted(ordered_in) == sorted(ordered_out) and ordered_in != ordered_out:
        reason = "unnamed placeholders are in another order than in the source"
        if style.printf_agrees is False:  # "%s of %d" -> "%d von %s": printf would read the wrong types
            problems.append(Problem(reason + ": printf reads the arguments with other types", rule=Rule.ARGUMENT))
        else:
            problems.append(warning(reason, Rule.PLACEHOLDER))
    return problems


def _attribute_problems(source: Sequence[Placeholder], target: Sequence[Placeholder]) -> list[Problem]:
    """A tag whose text attributes (``title=``, ``alt=``) were translated: worth a look, not an error."""
    theirs = {ph.text for ph in source if ph.kind == "html-tag"}
    shapes = {_identity(ph) for ph in source if ph.kind == "html-tag"}
    changed = sorted(
        {ph.text for ph in target if ph.kind == "html-tag" and ph.text not in theirs and _identity(ph) in shapes}
    )
    return [warning(f"markup {text!r} has translated attribute text", Rule.MARKUP) for text in changed]


@functools.lru_cache(maxsize=1024)
def _takes_argument(text: str, kind: str) -> bool:
    if kind not in FORMATS:
        return True
    directives = parse(grammar(kind), text, True).directives
    return any(d.takes_argument for d in directives) or not directives


def _label(kind: str) -> str:
    if kind.startswith("html") or kind in ("entity", "bracket-markup", "wiki"):
        return "markup"
    return "URL" if kind == "url" else "e-mail address" if kind == "email" else "placeholder"


def _tag_shape(placeholders: Sequence[Placeholder]) -> list[str]:
    return [ph.text for ph in placeholders if ph.kind == "html-tag"]
