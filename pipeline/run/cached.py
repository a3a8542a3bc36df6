"""Serving from the cache: every pending text the cache already holds a verified translation of."""

from __future__ import annotations

from pipeline.cache import TranslationCache
from pipeline.model import SegmentKey
from pipeline.run.records import CatalogReport, Pending, Verify

__all__ = ["serve_from_cache"]


def serve_from_cache(cache: TranslationCache, pending: dict[str, Pending], per_catalog: dict[str, CatalogReport],
                     done: dict[SegmentKey, str], verify: Verify) -> dict[str, Pending]:
    """Fill ``done`` from the cache where it can; returns the texts still to send."""
    left: dict[str, Pending] = {}
    for key, item in pending.items():
        cached = cache.get(key)
        # Verified before it was stored: a text the gate now refuses was tampered with, and is asked for again.
        # Each segment gets its own placeholders back, and every one must pass, or the text is sent again.
        verdicts = [verify(item.protected_for(ref), cached, ref) for ref in item.refs] if cached is not None else []
        if not verdicts or any(v.text is None for v in verdicts):
            left[key] = item
            continue
        for ref, verdict in zip(item.refs, verdicts):
            done[ref.key] = verdict.text  # type: ignore[assignment]
            counters = per_catalog[ref.key.catalog].counters
            counters.segments_from_cache += 1
            counters.characters_saved += len(item.protected.text)
    return left
