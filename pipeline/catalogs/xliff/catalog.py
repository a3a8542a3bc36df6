"""XLIFF 1.2 and 2.x catalogs: read with the safe parser, write targets back in place.

Reading. The file goes through :func:`pipeline.safexml.parse` (no DOCTYPE, no entities, no
network); anything it refuses becomes a :class:`CatalogError` with the line. A 1.2 ``trans-unit``
or a 2.x ``segment`` is one unit; ``translate="no"`` (on the unit or any ``group``/``file``
above it), 2.x ``ignorable`` and empty sources are not units at all. Several ``<file>`` elements
are fine as long as they agree on the target language (1.2 ``target-language``, 2.x ``trgLang``).
Notes (1.2 ``note`` in the unit, 2.x ``notes/note``) become the unit's notes.

Inline markup. A unit's source text is the inner XML of ``<source>`` exactly as written, and the
unit carries the ``xliff-inline`` flag, under which :mod:`pipeline.placeholders.protect` turns each inline tag
(``g``, ``x``, ``bx``, ``ex``, ``pc``, ``sc``/``ec``, ``sm``/``em``, ``mrk``, 2.x ``ph``), each
native-code element with its content (1.2 ``ph``, ``bpt``, ``ept``, ``it``), each protected
``mrk`` (``mtype="protected"``, ``translate="no"``) with what it nests, each 2.x ``sm
translate="no"`` up to its ``em``, each escaped tag (``&lt;b&gt;``) and each reference (``&amp;``)
into one placeholder. Restoring puts those pieces back verbatim and checks nesting;
:meth:`XliffCatalog.write_problem` then escapes the translated text around them and refuses a
result that is not well-formed or whose inline elements (name and id) differ from the source's.
A 2.x segment that starts inside a ``translate="no"`` span opened by an earlier segment is not a
unit: its own text cannot say which part of it is protected.

Write-back splices into the original text at positions found by :mod:`pipeline.catalogs.xliff.xmltext`:
with no translations the output is the input, byte for byte; otherwise only the targets written
(created after ``</source>``, or ``</seg-source>`` in 1.2, with the source's indentation, or filled
when present but empty) and the state attributes below change. A non-empty target is never read
as untranslated, whatever its state (somebody wrote it), so the run never sends it; rewriting one
is left to the run's provenance check (an untouched machine translation of an older run).

Plural groups. translate-toolkit (po2xliff) and Qt (lconvert) write a gettext plural entry as a 1.2
``<group restype="x-gettext-plurals">`` of trans-units, one per target form: the group is one plural
unit, its sources the first form's and the second's (singular and plural), its targets the forms'
(:mod:`pipeline.catalogs.xliff.units`), so that a run translates each form from the source it stands
for, as it does a PO plural entry. A group some of whose forms are filled is left for a human.

States written (``mark_fuzzy`` true / false):

- 1.2, on the target: ``state="needs-review-translation"`` / ``state="translated"``, and
  ``state-qualifier="leveraged-mt"`` either way (the text came from machine translation).
- 2.x, on the segment: ``state="translated"`` (2.x has no "needs review" state: ``translated`` is
  the step before ``reviewed`` and ``final``), with ``subState="pipeline:needs-review"`` /
  ``subState="pipeline:mt"``.

States read: a missing, empty or whitespace-only target is untranslated, and so is what a tool wrote
for a new string (:func:`_stand_in`), filled in place. Any other filled target is fuzzy when 1.2 says
``new``, ``needs-*`` or ``needs-review-*``, or 2.x says ``initial`` (or the segment carries our
``pipeline:needs-review``); otherwise it is translated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from lxml import etree

from pipeline.catalogs.base import Reviewed, Unit, UnitState
from pipeline.catalogs.keyed import KeyedSources, keyed_sources
from pipeline.catalogs.xliff.edits import Edit, Place, notes_at, reviewed_edits
from pipeline.catalogs.xliff.units import NS_2, NS_12, NS_22, REVIEW_SUBSTATE, Found, found_units, one_language
from pipeline.catalogs.xliff.xmltext import (
    Span,
    decode,
    element_spans,
    escape_attribute,
    escape_text,
    leading_indent,
    set_attributes,
)
from pipeline.errors import CatalogError
from pipeline.files.untrusted import read_regular
from pipeline.placeholders.protect import XLIFF_INLINE, protect
from pipeline.plural_rules import PluralRule
from pipeline.safexml import UnsafeXmlError, parse

XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
MT_QUALIFIER_12 = "leveraged-mt"
MT_SUBSTATE = "pipeline:mt"

_NOT_STARTED = frozenset({"new", "needs-translation", "initial"})  # 1.2 on the target, 2.x on the segment
SYMFONY_NEW_PREFIX = "__"  # what Symfony's ``translation:extract`` puts before a new message's source
# Characters XML 1.0 cannot hold, even as references (and lone surrogates, which no encoding can).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class XliffCatalog:
    """A parsed XLIFF file and everything needed to write targets back into it."""

    format = "xliff"
    plural: PluralRule | None = None  # no rule in the file: a plural group's forms follow the language's

    def __init__(
        self,
        path: Path,
        text: str,
        codec: str,
        version: str,
        language: str | None,
        units: tuple[Unit, ...],
        places: tuple[tuple[Place, ...], ...],
        names: tuple[str | None, ...],
    ) -> None:
        self.path = path
        #: what the reader left out (a unit without a source; :func:`read_xliff` says it); what it cannot
        #: read faithfully it refuses
        self.warnings: tuple[str, ...] = ()
        self.version = version
        self.units = units
        #: per unit, the name a program looks its message up by where the file gives one: a 1.2
        #: trans-unit's ``resname``, a 2.x unit's ``name`` (Symfony reads it as the key, before the source)
        self.names = names
        self._language = language
        self._text = text
        self._codec = codec
        self._places = places  # per unit, where each of its target forms lives

    def positions(self, *states: UnitState) -> list[int]:
        """The positions of the units in any of ``states``, in file order."""
        return [u.position for u in self.units if u.state in states]

    def flags_of(self, position: int) -> tuple[str, ...]:
        """The flags of the unit at ``position``."""
        return self.units[position].flags

    @property
    def language(self) -> str | None:
        """The target language the file declares, when it declares one."""
        return self._language

    @property
    def encoding(self) -> str:
        """The encoding the file is written in."""
        return self._codec

    def keyed_sources(self, locale: str, source_lang: str) -> KeyedSources:
        """What this catalog's sources stand for where they are keys (:mod:`pipeline.catalogs.keyed`): the
        catalog in ``locale`` has its text in the ``source_lang`` catalog beside it."""
        return keyed_sources(self, locale, source_lang)

    def with_sources(self, sources: Mapping[int, str]) -> XliffCatalog:
        """This catalog with the source text of units ``sources`` names replaced (unit index -> text).

        For sources that are keys (``registration.title``): the run translates, checks and records
        the text the key stands for; what is written back is the same file with targets added.
        """
        # a plural group's forms are never keys: its sources are gettext's singular and plural
        units = tuple(
            u._replace(sources=(sources[u.position],)) if u.position in sources and not u.plural else u
            for u in self.units
        )
        catalog = XliffCatalog(
            self.path,
            self._text,
            self._codec,
            self.version,
            self._language,
            units,
            self._places,
            self.names,
        )
        catalog.warnings = self.warnings
        return catalog

    def write_problem(self, text: str, index: int | None = None) -> str | None:
        """Why ``text`` cannot be written as the target of unit ``index``, or None when it can."""
        bad = _NOT_XML.search(text)
        if bad:
            return f"translation contains the character U+{ord(bad.group()):04X}, which XML cannot hold"
        if index is None:
            return None
        # Any form of a plural group may be the one: each is held to the markup its own source has.
        problems = [self._markup_problem(index, text, place) for place in self._places[index]]
        return None if None in problems else problems[0]

    def _markup_problem(self, index: int, text: str, place: Place) -> str | None:
        """Why ``text`` cannot be written as unit ``index``'s target at ``place`` (its markup), or None when it can."""
        content = self._content(index, text)
        wrapper = "".join(f' xmlns{":" + p if p else ""}="{escape_attribute(uri)}"' for p, uri in place.namespaces)
        try:
            target = parse(
                f"<{place.source.prefix}target{wrapper}>{content}</{place.source.prefix}target>".encode()
            ).getroot()
        except UnsafeXmlError as exc:
            return f"translation is not well-formed XML: {exc.reason}"
        if _inline_signature(target) != place.inline:
            return "the translation's inline markup (element names and ids) differs from the source's"
        return None

    def render_pieces(
        self,
        translations: Mapping[int, tuple[str, ...]],
        mark_fuzzy: bool = True,
        review: Mapping[int, str] | None = None,
    ) -> Iterator[bytes | memoryview]:
        """:meth:`render`'s bytes, in one piece: an XLIFF file is encoded whole."""
        return iter((self.render(translations, mark_fuzzy, review),))

    def render(
        self,
        translations: Mapping[int, tuple[str, ...]],
        mark_fuzzy: bool = True,
        review: Mapping[int, str] | None = None,
    ) -> bytes:
        """The file's bytes with ``translations`` (unit index -> (target,)) written in.

        The units ``review`` names (unit index -> note) are marked for review whatever ``mark_fuzzy``
        says; in 1.2 the note follows the target as ``<note from="pipeline">`` (2.x keeps notes per
        unit, not per segment: the note is the report's there).
        """
        edits: list[Edit] = []
        review = review or {}
        for index, forms in translations.items():
            places = self._places[index]
            if len(forms) != len(places):
                raise ValueError(f"unit {index} of {self.path} takes {_targets(len(places))}, got {len(forms)}")
            for form, place in zip(forms, places, strict=True):
                problem = self.write_problem(form) or self._markup_problem(index, form, place)
                if problem:
                    raise ValueError(f"unit {index} of {self.path}: {problem}")
                content = self._content(index, form)
                edits.extend(self._edits(place, content, mark_fuzzy or index in review, index in review))
            place = places[-1]  # a note follows the last form's target
            if index in review and place.segment is None:
                name = f"{place.source.prefix}note"
                note = f'{place.indent}<{name} from="pipeline">{escape_text(_NOT_XML.sub(" ", review[index]))}</{name}>'
                at = place.target.end if place.target is not None else place.insert_at
                edits.append((at, at, note))  # after a new target inserted at the same place: the sort is stable
        return self._spliced(edits)

    def render_reviewed(self, decisions: Mapping[int, Reviewed]) -> bytes:
        """The file's bytes with a reviewer's ``decisions`` written in (:mod:`pipeline.catalogs.xliff.edits`)."""
        edits: list[Edit] = []
        for index, decision in decisions.items():
            places = self._places[index]
            if decision.targets is not None and len(decision.targets) != len(places):
                raise ValueError(
                    f"unit {index} of {self.path} takes {_targets(len(places))}, got {len(decision.targets)}"
                )
            if decision.note is not None:
                decision = decision._replace(note=_NOT_XML.sub(" ", decision.note))
            for form, place in enumerate(places):
                content = None
                if decision.targets is not None and decision.targets[form]:
                    text = decision.targets[form]
                    problem = self.write_problem(text) or self._markup_problem(index, text, place)
                    if problem:
                        raise ValueError(f"unit {index} of {self.path}: {problem}")
                    content = self._content(index, text)
                elif decision.targets is not None:
                    content = ""
                if decision.pending and form:
                    continue  # a note kept for another look is written once, after the first form
                edits.extend(reviewed_edits(self._text, place, decision, content))
        return self._spliced(edits)

    def _spliced(self, edits: list[Edit]) -> bytes:
        """The text with ``edits`` made (applied in order of position; one place's edits in the order given)."""
        pieces: list[str] = []
        last = 0
        for start, end, new in sorted(edits, key=lambda edit: edit[:2]):
            pieces += [self._text[last:start], new]
            last = end
        pieces.append(self._text[last:])
        # Untouched text round-trips exactly (checked on reading); only new text may need references.
        return "".join(pieces).encode(self._codec, "xmlcharrefreplace")

    def _content(self, index: int, translation: str) -> str:
        """The target's inner XML: the source's markup pieces verbatim, everything else escaped."""
        unit = self.units[index]
        markup = {
            ph.text
            for source in unit.sources  # a plural group's: the singular's and the plural's
            for ph in protect(source, unit.flags).placeholders
            if re.search("[<>&]", ph.text)
        }
        if not markup:
            return escape_text(translation)
        pattern = re.compile("|".join(re.escape(m) for m in sorted(markup, key=len, reverse=True)))
        pieces: list[str] = []
        last = 0
        for found in pattern.finditer(translation):
            pieces += [escape_text(translation[last : found.start()]), found.group()]
            last = found.end()
        pieces.append(escape_text(translation[last:]))
        return "".join(pieces)

    def _edits(
        self, place: Place, content: str, mark_fuzzy: bool, reviewed: bool = False
    ) -> Iterator[tuple[int, int, str]]:
        if place.segment is None:  # 1.2: the state lives on the target
            state = {"state": "needs-review-translation" if mark_fuzzy else "translated"}
            if not reviewed:  # a unit with a note says where its text came from there
                state["state-qualifier"] = MT_QUALIFIER_12
        else:
            state = {}
            seg = place.segment
            yield (
                seg.start,
                seg.open_end,
                set_attributes(
                    self._text[seg.start : seg.open_end],
                    {"state": "translated", "subState": REVIEW_SUBSTATE if mark_fuzzy else MT_SUBSTATE},
                ),
            )
        target = place.target
        if target is None:
            name = f"{place.source.prefix}target"
            attrs = {"xml:space": place.space} if place.space else {}
            start_tag = set_attributes(f"<{name}>", {**attrs, **state})
            yield place.insert_at, place.insert_at, f"{place.indent}{start_tag}{content}</{name}>"
        elif target.empty:
            start_tag = re.sub(r"\s*/>$", ">", set_attributes(self._text[target.start : target.end], state))
            yield target.start, target.end, f"{start_tag}{content}</{target.name}>"
        else:
            if state:
                yield target.start, target.open_end, set_attributes(self._text[target.start : target.open_end], state)
            yield target.open_end, target.close_start, content


