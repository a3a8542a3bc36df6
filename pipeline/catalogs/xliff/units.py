"""Where an XLIFF file's units are: each translatable 1.2 ``trans-unit`` or 2.x ``segment``, with what the
reader needs of it (its source and target elements, notes, state, length limits), and the units it leaves out."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from typing import NamedTuple

from lxml import etree

from pipeline.errors import CatalogError
from pipeline.limits import DEFAULT_PROFILES, limits_2, limits_12, profiles_of
from pipeline.model import SHOWN_LINES

__all__ = ["NS_2", "NS_12", "NS_22", "REVIEW_SUBSTATE", "Found", "FoundUnit", "found_units", "one_language"]

NS_12 = "urn:oasis:names:tc:xliff:document:1.2"
NS_2 = "urn:oasis:names:tc:xliff:document:2.0"  # 2.1 keeps the 2.0 namespace
NS_22 = "urn:oasis:names:tc:xliff:document:2.2"  # 2.2 has its own, for the same core elements
REVIEW_SUBSTATE = "pipeline:needs-review"
_PLURALS = "x-gettext-plurals"  # the restype of a group that holds a gettext plural entry's forms

_UNFINISHED_12 = frozenset(
    {
        "new",
        "needs-translation",
        "needs-adaptation",
        "needs-l10n",
        "needs-review-translation",
        "needs-review-adaptation",
        "needs-review-l10n",
    }
)


#: (source, target, segment, element a new target follows, notes, finished, length-limit flags, name)
Found = tuple[
    etree._Element,
    "etree._Element | None",
    "etree._Element | None",
    etree._Element,
    str,
    bool,
    tuple[str, ...],
    "str | None",
]


def _units_12(root: etree._Element, sourceless: list[int]) -> Iterator[Found]:
    """(source, target, None, element a new target follows, notes, finished, limits, resname) per translatable
    trans-unit; the lines of those without a source go to ``sourceless``."""
    q = f"{{{NS_12}}}"
    for unit in root.iter(f"{q}trans-unit"):
        if not _translatable(unit):
            continue
        source = unit.find(f"{q}source")
        if source is None:
            sourceless.append(unit.sourceline or 0)
            continue
        target = unit.find(f"{q}target")
        seg_source = unit.find(f"{q}seg-source")
        finished = target is not None and target.get("state") not in _UNFINISHED_12
        if seg_source is not None and seg_source.find(f".//{q}mrk[@mtype='seg']") is not None:
            # Segmented (XLIFF 1.2, 2.8.3): the text is the segments', and a target has the same segments
            # (the mrk elements are inline markup, written back as they are, the text in them translated).
            source = seg_source
        yield (
            source,
            target,
            None,
            seg_source if seg_source is not None else source,
            _notes(unit.findall(f"{q}note")),
            finished,
            limits_12(unit),
            unit.get("resname") or None,
        )


def _units_2(root: etree._Element, sourceless: list[int]) -> Iterator[Found]:
    """(source, target, segment, source, notes, finished, limits, name) per segment of every translatable unit;
    the lines of segments without a source go to ``sourceless``."""
    q = f"{{{etree.QName(root).namespace}}}"
    profiles = {file: profiles_of(file) for file in root.iterchildren(f"{q}file")}
    for unit in root.iter(f"{q}unit"):
        if not _translatable(unit):
            continue
        notes = _notes(unit.findall(f"{q}notes/{q}note"))
        file = next(unit.iterancestors(f"{q}file"), None)
        limits = limits_2(unit, profiles[file] if file is not None and file in profiles else DEFAULT_PROFILES)
        open_spans: set[str] = set()  # ids of sm translate="no" whose em is still to come
        for segment in unit.iterchildren(f"{q}segment", f"{q}ignorable"):
            ignorable = etree.QName(segment).localname == "ignorable"
            source = segment.find(f"{q}source")
            if source is None:
                if not ignorable:
                    sourceless.append(segment.sourceline or 0)
                continue
            inside = bool(open_spans)
            for marker in source.iter(f"{q}sm", f"{q}em"):
                if etree.QName(marker).localname == "sm" and marker.get("translate") == "no":
                    open_spans.add(marker.get("id", ""))
                else:
                    open_spans.discard(marker.get("startRef", ""))
            # A segment that starts inside a translate="no" span (opened by an earlier segment's sm)
            # cannot be protected from its own text alone: it is left as it is.
            if inside or ignorable:
                continue
            state = segment.get("state", "initial")
            finished = state != "initial" and segment.get("subState") != REVIEW_SUBSTATE
            yield source, segment.find(f"{q}target"), segment, source, notes, finished, limits, unit.get("name") or None


def _translatable(element: etree._Element) -> bool:
    """The nearest ``translate`` attribute on the element or above it decides; the default is yes."""
    for node in (element, *element.iterancestors()):
        value = node.get("translate")
        if value is not None:
            return value != "no"
    return True


def _notes(notes: list[etree._Element]) -> str:
    return "\n".join(text for text in ("".join(n.itertext()).strip() for n in notes) if text)


def one_language(where: str, root: etree._Element, attribute: str) -> str | None:
    """The target language all ``<file>`` elements agree on; a catalog cannot have two."""
    seen: dict[str, int] = {}
    for file in root.iterchildren(f"{{{NS_12}}}file"):
        value = file.get(attribute)
        if value:
            seen.setdefault(value, file.sourceline or 0)
    if len(seen) > 1:
        names = ", ".join(seen)
        raise CatalogError(
            where,
            f"the files in this catalog have different target languages ({names}); "
            "split it into one catalog per language",
            list(seen.values())[1],
        )
    return next(iter(seen), None)


def _sourceless(lines: list[int], element: str) -> str:
    """The one warning about the units without a source (the schema requires one) that were left out."""
    shown = ", ".join(map(str, lines[:SHOWN_LINES])) + (
        f" and {len(lines) - SHOWN_LINES} more" if len(lines) > SHOWN_LINES else ""
    )
    some = f"a {element}" if len(lines) == 1 else f"{len(lines)} {element}s"
    return f"{some} with no <source> (line {shown}), which XLIFF requires: left as it is, not translated"


class FoundUnit(NamedTuple):
    """A unit's target forms: one, or a gettext plural group's (:func:`_plural_group`)."""

    forms: tuple[Found, ...]
    plural: bool


def found_units(root: etree._Element) -> tuple[list[FoundUnit], tuple[str, ...]]:
    """The units of the XLIFF document ``root`` (1.2 or 2.x), and the one warning about those left out."""
    sourceless: list[int] = []  # the lines of units without a source
    if etree.QName(root).namespace == NS_12:
        found = []
        for key, group in groupby(_units_12(root, sourceless), _plural_group):
            forms = tuple(group)
            found.append(FoundUnit(forms, key is not forms[0][0]))  # keyed by its group, not its own source
        return found, (_sourceless(sourceless, "trans-unit"),) if sourceless else ()
    found = [FoundUnit((one,), False) for one in _units_2(root, sourceless)]
    return found, (_sourceless(sourceless, "segment"),) if sourceless else ()


def _plural_group(found: Found) -> etree._Element:
    """The ``<group restype="x-gettext-plurals">`` of a trans-unit's forms, else the trans-unit's source.

    translate-toolkit (po2xliff) and Qt (lconvert) write a gettext plural entry as such a group, one
    trans-unit per target form: its forms are one plural unit, translated as a gettext run translates
    one, each form from the source it stands for (a number of its own in place of the count).
    """
    source = found[0]
    unit = source.getparent()
    group = unit.getparent() if unit is not None else None
    if group is not None and etree.QName(group).localname == "group" and group.get("restype") == _PLURALS:
        return group
    return source
