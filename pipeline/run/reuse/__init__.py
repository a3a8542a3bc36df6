"""Reuse: an untranslated entry a human already translated elsewhere is written with that translation, at no cost.

Between plan and cached: every unit with a text waiting to be sent (or a plural fallback) is looked
up by msgctxt, msgid and msgid_plural among the reviewed translations of its language
(:mod:`.index`: the project's other catalogs, then the compendia). A translation found once (or
the same everywhere) that passes the gate for this unit (``check``: the rules
:func:`pipeline.run.gate.admit` applies, the catalog's charset included) is taken: the unit's
texts leave the window's pending texts (a text no other segment needs is not sent, nor paid
for), and the unit is written marked for review whatever ``mark_fuzzy`` says, with a comment
naming where the translation came from (``# pipeline: reused from locale/de/.../djangojs.po:12``).
A plural entry is reused only from a catalog whose plural rule picks the same forms.

The report counts, per catalog, the segments reused and the characters their texts would have
been billed (a text another segment still needs counts nothing), and lists every reused unit with
its origin (``report.json``'s ``reused``). A reused unit is not recorded as the pipeline's own
translation (:mod:`pipeline.run.journal`): like any human text, no later run rewrites it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from pipeline.formats import Catalog, Unit
from pipeline.plural_rules import plural_rule_for
from pipeline.run.context import RunContext
from pipeline.run.reuse.index import Human, Index, signature
from pipeline.run.window import Pending, Reused, ScannedCatalog, Window
from pipeline.segments import SegmentKey

__all__ = ["REUSED_FORM", "Check", "reuse"]

#: ``SegmentKey.form`` of target form ``i`` of a reused unit: ``REUSED_FORM + i`` (the gate reads the
#: unit's forms from these, as it reads a machine translation's from its segments).
REUSED_FORM = 1000

#: Why ``targets`` may not be written as the unit's translation in the catalog (the gate's first error), or None.
Check = Callable[[Catalog, Unit, Sequence[str]], str | None]


def reuse(run: RunContext, window: Window, check: Check) -> None:
    """Write into ``window`` the reviewed translations found for its waiting units; drop their texts from sending."""
    if not run.settings.reuse or not (window.pending or window.spare):
        return
    waiting: dict[str, set[int]] = {}
    for item in (*window.pending.values(), *window.spare.values()):
        for ref in item.refs:
            waiting.setdefault(ref.key.catalog, set()).add(ref.key.unit)
    scanned = [s for s in window.scanned if s.display in waiting]
    index = _index(run)
    index.build({s.locale for s in scanned}, {s.path: (s.locale, s.catalog) for s in window.scanned})
    for where, why in index.warnings:
        run.warn(where, f"compendium not used: {why}")
    index.warnings.clear()
    found: dict[tuple[str, int], Human] = {}
    for s in scanned:
        language = index.language(s.locale)
        rule = signature(s.catalog.plural or plural_rule_for(s.locale))
        for number in sorted(waiting[s.display]):
            unit = s.catalog.units[number]
            human = language.find((unit.context, unit.sources, rule if unit.plural else None))
            if human is None or len(human.targets) != unit.nforms:
                continue
            if check(s.catalog, unit, human.targets) is None:
                found[s.display, number] = human
    if found:
        _apply(run, window, found)


def _index(run: RunContext) -> Index:
    if run.reuse_index is None:
        cached = run.options.use_cache  # --no-cache: the index is a cache too
        run.reuse_index = Index(run.settings, run.journal, cached, persist=cached and not run.options.dry_run)
    return run.reuse_index


def _apply(run: RunContext, window: Window, found: dict[tuple[str, int], Human]) -> None:
    """The units of ``found`` take their reviewed translation; their texts leave what is sent."""
    for position, s in enumerate(window.scanned):
        mine = {number: human for (display, number), human in found.items() if display == s.display}
        if mine:
            window.scanned[position] = _reused(run, window, s, mine)
    for pending, counted in ((window.pending, True), (window.spare, False)):
        for key, item in list(pending.items()):
            kept = [ref for ref in item.refs if (ref.key.catalog, ref.key.unit) not in found]
            if len(kept) == len(item.refs):
                continue
            gone = [ref for ref in item.refs if (ref.key.catalog, ref.key.unit) in found]
            if counted:  # a fallback text would be sent only if a number failed: nothing saved for sure
                for ref in gone:
                    run.per_catalog[ref.key.catalog].counters.segments_reused += 1
            if kept:
                pending[key] = Pending(item.options, item.protected, item.key, kept, item.own)
                continue
            del pending[key]
            if counted:  # billed once, as the text would have been: to the first catalog that needed it
                run.per_catalog[gone[0].key.catalog].counters.characters_reused += len(item.protected.text)


def _reused(run: RunContext, window: Window, s: ScannedCatalog, found: dict[int, Human]) -> ScannedCatalog:
    """``s`` with the units of ``found`` made of their reviewed forms (``REUSED_FORM + i``), recorded for the report."""
    forms = dict(s.source_forms)
    plans = {number: plan for number, plan in s.plural_plans.items() if number not in found}
    counters = run.per_catalog[s.display].counters
    for number, human in found.items():
        for form in forms.get(number, ()):
            if window.done.pop(SegmentKey(s.display, number, form), None) is not None:
                counters.segments_copied -= 1  # nothing to translate in it: the plan had copied it
        forms[number] = tuple(REUSED_FORM + i for i in range(len(human.targets)))
        for i, target in enumerate(human.targets):
            window.done[SegmentKey(s.display, number, REUSED_FORM + i)] = target
        window.review.setdefault(s.display, {})[number] = f"pipeline: reused from {human.origin}"
        window.reused.setdefault(s.display, set()).add(number)
        run.report.reused.append(Reused(s.display, s.catalog.units[number].line, s.target_lang, human.origin))
    return replace(s, source_forms=forms, plural_plans=plans)