def read_xliff(path: Path, data: bytes | None = None) -> XliffCatalog:
    """Read an XLIFF 1.2 or 2.x file (or ``data``, its bytes as already read); raise :class:`CatalogError`
    (with the line) if it cannot be used."""
    where = str(path)
    try:
        data = read_regular(path) if data is None else data
    except OSError as exc:
        raise CatalogError(where, f"cannot read the catalog: {exc.strerror}") from None
    try:
        tree = parse(data)
    except UnsafeXmlError as exc:
        raise CatalogError(where, exc.reason, exc.line) from None
    root = tree.getroot()
    name = etree.QName(root)
    if name.localname != "xliff" or name.namespace not in (NS_12, NS_2, NS_22):
        raise CatalogError(
            where, f"not an XLIFF 1.2 or 2.x document (root element {name.localname[:40]})", root.sourceline
        )
    text, codec, located = _located(where, data, tree)
    version = root.get("version", "")
    found, warnings = found_units(root)
    language = one_language(where, root, "target-language") if name.namespace == NS_12 else root.get("trgLang") or None
    units: list[Unit] = []
    places: list[tuple[Place, ...]] = []
    names: list[str | None] = []
    for forms, plural in found:
        read = [_form(text, located, form) for form in forms]
        sources = tuple(inner for inner, *_ in read)
        if not any(inner.strip() for inner in sources):
            continue
        targets = tuple(target for _, target, _, _ in read)
        done = [state for _, target, state, _ in read if target]
        if not done:
            state = UnitState.UNTRANSLATED
        elif len(done) < len(read):
            state = UnitState.PARTIAL  # a plural group some of whose forms were translated: left for a human
        else:
            state = UnitState.FUZZY if UnitState.FUZZY in done else UnitState.TRANSLATED
        _, _, _, _, notes, _, limits, unit_name = forms[0]
        flags = (XLIFF_INLINE, *limits)
        line = read[0][3].source.line
        # a plural unit's sources are gettext's: the singular (form 0's) and the plural (form 1's)
        unit_sources = (sources[0], sources[min(1, len(sources) - 1)]) if plural else sources
        units.append(Unit(len(units), line, unit_sources, targets, len(forms), plural, flags, None, notes, state))
        names.append(unit_name)
        places.append(tuple(place for *_, place in read))
    catalog = XliffCatalog(path, text, codec, version, language, tuple(units), tuple(places), tuple(names))
    catalog.warnings = warnings
    return catalog


