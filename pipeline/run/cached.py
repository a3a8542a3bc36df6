"""Serving from the cache: every pending text the cache already holds a verified translation of."""

from __future__ import annotations

from dataclasses import replace

from pipeline.placeholders.schemes import Scheme
from pipeline.run.context import RunContext
from pipeline.run.keys import recovered_key
from pipeline.run.window import Pending, Verify, Window

__all__ = ["serve_from_cache"]


def serve_from_cache(
    run: RunContext, window: Window, pending: dict[str, Pending], verify: Verify
) -> dict[str, Pending]:
    """Fill the window's translations from the run's cache where it can; returns the texts still to send.

    A text recovered in pieces is cached apart (:func:`~pipeline.run.keys.recovered_key`) and
    looked up when the first attempt's key misses; its segments get the scheme's note.
    """
    cache, per_catalog, done, notes = run.cache(), run.per_catalog, window.done, window.notes
    left: dict[str, Pending] = {}
    found = cache.get_many(pending)  # one round trip to a shared cache for the whole group, none when local
    # Only the misses can have been recovered in pieces: a group the local cache answers asks nothing more.
    pieces = {key: recovered_key(key, Scheme.PIECES) for key in pending if key not in found}
    found.update(cache.get_many(pieces.values()) if pieces else {})
    for key, item in pending.items():
        cached, note = found.get(key), None
        if cached is None:
            cached, note = found.get(pieces[key]), Scheme.PIECES.needs_review_note
        if cached is None:
            left[key] = item
            continue
        # Verified before it was stored: a text the gate now refuses was tampered with, and is asked for
        # again. Each segment gets its own placeholders back; only those the gate refuses are sent.
        waiting = []
        for ref, verdict in item.verdicts(cached, verify):
            if verdict.text is None:
                waiting.append(ref)
                continue
            done[ref.key] = verdict.text
            if note:
                notes[ref.key] = note
            counters = per_catalog[ref.key.catalog].counters
            if ref.key not in window.retried:  # a length retry's segment was counted with its first answer
                counters.segments_from_cache += 1
            counters.characters_saved += len(item.protected.text)
        if waiting:
            left[key] = replace(item, refs=waiting)
    return left
