"""Catalogs whose sources are keys: Symfony's ``registration.title``, the English text living in
``messages.en.xlf``.

The text to translate is the source-language catalog's translation of the key, never the key:
translated literally, a key is billed and written into the target as if it were text. A source
counts as a key where the source-language catalog next to it (same name, the source language's
code in place of the target's) gives it a text other than itself, under that source or, where the
source there became the text, under the unit's name (1.2 ``resname``, 2.x ``name``: Symfony's key
before the source); a source that looks like a key
(dotted words, no spaces: ``form.label.email``) but has no text there is left untranslated, with
a warning.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, cast

from pipeline.catalogs import read_catalog
from pipeline.catalogs.base import Catalog, Unit, UnitState
from pipeline.catalogs.xliff.xmltext import escape_text
from pipeline.errors import CatalogError

#: A CDATA section: its text is what the key stands for, markup included, so it is sent as escaped
#: text (whose tags the placeholder layer keeps) rather than as one untranslatable block.
_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
#: Dotted words without spaces, ASCII: how Symfony, Laravel and most key-based catalogs spell keys.
KEY = re.compile(r"[A-Za-z_][\w-]*(?:\.[\w-]+)+\Z", re.ASCII)


@dataclass(frozen=True)
class KeyedSources:
    """What a catalog's keys stand for: unit index -> source text, and the keys with no text."""

    source_catalog: Path | None
    texts: dict[int, str] = field(default_factory=dict)
    missing: dict[int, str] = field(default_factory=dict)  # unit index -> the key


class _Named(Protocol):
    """An XLIFF catalog as read here: its units, and the name each gives (``XliffCatalog.names``)."""

    units: Sequence[Unit]
    names: tuple[str | None, ...]


def looks_like_key(text: str) -> bool:
    """Whether ``text`` is spelled like a key (``registration.title``), not like text."""
    return bool(KEY.match(text))


def keyed_sources(catalog: Catalog, locale: str, source_lang: str) -> KeyedSources:
    """The texts the keys of ``catalog`` (in ``locale``) stand for, from its source-language sibling."""
    sibling, texts_by_key = key_texts(catalog, locale, source_lang)
    found = KeyedSources(sibling)
    for unit in catalog.units:
        if unit.plural or unit.state is not UnitState.UNTRANSLATED:
            continue
        key = unit.sources[0]
        if key in texts_by_key:
            found.texts[unit.position] = texts_by_key[key]
        elif looks_like_key(key):
            found.missing[unit.position] = key
    return found


def translated_from(catalog: Catalog, locale: str, source_lang: str) -> dict[int, str]:
    """For every unit of ``catalog`` whose source is a key: the text a translation is made from (and
    checked against), unit index -> text. What ``translate`` sends for a key, ``check`` compares with."""
    _, texts_by_key = key_texts(catalog, locale, source_lang)
    return {
        u.position: texts_by_key[u.sources[0]] for u in catalog.units if not u.plural and u.sources[0] in texts_by_key
    }


def key_texts(catalog: Catalog, locale: str, source_lang: str) -> tuple[Path | None, dict[str, str]]:
    """The source-language sibling of ``catalog``, and the text it gives each key (a text that is its
    own key gives none)."""
    sibling = source_sibling(catalog.path, locale, source_lang)
    texts_by_key: dict[str, str] = {}
    if sibling is not None:
        try:
            # The sibling has the catalog's suffix, so XLIFF's reader reads it.
            source = cast("_Named", read_catalog(sibling))
        except CatalogError:
            source = None  # reported when the run reads it as a catalog of its own
        units, names = (source.units, source.names) if source is not None else ((), ())
        # A name given to one unit only: a 2.x unit's segments share theirs.
        counts = Counter(names)
        for unit, name in zip(units, names, strict=True):
            target = unit.targets[0] if unit.targets and unit.state is not UnitState.OBSOLETE else ""
            if not target.strip():
                continue
            if target != unit.sources[0]:
                texts_by_key[unit.sources[0]] = cdata_as_text(target)
            # Where the source became the text, the key lives on as the name (Kimai's resname).
            if name is not None and counts[name] == 1 and target != name:
                texts_by_key.setdefault(name, cdata_as_text(target))
    return sibling, texts_by_key


def cdata_as_text(text: str) -> str:
    """XLIFF inner text with its CDATA sections written as escaped text: the same text, as a run writes it."""
    return _CDATA.sub(lambda m: escape_text(m.group(1)), text) if "<![CDATA[" in text else text


def source_sibling(path: Path, locale: str, source_lang: str) -> Path | None:
    """The catalog next to ``path`` in the source language: ``messages.de.xlf`` -> ``messages.en.xlf``."""
    parts = path.name.split(".")
    if len(parts) < 3 or parts[-2].replace("-", "_").lower() != locale.replace("-", "_").lower():
        return None
    stem, suffix = ".".join(parts[:-2]), parts[-1]
    base = source_lang.replace("-", "_").split("_")[0].lower()
    exact = path.with_name(f"{stem}.{source_lang}.{suffix}")
    if exact.is_file():
        return exact
    prefix = f"{stem}.".lower()
    for other in sorted(path.parent.glob(f"{glob_escape(stem)}.*.{glob_escape(suffix)}")):
        code = other.name[len(prefix) : -len(suffix) - 1]
        if other.name.lower().startswith(prefix) and code.replace("-", "_").split("_")[0].lower() == base:
            return other
    return None


def glob_escape(text: str) -> str:
    """``text`` with the glob wildcards made literal."""
    return re.sub(r"([*?[])", r"[\1]", text)