def _targets(count: int) -> str:
    return "one target" if count == 1 else f"{count} targets (a plural group's forms)"


def _form(text: str, located: dict[etree._Element, Span], found: Found) -> tuple[str, str, UnitState, Place]:
    """One target form of a unit: its source's inner XML, its target's ("" when there is nothing to keep), the
    target's state, and where it lives."""
    source, target, segment, after, _, finished, _, _ = found
    source_span = located[source]
    inner = text[source_span.open_end : source_span.close_start]
    target_span = located[target] if target is not None else None
    target_inner = text[target_span.open_end : target_span.close_start] if target_span else ""
    if not target_inner.strip() or _stand_in(source, target, segment, inner, target_inner):
        state, target_inner = UnitState.UNTRANSLATED, ""
    else:
        state = UnitState.TRANSLATED if finished else UnitState.FUZZY
    place = Place(
        source_span,
        target_span,
        located[segment] if segment is not None else None,
        located[after].end,
        leading_indent(text, source_span.start),
        source.get(XML_SPACE),
        tuple(sorted((p or "", uri) for p, uri in source.nsmap.items())),
        _inline_signature(source),
        () if segment is not None else tuple(located[n] for n in _run_notes(source)),
        None if segment is None else notes_at(segment, located, text),
    )
    return inner, target_inner, state, place


