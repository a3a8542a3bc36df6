"""Length limits: a translation over its entry's limit is asked for once more, at most N characters long.

A unit's limit comes from its flags (:mod:`pipeline.limits`: ``max-length:N``, XLIFF
``maxwidth`` and ``slr:`` restrictions). A verified translation over it, from the service or the
cache, is sent again with one more custom instruction, ``Keep the translation at most N
characters long.``, where N is the room left for the text as sent: the written limit, less what
restoring the placeholders adds (a ``<x id="1"/>`` tag the engine counts stands for a ``%s``),
scaled for a limit in bytes. The retry is a request like any other: its parameters (the
instruction included) are in its cache key (:func:`pipeline.run.keys.cache_key`), so a second run
finds both answers in the cache and pays for neither.

The service takes custom instructions for some target languages only (``de en es fr it ja ko zh``
and their variants, spec rule 8) and never with ``model_type=latency_optimized`` (rule 5): for
other targets nothing is sent again, and for that model type the retry leaves the model to the
service (instructions imply the quality model). A target may take at most ten instructions.

:func:`settle`, before the gate admits the window's units, keeps the shorter of the two answers
and decides what a translation still over its limit becomes: written marked for review with a
note (``over_length = "review"``, the default) or left untranslated (``"refuse"``), counted in the
report either way. ``pipeline check`` warns on translations over their limit, human ones included
(:func:`pipeline.placeholders.checks.length_problems`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from pipeline import protocol
from pipeline.limits import Limit, limit_of
from pipeline.model import Cause, Issue, Severity
from pipeline.resources.targets import has_style_lists
from pipeline.run.context import RunContext
from pipeline.run.keys import cache_key
from pipeline.run.window import Pending, Window
from pipeline.segments import Segment, SegmentKey

__all__ = ["INSTRUCTION", "limited", "retries", "settle", "takes_instructions"]

INSTRUCTION = "Keep the translation at most {n} characters long."
_CLASSIC = "latency_optimized"


def takes_instructions(target: str, instructions: int = 0) -> bool:
    """Whether requests for ``target`` that already carry ``instructions`` may carry one more (spec rule 8)."""
    return has_style_lists(target) and instructions < protocol.MAX_CUSTOM_INSTRUCTIONS


def _limit(segment: Segment) -> Limit | None:
    return limit_of(segment.flags) if any(f.startswith("max-") for f in segment.flags) else None


def limited(item: Pending) -> bool:
    """Whether a segment of ``item`` has a length limit (only such texts can need a retry)."""
    return any(f.startswith("max-") for ref in item.refs for f in ref.flags)


def retries(run: RunContext, window: Window, items: Iterable[Pending]) -> dict[str, Pending]:
    """The texts to send again for the segments of ``items`` whose translation is over their limit, by cache key.

    Each such segment's first translation is kept in ``window.retried`` (a segment is retried
    once); it is counted in its catalog's ``length_retried``.
    """
    out: dict[str, Pending] = {}
    for item in items:
        opts = item.options
        if not takes_instructions(opts.target_lang, len(opts.custom_instructions)):
            continue
        for ref in item.refs:
            limit, text = _limit(ref), window.done.get(ref.key)
            if limit is None or text is None or ref.key in window.retried or limit.problem(text) is None:
                continue
            protected, allowed = item.protected_for(ref), limit.characters_for(text)
            kept = len(protected.prefix) + len(protected.suffix) + sum(len(p.text) for p in protected.placeholders)
            if allowed <= kept:
                continue  # the placeholders and edge whitespace alone fill the limit: no wording can fit
            room = allowed + len(protected.text) - len(ref.text)
            asked = replace(
                opts,
                custom_instructions=(*opts.custom_instructions, INSTRUCTION.format(n=room)),
                model_type=None if opts.model_type == _CLASSIC else opts.model_type,
            )
            key = cache_key(run.report.service, run.resources().key_options(asked, protected.text), protected.text)
            retry = out.get(key)
            if retry is None:
                retry = out[key] = Pending(asked, protected, key, [])
            retry.add(ref, protected)
            window.retried[ref.key] = text
            run.per_catalog[ref.key.catalog].counters.length_retried += 1
    return out


def settle(run: RunContext, window: Window) -> None:
    """Keep each retried segment's shorter answer; mark for review, or refuse, what is still over its limit."""
    for key, first in window.retried.items():
        now = window.done.get(key)
        if now is None or len(first) <= len(now):  # the retry was not answered, or did not help
            window.done[key] = first
    refuse = run.settings.over_length == "refuse"
    for s in window.scanned:
        reused = window.reused.get(s.display, set())
        for index, forms in s.source_forms.items():
            unit = s.catalog.units[index]
            if index in reused or not any(f.startswith("max-") for f in unit.flags):
                continue  # a human's text over its limit is the check's warning, never changed
            limit = limit_of(unit.flags)
            keys = [SegmentKey(s.display, index, form) for form in forms]
            texts = [text for k in keys if (text := window.done.get(k)) is not None]
            problem = next((p for text in texts if limit is not None and (p := limit.problem(text))), None)
            if problem is None:
                continue
            counters = run.per_catalog[s.display].counters
            if refuse:
                for k in keys:
                    window.done.pop(k, None)
                counters.length_refused += 1
                reason = f"not written: the translation has {problem}, and over_length is 'refuse'"
                run.report.issues.append(
                    Issue(s.display, reason, unit.line, s.target_lang, Severity.SKIPPED, Cause.INPUT)
                )
            else:
                counters.length_over += 1
                window.review.setdefault(s.display, {})[index] = f"pipeline: the translation has {problem}"
