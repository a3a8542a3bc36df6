"""The memory files the local service reads: TMX, and PO compendia (loaded with the first memory file).

Each gives the memory's source language and its (source, target) pairs by target language (base
codes), which :func:`indexes` makes into the matchers of ``engine.tm_match`` (loaded here, so a
service without memories never loads it); a file that cannot be used is a
:class:`~pipeline.service.store.memories.MemoryLoadError` naming it and, when known, the line.
"""

from __future__ import annotations

import re

import polib
from lxml import etree

from pipeline.safexml import UnsafeXmlError, parse
from pipeline.service import languages
from pipeline.service.config import MemoryLoadError
from pipeline.service.engine.tm_match import MemoryIndex

__all__ = ["indexes", "read_po", "read_tmx"]

_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_PLAIN_DOCTYPE = re.compile(rb"<!DOCTYPE\s+tmx\s+(?:SYSTEM|PUBLIC)(?:\s+\"[^\"\[>]*\")+\s*>", re.I)
_INLINE_CODES = frozenset({"bpt", "ept", "ph", "it", "ut"})


def _base(code: str | None, where: str) -> str:
    tag = (code or "").replace("_", "-")  # PO headers write pt_BR
    lang = languages.find(tag) or languages.find(languages.base_of(tag))
    if lang is None:
        raise MemoryLoadError(f"{where}: unknown language {code!r}")
    return lang.base


def _seg_text(seg: etree._Element) -> str:
    parts = [seg.text or ""]
    for child in seg:
        if not isinstance(child.tag, str):
            parts.append(child.tail or "")
            continue
        if child.tag.rpartition("}")[2] not in _INLINE_CODES:  # the local name, namespace or not
            parts.append(_seg_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def read_tmx(data: bytes, where: str) -> tuple[str, dict[str, list[tuple[str, str]]]]:
    """A TMX file's source language and its (source, target) pairs by target language."""
    try:
        root = parse(_PLAIN_DOCTYPE.sub(b"", data, count=1)).getroot()
    except UnsafeXmlError as exc:
        raise MemoryLoadError(f"{where}: {exc}") from None
    header = root.find("header")
    if str(root.tag).rpartition("}")[2] != "tmx" or header is None:
        raise MemoryLoadError(f"{where}: not a TMX file (expected <tmx> with a <header>)")
    header_source = header.get("srclang")
    if header_source is None:
        raise MemoryLoadError(f"{where}: the TMX header has no srclang")
    source_lang = None if header_source == "*all*" else _base(header_source, f"{where}, header")
    pairs: dict[str, list[tuple[str, str]]] = {}
    for tu in root.iter("tu"):
        line = f"{where}, line {tu.sourceline}"
        tu_source = source_lang or _base(tu.get("srclang"), line)
        if source_lang is None:
            source_lang = tu_source
        elif tu_source != source_lang:
            raise MemoryLoadError(
                f"{line}: a memory has one source language ({source_lang}), this unit has {tu_source}"
            )
        texts: dict[str, str] = {}
        for tuv in tu.findall("tuv"):
            lang = _base(tuv.get(_XML_LANG) or tuv.get("lang"), f"{where}, line {tuv.sourceline}")
            seg = tuv.find("seg")
            if seg is not None:
                texts.setdefault(lang, _seg_text(seg))
        source_text = texts.pop(tu_source, None)
        if source_text is None or not source_text.strip():
            continue
        for lang, text in texts.items():
            if text.strip():
                pairs.setdefault(lang, []).append((source_text, text))
    if source_lang is None:
        raise MemoryLoadError(f"{where}: no translation units")
    return source_lang, pairs


def read_po(data: bytes, where: str) -> tuple[str, dict[str, list[tuple[str, str]]]]:
    """A PO compendium's source language and its (source, target) pairs of its one target language."""
    try:
        catalog = polib.pofile(data.decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise MemoryLoadError(f"{where}: {exc}") from None
    target = _base(catalog.metadata.get("Language"), f"{where}, header Language")
    source = _base(catalog.metadata.get("X-Source-Language", "en"), f"{where}, header X-Source-Language")
    segments: list[tuple[str, str]] = []
    for entry in catalog.translated_entries():
        if entry.msgid_plural:
            forms = entry.msgstr_plural
            segments.append((entry.msgid, forms.get(0, "")))
            if forms.get(1):
                segments.append((entry.msgid_plural, forms[1]))
        else:
            segments.append((entry.msgid, entry.msgstr))
    return source, {target: [(s, t) for s, t in segments if s.strip() and t.strip()]}


def indexes(source: str, pairs: dict[str, list[tuple[str, str]]]) -> dict[str, MemoryIndex]:
    """The matcher of each target language's pairs, by target language; the source language's own pairs dropped."""
    return {
        target: MemoryIndex(source, target, tuple(items)) for target, items in sorted(pairs.items()) if target != source
    }
