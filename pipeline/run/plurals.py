"""Plural entries: which text to translate for each target form, and how to assemble the forms again.

English has two forms; Russian has three, Arabic six. Copying the English plural into
``msgstr[1]`` and ``msgstr[2]`` of a Russian entry gives two copies of one form, which is wrong
for one of them. So for a language with more than two forms, each target form is translated
from a sentence with a *representative number* of that form in place of the count placeholder
(``%d files`` becomes ``2 files`` for Russian "few" and ``5 files`` for "many"); the number is
then put back as the placeholder. A form is exact when its number comes back exactly once; any
other outcome falls back to the translation of the plain plural source and the entry stays
fuzzy with a warning. Forms are never dropped or added: there are exactly ``nforms`` of them.

Fallbacks are lazy: a plan's ``texts`` are what the first round sends, its ``fallbacks`` are sent
only for the forms :func:`missing_fallbacks` names once the number sentences are back, so an
entry whose numbers all come back costs its number sentences and nothing more.

Segment identity (``SegmentKey.form``): 0 is the plain singular source, 1 the plain plural
source, ``NUMBER_BASE + i`` the representative-number text of target form ``i``. Each is its own
text, so deduplication and the cache key differ naturally between them.
"""

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from pipeline.placeholders.grammar import INTEGER_PRINTF
from pipeline.placeholders.protect import protect
from pipeline.placeholders.runs import FORMAT_SUFFIX
from pipeline.plural_rules import PluralRule, plural_rule_for
from pipeline.segments import SegmentKey

SINGULAR, PLURAL = 0, 1
NUMBER_BASE = 2
#: Numbers searched for a representative of each form: small first (engines keep them as digits).
_SEARCH = (*range(0, 1001), 10_000, 100_000, 1_000_000)
#: Placeholder kinds that can stand for the count, besides a format flag's directives.
_COUNT_KINDS = frozenset(
    {"safe-printf", "safe-brace", "ruby-named", "dollar-var", "icu-arg", "qt-count", "qt-numbered"}
)
_NOT_A_COUNT = frozenset({"%%", "{{", "}}"})
_ENGLISH = PluralRule(2, "(n != 1)")


class FormPlan(NamedTuple):
    """How one target form is obtained: from segment ``segment``, with the count put back if ``number`` is set."""

    segment: int
    number: int | None = None
    count_text: str | None = None  # the count placeholder's text, to put back in place of ``number``
    source: str = ""  # the source sentence (with the count) the number text was made from
    fallback: int = PLURAL  # segment used when the number does not come back exactly once (0 or 1)


class UnitPlan(NamedTuple):
    """Every target form of one plural unit, the texts to send, and why the result is approximate if it is."""

    forms: tuple[FormPlan, ...]
    texts: dict[int, str]  # segment form -> source text to translate in the first round
    approximate: str | None = None  # set when some form is known in advance to be a copy of the plural
    # segment form -> source text translated only when a number form falls back to it (not in ``texts``)
    fallbacks: Mapping[int, str] = MappingProxyType({})


class Assembled(NamedTuple):
    """The target forms of a unit (None when some segment has no translation) and warnings about them."""

    texts: tuple[str, ...] | None
    warnings: tuple[str, ...] = ()


@functools.lru_cache(maxsize=64)
def representatives(rule: PluralRule) -> tuple[tuple[int, ...], ...]:
    """For each form of ``rule``, the numbers (from a fixed search range) that select it, in search order."""
    found: list[list[int]] = [[] for _ in range(rule.nplurals)]
    for n in _SEARCH:
        form = rule.form_for(n)
        if 0 <= form < rule.nplurals and len(found[form]) < 8:
            found[form].append(n)
    return tuple(tuple(numbers) for numbers in found)


@functools.lru_cache(maxsize=16)
def source_rule(source_lang: str) -> PluralRule:
    """The plural rule of the source language (English when babel does not know it)."""
    return plural_rule_for(source_lang) or _ENGLISH


