"""Which entries the damage bench asks for, blanking them, and reading back what a run wrote.

Per project, ``size`` translated entries (PO) or units (XLIFF) are blanked: three quarters among those
whose source holds a code-like token (by the checker's own reading), spread evenly over the project's
catalogs, the rest among the others; entries already empty in the published catalog are asked too.
Message ids that are keys (Plone's ``description_cache_settings``: no space, an underscore or a dot)
are not asked: their text lives in a comment the run does not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import polib
from lxml import etree

from pipeline.damage import tokens

Key = tuple[str, str | None, str]  # (catalog path relative to the tree, context or XLIFF segment, id)
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True)
_KEYLIKE = re.compile(r"[\w.-]*[_.][\w.-]*\Z")


@dataclass(frozen=True)
class Asked:
    """One entry the run should fill: where it is, and the texts it is translated from."""

    key: Key
    sources: tuple[str, ...]  # msgid (and msgid_plural); the XLIFF source or, key-based, the English text
    blanked: bool  # False: it was already empty in the published catalog


def choose_and_blank(root: Path, size: int, source_language: str = "") -> list[Asked]:
    """Blank the sample of the tree under ``root`` in place; every entry the run is asked for."""
    candidates: list[tuple[Key, tuple[str, ...]]] = []
    asked: list[Asked] = []
    texts = _source_texts(root, source_language)
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.suffix == ".po":
            for entry in polib.pofile(str(path)):
                if entry.obsolete or entry.fuzzy or _KEYLIKE.match(entry.msgid):
                    continue
                key = (relative, entry.msgctxt, entry.msgid)
                sources = (entry.msgid, entry.msgid_plural) if entry.msgid_plural else (entry.msgid,)
                if entry.translated():
                    candidates.append((key, sources))
                else:
                    asked.append(Asked(key, sources, False))
        elif path.suffix == ".xlf" and not _is_source_file(path, source_language):
            for segment, unit_id, source, target in _units(path):
                text = texts.get((_sibling(path, source_language).name, unit_id), source)
                key = (relative, segment, unit_id)
                if target.strip():
                    candidates.append((key, (text,)))
                else:
                    asked.append(Asked(key, (text,), False))
    chosen = _spread([c for c in candidates if _has_code(c[1])], size * 3 // 4)
    chosen += _spread([c for c in candidates if not _has_code(c[1])], size - len(chosen))
    _blank(root, {key for key, _ in chosen})
    return asked + [Asked(key, sources, True) for key, sources in chosen]


def _has_code(sources: tuple[str, ...]) -> bool:
    return any(tokens(text) for text in sources)


T = TypeVar("T")


def _spread(items: list[T], count: int) -> list[T]:
    """``count`` items taken evenly over ``items`` (all of them when there are fewer)."""
    if count <= 0 or not items:
        return []
    if len(items) <= count:
        return list(items)
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def _blank(root: Path, keys: set[Key]) -> None:
    by_catalog: dict[str, set[Key]] = {}
    for key in keys:
        by_catalog.setdefault(key[0], set()).add(key)
    for relative, chosen in by_catalog.items():
        path = root / relative
        if path.suffix == ".po":
            po = polib.pofile(str(path))
            for entry in po:
                if (relative, entry.msgctxt, entry.msgid) in chosen:
                    entry.msgstr = ""
                    entry.msgstr_plural = dict.fromkeys(entry.msgstr_plural, "")
            po.save(str(path))
        else:
            tree = etree.parse(str(path), _PARSER)
            for segment, unit_id, holder in _holders(tree.getroot()):
                target = _child(holder, "target")
                if (relative, segment, unit_id) in chosen and target is not None:
                    holder.remove(target)
            tree.write(str(path), xml_declaration=True, encoding="UTF-8")


def written(root: Path, asked: list[Asked]) -> dict[Key, tuple[str, ...]]:
    """The translation forms a run wrote for each asked entry that now has every form filled."""
    found: dict[Key, tuple[str, ...]] = {}
    wanted = {a.key for a in asked}
    for relative in sorted({key[0] for key in wanted}):
        path = root / relative
        if path.suffix == ".po":
            for entry in polib.pofile(str(path)):
                key = (relative, entry.msgctxt, entry.msgid)
                if key not in wanted:
                    continue
                forms = tuple(entry.msgstr_plural[i] for i in sorted(entry.msgstr_plural)) or (entry.msgstr,)
                if all(forms) and (entry.msgstr_plural or not entry.msgid_plural):
                    found[key] = forms
        else:
            for segment, unit_id, _, target in _units(path):
                if (relative, segment, unit_id) in wanted and target.strip():
                    found[(relative, segment, unit_id)] = (target,)
    return found


# --- XLIFF 1.2 and 2.x, read with lxml apart from the package's reader -----------------------------------


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def _child(element: etree._Element, name: str) -> etree._Element | None:
    return next((c for c in element if _local(c) == name), None)


def _holders(root: etree._Element) -> list[tuple[str | None, str, etree._Element]]:
    """(segment, unit id, element holding source and target) in document order."""
    found: list[tuple[str | None, str, etree._Element]] = []
    for element in root.iter():
        if _local(element) == "trans-unit":
            found.append((None, element.get("id", ""), element))
        elif _local(element) == "unit":
            segments = [c for c in element if _local(c) == "segment"]
            found.extend((str(i), element.get("id", ""), s) for i, s in enumerate(segments))
    return found


def _text(element: etree._Element | None) -> str:
    """What a program reads from a source or target: its text, inline elements as tags."""
    if element is None:
        return ""
    inner = element.text or ""
    for child in element:
        inner += etree.tostring(child, encoding="unicode", with_tail=False) + (child.tail or "")
    return inner


def _units(path: Path) -> list[tuple[str | None, str, str, str]]:
    """(segment, unit id, source text, target text) of every unit of an XLIFF file."""
    root = etree.parse(str(path), _PARSER).getroot()
    return [
        (segment, unit_id, _text(_child(holder, "source")), _text(_child(holder, "target")))
        for segment, unit_id, holder in _holders(root)
        if _child(holder, "source") is not None
    ]


def _is_source_file(path: Path, source_language: str) -> bool:
    return bool(source_language) and path.name.endswith(f".{source_language}.xlf")


def _sibling(path: Path, source_language: str) -> Path:
    """The source-language file beside a key-based catalog: messages.fr.xlf -> messages.en.xlf."""
    stem = path.name.rsplit(".", 2)[0]
    return path.with_name(f"{stem}.{source_language}.xlf")


def _source_texts(root: Path, source_language: str) -> dict[tuple[str, str], str]:
    """(file name, unit id) -> the text a key-based project's source-language file gives the key."""
    if not source_language:
        return {}
    texts = {}
    for path in root.rglob(f"*.{source_language}.xlf"):
        for _, unit_id, _, target in _units(path):
            if target.strip():
                texts[(path.name, unit_id)] = target
    return texts
