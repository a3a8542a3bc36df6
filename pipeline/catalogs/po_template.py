"""A PO catalog's Zope Default texts as its template gives them.

``msgmerge`` writes a template's extracted comments over a catalog's, so the ``#. Default:`` of a
language catalog is the template's until a translator edits it there (Plone's ``de/plone.po`` has
``msgid "Order in folder"`` with the Default ``"Order in folder6 Unterstützung [deinstallieren]"``). Where a
catalog has a template with Defaults, each message's text is the template's: its Default, or its
msgid where it has none; without one, the catalog's own Default
(:meth:`pipeline.catalogs.po_units.PoUnits.with_template_texts`).
"""

from __future__ import annotations

from pathlib import Path

from pipeline.catalogs.base import Catalog
from pipeline.catalogs.po import PoCatalog, read_po
from pipeline.errors import CatalogError
from pipeline.files.untrusted import read_regular

__all__ = ["TemplateTexts", "find_template"]


class TemplateTexts:
    """The Default texts of the templates read so far (each read once: a project's languages share one)."""

    def __init__(self) -> None:
        self._texts: dict[Path, dict[tuple[str | None, str], str] | None] = {}

    def apply(self, catalog: Catalog, path: Path, configured: Path | None) -> Catalog:
        """``catalog`` (read from ``path``) with the texts its template gives (:func:`find_template`, ``configured``
        the project's template), where any is another than its own: a PO catalog's Zope message ids'."""
        if not isinstance(catalog, PoCatalog) or catalog.is_template:
            return catalog
        template = find_template(path, configured)
        if template is None or template == path:
            return catalog
        texts = self._texts[template] if template in self._texts else self._read(template)
        changed = catalog.units.with_template_texts(texts) if texts is not None else None
        return catalog if changed is None else catalog.with_units(changed)

    def _read(self, template: Path) -> dict[tuple[str | None, str], str] | None:
        """The text ``template`` gives each id, where it has a Default at all, else None (as where it cannot be
        read, which ``pipeline refresh`` says): the catalog's own Defaults are then the texts."""
        texts = None
        try:
            raw = read_regular(template)
            if b"Default:" in raw:
                texts = read_po(template, raw).units.texts_by_id()
        except (OSError, CatalogError):
            pass
        self._texts[template] = texts
        return texts


def find_template(catalog: Path, configured: Path | None = None) -> Path | None:
    """The template of ``catalog``: ``configured`` (``--template``, ``[refresh] template``) for every catalog;
    else ``<domain>.pot`` next to the locale folders (``<dir>/<lang>/LC_MESSAGES/<domain>.po`` ->
    ``<dir>/<domain>.pot``, and KDE's ``po/<lang>/<domain>.po`` -> ``po/<domain>.pot``); else the only ``.pot``
    in the catalog's own folder (``po/de.po`` -> ``po/*.pot``)."""
    if configured is not None:
        return configured
    if catalog.parent.name == "LC_MESSAGES":
        candidate = catalog.parent.parent.parent / f"{catalog.stem}.pot"
        if candidate.is_file():
            return candidate
    beside = catalog.parent.parent / f"{catalog.stem}.pot"  # KDE's po/<lang>/<domain>.po -> po/<domain>.pot
    if catalog.parent.name != "LC_MESSAGES" and beside.is_file():
        return beside
    siblings = sorted(catalog.parent.glob("*.pot"))
    if len(siblings) == 1:
        return siblings[0]
    same_domain = catalog.parent / f"{catalog.stem}.pot"
    return same_domain if same_domain.is_file() else None
