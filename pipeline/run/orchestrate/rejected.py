"""A reviewer's rejection kept: a unit about to be written with exactly a text a reviewer rejected for it.

``pipeline review`` records what a reviewer rejects (:mod:`pipeline.run.provenance`) and empties
the entry; with the same inputs the cache would give the next run the same text again. Once a
part's texts are resolved (and its plural forms can be put together), :func:`matches` finds the
units whose forms, as the gate would write them, are a rejected text:

* a segment the cache served is asked for once more, the cache bypassed: its text is looked up
  and sent under a key of its own (:func:`~pipeline.run.keys.second_opinion_key`), so the answer
  is cached apart from the first (which other entries keep using) and no later run asks again;
* a segment the service translated in this very run already is the service's second opinion: its
  answer is kept under that key too, and it is not sent again (nothing is paid for twice).

A unit whose forms are still a rejected text once the answers are in is not written
(:func:`withhold`); the report says so once per catalog. A unit written from a reviewed
translation found elsewhere is a human's text, not checked here.
"""

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import NamedTuple

from pipeline.run import gate
from pipeline.run.keys import second_opinion_key
from pipeline.run.ledger import Ledger
from pipeline.run.provenance import Entry, Rejections
from pipeline.run.window import Pending, ScannedCatalog, UnitForms
from pipeline.segments import SegmentKey

__all__ = ["Again", "again", "entry", "matches", "withhold"]

#: A unit of a window: (catalog's display name, unit index).
UnitRef = tuple[str, int]


class Again(NamedTuple):
    """The texts a part asks for once more, and the answers it keeps as the service's second opinion."""

    texts: dict[str, Pending]  # by second-opinion key: the segments the cache served
    copies: dict[str, str]  # first key -> second-opinion key: answered by the service in this run


def entry(s: ScannedCatalog, index: int) -> Entry:
    """Unit ``index`` of ``s`` as rejections name it."""
    unit = s.catalog.units[index]
    return (s.target_lang, unit.context, tuple(unit.sources))


def matches(
    rejections: Rejections,
    scanned: Iterable[ScannedCatalog],
    done: Mapping[SegmentKey, str],
    notes: Mapping[SegmentKey, str],
    reused: Mapping[str, set[int]],
) -> list[UnitRef]:
    """The units whose forms, put together as the gate writes them, are a text a reviewer rejected for them."""
    found: list[UnitRef] = []
    for s in scanned:
        human = reused.get(s.display, set())
        wanted = UnitForms.of(
            (index, forms)
            for index, forms in s.source_forms.items()
            if index not in human and rejections.texts(entry(s, index))
        )
        if not wanted:
            continue
        admitted = gate.admit(True, s._replace(source_forms=wanted), done, notes)
        admitted_forms = admitted.translations.items()
        found.extend((s.display, i) for i, forms in admitted_forms if rejections.rejects(entry(s, i), forms))
    return found


def again(units: list[UnitRef], items: Iterable[Pending], ledger: Ledger) -> Again:
    """The segments of ``units`` to ask for once more (taken back from the ledger), and the answers to keep."""
    wanted = frozenset(units)
    done = ledger.done
    texts: dict[str, Pending] = {}
    copies: dict[str, str] = {}
    for item in items:
        refs = [ref for ref in item.refs if (ref.key.catalog, ref.key.unit) in wanted and ref.key in done]
        if not refs:
            continue
        key = second_opinion_key(item.key)
        served = [ref for ref in refs if not ledger.was_asked(ref.key)]
        if len(served) < len(refs):
            copies[item.key] = key
        if not served:
            continue
        for ref in served:
            ledger.take_back(ref.key, len(item.protected.text))
        if key in texts:
            texts[key].refs.extend(served)
        else:
            texts[key] = replace(item, key=key, refs=served)
    return Again(texts, copies)


def withhold(rejections: Rejections, scanned: list[ScannedCatalog], items: Iterable[Pending], ledger: Ledger) -> None:
    """Leave untranslated the units whose forms are still a rejected text (asked again, or the run stopped first)."""
    window = ledger.window
    left = matches(rejections, scanned, ledger.done, window.notes, window.reused)
    if not left:
        return
    wanted = frozenset(left)
    sent = {ref.key for item in items for ref in item.refs if (ref.key.catalog, ref.key.unit) in wanted}
    by_catalog = {s.display: s for s in scanned}
    for display, index in left:
        s = by_catalog[display]
        keys = [seg.key for seg in (*s.unit_segments(index), *s.fallbacks) if seg.key.unit == index]
        ledger.withhold(display, keys, sent)
