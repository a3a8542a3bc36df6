"""Scanning: read the catalogs (found by :mod:`pipeline.catalog_paths`) and list the segments to translate.

Nothing here talks to the service: a catalog's target language is mapped to the service's code
offline (:mod:`pipeline.locales`), so a run whose segments are all cached sends no request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from pipeline import locales
from pipeline.alphabets import charset_problem
from pipeline.catalog_paths import catalog_locale, display_path, header_language_warnings
from pipeline.catalogs import Catalog, Unit, UnitState, read_catalog
from pipeline.catalogs.charset import converted_to_utf8, header_charset
from pipeline.catalogs.po import PoCatalog
from pipeline.config import Settings
from pipeline.errors import CatalogError
from pipeline.model import Cause, Issue, Severity
from pipeline.plural_rules import PluralRule, plural_rule_for
from pipeline.run import plurals
from pipeline.run.window import Refused, ScannedCatalog, UnitForms, form_segments, not_offered, unit_context
from pipeline.segments import Segment

if TYPE_CHECKING:  # XLIFF (lxml) is loaded by its reader, only for an XLIFF catalog
    from pipeline.catalogs.xliff.catalog import XliffCatalog

TEMPLATE_SUFFIXES = (".pot",)
Retranslate = Callable[[str, str, Unit], bool]


_TEMPLATE_SKIPPED = "a template (.pot) is not translated; translate the catalogs made from it"


def scan(
    settings: Settings,
    paths: Iterable[Path],
    target_filter: Sequence[str] = (),
    retranslate: Retranslate | None = None,
    read: Mapping[Path, bytes | None] | None = None,
    offered: frozenset[str] | None = None,
    parsed: Mapping[Path, Catalog] | None = None,
) -> tuple[list[ScannedCatalog], list[Issue], list[Refused]]:
    """Read every catalog; return those with a target language the run can translate into, the problems
    found, and the catalogs in a language the service does not offer (said once each, their segments counted).

    ``retranslate(display, target, unit)`` picks fuzzy units to translate again as if they were
    empty (stale machine translations, see :mod:`pipeline.run.journal`). Catalogs whose bytes ``read``
    holds are parsed from them (one copy in memory, not two), unless ``parsed`` holds the catalog
    already parsed from those bytes. ``offered``: the target codes the service offers, when known
    before asking it; a catalog in another language is said once, not once per entry.
    """
    wanted = locales.selection((*settings.target_langs, *target_filter))
    scanned: list[ScannedCatalog] = []
    issues: list[Issue] = []
    refused: list[Refused] = []
    for path in paths:
        display = display_path(settings.root, path)
        if path.suffix.lower() in TEMPLATE_SUFFIXES:
            issues.append(Issue(display, _TEMPLATE_SKIPPED, severity=Severity.SKIPPED))
            continue
        try:
            ready = (parsed or {}).get(path)
            catalog = ready if ready is not None else read_catalog(path, (read or {}).get(path))
        except CatalogError as exc:
            issues.append(Issue(display, exc.reason, exc.line, cause=Cause.INPUT))
            continue
        issues.extend(Issue(display, warning, severity=Severity.WARNING) for warning in catalog.warnings)
        locale = catalog_locale(settings, path, catalog.language)
        if locale is None:
            issues.append(_no_language(display, catalog))
            continue
        issues.extend(header_language_warnings(settings, path, display, catalog.language, locale))
        source = _source_language(settings, display, locale)
        if source is not None:
            issues.append(source)
            continue
        variety = locales.resolve(locale, dict(settings.locale_map))
        target = variety.target
        if not locales.selected(wanted, locale, target):
            continue
        if not _offered(variety, offered):
            wanting = _segments(settings, display, path, catalog, locale, target or locale, [], retranslate)
            refused.extend(_not_offered(settings, wanting, variety))
            continue
        assert target is not None
        fitted = _fit_charset(settings.to_utf8, display, catalog, locale, target, issues)
        if fitted is None:
            continue
        catalog, keys_left = _keyed(settings.source_lang, display, fitted, locale, target, issues)
        found = _segments(settings, display, path, catalog, locale, target, issues, retranslate)
        found = found._replace(formality=variety.formality)
        scanned.append(_without(found, keys_left) if keys_left else found)
    return scanned, issues, refused


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
    found = _Found(settings.context)
    units = catalog.units
    # Only units in these states can be wanted: the others are not made (a PO catalog makes a unit when asked).
    states = (UnitState.UNTRANSLATED, UnitState.PARTIAL, *((UnitState.FUZZY,) if retranslate is not None else ()))
    for position in catalog.positions(*states):
        unit = units[position]
        if unit.state is not UnitState.PARTIAL and not _wanted(unit, display, target, retranslate):
            continue
        refusal = _refusal(unit, display, target, plural)
        if refusal is not None:
            found.skipped += 1
            issues.append(refusal)
            continue
        found.add(settings.source_lang, display, unit, plural)
    return ScannedCatalog(
        path,
        display,
        catalog,
        locale,
        target,
        (),
        found.source_forms,
        found.skipped,
        found.plural_plans,
        tuple(found.fallbacks),
        settings.context,
    )


def _wanted(unit: Unit, display: str, target: str, retranslate: Retranslate | None) -> bool:
    """Whether a unit is to be translated: untranslated, or a stale machine translation to redo."""
    if unit.state is UnitState.UNTRANSLATED:
        return True
    return retranslate is not None and unit.state is UnitState.FUZZY and retranslate(display, target, unit)


def _refusal(unit: Unit, display: str, target: str, plural: PluralRule | None) -> Issue | None:
    """Why a wanted unit is left out (half-translated plural, empty plural source, no plural rule), or None."""
    if unit.state is UnitState.PARTIAL:
        reason = "some plural forms are translated and some are empty; left for a human"
        return Issue(display, reason, unit.line, target, severity=Severity.SKIPPED)
    if unit.plural and not unit.sources[-1].strip():  # msgid_plural "": nothing to translate the forms from
        reason = "the plural source (msgid_plural) is empty, so its forms have no text to translate; left for a human"
        return Issue(display, reason, unit.line, target, severity=Severity.SKIPPED)
    if unit.plural and plural is None:
        reason = "no Plural-Forms header and no CLDR rule for the language"
        return Issue(display, reason, unit.line, target, cause=Cause.INPUT)
    return None


class _Found:
    """How the segments of one catalog's wanted units are made, collected in unit order."""

    # A plain class: a dataclass is built with exec when the module loads, for a helper never compared.
    __slots__ = ("policy", "source_forms", "plural_plans", "fallbacks", "skipped")

    def __init__(self, policy: str) -> None:
        self.policy = policy  # Settings.context
        self.source_forms = UnitForms()
        self.plural_plans: dict[int, plurals.UnitPlan] = {}
        self.fallbacks: list[Segment] = []
        self.skipped = 0

    def add(self, source_lang: str, display: str, unit: Unit, plural: PluralRule | None) -> None:
        """The unit's forms (a plural's number sentences, with their fallbacks kept apart).

        Its segments are made when its part of the window is planned (:meth:`ScannedCatalog.unit_segments`),
        not all at once here: only the few fallback texts are.
        """
        if unit.plural:
            assert plural is not None  # _refusal left such units out
            plan = self.plural_plans[unit.position] = plurals.plan_unit(
                unit.sources, unit.flags, unit.nforms, plural, source_lang
            )
            self.source_forms.add(unit.position, tuple(f.segment for f in plan.forms))
            self.fallbacks.extend(form_segments(display, unit, plan.fallbacks, unit_context(self.policy, unit)))
        else:
            self.source_forms.add(unit.position, (0,))