def _located(where: str, data: bytes, tree: etree._ElementTree) -> tuple[str, str, dict[etree._Element, Span]]:
    """The decoded text, its codec, and where in it each element's bytes are (for write-back)."""
    try:
        text, codec = decode(data, tree.docinfo.encoding)
        spans = element_spans(text)
    except ValueError as exc:
        raise CatalogError(where, f"cannot be written back faithfully: {exc}") from None
    elements = list(tree.getroot().iter(etree.Element))
    if len(elements) != len(spans):
        raise CatalogError(where, "elements could not be located for faithful write-back")
    for element, span in zip(elements, spans, strict=True):
        if span.name != (f"{element.prefix}:" if element.prefix else "") + etree.QName(element).localname:
            raise CatalogError(where, "elements could not be located for faithful write-back", element.sourceline)
    return text, codec, dict(zip(elements, spans, strict=True))


def _stand_in(
    source: etree._Element, target: etree._Element | None, segment: etree._Element | None, inner: str, target_inner: str
) -> bool:
    """Whether the target holds what a tool wrote for a new string: the source copied where the state says
    the translation is not started (1.2 ``new``/``needs-translation``, 2.x ``initial`` written out), as
    Angular's merge tools do, or behind Symfony's ``__`` prefix (``translation:extract``, no state). Never
    a target marked as somebody's: a finished state, 1.2 ``approved="yes"``, a ``state-qualifier``."""
    if target is None:
        return False
    marked = segment if segment is not None else target
    if marked.get("state", "new") not in _NOT_STARTED or target.xpath("@state-qualifier or ../@approved='yes'"):
        return False  # a finished state, the tool that chose the text, a final review: somebody's
    if target_inner == inner:
        return marked.get("state") is not None
    return len(source) == len(target) == 0 and target.text == SYMFONY_NEW_PREFIX + (source.text or "")


def _run_notes(source: etree._Element) -> list[etree._Element]:
    """The ``<note from="pipeline">`` of a 1.2 source's trans-unit: what a run wrote for the reviewer."""
    unit = source.getparent()
    return [] if unit is None else [n for n in unit.iterchildren(f"{{{NS_12}}}note") if n.get("from") == "pipeline"]


def _inline_signature(element: etree._Element) -> tuple[tuple[str, str], ...]:
    """Sorted (name, id) of every element inside ``element``: what a translation must keep."""
    return tuple(
        sorted(
            (etree.QName(e).localname, e.get("id") or e.get("startRef") or e.get("rid") or "")
            for e in element.iterdescendants(etree.Element)
        )
    )
