"""Planning: protect every segment, copy those with nothing to translate, and dedupe the rest by cache key.

This is the run's only deduplication: segments whose protected text, options and service are
the same share one :class:`~pipeline.run.window.Pending` text, named by its cache key
(:func:`pipeline.run.keys.cache_key`), and are sent, cached and paid for once.

A window whose catalogs hold more than :data:`PART_SEGMENTS` segments is planned and sent in
parts (:func:`parts`): only one part's protected texts, keys and waiting segments live at a time.
A text two parts share is still sent and paid for once: the later part finds it in the run's
cache, as a later window does.

Texts go out in at most two rounds sharing one budget: everything the catalogs need, then the
plural fallback texts of the forms whose representative number did not come back
(:mod:`pipeline.run.plurals`); :func:`needed` picks those. A dry run stops at the plan: :func:`estimate`
says what a real run would send and write.

:class:`Inputs` hashes what a unit is written with (its target's options, and the glossary entries
its source contains): provenance records it, and a refresh compares it to find stale units.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace

from pipeline import locales
from pipeline.catalogs.base import Unit
from pipeline.placeholders.protect import protect
from pipeline.resources.targets import ResourcePlan
from pipeline.run import plurals
from pipeline.run.keys import cache_key, request_params
from pipeline.run.records import CatalogReport
from pipeline.run.send.packing import context_requests, groups, pack
from pipeline.run.window import CatalogWork, DryRunEstimate, Pending, Plan, ScannedCatalog
from pipeline.segments import Segment, SegmentKey, TranslationOptions

__all__ = ["PART_SEGMENTS", "Inputs", "estimate", "needed", "parts", "plan", "split", "translation_options"]

#: Segments planned and sent together at most: about a 1 MB catalog's (the size of a window of
#: catalogs, :data:`pipeline.catalog_paths.WINDOW_BYTES`), so a window of small catalogs is one part.
PART_SEGMENTS = 16_384


def translation_options(
    source_lang: str,
    target_lang: str,
    context: str | None,
    resources: ResourcePlan | None = None,
    address: str | None = None,
) -> TranslationOptions:
    """The options every segment of ``target_lang`` is sent with (``context`` aside); ``address``: the
    catalog's own form of address (``formal`` for ``de_DE_formal``), which wins over the configured formality."""
    if resources is not None:  # glossary, style list, formality, model type, translation memory
        return resources.options(locales.service_source(source_lang), target_lang, context, address)
    return TranslationOptions(source_lang=locales.service_source(source_lang), target_lang=target_lang, context=context)


def plan(source_lang: str, scanned: list[ScannedCatalog], resources: ResourcePlan, service: str) -> Plan:
    """Protect every segment; set aside those with nothing to translate (copied); dedupe the rest by cache key.

    ``service`` names the service in the keys (the run's, as its report has it). Round one's texts,
    and the spare ones: plural fallback texts that no round-one text shares a key with (a fallback
    that does rides along for free).
    """
    pending: dict[str, Pending] = {}
    copied: dict[SegmentKey, str] = {}
    fallback_keys: set[SegmentKey] = set()
    per_context: dict[
        tuple[str, str | None, str | None], TranslationOptions
    ] = {}  # few distinct, thousands of segments
    for s in scanned:
        fallback_keys.update(seg.key for seg in s.fallbacks)
        for seg in (*s.segments, *s.fallbacks):
            protected = protect(seg.text, seg.flags)
            if not protected.needs_translation:
                copied[seg.key] = seg.text
                continue
            opts = per_context.get((s.target_lang, s.formality, seg.context))
            if opts is None:
                opts = per_context[s.target_lang, s.formality, seg.context] = translation_options(
                    source_lang, s.target_lang, seg.context, resources, s.formality
                )
            key = cache_key(service, resources.key_options(opts, protected.text), protected.text)
            item = pending.get(key)
            if item is None:
                pending[key] = item = Pending(opts, protected, key, [])
            item.add(seg, protected)
    first, spare = split(pending, fallback_keys)
    counted = frozenset(key for key in copied if key not in fallback_keys)  # a fallback counts only where used
    return Plan(first, spare, copied, counted)


def parts(scanned: list[ScannedCatalog], most: int = PART_SEGMENTS) -> Iterator[list[ScannedCatalog]]:
    """The window's catalogs cut into parts of about ``most`` segments, in order, each made when it is taken.

    A part is a list of catalogs, each with the segments (:meth:`ScannedCatalog.unit_segments`)
    of its units in the part: a unit's segments and plural fallbacks are never cut apart (its
    fallbacks are sent only after its numbers came back). Catalogs that fit share a part.
    """
    part: list[ScannedCatalog] = []
    size = 0
    for s in scanned:
        if size >= most:  # the catalogs before filled the part
            yield part
            part, size = [], 0
        units = s.source_forms.indices  # the units to translate, in file order
        start = 0
        for n, index in enumerate(units):
            size += s.segment_count(index)
            if size >= most and n + 1 < len(units):  # a cut: the part is full
                yield [*part, _piece(s, units[start : n + 1], units[n + 1])]
                part, size, start = [], 0, n + 1
        part.append(_piece(s, units[start:], None))
    yield part


def _piece(s: ScannedCatalog, units: Sequence[int], end: int | None) -> ScannedCatalog:
    """``s`` with the segments of ``units``, and the fallbacks of the units before ``end`` (the rest: None)."""
    first = bisect_left(s.fallbacks, units[0], key=_unit) if units else 0
    last = len(s.fallbacks) if end is None else bisect_left(s.fallbacks, end, lo=first, key=_unit)
    segments = tuple(segment for index in units for segment in s.unit_segments(index))
    return s._replace(segments=segments, fallbacks=s.fallbacks[first:last])