def _without(scanned: ScannedCatalog, units: frozenset[int]) -> ScannedCatalog:
    """``scanned`` without ``units`` (keys with no text to translate from: warned about)."""
    return scanned._replace(
        source_forms=UnitForms.of((i, f) for i, f in scanned.source_forms.items() if i not in units),
        skipped=scanned.skipped + len(units),
    )


def _no_language(display: str, catalog: Catalog) -> Issue:
    """Why a catalog with no language is left alone: a source file, or one that needs saying."""
    configure = f'or say it in pipeline.toml: [translate] languages = {{ "{display}" = "de" }}'
    if catalog.format == "xliff" and all(u.state is UnitState.UNTRANSLATED for u in catalog.units):
        return Issue(
            display,
            "names no target language and holds no translation: taken for the source file (like a .pot) and not "
            f"translated; if it is a translation, set target-language (2.x: trgLang), name it x.de.xlf, {configure}",
            severity=Severity.SKIPPED,
        )
    return Issue(
        display,
        "cannot tell the target language: set the Language header (XLIFF: target-language or trgLang), name "
        f"the file after its locale (de.po, de/LC_MESSAGES/x.po, admin-de_DE.po, x.de.xlf), {configure}",
        cause=Cause.INPUT,
    )


def _source_language(settings: Settings, display: str, locale: str) -> Issue | None:
    """Why a catalog in ``locale`` is left alone as the source language or a variant of it, or None.

    ``en`` for ``en`` is what translations are made from. ``en_GB`` or ``en_CA`` for ``en`` is a
    variant: between variants of one language the service returns the text unchanged and bills it
    (spec rules 10 and billing), so such a catalog is translated only when ``source_variants`` asks.
    """
    if locale.replace("_", "-").lower() == settings.source_lang.replace("_", "-").lower():
        reason = f"is in the source language ({locale}): translations are made from it, not into it"
        return Issue(display, reason, severity=Severity.SKIPPED)
    if settings.source_variants or locales.base_language(locale) != locales.base_language(settings.source_lang):
        return None
    reason = (
        f"is in {locale}, a variant of the source language {settings.source_lang}: left alone (the service "
        f"returns the text unchanged between variants of one language, and bills it); set [translate] "
        f"source_variants = true to translate it"
    )
    return Issue(display, reason, target_lang=locale, severity=Severity.SKIPPED)


