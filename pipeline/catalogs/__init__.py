"""Catalog formats: reading a catalog file into units, and writing translations back into it.

::

    base.py        the format-neutral model: Catalog, Unit, UnitState, Reviewed
    po.py          Gettext PO (read in one pass by po_scan/; po_header, po_lines, po_strings its parts)
    po_review.py   a reviewer's decisions written into a PO catalog
    xliff/         XLIFF 1.2 and 2.x, edited in place
    charset.py     a PO catalog's charset, and converting it to UTF-8
    keyed.py       catalogs keyed by id (the source text in a sibling catalog; Zope's PO: po_scan/defaults.py)
    merge.py       msgmerge for ``pipeline refresh``

:func:`read_catalog` chooses the reader by the file's suffix and loads only that format's module
(lxml for XLIFF): a project of PO files never loads lxml. The PO reader is this package's own;
polib is loaded only where its reading of a file is asked for (:attr:`po.PoCatalog.entries`, a key
with escapes read on the strict path). Writing files atomically is :mod:`pipeline.files`'.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from pipeline.catalogs.base import Catalog, Reviewed, Unit, UnitState
from pipeline.errors import CatalogError

__all__ = ["READERS", "Catalog", "CatalogError", "Reviewed", "Unit", "UnitState", "read_catalog"]

#: The reader of each catalog suffix, as ``module:function``, loaded the first time a file of that format is read.
READERS = {
    ".po": "pipeline.catalogs.po:read_po",
    ".pot": "pipeline.catalogs.po:read_po",
    ".xlf": "pipeline.catalogs.xliff.catalog:read_xliff",
    ".xliff": "pipeline.catalogs.xliff.catalog:read_xliff",
}


def read_catalog(path: Path, raw: bytes | None = None) -> Catalog:
    """Read a catalog of any supported format, chosen by its suffix (from ``raw``, its bytes as already read)."""
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise CatalogError(str(path), f"unsupported catalog format {path.suffix or '(no suffix)'!r}")
    module, function = reader.split(":")
    read: Callable[[Path, bytes | None], Catalog] = getattr(importlib.import_module(module), function)
    return read(path, raw)