def count_placeholder(text: str, flags: Iterable[str]) -> str | None:
    """The placeholder of ``text`` that stands for the count, or None when there is not exactly one candidate.

    Several candidates are narrowed to the integer printf conversions (``%d``, ``%(n)i``): a count
    is an integer. The candidate must occur once in ``text``.
    """
    candidates = [
        ph.text
        for ph in protect(text, flags).placeholders
        if (ph.kind in _COUNT_KINDS or ph.kind.endswith(FORMAT_SUFFIX)) and ph.text not in _NOT_A_COUNT
    ]
    if len(set(candidates)) > 1:
        candidates = [c for c in candidates if INTEGER_PRINTF().match(c)]
    if len(candidates) != 1 or text.count(candidates[0]) != 1:
        return None
    return candidates[0]


def _number_pattern(number: int) -> re.Pattern[str]:
    return re.compile(rf"(?<![\d.,]){number}(?![\d]|[.,]\d)")


def plan_unit(
    sources: tuple[str, ...], flags: Iterable[str], nforms: int, rule: PluralRule | None, source_lang: str = "en"
) -> UnitPlan:
    """The plan for a plural unit with ``sources`` (singular, plural) and ``nforms`` target forms."""
    flags = tuple(flags)
    singular, plural = sources[0], sources[-1]
    if rule is None or rule.nplurals != nforms or nforms <= 2:
        return _classic(singular, plural, nforms, rule, flags)
    singular_numbers = _singular_numbers(source_rule(source_lang))
    count = count_placeholder(plural, flags)
    # The singular shares the plural's count or has none ("One file" / "%d files").
    counts = {SINGULAR: count if count and singular.count(count) == 1 else None, PLURAL: count}
    classic = source_forms(rule, singular, plural, flags)  # where a form falls back to
    forms: list[FormPlan] = []
    texts: dict[int, str] = {}
    fallbacks: dict[int, str] = {}
    problems: list[str] = []
    for i, numbers in enumerate(representatives(rule)):
        if numbers and all(n in singular_numbers for n in numbers):
            forms.append(FormPlan(SINGULAR))  # the form is used only where English says the singular
            texts[SINGULAR] = singular
            continue
        choice = _choose(numbers, counts, singular, plural, singular_numbers)
        if choice is None:
            problems.append(f"msgstr[{i}]" + ("" if numbers else " (no number selects it)"))
            forms.append(FormPlan(classic[i]))
            texts[classic[i]] = sources[classic[i]]
            continue
        number, source_form = choice
        assert count is not None  # a number is chosen only where a count placeholder can carry it
        texts[NUMBER_BASE + i] = sources[source_form].replace(count, str(number), 1)
        fallbacks[classic[i]] = sources[classic[i]]  # translated only if this form needs it
        forms.append(FormPlan(NUMBER_BASE + i, number, count, sources[source_form], classic[i]))
    approximate = None
    if problems:
        approximate = (
            f"plural forms {', '.join(problems)} copied from the {'singular or ' if 0 in classic else ''}"
            f"plural translation: no single count placeholder to put a representative number in"
        )
    return UnitPlan(tuple(forms), texts, approximate, {f: t for f, t in fallbacks.items() if f not in texts})


@functools.lru_cache(maxsize=16)
def _singular_numbers(src: PluralRule) -> frozenset[int]:
    """The searched numbers for which the source language uses its singular."""
    one = src.form_for(1)
    return frozenset(n for n in _SEARCH if src.form_for(n) == one)


def source_forms(rule: PluralRule, singular: str, plural: str, flags: tuple[str, ...]) -> tuple[int, ...]:
    """Per target form, the source it is translated from when no number sentence is: 0 singular, 1 plural.

    The form of 1 comes from the singular, unless the rule also picks it for many numbers (Russian's
    1, 21, 31...) and the singular lacks placeholders of the plural: msgfmt then needs them in that
    form, so it is translated from the plural source ("%d file" rather than "One file").
    """
    picks = list(rule.source_forms())
    one = rule.form_for(1)
    if 0 <= one < len(picks) and picks[one] == SINGULAR and _often(rule, one):
        plural_args = {ph.text for ph in protect(plural, flags).placeholders if ph.kind != "control"}
        if not plural_args <= {ph.text for ph in protect(singular, flags).placeholders}:
            picks[one] = PLURAL
    return tuple(picks)