def _offered(variety: locales.Variety, offered: frozenset[str] | None) -> bool:
    """Whether the catalog's language has a code on the service that it offers (or may: ``offered`` unknown)."""
    return variety.target is not None and (offered is None or variety.target in offered)


def _not_offered(settings: Settings, wanting: ScannedCatalog, variety: locales.Variety) -> list[Refused]:
    """The catalog ``wanting`` segments in a language the service does not offer: said once, its segments counted.

    An error unless ``unsupported_languages = "skip"``: a language the mapping knows has no code on
    the service (Nynorsk, Serbian in Latin script) lasts until the settings change; one the
    service's list leaves out (Kaqchikel) until that list changes. A catalog with nothing left to
    translate (all done by hand) loses nothing: nothing is said.
    """
    segments = sum(wanting.segment_count(i) for i in wanting.source_forms)
    if not segments:
        return []
    skip, display, target = settings.unsupported_languages == "skip", wanting.display, variety.target
    if target is None:
        reason = variety.why_not or f"locale {variety.locale!r} has no code on the translation service"
        issue = not_offered(display, reason, None, Cause.INPUT, skip, segments)
    else:
        issue = not_offered(display, locales.not_offered(target), target, Cause.LANGUAGE, skip, segments)
    return [Refused(display, target or "", segments, issue)]


def _fit_charset(
    to_utf8: bool, display: str, catalog: Catalog, locale: str, target: str, issues: list[Issue]
) -> Catalog | None:
    """``catalog``, converted to UTF-8 where its charset cannot hold the target's letters and
    ``to_utf8`` asks for it; None (with the refusal in ``issues``) where it cannot be used.

    Decided before anything is sent: a translation the catalog cannot hold is never paid for.
    """
    if catalog.format != "po":
        return catalog
    charset = header_charset(catalog)
    problem = charset_problem(catalog.encoding, target, locale, charset)
    if problem is None:
        return catalog
    if not to_utf8:
        issues.append(Issue(display, problem, target_lang=target, cause=Cause.INPUT))
        return None
    try:
        converted = converted_to_utf8(catalog)
    except CatalogError as exc:
        issues.append(Issue(display, exc.reason, exc.line, target, cause=Cause.INPUT))
        return None
    issues.append(
        Issue(
            display,
            f"converted from {charset} to UTF-8 (header and bytes) when written, as to_utf8 asks",
            target_lang=target,
            severity=Severity.WARNING,
        )
    )
    return converted


def _undecided(display: str, catalog: PoCatalog, target: str, issues: list[Issue]) -> frozenset[int]:
    """The untranslated units of ``catalog`` whose ids have two Default texts, each warned about: which
    one a translation would be for cannot be told."""
    units = catalog.units
    undecided = frozenset(i for i in units.undecided if units.state_of(i) is UnitState.UNTRANSLATED)
    for index in sorted(undecided):
        unit = units[index]
        issues.append(
            Issue(
                display,
                f"the message id {unit.key!r} has two different Default texts (#. Default:): not translated "
                f"(which one a translation is for cannot be told); left for a human",
                unit.line,
                target,
                severity=Severity.WARNING,
            )
        )
    return undecided


def _keyed(
    source_lang: str, display: str, catalog: Catalog, locale: str, target: str, issues: list[Issue]
) -> tuple[Catalog, frozenset[int]]:
    """For XLIFF whose sources are keys: the catalog with the texts they stand for, and the keys with none.
    For PO: the Zope message ids with two Default texts (:mod:`pipeline.catalogs.po_scan.defaults`), left out."""
    if isinstance(catalog, PoCatalog):
        return catalog, _undecided(display, catalog, target, issues)
    if catalog.format != "xliff":
        return catalog, frozenset()
    xliff = cast("XliffCatalog", catalog)  # its format is XLIFF's: the only one whose sources can be keys
    found = xliff.keyed_sources(locale, source_lang)
    where = (
        f"{found.source_catalog.name} gives no text for it"
        if found.source_catalog
        else f"there is no {source_lang} catalog beside it to give its text"
    )
    for index, key in found.missing.items():
        issues.append(
            Issue(
                display,
                f"the source {key!r} looks like a key and {where}: not translated (the key itself would be "
                f"billed and written)",
                catalog.units[index].line,
                target,
                severity=Severity.WARNING,
            )
        )
    return (xliff.with_sources(found.texts) if found.texts else catalog), frozenset(found.missing)
