"""Planning: protect every segment, copy those with nothing to translate, and dedupe the rest by cache key.

This is the run's only deduplication: segments whose protected text, options and service are
the same share one :class:`~pipeline.run.records.Pending` text, named by its cache key
(:func:`pipeline.run.request.cache_key`), and are sent, cached and paid for once.

Texts go out in at most two rounds sharing one budget: everything the catalogs need, then the
plural fallback texts of the forms whose representative number did not come back
(:mod:`pipeline.run.plurals`); :func:`needed` picks those.
"""

from __future__ import annotations

from dataclasses import replace

from pipeline import locales
from pipeline.config import Settings
from pipeline.model import SegmentKey, TranslationOptions
from pipeline.placeholders.protect import protect
from pipeline.resources.plan import ResourcePlan
from pipeline.run import plurals
from pipeline.run.records import CatalogReport, Pending, ScannedCatalog
from pipeline.run.request import cache_key, service_identity

__all__ = ["needed", "plan", "split", "translation_options"]


def translation_options(
    settings: Settings, target_lang: str, context: str | None, resources: ResourcePlan | None = None
) -> TranslationOptions:
    """The options every segment of ``target_lang`` is sent with (``context`` aside)."""
    if resources is not None:  # glossary, style list, formality, model type, translation memory
        return resources.options(locales.service_source(settings.source_lang), target_lang, context)
    return TranslationOptions(
        source_lang=locales.service_source(settings.source_lang), target_lang=target_lang, context=context
    )


def plan(
    settings: Settings,
    scanned: list[ScannedCatalog],
    per_catalog: dict[str, CatalogReport],
    done: dict[SegmentKey, str],
    resources: ResourcePlan,
) -> tuple[dict[str, Pending], dict[str, Pending]]:
    """Protect every segment; copy those with nothing to translate; dedupe the rest by cache key.

    Returns the texts of round one, and the spare ones: plural fallback texts that no round-one
    text shares a key with (a fallback that does rides along for free).
    """
    identity = service_identity(settings)
    pending: dict[str, Pending] = {}
    fallback_keys: set[SegmentKey] = set()
    per_context: dict[tuple[str, str | None], TranslationOptions] = {}  # few distinct, thousands of segments
    for s in scanned:
        fallback_keys.update(seg.key for seg in s.fallbacks)
        for seg in (*s.segments, *s.fallbacks):
            protected = protect(seg.text, seg.flags)
            if not protected.needs_translation:
                done[seg.key] = seg.text
                if seg.key not in fallback_keys:  # a fallback counts only where it is used
                    per_catalog[s.display].counters.segments_copied += 1
                continue
            opts = per_context.get((s.target_lang, seg.context))
            if opts is None:
                opts = per_context[s.target_lang, seg.context] = translation_options(
                    settings, s.target_lang, seg.context, resources
                )
            key = cache_key(identity, resources.key_options(opts, protected.text), protected.text)
            item = pending.get(key)
            if item is None:
                pending[key] = item = Pending(opts, protected, key, [])
            elif protected != item.protected:  # same text sent, other placeholders behind the tags
                item.own[seg.key] = protected
            item.refs.append(seg)
    return split(pending, fallback_keys)


def split(pending: dict[str, Pending], fallback_keys: set[SegmentKey]) -> tuple[dict[str, Pending], dict[str, Pending]]:
    """Round-one texts, and the texts only plural fallbacks wait for."""
    first: dict[str, Pending] = {}
    spare: dict[str, Pending] = {}
    for key, item in pending.items():
        (spare if all(ref.key in fallback_keys for ref in item.refs) else first)[key] = item
    return first, spare


def needed(scanned: list[ScannedCatalog], spare: dict[str, Pending], done: dict[SegmentKey, str]) -> dict[str, Pending]:
    """The spare texts some plural form now needs (its number did not come back), with only the refs that need them."""
    if not spare:
        return {}
    wanted: set[SegmentKey] = set()
    for s in scanned:
        for index, unit_plan in s.plural_plans.items():
            if unit_plan.fallbacks:
                missing = plurals.missing_fallbacks(
                    unit_plan,
                    plurals.lookup(done, s.display, index),
                    s.catalog.units[index].flags,
                )
                wanted.update(SegmentKey(s.display, index, form) for form in missing)
    result: dict[str, Pending] = {}
    for key, item in spare.items():
        refs = [ref for ref in item.refs if ref.key in wanted]
        if refs:
            result[key] = replace(item, refs=refs)
    return result
