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

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from pipeline.catalogs import Catalog, Unit
from pipeline.plural_rules import plural_rule_for
from pipeline.run.reuse.index import Human, Index, signature
from pipeline.run.window import Pending, ReusedUnit, ScannedCatalog, UnitForms
from pipeline.segments import SegmentKey

__all__ = ["REUSED_FORM", "Check", "Index", "Reuse", "reuse"]

#: ``SegmentKey.form`` of target form ``i`` of a reused unit: ``REUSED_FORM + i`` (the gate reads the
#: unit's forms from these, as it reads a machine translation's from its segments).
REUSED_FORM = 1000

#: Why ``targets`` may not be written as the unit's translation in the catalog (the gate's first error), or None.
Check = Callable[[Catalog, Unit, Sequence[str]], str | None]


class Reuse(NamedTuple):
    """What reuse found for a part: the catalogs as the gate reads them, the texts still to send, the units reused.

    ``saved``: per text reused units no longer need, the catalogs of its segments (each counts as
    reused there) and, when no other segment needs the text any more, the first catalog that needed
    it, which is credited with the characters it would have been billed.
    """

    scanned: list[ScannedCatalog]
    pending: dict[str, Pending]
    spare: dict[str, Pending]
    units: list[ReusedUnit]
    saved: list[tuple[list[str], str | None, int]]
    warnings: list[tuple[str, str]]  # (where, why): compendia that cannot be used


def reuse(
    index: Index,
    scanned: list[ScannedCatalog],
    pending: dict[str, Pending],
    spare: dict[str, Pending],
    done: Mapping[SegmentKey, str],
    check: Check,
) -> Reuse:
    """The reviewed translations found for the units whose texts wait to be sent, and the texts they leave."""
    waiting: dict[str, set[int]] = {}
    for item in (*pending.values(), *spare.values()):
        for ref in item.refs:
            waiting.setdefault(ref.key.catalog, set()).add(ref.key.unit)
    wanted = [s for s in scanned if s.display in waiting]
    index.build({s.locale for s in wanted}, {s.path: (s.locale, s.catalog) for s in scanned})
    warnings = [(where, f"compendium not used: {why}") for where, why in index.warnings]
    index.warnings.clear()
    found: dict[tuple[str, int], Human] = {}
    for s in wanted:
        language = index.language(s.locale)
        if not language:  # nothing to find: the units are not made to ask
            continue
        rule = signature(s.catalog.plural or plural_rule_for(s.locale))
        for number in sorted(waiting[s.display]):
            unit = s.catalog.units[number]
            human = language.find((unit.context, unit.sources, rule if unit.plural else None))
            if human is None or len(human.targets) != unit.nforms:
                continue
            if check(s.catalog, unit, human.targets) is None:
                found[s.display, number] = human
    if not found:
        return Reuse(scanned, pending, spare, [], [], warnings)
    units: list[ReusedUnit] = []
    catalogs = []
    for s in scanned:
        mine = {number: human for (display, number), human in found.items() if display == s.display}
        if mine:
            s, reused = _reused(s, mine, done)
            units += reused
        catalogs.append(s)
    saved: list[tuple[list[str], str | None, int]] = []
    pending = _without(pending, found, saved, counted=True)
    spare = _without(spare, found, saved, counted=False)
    return Reuse(catalogs, pending, spare, units, saved, warnings)


def _without(
    texts: dict[str, Pending],
    found: dict[tuple[str, int], Human],
    saved: list[tuple[list[str], str | None, int]],
    counted: bool,
) -> dict[str, Pending]:
    """``texts`` without the segments of the units of ``found``; what that saves is added to ``saved`` when
    ``counted`` (a fallback text would be sent only if a number failed: nothing saved for sure)."""
    kept_texts: dict[str, Pending] = {}
    for key, item in texts.items():
        kept = [ref for ref in item.refs if (ref.key.catalog, ref.key.unit) not in found]
        if len(kept) == len(item.refs):
            kept_texts[key] = item
            continue
        gone = [ref.key.catalog for ref in item.refs if (ref.key.catalog, ref.key.unit) in found]
        if kept:
            kept_texts[key] = Pending(item.options, item.protected, item.key, kept, item.own)
        if counted:  # billed once, as the text would have been: to the first catalog that needed it
            saved.append((gone, None if kept else gone[0], len(item.protected.text)))
    return kept_texts


def _reused(
    s: ScannedCatalog, found: dict[int, Human], done: Mapping[SegmentKey, str]
) -> tuple[ScannedCatalog, list[ReusedUnit]]:
    """``s`` with the units of ``found`` made of their reviewed forms (``REUSED_FORM + i``), and those units."""
    forms = dict(s.source_forms)
    plans = {number: plan for number, plan in s.plural_plans.items() if number not in found}
    units = []
    for number, human in found.items():
        copied = tuple(key for form in forms.get(number, ()) if (key := SegmentKey(s.display, number, form)) in done)
        forms[number] = tuple(REUSED_FORM + i for i in range(len(human.targets)))
        written = {SegmentKey(s.display, number, REUSED_FORM + i): target for i, target in enumerate(human.targets)}
        line = s.catalog.units[number].line
        units.append(ReusedUnit(s.display, number, line, s.target_lang, human.origin, written, copied))
    return s._replace(source_forms=UnitForms.of(sorted(forms.items())), plural_plans=plans), units
