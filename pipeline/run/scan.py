"""Scanning: read the catalogs (found by :mod:`pipeline.catalog_paths`) and list the segments to translate.

Nothing here talks to the service: a catalog's target language is mapped to the service's code
offline (:mod:`pipeline.locales`), so a run whose segments are all cached sends no request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pipeline import locales
from pipeline.catalog_paths import display_path
from pipeline.config import Settings
from pipeline.errors import CatalogError
from pipeline.formats import Catalog, Unit, UnitState, read_catalog
from pipeline.model import Cause, Issue, Segment, SegmentKey, Severity
from pipeline.plural_rules import PluralRule, plural_rule_for
from pipeline.run import plurals
from pipeline.run.records import ScannedCatalog

TEMPLATE_SUFFIXES = (".pot",)
Retranslate = Callable[[str, str, Unit], bool]


def scan(
    settings: Settings, paths: Iterable[Path], target_filter: Sequence[str] = (), retranslate: Retranslate | None = None
) -> tuple[list[ScannedCatalog], list[Issue]]:
    """Read every catalog; return those with a known target language, and the problems found.

    ``retranslate(display, target, unit)`` picks fuzzy units to translate again as if they were
    empty (stale machine translations, see :mod:`pipeline.run.journal`).
    """
    wanted = locales.selection((*settings.target_langs, *target_filter))
    scanned: list[ScannedCatalog] = []
    issues: list[Issue] = []
    for path in paths:
        display = display_path(settings, path)
        if path.suffix.lower() in TEMPLATE_SUFFIXES:
            issues.append(
                Issue(
                    display,
                    "a template (.pot) is not translated; translate the catalogs made from it",
                    severity=Severity.SKIPPED,
                )
            )
            continue
        try:
            catalog = read_catalog(path)
        except CatalogError as exc:
            issues.append(Issue(display, exc.reason, exc.line, cause=Cause.INPUT))
            continue
        issues.extend(Issue(display, warning, severity=Severity.WARNING) for warning in catalog.warnings)
        locale = catalog.language or locales.locale_from_path(path)
        if locale is None:
            issues.append(
                Issue(
                    display,
                    "cannot tell the target language: set the Language header (XLIFF: "
                    "target-language or trgLang) or name the file after its locale "
                    "(de.po, de/LC_MESSAGES/x.po, x.de.xlf)",
                    cause=Cause.INPUT,
                )
            )
            continue
        target = locales.service_target(locale, dict(settings.locale_map))
        if not locales.selected(wanted, locale, target):
            continue
        if target is None:
            issues.append(
                Issue(
                    display,
                    f"locale {locale!r} has no language on the translation service",
                    target_lang=locale,
                    severity=Severity.SKIPPED,
                )
            )
            continue
        scanned.append(_segments(settings, display, path, catalog, locale, target, issues, retranslate))
    return scanned, issues


def _segments(
    settings: Settings,
    display: str,
    path: Path,
    catalog: Catalog,
    locale: str,
    target: str,
    issues: list[Issue],
    retranslate: Retranslate | None = None,
) -> ScannedCatalog:
    plural = catalog.plural or plural_rule_for(locale)
    found = _Found()
    for unit in catalog.units:
        if unit.state is not UnitState.PARTIAL and not _wanted(unit, display, target, retranslate):
            continue
        refusal = _refusal(unit, display, target, plural)
        if refusal is not None:
            found.skipped += 1
            issues.append(refusal)
            continue
        found.add(settings, display, unit, plural)
    return ScannedCatalog(
        path,
        display,
        catalog,
        locale,
        target,
        tuple(found.segments),
        found.source_forms,
        found.skipped,
        found.plural_plans,
        tuple(found.fallbacks),
    )


def _wanted(unit: Unit, display: str, target: str, retranslate: Retranslate | None) -> bool:
    """Whether a unit is to be translated: untranslated, or a stale machine translation to redo."""
    if unit.state is UnitState.UNTRANSLATED:
        return True
    return retranslate is not None and unit.state is UnitState.FUZZY and retranslate(display, target, unit)


def _refusal(unit: Unit, display: str, target: str, plural: PluralRule | None) -> Issue | None:
    """Why a wanted unit is left out (half-translated plural, no plural rule), or None."""
    if unit.state is UnitState.PARTIAL:
        reason = "some plural forms are translated and some are empty; left for a human"
        return Issue(display, reason, unit.line, target, severity=Severity.SKIPPED)
    if unit.plural and plural is None:
        reason = "no Plural-Forms header and no CLDR rule for the language"
        return Issue(display, reason, unit.line, target, cause=Cause.INPUT)
    return None


@dataclass
class _Found:
    """The segments of one catalog's wanted units, collected in unit order."""

    segments: list[Segment] = field(default_factory=list)
    source_forms: dict[int, tuple[int, ...]] = field(default_factory=dict)
    plural_plans: dict[int, plurals.UnitPlan] = field(default_factory=dict)
    fallbacks: list[Segment] = field(default_factory=list)
    skipped: int = 0

    def add(self, settings: Settings, display: str, unit: Unit, plural: PluralRule | None) -> None:
        """The unit's segments (a plural's number sentences, with their fallbacks kept apart)."""
        if unit.plural:
            assert plural is not None  # _refusal left such units out
            plan = self.plural_plans[unit.index] = plurals.plan_unit(
                unit.sources, unit.flags, unit.nforms, plural, settings.source_lang
            )
            forms, texts, spare = tuple(f.segment for f in plan.forms), plan.texts, plan.fallbacks
        else:
            forms, texts, spare = (0,), {0: unit.sources[0]}, {}
        self.source_forms[unit.index] = forms
        context = _context(settings.context, unit)
        self.segments.extend(
            Segment(SegmentKey(display, unit.index, form), texts[form], unit.line, unit.flags, context)
            for form in sorted(texts)
        )
        self.fallbacks.extend(
            Segment(SegmentKey(display, unit.index, form), spare[form], unit.line, unit.flags, context)
            for form in sorted(spare)
        )


def _context(policy: str, unit: Unit) -> str | None:
    """What is sent as the request's ``context`` for a unit, per the configured policy."""
    if policy == "none":
        return None
    parts = [unit.context or ""]
    if policy == "all":
        parts.append(unit.notes)
    return "\n".join(p for p in parts if p) or None
