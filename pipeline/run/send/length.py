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

Before the gate admits the window's units, the shorter of the two answers is kept (by the run's
ledger) and :func:`over_length` decides what a translation still over its limit becomes: written
marked for review with a note (``over_length = "review"``, the default) or left untranslated
(``"refuse"``), counted in the report either way. ``pipeline check`` warns on translations over
their limit, human ones included (:func:`pipeline.placeholders.checks.length_problems`).
"""

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from pipeline import protocol
from pipeline.limits import Limit, limit_of
from pipeline.model import Cause, Issue, Severity
from pipeline.resources.targets import ResourcePlan, has_style_lists
from pipeline.run.keys import cache_key
from pipeline.run.window import Pending, ScannedCatalog
from pipeline.segments import Segment, SegmentKey

__all__ = ["INSTRUCTION", "OverLength", "limited", "over_length", "retries", "takes_instructions"]

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


def retries(
    service: str,
    resources: ResourcePlan,
    done: Mapping[SegmentKey, str],
    retried: Mapping[SegmentKey, str],
    items: Iterable[Pending],
) -> tuple[dict[str, Pending], dict[SegmentKey, str]]:
    """The texts to send again for the segments of ``items`` whose translation (in ``done``) is over their
    limit, by cache key (``service`` names the service in the keys); and each such segment's first
    translation, kept in case the retry does not help. A segment ``retried`` already is not sent again.
    """
    out: dict[str, Pending] = {}
    firsts: dict[SegmentKey, str] = {}
    for item in items:
        opts = item.options
        if not takes_instructions(opts.target_lang, len(opts.custom_instructions)):
            continue
        for ref in item.refs:
            limit, text = _limit(ref), done.get(ref.key)
            if limit is None or text is None or ref.key in retried or limit.problem(text) is None:
                continue
            protected, allowed = item.protected_for(ref), limit.characters_for(text)
            kept = len(protected.prefix) + len(protected.suffix) + sum(len(p.text) for p in protected.placeholders)
            if allowed <= kept:
                continue  # the placeholders and edge whitespace alone fill the limit: no wording can fit
            room = allowed + len(protected.text) - len(ref.text)
            asked = opts._replace(
                custom_instructions=(*opts.custom_instructions, INSTRUCTION.format(n=room)),
                model_type=None if opts.model_type == _CLASSIC else opts.model_type,
            )
            key = cache_key(service, resources.key_options(asked, protected.text), protected.text)
            retry = out.get(key)
            if retry is None:
                retry = out[key] = Pending(asked, protected, key, [])
            retry.add(ref, protected)
            firsts[ref.key] = text
    return out, firsts


class OverLength(NamedTuple):
    """The units still over their length limit once the shorter answers are kept, and what becomes of them."""

    review: list[tuple[str, int, str]]  # (catalog, unit, note): written marked
    refused: list[tuple[list[SegmentKey], Issue]]  # not written ("refuse")


def over_length(
    scanned: Iterable[ScannedCatalog], done: Mapping[SegmentKey, str], reused: Mapping[str, set[int]], refuse: bool
) -> OverLength:
    """What the units still over their limit become: written marked for review with a note (``over_length =
    "review"``) or left untranslated (``refuse``). A human's text (reused) over its limit is the check's
    warning, never changed."""
    found = OverLength([], [])
    for s in scanned:
        human = reused.get(s.display, set())
        for index, forms in s.source_forms.items():
            flags = s.catalog.flags_of(index)  # most units have no limit: not made to say so
            if index in human or not any(f.startswith("max-") for f in flags):
                continue
            unit = s.catalog.units[index]
            limit = limit_of(flags)
            keys = [SegmentKey(s.display, index, form) for form in forms]
            texts = [text for k in keys if (text := done.get(k)) is not None]
            problem = next((p for text in texts if limit is not None and (p := limit.problem(text))), None)
            if problem is None:
                continue
            if refuse:
                reason = f"not written: the translation has {problem}, and over_length is 'refuse'"
                issue = Issue(s.display, reason, unit.line, s.target_lang, Severity.SKIPPED, Cause.INPUT)
                found.refused.append((keys, issue))
            else:
                found.review.append((s.display, index, f"pipeline: the translation has {problem}"))
    return found
