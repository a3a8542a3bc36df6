"""A PO catalog converted to UTF-8 in memory, header and bytes, as ``msgconv --to-code=UTF-8`` does.

Used when a catalog's charset cannot hold its target language's letters and the user asked for
the conversion (``--to-utf8``): the converted catalog is what the run translates and writes, so
the file changes only when translations are written into it, and a dry run changes nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.catalogs.base import Catalog
from pipeline.catalogs.po import PoCatalog, read_po
from pipeline.errors import CatalogError
from pipeline.files.untrusted import read_regular
from pipeline.patterns import lazy_regex

#: The header's Content-Type line (a string line of the header entry) and the charset in it.
_CONTENT_TYPE = lazy_regex(
    r'^(\s*(?:msgstr\s+)?"Content-Type:[^"\n]*?charset=)([^\s;\\"]+)', re.MULTILINE | re.IGNORECASE
)


def converted_to_utf8(catalog: Catalog) -> Catalog:
    """``catalog`` (a PO file) read again as if its bytes and header were UTF-8; raises
    :class:`CatalogError` when the header cannot be rewritten so that the file still reads the same."""
    path: Path = catalog.path
    try:
        text = read_regular(path).decode(catalog.encoding)
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(str(path), f"cannot be converted to UTF-8: {exc}") from None
    found = _CONTENT_TYPE().search(text)
    if found is None:
        raise CatalogError(str(path), "cannot be converted to UTF-8: no charset in the header's Content-Type")
    raw = (text[: found.start(2)] + "UTF-8" + text[found.end(2) :]).encode("utf-8")
    converted = read_po(path, raw)
    if converted.encoding.replace("-", "").replace("_", "").lower() != "utf8" or len(converted.units) != len(
        catalog.units
    ):
        raise CatalogError(str(path), "cannot be converted to UTF-8: the header could not be rewritten")
    return converted


def header_charset(catalog: Catalog) -> str:
    """The charset as the catalog's header spells it (``ISO-8859-2``), else the codec's name."""
    if isinstance(catalog, PoCatalog):
        found = re.search(r"charset\s*=\s*([^\s;]+)", catalog.metadata.get("Content-Type", ""), re.IGNORECASE)
        if found:
            return found.group(1)
    return catalog.encoding
