"""The gate: the one place that decides whether a translation may be written.

Every translation passes here before it reaches a catalog, whatever path it came by (an answer
from the service, the cache, a recovery retry, a plural form put together from a number
sentence), and ``pipeline check`` runs the same rules over translations already in a catalog.
The rules themselves are plain functions of :mod:`pipeline.placeholders.checks` (one text against
its source) and :mod:`pipeline.placeholders.grammars` (msgfmt's format check of an entry); there is
no second copy of any.

* :func:`verify` takes the service's answer for one segment (placeholders still as tags),
  restores the segment's *own* placeholders into it (two segments that protect to the same text
  share an answer, never their placeholders), takes out invisible characters the engine added
  that the source does not have, and checks the result against that segment's source. A refusal
  says whether showing the engine the placeholders another way could change it
  (:data:`RETRYABLE`): damaged tags can, a character the catalog cannot hold cannot.
* :func:`admit` takes every unit about to be written: plural forms assembled from their
  representative-number texts (:mod:`pipeline.run.plurals`), then :func:`check_unit` on the forms as
  they would be written. Errors keep a unit out; warnings are reported with it, never silently.
* :func:`check_unit` is what ``pipeline check`` runs over a catalog's existing translations.

Strictness is msgfmt's for what msgfmt checks (the format directives of the entry's flags, every
plural form compared with the plural source, a form the plural rule picks for fewer than 5
numbers in 0..1000 may leave arguments out, newlines at both ends) and an error besides for a
placeholder the source has that is missing, added or changed; style is a warning (see
:mod:`pipeline.placeholders.checks`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pipeline.model import Issue, Severity
from pipeline.placeholders.checks import (
    INVISIBLE,
    Problem,
    Rule,
    check_translation,
    format_problems,
    newline_problems,
)
from pipeline.placeholders.glue import disordered, glued
from pipeline.placeholders.protect import PlaceholderMismatch, restore
from pipeline.run import plurals
from pipeline.run.window import Admission, AdmittedForms, ScannedCatalog, Verdict
from pipeline.segments import Protected, Segment, SegmentKey

if TYPE_CHECKING:
    from pipeline.catalogs import Catalog, Unit
    from pipeline.plural_rules import PluralRule

__all__ = [
    "RETRYABLE",
    "Problem",
    "Rule",
    "admit",
    "check_translation",
    "check_unit",
    "first_error",
    "plural_usage",
    "verify",
]

#: msgfmt's rule: a plural form picked at least this often for n in 0..1000 must keep every argument.
OFTEN = 5
#: What msgfmt assumes without a Plural-Forms header: English's two forms, the second used often.
_GERMANIC = ((False, True), 0, None)

#: Rules another way of showing the engine the placeholders can change: they concern the placeholders.
#: Edge whitespace is put back verbatim, so a difference there is an interior newline placeholder moved.
RETRYABLE = frozenset({Rule.PLACEHOLDER, Rule.ARGUMENT, Rule.MARKUP, Rule.ICU, Rule.WHITESPACE})


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
    touching = glued(protected, answer) or disordered(protected, answer)
    if touching is not None:
        return Verdict(None, touching, retryable=True)
    if INVISIBLE.search(restored):  # recovered: an engine that adds zero-width or bidi characters damaged the text
        keep = set(INVISIBLE.findall(segment.text))
        restored = INVISIBLE.sub(lambda m: m.group() if m.group() in keep else "", restored)
    if not restored.strip() and segment.text.strip():
        return Verdict(None, "the service returned an empty text")
    # Machine output stays strict: a control character the source lacks is damage there, not style.
    error = next(
        (
            p
            for p in check_translation(segment.text, restored, segment.flags)
            if p.severity is Severity.ERROR or p.rule is Rule.CONTROL
        ),
        None,
    )
    if error is not None:
        return Verdict(None, error.reason, error.rule in RETRYABLE)
    return Verdict(restored)


def admit(
    mark_fuzzy: bool, s: ScannedCatalog, done: Mapping[SegmentKey, str], notes: Mapping[SegmentKey, str]
) -> Admission:
    """The units of ``s`` that may be written (index -> target forms), and why the others may not.

    ``notes`` holds, per segment, why its translation needs a reviewer's eye (e.g. translated in
    pieces): such a unit is written only marked fuzzy (``mark_fuzzy``), like an approximate plural.
    """
    translations = AdmittedForms()
    issues: list[Issue] = []
    failed = skipped = 0
    usage: tuple[tuple[bool, ...] | None, int, str | None] | None = None
    for index, forms in s.source_forms.items():
        unit = s.catalog.units[index]
        texts = [done.get(SegmentKey(s.display, index, form)) for form in forms]
        warnings: tuple[str, ...] = ()
        if notes:  # most runs have no note at all
            noted = (notes.get(SegmentKey(s.display, index, form)) for form in forms)
            warnings = tuple(dict.fromkeys(note for note in noted if note))
        if index in s.plural_plans:  # representative-number forms: put the count back, or fall back
            assembled = plurals.assemble(s.plural_plans[index], plurals.lookup(done, s.display, index), unit.flags)
            texts, warnings = list(assembled.texts or (None,)), (*warnings, *assembled.warnings)
        found_texts = [t for t in texts if t is not None]
        if len(found_texts) < len(texts):
            continue
        if usage is None:
            usage = plural_usage(s.catalog.plural)
        often, one_form, _ = usage
        found = check_unit(unit, found_texts, s.catalog, often, one_form)
        errors = [p for p in found if p.severity is Severity.ERROR]
        if errors:
            issues.append(Issue(s.display, f"not written: {errors[0].reason}", unit.line, s.target_lang))
            failed += 1
            continue
        if warnings and not mark_fuzzy:  # an approximate entry must stay fuzzy: leave it for a human
            issues.extend(
                Issue(
                    s.display,
                    f"not written (fuzzy marking is off): {w}",
                    unit.line,
                    s.target_lang,
                    severity=Severity.SKIPPED,
                )
                for w in warnings
            )
            skipped += 1
            continue
        # What a human may write a machine translation may write too, but never silently.
        warnings = (*warnings, *dict.fromkeys(p.reason for p in found if p.severity is Severity.WARNING))
        issues.extend(Issue(s.display, w, unit.line, s.target_lang, severity=Severity.WARNING) for w in warnings)
        translations.add(index, found_texts)
    return Admission(translations, issues, failed, skipped)


def first_error(catalog: Catalog, unit: Unit, targets: Sequence[str]) -> str | None:
    """The first error :func:`admit` finds in ``targets`` as ``unit``'s translation in ``catalog``, or None."""
    often, one_form, _ = plural_usage(catalog.plural)
    found = check_unit(unit, targets, catalog, often, one_form)
    return next((p.reason for p in found if p.severity is Severity.ERROR), None)


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
            reason = catalog.write_problem(target, unit.position)
            if reason:
                problems.append(Problem(reason, rule=Rule.STORAGE))
    if not unit.plural:
        problems += check_translation(unit.sources[0], targets[0], unit.flags)
        if unit.key is not None:  # a Zope message id: checked against its Default, and by msgfmt -c against the id
            problems += [
                Problem(f"{p.reason}, judged as msgfmt -c judges it: against the message id {unit.key!r}", rule=p.rule)
                for p in format_problems(unit.flags, (unit.key,), targets[:1])
            ]
        return problems
    singular, plural_source = unit.sources
    problems.extend(
        Problem(
            f"msgid_plural: {p.reason.replace('the translation and its source', 'the singular and plural sources')}",
            rule=p.rule,
        )
        for p in newline_problems(singular, plural_source)
    )
    if len(targets) != unit.nforms and (catalog is not None or len(targets) > unit.nforms):
        problems.append(
            Problem(f"{len(targets)} plural forms, but the catalog's plural rule has {unit.nforms}", rule=Rule.PLURAL)
        )
    forms = list(targets[: unit.nforms])
    problems.extend(format_problems(unit.flags, unit.sources, forms, often))
    for index, target in enumerate(forms):
        if not target:
            problems.append(Problem(f"plural form {index} is empty", rule=Rule.PLURAL))
            continue
        strict = often is None or index >= len(often) or often[index]
        # Format directives follow msgfmt (every form against the plural source: format_problems above).
        # The rest of a form follows the source a translator writes it from: the form of n=1 the singular
        # or the plural (Russian's form 0 also stands for 21), every other form the plural.
        found = check_translation(
            plural_source,
            target,
            unit.flags,
            strict=strict,
            edges_from=singular if index == one_form else plural_source,
            formats_too=False,
        )
        if found and index == one_form:
            from_singular = check_translation(singular, target, unit.flags, strict=strict, formats_too=False)
            found = min(found, from_singular, key=lambda f: (sum(p.severity is Severity.ERROR for p in f), len(f)))
        problems.extend(Problem(f"plural form {index}: {p.reason}", p.severity, p.rule) for p in found)
    return problems


@functools.lru_cache(maxsize=64)
def plural_usage(plural: PluralRule | None) -> tuple[tuple[bool, ...] | None, int, str | None]:
    """Per plural form whether the rule picks it for many numbers, the form of n=1, and a problem with the rule.

    Without a rule, msgfmt's default: two forms, the second picked often. Worked out once per rule
    (1,001 numbers each): a run's catalogs share a few rules.
    """
    if plural is None:
        return _GERMANIC
    counts = [0] * plural.nplurals
    for n in range(1001):
        form = plural.form_for(n)
        if not 0 <= form < len(counts):
            return None, 0, f"the Plural-Forms expression gives form {form} for n={n}, but nplurals is {len(counts)}"
        counts[form] += 1
    return tuple(c >= OFTEN for c in counts), plural.form_for(1), None
