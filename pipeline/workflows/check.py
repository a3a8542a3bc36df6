"""``pipeline check``: the gate's rules (:mod:`pipeline.run.gate`) over translations already in catalogs.

No service, no network. Every translated unit is checked, and fuzzy ones (machine translations
awaiting review are what a reviewer most needs checked) unless the caller leaves them out, as
``msgfmt`` does. Each issue keeps its severity: errors (what msgfmt rejects, a placeholder missing,
added or changed) and warnings (style). What the rules are: :mod:`pipeline.placeholders.checks`.

A translation is checked against what a run translates it from: in XLIFF whose sources are keys
(Symfony's ``post.edit``), the text the source-language file beside it gives the key
(:func:`pipeline.catalogs.keyed.translated_from`), with CDATA read as the text it holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from pipeline import locales
from pipeline.catalog_paths import configured_locale
from pipeline.catalogs import Catalog, Unit, UnitState, read_catalog
from pipeline.catalogs.keyed import cdata_as_text, translated_from
from pipeline.catalogs.po_template import TemplateTexts
from pipeline.errors import CatalogError
from pipeline.model import Issue, Severity
from pipeline.run.gate import check_unit, plural_usage

if TYPE_CHECKING:  # XLIFF (lxml) is loaded by its reader, only for an XLIFF catalog
    from pipeline.catalogs.xliff.catalog import XliffCatalog
    from pipeline.config import Settings


@dataclass
class Checked:
    """What ``pipeline check`` found: issues of reviewed entries and of fuzzy ones apart, and catalogs read."""

    issues: list[Issue] = field(default_factory=list)
    fuzzy: list[Issue] = field(default_factory=list)  # in entries awaiting review
    read: int = 0
    awaiting: int = 0  # entries awaiting review (fuzzy, needs-review), checked or not


def check_paths(
    paths: Iterable[Path],
    display: dict[Path, str] | None = None,
    include_fuzzy: bool = True,
    settings: Settings | None = None,
) -> Checked:
    """Check every catalog; ``include_fuzzy=False`` leaves entries awaiting review out, as msgfmt does.

    With ``settings`` (the source language, the configured locales), key-based XLIFF is checked against
    the texts its keys stand for.
    """
    checked = Checked()
    templates = TemplateTexts()
    for path in paths:
        name = (display or {}).get(path, str(path))
        try:
            catalog = read_catalog(path)
        except CatalogError as exc:
            checked.issues.append(Issue(name, exc.reason, exc.line))
            continue
        checked.read += 1
        catalog = templates.apply(catalog, path, settings.refresh_template if settings else None)  # a Zope id's text
        # What the reader says about the file as a whole (its charset, a missing header), as a run says it.
        checked.issues.extend(Issue(name, warning, severity=Severity.WARNING) for warning in catalog.warnings)
        units = _with_key_texts(settings, path, catalog) if settings is not None and catalog.format == "xliff" else None
        check_catalog(catalog, name, checked, include_fuzzy, units)
    return checked


def _with_key_texts(settings: Settings, path: Path, catalog: Catalog) -> tuple[Unit, ...] | None:
    """The units of ``catalog`` with each key replaced by the text it stands for, and CDATA in their
    targets read as text; None when no source is a key."""
    xliff = cast("XliffCatalog", catalog)  # its format is XLIFF's: the only one whose sources can be keys
    locale = configured_locale(settings, path) or xliff.language or locales.locale_from_path(path)
    texts = translated_from(xliff, locale, settings.source_lang) if locale else {}
    if not texts:
        return None
    return tuple(
        u._replace(targets=tuple(cdata_as_text(t) for t in u.targets)) if u.position in texts else u
        for u in xliff.with_sources(texts).units
    )


def check_catalog(
    catalog: Catalog, display: str, into: Checked, include_fuzzy: bool = True, units: Sequence[Unit] | None = None
) -> None:
    """Check every translated unit of a catalog (or ``units``, its units as a run reads them), adding what
    is wrong to ``into``."""
    if getattr(catalog, "is_template", False):
        return
    into.awaiting += len(catalog.positions(UnitState.FUZZY))
    wanted = {UnitState.TRANSLATED, UnitState.PARTIAL} | ({UnitState.FUZZY} if include_fuzzy else set())
    checked = [u for u in (catalog.units if units is None else units) if u.state in wanted]
    issues = into.issues
    metadata = getattr(catalog, "metadata", None)
    header_error = getattr(catalog, "header_error", None)
    if header_error is not None:
        issues.append(Issue(display, header_error[1], header_error[0]))
    plural_units = [u for u in checked if u.plural]
    if metadata is not None and plural_units and "plural=" not in (metadata.get("Plural-Forms") or ""):
        issues.append(
            Issue(
                display,
                "the catalog has plural translations but no Plural-Forms header (nplurals=N; plural=EXPRESSION;)",
                plural_units[0].line,
            )
        )
    often, one_form, problem = plural_usage(catalog.plural)
    if problem:
        issues.append(Issue(display, problem, 1))
    miscounted_forms = getattr(catalog, "miscounted_forms", None)  # PO's: XLIFF has no nplurals
    miscounted: dict[int, tuple[int, int]] = miscounted_forms() if miscounted_forms is not None else {}
    for unit in checked:
        targets = unit.targets
        if unit.position in miscounted:  # msgfmt's error, at its line; the forms there are checked as usual
            line, count = miscounted[unit.position]
            forms = "1 plural form" if count == 1 else f"{count} plural forms"
            reason = f"{forms}, but the header says nplurals={unit.nforms}: msgfmt --check refuses the catalog"
            (into.fuzzy if unit.state is UnitState.FUZZY else issues).append(Issue(display, reason, line))
            targets = targets[: min(count, unit.nforms)]
        found = check_unit(unit, targets, None, often, one_form)
        (into.fuzzy if unit.state is UnitState.FUZZY else issues).extend(
            Issue(display, p.reason, unit.line, severity=p.severity) for p in found
        )
