"""The gate: the one place that decides whether a translation may be written.

Every translation passes here before it reaches a catalog, whatever path it came by (an answer
from the service, the cache, a recovery retry, a plural form put together from a number
sentence), and ``pipeline check`` runs the same rules over translations already in a catalog.
There is no second copy of any rule.

* :func:`verify` takes the service's answer for one segment (placeholders still as tags),
  restores the segment's *own* placeholders into it (two segments that protect to the same text
  share an answer, never their placeholders) and checks the result against that segment's source.
  A refusal says whether showing the engine the placeholders another way could change it
  (:data:`RETRYABLE`): damaged tags can, a character the catalog cannot hold cannot.
* :func:`admit` takes every unit about to be written: plural forms assembled from their
  representative-number texts (:mod:`pipeline.run.plurals`), then :func:`check_unit` on the forms as
  they would be written, and an approximate entry written only when it can stay fuzzy.
* :func:`check_unit` is what ``pipeline check`` runs over a catalog's existing translations.

The sending and cache stages take :func:`verify` as an argument from the orchestrator, so that
this module stays the single verifier without the stages importing each other.

The rules, chosen by format flag and, without one, by detection of the forms that are safe to
detect (see :mod:`pipeline.placeholders.protect`): printf arguments (unnamed order, positional
``%1$s``, named ``%(name)s``, types), brace fields (``{}``, ``{0}``, ``{name!r:>10}``, doubled
braces), ICU arguments and plural/select structure, HTML/XML tags (balance and nesting), entities,
edge whitespace and newlines, plural form count, control and bidi characters, and what the
catalog can hold (its charset, XML characters, its inline markup).

Strictness follows ``msgfmt --check`` where msgfmt has a rule (every plural form is compared with
the plural source; a form the plural rule picks for fewer than 5 numbers in 0..1000 may leave out
arguments, as msgfmt allows for "one" forms) and is stricter elsewhere (brace fields and markup
compared exactly, all leading/trailing whitespace, not just ``\\n``). URL and e-mail differences are
warnings: translators legitimately point readers at localised pages.
"""

from __future__ import annotations

import enum
import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.config import Settings
from pipeline.model import Issue, Placeholder, Protected, Segment, SegmentKey, Severity
from pipeline.placeholders import icu
from pipeline.placeholders.grammar import PRINTF_CONVERSION
from pipeline.placeholders.protect import (
    PRINTF_KINDS,
    PlaceholderMismatch,
    kinds_for,
    protect,
    restore,
    split_edges,
    tags_balanced,
)
from pipeline.run import plurals
from pipeline.run.records import CatalogReport, RunReport, ScannedCatalog, Verdict

if TYPE_CHECKING:
    from pipeline.formats import Catalog, Unit
    from pipeline.plural_rules import PluralRule

__all__ = ["RETRYABLE", "Problem", "Rule", "admit", "check_translation", "check_unit", "plural_usage", "verify"]

#: msgfmt's rule: a plural form picked at least this often for n in 0..1000 must keep every argument.
OFTEN = 5


class Rule(enum.Enum):
    """Which rule a problem breaks."""

    PLACEHOLDER = "placeholder"  # missing, extra, duplicated, reordered, unknown, foreign markup
    ARGUMENT = "argument"  # printf argument types and styles
    MARKUP = "markup"  # HTML/XML balance and nesting
    ICU = "icu"  # ICU arguments and plural/select structure
    STRAY = "stray"  # a '%' or brace that starts no valid field
    WHITESPACE = "whitespace"  # leading/trailing whitespace and newlines
    PLURAL = "plural"  # form count, empty forms
    CONTROL = "control"  # control characters the source does not have
    STORAGE = "storage"  # what the catalog cannot hold (charset, XML characters, inline markup)
    EMPTY = "empty"  # the service returned nothing


