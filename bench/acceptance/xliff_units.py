"""XLIFF 1.2 and 2.x units for the benches: read (key, line, source, target), and blank part of them.

Read with lxml directly (no network, no entities), so the bench does not depend on the package's
reader: it judges what the package wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lxml import etree

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, remove_blank_text=False)


@dataclass(frozen=True)
class XliffUnit:
    """One 1.2 ``trans-unit`` or one 2.x ``segment``: its identity, line and texts (inner XML)."""

    key: tuple[str | None, str]
    line: int
    source: str
    target: str | None


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def _inner(element: etree._Element | None) -> str | None:
    if element is None:
        return None
    text = element.text or ""
    for child in element:
        text += etree.tostring(child, encoding="unicode", with_tail=True)
    return text


def _segments(root: etree._Element) -> list[tuple[tuple[str | None, str], etree._Element]]:
    """(key, element holding source and target) in document order."""
    found: list[tuple[tuple[str | None, str], etree._Element]] = []
    for element in root.iter():
        name = _local(element)
        if name == "trans-unit":
            found.append(((None, element.get("id", "")), element))
        elif name == "unit":
            segments = [c for c in element if _local(c) == "segment"]
            for index, segment in enumerate(segments):
                found.append(((str(index), element.get("id", "")), segment))
    return found


def _child(element: etree._Element, name: str) -> etree._Element | None:
    return next((c for c in element if _local(c) == name), None)


def read_units(path: Path) -> list[XliffUnit]:
    """Every unit (segment) of an XLIFF file, with its source's line."""
    root = etree.parse(str(path), _PARSER).getroot()
    units = []
    for key, holder in _segments(root):
        source = _child(holder, "source")
        if source is None:
            continue
        units.append(
            XliffUnit(
                key, source.sourceline or holder.sourceline or 0, _inner(source) or "", _inner(_child(holder, "target"))
            )
        )
    return units


def blank_units(
    path: Path, every: int, counter: int
) -> tuple[int, set[tuple[str | None, str]], set[tuple[str | None, str]]]:
    """Remove the target of every ``every``-th translated unit; (counter, blanked keys, empty keys before)."""
    tree = etree.parse(str(path), _PARSER)
    blanked, empty = set(), set()
    for key, holder in _segments(tree.getroot()):
        target = _child(holder, "target")
        if target is None or not (_inner(target) or "").strip():
            empty.add(key)
            continue
        counter += 1
        if counter % every == 0:
            holder.remove(target)
            blanked.add(key)
    if blanked:
        tree.write(str(path), xml_declaration=True, encoding="UTF-8")
    return counter, blanked, empty
