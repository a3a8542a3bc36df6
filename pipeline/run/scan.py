"""Scanning: read the catalogs (found by :mod:`pipeline.catalog_paths`) and list the segments to translate.

Nothing here talks to the service: a catalog's target language is mapped to the service's code
offline (:mod:`pipeline.locales`), so a run whose segments are all cached sends no request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from pipeline import locales
from pipeline.catalog_paths import display_path
from pipeline.config import Settings
from pipeline.errors import CatalogError
from pipeline.formats import Catalog, Unit, UnitState, read_catalog
from pipeline.model import Cause, Issue, Segment, SegmentKey, Severity
from pipeline.plural_rules import plural_rule_for
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
    segments: list[Segment] = []
    source_forms: dict[int, tuple[int, ...]] = {}
    plural_plans: dict[int, plurals.UnitPlan] = {}
    fallbacks: list[Segment] = []
    skipped = 0
    for unit in catalog.units:
        if unit.state is UnitState.PARTIAL:
            skipped += 1
            issues.append(
                Issue(
                    display,
                    "some plural forms are translated and some are empty; left for a human",
                    unit.line,
                    target,
                    severity=Severity.SKIPPED,
                )
            )
            continue
        if unit.state is not UnitState.UNTRANSLATED and not (
            retranslate is not None and unit.state is UnitState.FUZZY and retranslate(display, target, unit)
        ):
            continue
        if unit.plural:
            if plural is None:
                skipped += 1
                issues.append(
                    Issue(
                        display,
                        "no Plural-Forms header and no CLDR rule for the language",
                        unit.line,
                        target,
                        cause=Cause.INPUT,
                    )
                )
                continue
            plan = plural_plans[unit.index] = plurals.plan_unit(
                unit.sources, unit.flags, unit.nforms, plural, settings.source_lang
            )
            forms, texts, spare = tuple(f.segment for f in plan.forms), plan.texts, plan.fallbacks
        else:
            forms, texts, spare = (0,), {0: unit.sources[0]}, {}
        source_forms[unit.index] = forms
        context = _context(settings.context, unit)
        segments.extend(
            Segment(SegmentKey(display, unit.index, form), texts[form], unit.line, unit.flags, context)
            for form in sorted(texts)
        )
        fallbacks.extend(
            Segment(SegmentKey(display, unit.index, form), spare[form], unit.line, unit.flags, context)
            for form in sorted(spare)
        )
    return ScannedCatalog(
        path, display, catalog, locale, target, tuple(segments), source_forms, skipped, plural_plans, tuple(fallbacks)
    )


def _context(policy: str, unit: Unit) -> str | None:
    """What is sent as the request's ``context`` for a unit, per the configured policy."""
    if policy == "none":
        return None
    parts = [unit.context or ""]
    if policy == "all":
        parts.append(unit.notes)
    return "\n".join(p for p in parts if p) or None