#: Rules another way of showing the engine the placeholders can change: they concern the placeholders.
#: Edge whitespace is put back verbatim, so a difference there is an interior newline placeholder moved.
RETRYABLE = frozenset({Rule.PLACEHOLDER, Rule.ARGUMENT, Rule.MARKUP, Rule.ICU, Rule.WHITESPACE})


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a translation, and the rule it breaks."""

    reason: str
    severity: Severity = Severity.ERROR
    rule: Rule = Rule.PLACEHOLDER


def verify(protected: Protected, answer: str, segment: Segment) -> Verdict:
    """The translation to write for ``segment`` from the service's ``answer``, or why not.

    ``protected`` is the segment's own protected form: the answer may have been given for another
    segment with the same protected text, and this one's placeholders are what must come back.
    """
    try:
        restored = restore(answer, protected)
    except PlaceholderMismatch as exc:
        # Every restore refusal (missing, duplicated, reordered, foreign markup, ICU) concerns the placeholders.
        return Verdict(None, str(exc), retryable=True)
    if not restored.strip() and segment.text.strip():
        return Verdict(None, "the service returned an empty text")
    error = next(
        (p for p in check_translation(segment.text, restored, segment.flags) if p.severity is Severity.ERROR), None
    )
    if error is not None:
        return Verdict(None, error.reason, error.rule in RETRYABLE)
    return Verdict(restored)


def admit(
    settings: Settings,
    s: ScannedCatalog,
    done: dict[SegmentKey, str],
    report: RunReport,
    cat: CatalogReport,
    notes: dict[SegmentKey, str] | None = None,
) -> dict[int, tuple[str, ...]]:
    """The units of ``s`` that may be written (index -> target forms); reports why the others may not.

    ``notes`` holds, per segment, why its translation needs a reviewer's eye (e.g. translated in
    pieces): such a unit is written only marked fuzzy, like an approximate plural.
    """
    translations: dict[int, tuple[str, ...]] = {}
    usage: tuple[tuple[bool, ...] | None, int, str | None] | None = None
    for index, forms in s.source_forms.items():
        unit = s.catalog.units[index]
        texts = [done.get(SegmentKey(s.display, index, form)) for form in forms]
        warnings: tuple[str, ...] = tuple(
            dict.fromkeys(note for form in forms if (note := (notes or {}).get(SegmentKey(s.display, index, form))))
        )
        if index in s.plural_plans:  # representative-number forms: put the count back, or fall back
            assembled = plurals.assemble(s.plural_plans[index], plurals.lookup(done, s.display, index), unit.flags)
            texts, warnings = list(assembled.texts or (None,)), (*warnings, *assembled.warnings)
        if any(t is None for t in texts):
            continue
        if usage is None:
            usage = plural_usage(s.catalog.plural)
        often, one_form, _ = usage
        errors = [
            p
            for p in check_unit(unit, texts, s.catalog, often, one_form)  # type: ignore[arg-type]
            if p.severity is Severity.ERROR
        ]
        if errors:
            report.issues.append(Issue(s.display, f"not written: {errors[0].reason}", unit.line, s.target_lang))
            cat.counters.segments_failed += 1
            continue
        if warnings and not settings.mark_fuzzy:  # an approximate entry must stay fuzzy: leave it for a human
            report.issues.extend(
                Issue(
                    s.display,
                    f"not written (fuzzy marking is off): {w}",
                    unit.line,
                    s.target_lang,
                    severity=Severity.SKIPPED,
                )
                for w in warnings
            )
            cat.counters.segments_skipped += 1
            continue
        report.issues.extend(Issue(s.display, w, unit.line, s.target_lang, severity=Severity.WARNING) for w in warnings)
        translations[index] = tuple(texts)  # type: ignore[arg-type]
    return translations


def check_unit(
    unit: Unit,
    targets: Sequence[str],
    catalog: Catalog | None = None,
    often: Sequence[bool] | None = None,
    one_form: int = 0,
) -> list[Problem]:
    """Problems of ``targets`` as ``unit``'s translation; ``often`` and ``one_form`` come from :func:`plural_usage`.

    With ``catalog``, also what the catalog's format cannot hold (charset, XML characters, markup).
    """
    problems: list[Problem] = []
    if catalog is not None:
        for target in dict.fromkeys(targets):
            reason = catalog.write_problem(target, unit.index)
            if reason:
                problems.append(Problem(reason, rule=Rule.STORAGE))
    if not unit.plural:
        return problems + check_translation(unit.sources[0], targets[0], unit.flags)
    singular, plural_source = unit.sources
    if singular.startswith("\n") != plural_source.startswith("\n") or singular.endswith("\n") != plural_source.endswith(
        "\n"
    ):
        problems.append(
            Problem("the singular and plural sources do not both begin and end with a newline", rule=Rule.WHITESPACE)
        )
    if len(targets) != unit.nforms and (catalog is not None or len(targets) > unit.nforms):
        problems.append(
            Problem(f"{len(targets)} plural forms, but the catalog's plural rule has {unit.nforms}", rule=Rule.PLURAL)
        )
    for index, target in enumerate(targets[: unit.nforms]):
        if not target:
            problems.append(Problem(f"plural form {index} is empty", rule=Rule.PLURAL))
            continue
        strict = often is None or index >= len(often) or often[index]
        # Like msgfmt, every form is compared with the plural source; only edges follow the singular.
        found = check_translation(
            plural_source,
            target,
            unit.flags,
            strict=strict,
            edges_from=singular if index == one_form else plural_source,
        )
        problems.extend(Problem(f"plural form {index}: {p.reason}", p.severity, p.rule) for p in found)
    return problems


@functools.lru_cache(maxsize=64)
def plural_usage(plural: PluralRule | None) -> tuple[tuple[bool, ...] | None, int, str | None]:
    """Per plural form whether the rule picks it for many numbers, the form of n=1, and a problem with the rule.

    Worked out once per rule (1,001 numbers each): a run's catalogs share a few rules.
    """
    if plural is None:
        return None, 0, None
    counts = [0] * plural.nplurals
    for n in range(1001):
        form = plural.form_for(n)
        if not 0 <= form < len(counts):
            return None, 0, f"the Plural-Forms expression gives form {form} for n={n}, but nplurals is {len(counts)}"
        counts[form] += 1
    return tuple(c >= OFTEN for c in counts), plural.form_for(1), None


def check_translation(
    source: str, target: str, flags: Sequence[str] = (), *, strict: bool = True, edges_from: str | None = None
) -> list[Problem]:
    """Problems of one translation of ``source``; ``strict=False`` lets it leave out arguments."""
    return list(_checked(source, target, tuple(flags), strict, source if edges_from is None else edges_from))


#: Translations whose problems are kept. The same translation is judged when it comes back
#: (:func:`verify`) and again, with the rest of its unit, before it is written (:func:`admit`):
#: the second judgement finds the first's answer here as long as the run's segments fit.
CHECK_MEMO = 1 << 15


@functools.lru_cache(maxsize=CHECK_MEMO)
def _checked(source: str, target: str, flags: tuple[str, ...], strict: bool, edges_from: str) -> tuple[Problem, ...]:
    """:func:`check_translation`, a pure function of its arguments: the rules run once per distinct question."""
    problems = _edge_problems(edges_from, target)
    problems.extend(_control_problems(source, target))
    src = protect(source, flags)
    tgt = protect(target, flags)
    problems.extend(_icu_problems(src, tgt))
    problems.extend(_placeholder_problems(src.placeholders, tgt.placeholders, strict))
    problems.extend(_stray_problems(src.text, tgt.text, flags))
    if tags_balanced(src.placeholders) and not tags_balanced(tgt.placeholders):
        problems.append(Problem("HTML/XML tags are not balanced and nested as in the source", rule=Rule.MARKUP))
    return tuple(problems)


# --- edges and characters ---------------------------------------------------------------------


def _edge_problems(source: str, target: str) -> list[Problem]:
    src_lead, src_core, src_trail = split_edges(source)
    tgt_lead, tgt_core, tgt_trail = split_edges(target)
    if not src_core or not tgt_core:
        return (
            []
            if src_core or not tgt_core
            else [Problem("the source is only whitespace, the translation is not", rule=Rule.WHITESPACE)]
        )
    problems = []
    if src_lead != tgt_lead:
        problems.append(
            Problem(f"leading whitespace {tgt_lead!r} differs from the source's {src_lead!r}", rule=Rule.WHITESPACE)
        )
    if src_trail != tgt_trail:
        problems.append(
            Problem(f"trailing whitespace {tgt_trail!r} differs from the source's {src_trail!r}", rule=Rule.WHITESPACE)
        )
    return problems


# Newlines and tabs are text; every other C0/C1 control, and the bidi controls that can hide what a
# string says (Trojan Source), must come from the source.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _control_problems(source: str, target: str) -> list[Problem]:
    if _CONTROL.search(target) is None:  # the usual case: nothing in the translation to look for in the source
        return []
    allowed = set(_CONTROL.findall(source))
    extra = sorted({ch for ch in _CONTROL.findall(target) if ch not in allowed})
    return [
        Problem(
            f"control character U+{ord(ch):04X} ({unicodedata.name(ch, 'control')}) not in the source",
            rule=Rule.CONTROL,
        )
        for ch in extra
    ]


# --- ICU ------------------------------------------------------------------------------------

_SPACES = re.compile(r"\s+")


def _icu_problems(source: Protected, target: Protected) -> list[Problem]:
    """An ICU source needs an ICU translation with the same arguments, keywords and case keys in order."""
    src = [_SPACES.sub(" ", ph.text.strip()) for ph in source.placeholders if ph.kind in icu.STRUCTURE]
    if not src:
        return []
    tgt = [_SPACES.sub(" ", ph.text.strip()) for ph in target.placeholders if ph.kind in icu.STRUCTURE]
    if not tgt:
        return [Problem("the translation is not a well-formed ICU message like its source", rule=Rule.ICU)]
    if tgt != src:
        return [
            Problem(
                "the ICU message structure (arguments, keywords, case keys) differs from the source's", rule=Rule.ICU
            )
        ]
    return []


# --- placeholders -----------------------------------------------------------------------------

_BRACE = frozenset({"brace", "safe-brace"})
_SET_KINDS = PRINTF_KINDS | _BRACE  # an argument may be used more than once in a translation
_SKIP_TEXTS = frozenset({"%%", "{{", "}}"})
_WARN_KINDS = frozenset({"url", "email"})
_IGNORED_KINDS = frozenset({"control"}) | icu.STRUCTURE  # newlines may move; ICU structure has its own rule
#: The printf grammars a format flag selects (not the safe one used without flags, where "100%" is fine).
_FLAGGED_PRINTF = frozenset({"python-printf", "c-printf"})

# What an argument must be on both sides; e.g. %d and %i read the same int, %s and %d do not.
_CLASSES = {
    **dict.fromkeys("di", "int"),
    **dict.fromkeys("ouxX", "unsigned"),
    **dict.fromkeys("eEfFgGaA", "float"),
    **dict.fromkeys("sSrab", "string"),
    "c": "char",
    "C": "char",
    "p": "pointer",
    "n": "count",
}


@dataclass(frozen=True, slots=True)
class _Arg:
    """A printf argument: position or name, and the class of value it reads."""

    ref: str
    kind: str
    text: str
    style: str = "unnumbered"  # or "named", "numbered"


def _placeholder_problems(source: Sequence[Placeholder], target: Sequence[Placeholder], strict: bool) -> list[Problem]:
    if not source and not target:  # nothing below has anything to compare
        return []
    problems: list[Problem] = []
    src_args, src_other = _split(source, [])  # a source that mixes styles is the author's problem
    tgt_args, tgt_other = _split(target, problems, mixed_ok=_mixes(src_args))
    if not _mixes(src_args):
        problems.extend(_arg_problems(src_args, tgt_args, strict))
    elif [a.text for a in tgt_args] != [a.text for a in src_args]:
        # Arguments of a source that mixes styles have no one meaning: they must stay exactly as they are.
        problems.append(
            Problem(
                "the source mixes printf argument styles, and the translation does not keep its "
                "arguments exactly as they are",
                rule=Rule.ARGUMENT,
            )
        )
    src_count, tgt_count = Counter(ph.text for ph in src_other), Counter(ph.text for ph in tgt_other)
    kinds = {ph.text: ph.kind for ph in (*source, *target)}
    for text in sorted(set(src_count) | set(tgt_count)):
        want, have = src_count[text], tgt_count[text]
        severity = Severity.WARNING if kinds[text] in _WARN_KINDS else Severity.ERROR
        rule = Rule.MARKUP if _label(kinds[text]) == "markup" else Rule.PLACEHOLDER
        if kinds[text] in _SET_KINDS:
            want, have = min(want, 1), min(have, 1)
        if have > want:
            where = "not in the source" if want == 0 else f"{have} times, the source has it {want}"
            problems.append(Problem(f"{_label(kinds[text])} {text!r} {where}", severity, rule))
        elif have < want and strict:
            problems.append(
                Problem(
                    f"{_label(kinds[text])} {text!r} missing" + (f" ({have} of {want})" if have else ""), severity, rule
                )
            )
    return problems


def _label(kind: str) -> str:
    if kind.startswith("html") or kind == "entity":
        return "markup"
    return "URL" if kind == "url" else "e-mail address" if kind == "email" else "placeholder"


def _mixes(args: Sequence[_Arg]) -> bool:
    return len({a.style for a in args if a.text != "*"}) > 1


def _split(
    placeholders: Sequence[Placeholder], problems: list[Problem], mixed_ok: bool = False
) -> tuple[list[_Arg], list[Placeholder]]:
    """printf arguments (numbered by position or named), and every other placeholder."""
    args: list[_Arg] = []
    others: list[Placeholder] = []
    position = 0
    styles: set[str] = set()
    for ph in placeholders:
        if ph.text in _SKIP_TEXTS or ph.kind in _IGNORED_KINDS:
            continue
        if ph.kind not in PRINTF_KINDS:
            others.append(ph)
            continue
        m = PRINTF_CONVERSION.match(ph.text)
        if m is None:
            others.append(ph)
            continue
        for star in (m.group("width"), m.group("precision")):
            if star and star.startswith("*"):
                position += 1
                ref = star[1:-1] if star.endswith("$") else str(position)
                args.append(_Arg(ref, "int", "*"))
        if m.group("name") is not None:
            style, ref = "named", f"({m.group('name')})"
        elif m.group("pos"):
            style, ref = "numbered", m.group("pos")
        else:
            position += 1
            style, ref = "unnumbered", str(position)
        styles.add(style)
        conv = m.group("conv")
        kind = (m.group("length") or "") + _CLASSES.get(conv, conv)
        args.append(_Arg(ref, kind, ph.text, style))
    if len(styles) > 1 and not mixed_ok:
        problems.append(
            Problem(f"the translation mixes {' and '.join(sorted(styles))} printf arguments", rule=Rule.ARGUMENT)
        )
    return args, others


def _arg_problems(source: list[_Arg], target: list[_Arg], strict: bool) -> list[Problem]:
    problems: list[Problem] = []
    src = {a.ref: a for a in source}
    seen: dict[str, _Arg] = {}
    for arg in target:
        expected = src.get(arg.ref)
        if expected is None:
            problems.append(Problem(f"placeholder {arg.text!r} has no matching argument in the source"))
        elif expected.kind != arg.kind:
            problems.append(
                Problem(
                    f"placeholder {arg.text!r} takes type {arg.kind} where the source's "
                    f"{expected.text!r} takes {expected.kind}",
                    rule=Rule.ARGUMENT,
                )
            )
        seen.setdefault(arg.ref, arg)
    missing = [a for ref, a in src.items() if ref not in seen]
    if strict:
        problems.extend(Problem(f"placeholder {a.text!r} missing") for a in missing)
    else:
        # A relaxed form may drop arguments, but positional ones only from the end, as printf needs.
        numbered = sorted(int(r) for r in seen if r.isdigit())
        if numbered and numbered != list(range(1, len(numbered) + 1)):
            problems.append(Problem("placeholders leave out an argument before one they use", rule=Rule.ARGUMENT))
    return problems


_ANY_BRACE = re.compile(r"[{}]")


@functools.lru_cache(maxsize=256)
def _kind_set(flags: tuple[str, ...]) -> frozenset[str]:
    return frozenset(kinds_for(flags))


def _stray_problems(source_text: str, target_text: str, flags: tuple[str, ...]) -> list[Problem]:
    """A ``%`` or brace left over once placeholders are taken out makes an invalid format string."""
    kinds = _kind_set(flags)
    problems = []
    if kinds & _FLAGGED_PRINTF and "%" in target_text and "%" not in source_text:
        problems.append(
            Problem("a '%' that starts no valid conversion (write '%%' for a percent sign)", rule=Rule.STRAY)
        )
    if "brace" in kinds and _ANY_BRACE.search(target_text) and not _ANY_BRACE.search(source_text):
        problems.append(
            Problem("a '{' or '}' that is not part of a field (write '{{' or '}}' for a brace)", rule=Rule.STRAY)
        )
    return problems
