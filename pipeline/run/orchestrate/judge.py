"""What comes back, from the cache or the service, judged by the gate and recorded: the run's only reader of the cache.

:meth:`Judge.from_cache` looks a round's texts up (one round trip to a shared cache for the whole
group) and serves each segment whose cached translation the gate passes; :meth:`Judge.answered`
takes a request's answers. Each answer goes through :func:`pipeline.run.gate.verify` for every
segment waiting for it, with that segment's own placeholders; what passes is recorded in the
run's :class:`~pipeline.run.ledger.Ledger` (and, from the service, cached: one transaction per
request), what fails its placeholders is set aside for the next recovery scheme, the rest fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from pipeline import locales
from pipeline.cache import TranslationCache
from pipeline.model import Cause
from pipeline.placeholders.schemes import Scheme, decode
from pipeline.run import gate
from pipeline.run.keys import recovered_key
from pipeline.run.ledger import Ledger
from pipeline.run.records import StopReason
from pipeline.run.report.progress import Progress
from pipeline.run.window import Pending, Recovery, not_offered

if TYPE_CHECKING:
    from pipeline.client.api_data import TranslateResult

__all__ = ["Judge", "Outcome"]


class Outcome:
    """What one round of requests left: the texts still waiting, failed, or to show another way."""

    __slots__ = ("finished", "first_problem", "retry", "waiting")

    def __init__(self, waiting: dict[str, Pending]) -> None:
        #: The round's texts (by cache key): a text every segment of which passed leaves it, so a run
        #: holds a text (protected form, key, segments) no longer than it waits.
        self.waiting = waiting
        self.finished: set[str] = set()  # cache keys failed (an answered text leaves ``waiting``)
        self.retry: dict[str, Pending] = {}  # refused for their placeholders: recover
        self.first_problem: dict[str, str] = {}  # why the first attempt was refused


class Judge:
    """Judges what comes back for a round and records it: the round's :class:`~pipeline.run.send.Receiver`."""

    def __init__(self, ledger: Ledger, cache: TranslationCache, progress: Progress, outcome: Outcome) -> None:
        self.ledger, self.cache, self.progress, self.outcome = ledger, cache, progress, outcome

    # -- the cache --------------------------------------------------------------------------------

    def from_cache(self, pending: dict[str, Pending]) -> dict[str, Pending]:
        """Serve the texts the cache holds a translation of that the gate passes; returns those still to send.

        A text recovered in pieces is cached apart (:func:`~pipeline.run.keys.recovered_key`) and
        looked up when the first attempt's key misses; its segments get the scheme's note. A cached
        text the gate now refuses was tampered with: its segments are asked for again.
        """
        found = self.cache.get_many(pending)  # one round trip to a shared cache for the whole group, none when local
        # Only the misses can have been recovered in pieces: a group the local cache answers asks nothing more.
        pieces = {key: recovered_key(key, Scheme.PIECES) for key in pending if key not in found}
        found.update(self.cache.get_many(pieces.values()) if pieces else {})
        left: dict[str, Pending] = {}
        for key, item in pending.items():
            cached, note = found.get(key), None
            if cached is None:
                cached, note = found.get(pieces[key]), Scheme.PIECES.needs_review_note
            if cached is None:
                left[key] = item
                continue
            waiting = []
            for ref, verdict in item.verdicts(cached, gate.verify):
                if verdict.text is None:
                    waiting.append(ref)
                else:
                    self.ledger.served(ref.key, verdict.text, len(item.protected.text), note)
            if waiting:
                left[key] = replace(item, refs=waiting)
        return left

    def keep_answers(self, copies: dict[str, str]) -> None:
        """Keep the answers cached under each key of ``copies`` under its value too (see :mod:`.rejected`)."""
        found = self.cache.get_many(copies)
        self.cache.set_many({copies[key]: text for key, text in found.items()})

    def holds(self, keys: list[str]) -> int:
        """How many of ``keys`` the cache holds (a dry run's count of the fallbacks a run might not need to send)."""
        return len(self.cache.get_many(keys)) if keys else 0

    # -- the service ------------------------------------------------------------------------------

    def refuse_targets(self, pending: dict[str, Pending], offered: frozenset[str], skip: bool) -> None:
        """Leave the texts whose target the service does not offer: one issue per catalog, not one per segment."""
        refused: dict[str, tuple[str, int]] = {}  # catalog -> (target, segments)
        for item in pending.values():
            target = item.options.target_lang
            if target in offered:
                continue
            self.outcome.finished.add(item.key)
            for ref in item.refs:
                refused[ref.key.catalog] = (target, refused.get(ref.key.catalog, (target, 0))[1] + 1)
            self.progress.advance(target, len(item.refs))
        for catalog, (target, segments) in refused.items():
            # what the run writes into it nonetheless (copies, the cache's) was served before any request
            written = self.ledger.counters(catalog)
            issue = not_offered(catalog, locales.not_offered(target), target, Cause.LANGUAGE, skip, segments, written)
            self.ledger.not_offered(catalog, segments, skip, issue)

    def failed(self, item: Pending, reason: str, billed: int = 0, cause: Cause | None = None) -> None:
        """Every segment of ``item`` failed for ``reason`` (a length retry's keeps its first answer)."""
        self.outcome.finished.add(item.key)
        target = item.options.target_lang
        self.ledger.failed([ref.key for ref in item.refs], [ref.line for ref in item.refs], target, reason, cause)
        if not all(ref.key in self.ledger.window.retried for ref in item.refs):
            self.progress.advance(target, len(item.refs), billed)

    def halted(self, reason: StopReason, message: str) -> None:
        """The run stops sending (the first reason is the one reported)."""
        self.ledger.stop(reason, message)

    def answered(
        self,
        items: list[Pending],
        result: TranslateResult,
        scheme: Scheme,
        sent: list[tuple[str, ...]],
        costs: list[int],
    ) -> int:
        """Verify each returned text for each segment; cache and record the good ones, the others aside or failed.

        A recovery scheme's answers are decoded to the canonical form first, and cached where that
        scheme's results are kept (:func:`~pipeline.run.keys.recovered_key`). Returns the characters billed.
        """
        self.ledger.answered()
        returned = [t.text for t in result.translations]
        if scheme is not Scheme.XML:
            returned = _decoded(scheme, items, sent, returned)
        billed_total = result.billed_characters if result.billed_characters is not None else sum(costs)
        verified: dict[str, str] = {}
        catalogs: set[str] = set()
        for item, answer, billed in zip(items, returned, _shares(billed_total, costs), strict=False):
            self.ledger.billed(item.refs[0].key.catalog, billed)
            catalogs.update(ref.key.catalog for ref in item.refs)
            if self._judge(item, answer, billed, scheme):
                verified[recovered_key(item.key, scheme) if scheme is not Scheme.XML else item.key] = answer
        self.cache.set_many(verified)  # one transaction per request, not one per text
        for item in items[len(returned) :]:
            self.failed(item, "the service returned fewer translations than texts sent")
        self.ledger.requested(catalogs)
        if scheme is not Scheme.XML and items:
            self._recovered(scheme, items[: len(returned)], billed_total)
        return billed_total

    def _judge(self, item: Pending, answer: str, billed: int, scheme: Scheme) -> bool:
        """Record what the gate passes; set the rest aside for recovery or fail it. Whether any segment passed."""
        judged = item.verdicts(answer, gate.verify)
        passed = [(ref, v.text) for ref, v in judged if v.text is not None]
        refused = [(ref, v) for ref, v in judged if v.text is None]
        for ref, text in passed:
            self.ledger.translated(ref.key, text, scheme.needs_review_note)
        if passed:
            self.progress.advance(item.options.target_lang, len(passed), billed)
        if not refused:
            self.outcome.waiting.pop(item.key, None)
        elif all(v.retryable for _, v in refused):  # shown another way in a recovery round
            self.outcome.retry[item.key] = replace(item, refs=[ref for ref, _ in refused])
            self.outcome.first_problem.setdefault(item.key, refused[0][1].problem or "")
        else:
            problem = next(v.problem for _, v in refused if not v.retryable)
            self.failed(
                replace(item, refs=[ref for ref, _ in refused]),
                f"translation not written: {problem}",
                0 if passed else billed,
            )
        return bool(passed)

    def _recovered(self, scheme: Scheme, items: list[Pending], billed: int) -> None:
        """Per language: the segments a scheme got past the gate, and what its requests cost."""
        done = self.ledger.done
        for item in items:
            recovered = sum(1 for ref in item.refs if ref.key in done)
            self.ledger.recovered(item.options.target_lang, Recovery({scheme.value: recovered}))
        self.ledger.recovered(items[0].options.target_lang, Recovery(characters=billed))


def _decoded(scheme: Scheme, items: list[Pending], sent: list[tuple[str, ...]], returned: list[str]) -> list[str]:
    """The canonical answer of each item from the texts the service returned for a scheme's request."""
    answers: list[str] = []
    position = 0
    for item, texts in zip(items, sent, strict=True):
        part = returned[position : position + len(texts)]
        position += len(texts)
        if len(part) < len(texts):
            break  # fewer translations than texts: the rest fail
        answers.append(decode(scheme, item.protected, part))
    return answers


def _shares(total: int, weights: Sequence[int]) -> list[int]:
    """Split ``total`` billed characters over texts in proportion to their lengths, exactly."""
    weight = sum(weights)
    if not weight:
        return [0] * len(weights)
    shares = [total * w // weight for w in weights]
    shares[-1] += total - sum(shares)
    return shares