def _unit(segment: Segment) -> int:
    return segment.key.unit


def split(pending: dict[str, Pending], fallback_keys: set[SegmentKey]) -> tuple[dict[str, Pending], dict[str, Pending]]:
    """Round-one texts, and the texts only plural fallbacks wait for."""
    first: dict[str, Pending] = {}
    spare: dict[str, Pending] = {}
    for key, item in pending.items():
        (spare if all(ref.key in fallback_keys for ref in item.refs) else first)[key] = item
    return first, spare


def needed(
    scanned: list[ScannedCatalog], spare: dict[str, Pending], done: Mapping[SegmentKey, str]
) -> dict[str, Pending]:
    """The spare texts some plural form now needs (its number did not come back), with only the refs that need them."""
    if not spare:
        return {}
    by_name = {s.display: s for s in scanned}
    waiting = {(ref.key.catalog, ref.key.unit) for item in spare.values() for ref in item.refs}
    wanted: set[SegmentKey] = set()
    for display, index in waiting:
        s = by_name[display]
        unit_plan = s.plural_plans.get(index)
        if unit_plan is not None and unit_plan.fallbacks:
            missing = plurals.missing_fallbacks(
                unit_plan, plurals.lookup(done, s.display, index), s.catalog.units[index].flags
            )
            wanted.update(SegmentKey(s.display, index, form) for form in missing)
    result: dict[str, Pending] = {}
    for key, item in spare.items():
        refs = [ref for ref in item.refs if ref.key in wanted]
        if refs:
            result[key] = replace(item, refs=refs)
    return result


class Inputs:
    """The inputs hashes a unit is written with, per target language (worked out once per target)."""

    def __init__(self, source_lang: str, resources: ResourcePlan) -> None:
        self.source_lang, self.resources = source_lang, resources
        self._options: dict[str, TranslationOptions] = {}  # target -> options of its segments (context aside)
        self._whole: dict[str, str] = {}  # target -> inputs hash of its whole options, as older provenance has it
        # target -> the inputs hash of every unit where no glossary applies (a source then changes nothing), else None
        self._same: dict[str, str | None] = {}

    def options(self, target: str) -> TranslationOptions:
        """The options ``target``'s segments are sent with, context aside."""
        if target not in self._options:
            self._options[target] = translation_options(self.source_lang, target, None, self.resources)
        return self._options[target]

    def of_unit(self, target: str, unit: Unit) -> str:
        """The unit's inputs hash, with only the glossary entries its source contains: a changed term
        makes stale the units that contain it, and no other."""
        if target not in self._same:
            plain = self.resources.target(target).dictionary is None
            self._same[target] = self._of_source(target, "") if plain else None
        same = self._same[target]
        return same if same is not None else self._of_source(target, "\n".join(unit.sources))

    def _of_source(self, target: str, source: str) -> str:
        return self.resources.key_options(self.options(target), source).inputs_hash()

    def current(self, target: str, unit: Unit) -> tuple[str, str]:
        """The hashes a unit written now would have: its own, and its whole target's (older provenance)."""
        if target not in self._whole:
            self._whole[target] = self.options(target).inputs_hash()
        return self.of_unit(target, unit), self._whole[target]


def estimate(
    sending: dict[str, Pending], fallbacks: int, catalogs: dict[str, CatalogReport], cost: Callable[[str, int], int]
) -> tuple[DryRunEstimate, list[CatalogWork]]:
    """What a real run would send (requests and their lower bound, characters billed, texts, segments) and
    write (per catalog): ``sending`` is every text its rounds would send, ``fallbacks`` the number of plural
    fallback texts a second round might add (neither needed yet nor in the cache); ``cost`` says what a
    text's characters into a target are billed (:meth:`pipeline.run.send.budget.Budget.cost`)."""
    requests = lower_bound = 0
    for opts, items in groups(sending).items():
        packing = pack([p.protected.text for p in items], request_params(opts))
        requests += len(packing.batches)
        lower_bound += packing.lower_bound
    would_send = DryRunEstimate(
        requests=requests,
        requests_lower_bound=lower_bound,
        context_requests=context_requests(sending, requests),
        characters=sum(cost(p.options.target_lang, len(p.protected.text)) for p in sending.values()),
        texts=len(sending),
        segments=sum(len(p.refs) for p in sending.values()),
        fallback_texts=fallbacks,
    )
    return would_send, _would_write(catalogs, sending, cost)


def _would_write(
    catalogs: dict[str, CatalogReport], pending: dict[str, Pending], cost: Callable[[str, int], int]
) -> list[CatalogWork]:
    """Per catalog a real run would change: the segments it would write and the characters it would bill."""
    segments: Counter[str] = Counter()
    characters: Counter[str] = Counter()
    for item in pending.values():
        for name, count in Counter(ref.key.catalog for ref in item.refs).items():
            segments[name] += count
            characters[name] += cost(item.options.target_lang, len(item.protected.text))
    work = []
    for name, cat in catalogs.items():
        c = cat.counters
        writes = c.segments_copied + c.segments_from_cache + c.segments_reused + segments[name]
        if writes and not cat.unchanged:
            work.append(CatalogWork(name, cat.target_lang, writes, characters[name]))
    return work