@functools.lru_cache(maxsize=64)
def _often(rule: PluralRule, form: int) -> bool:
    """Whether ``rule`` picks ``form`` for 5 or more numbers in 0..1000: msgfmt's test for a form that keeps all."""
    return sum(1 for n in range(1001) if rule.form_for(n) == form) >= 5


def _classic(singular: str, plural: str, nforms: int, rule: PluralRule | None, flags: tuple[str, ...]) -> UnitPlan:
    """One or two forms (or a rule that does not match the entry): the singular and plural sources as they are."""
    if rule is not None and rule.nplurals == nforms:
        picks = source_forms(rule, singular, plural, flags)
    else:
        picks = (SINGULAR,) + (PLURAL,) * (nforms - 1)
    texts = {form: (singular, plural)[form] for form in set(picks)}
    return UnitPlan(tuple(FormPlan(form) for form in picks), texts)


def _choose(
    numbers: tuple[int, ...],
    counts: dict[int, str | None],
    singular: str,
    plural: str,
    singular_numbers: frozenset[int],
) -> tuple[int, int] | None:
    """A (number, source form) whose number is not already in the source text; 1 first, then 2 and up, then 0."""
    ordered = sorted(numbers, key=lambda n: (n != 1, n == 0, n))
    for number in ordered:
        source_form = SINGULAR if number in singular_numbers else PLURAL
        count = counts[source_form]
        if count is None:
            continue  # e.g. "One file" / "%d files": 21 (plural source) represents Russian "one" instead of 1
        text = (singular, plural)[source_form].replace(count, "", 1)
        if _number_pattern(number).search(text):
            continue  # the number must be recognisable as the count in the translation
        return number, source_form
    return None


def put_back(translation: str, form: FormPlan, flags: Iterable[str]) -> str | None:
    """``translation`` with the representative number replaced by the count placeholder, or None if unsafe."""
    assert form.number is not None and form.count_text is not None
    found = list(_number_pattern(form.number).finditer(translation))
    if len(found) != 1:
        return None
    text = translation[: found[0].start()] + form.count_text + translation[found[0].end() :]
    # The count may have landed among unnamed printf placeholders in another order than the source's.
    if _ordered(text, flags) != _ordered(form.source, flags):
        return None
    return text


def _ordered(text: str, flags: Iterable[str]) -> list[str]:
    return [ph.text for ph in protect(text, flags).placeholders if ph.ordered]


def lookup(done: Mapping[SegmentKey, str], catalog: str, unit: int) -> Callable[[int], str | None]:
    """The verified translation of each form of one unit, by form number (None when there is none yet)."""
    return lambda form: done.get(SegmentKey(catalog, unit, form))


def missing_fallbacks(plan: UnitPlan, get: Callable[[int], str | None], flags: Iterable[str] = ()) -> tuple[int, ...]:
    """The fallback segment forms ``assemble`` would need but ``get`` has no translation for.

    Empty when some first-round text has no translation either: the unit cannot be written in
    this run anyway, so its fallbacks are not worth paying for yet.
    """
    if any(get(form) is None for form in plan.texts):
        return ()
    flags = tuple(flags)
    missing = {
        form.fallback
        for form in plan.forms
        if form.number is not None
        and get(form.fallback) is None
        and put_back(get(form.segment) or "", form, flags) is None
    }
    return tuple(sorted(missing))


def assemble(plan: UnitPlan, get: Callable[[int], str | None], flags: Iterable[str] = ()) -> Assembled:
    """The target forms from the verified translations ``get(segment form)``; None if one is missing."""
    flags = tuple(flags)
    texts: list[str] = []
    failed: list[str] = []
    for i, form in enumerate(plan.forms):
        translated = get(form.segment)
        if translated is not None and form.number is not None:
            restored = put_back(translated, form, flags)
            if restored is None:
                failed.append(f"msgstr[{i}]")
                translated = get(form.fallback)
            else:
                translated = restored
        if translated is None:
            return Assembled(None)
        texts.append(translated)
    warnings = [plan.approximate] if plan.approximate else []
    if failed:
        warnings.append(
            f"plural forms {', '.join(failed)} copied from the plural translation: the representative "
            f"number did not come back exactly once"
        )
    return Assembled(tuple(texts), tuple(warnings))
