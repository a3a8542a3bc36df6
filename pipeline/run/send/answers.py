"""What a round does with the service's answers: verify each, cache and keep the good ones, report the rest."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from pipeline.model import Cause, Issue, Severity
from pipeline.placeholders.schemes import Scheme, decode
from pipeline.run.keys import recovered_key
from pipeline.run.window import Pending, Recovery, Verify, Window, not_offered

if TYPE_CHECKING:
    from pipeline.client import TranslateResult
    from pipeline.run.context import RunContext

__all__ = ["Answers", "Outcome"]


@dataclass
class Outcome:
    """What one round adds to the report besides per-catalog counters."""

    #: The round's texts (the caller's dict, by cache key): a text every segment of which passed
    #: leaves it, so a run holds a text (protected form, key, segments) no longer than it waits.
    waiting: dict[str, Pending]
    requests: int = 0
    finished: set[str] = field(default_factory=set)  # cache keys failed (an answered text leaves ``waiting``)
    retry: dict[str, Pending] = field(default_factory=dict)  # refused for their placeholders: recover
    first_problem: dict[str, str] = field(default_factory=dict)  # why the first attempt was refused


class Answers:
    """Records a round's answers into the run's report and the window's translations."""

    def __init__(self, run: RunContext, window: Window, verify: Verify, outcome: Outcome) -> None:
        self.run, self.window, self.verify, self.outcome = run, window, verify, outcome

    def fail(self, item: Pending, reason: str, billed: int = 0, cause: Cause | None = None) -> None:
        """Every segment of ``item`` failed for ``reason``.

        A length retry that fails leaves its segments their first translation (:mod:`.length`): a warning.
        """
        self.outcome.finished.add(item.key)
        target = item.options.target_lang
        retried = self.window.retried
        if retried and all(ref.key in retried for ref in item.refs):
            for ref in item.refs:
                note = f"the shorter translation asked for was not used ({reason}): the first one is kept"
                self.run.report.issues.append(Issue(ref.key.catalog, note, ref.line, target, Severity.WARNING))
            return
        for ref in item.refs:
            self.run.report.issues.append(Issue(ref.key.catalog, reason, ref.line, target, cause=cause))
            self.run.per_catalog[ref.key.catalog].counters.segments_failed += 1
        if self.run.progress is not None:
            self.run.progress.advance(target, len(item.refs), billed)

    def refuse_targets(self, pending: dict[str, Pending], offered: frozenset[str]) -> None:
        """Leave the texts whose target the service does not offer: one issue per catalog, not one per segment."""
        from pipeline import locales

        skip = self.run.settings.unsupported_languages == "skip"
        refused: dict[str, tuple[str, int]] = {}  # catalog -> (target, segments)
        for item in pending.values():
            target = item.options.target_lang
            if target in offered:
                continue
            self.outcome.finished.add(item.key)
            for ref in item.refs:
                refused[ref.key.catalog] = (target, refused.get(ref.key.catalog, (target, 0))[1] + 1)
                counters = self.run.per_catalog[ref.key.catalog].counters
                if skip:
                    counters.segments_skipped += 1
                else:
                    counters.segments_failed += 1
            if self.run.progress is not None:
                self.run.progress.advance(target, len(item.refs))
        for catalog, (target, segments) in refused.items():
            reason = locales.not_offered(target)
            self.run.report.issues.append(not_offered(catalog, reason, target, Cause.LANGUAGE, skip, segments))

    def record(
        self,
        items: list[Pending],
        result: TranslateResult,
        scheme: Scheme,
        sent: list[tuple[str, ...]],
        sizes: list[int],
    ) -> int:
        """Verify each returned text for each segment; cache and keep the good ones, report the others; returns billed.

        A recovery scheme's answers are decoded to the canonical form first, and cached where that
        scheme's results are kept (:func:`~pipeline.run.keys.recovered_key`).
        """
        self.run.answered = True
        returned = [t.text for t in result.translations]
        if scheme is not Scheme.XML:
            returned = _decoded(scheme, items, sent, returned)
        billed_total = result.billed_characters if result.billed_characters is not None else sum(sizes)
        verified: dict[str, str] = {}
        catalogs: set[str] = set()
        for item, answer, billed in zip(items, returned, _shares(billed_total, sizes), strict=False):
            self.run.per_catalog[item.refs[0].key.catalog].counters.billed_characters += billed
            catalogs.update(ref.key.catalog for ref in item.refs)
            if self._judge(item, answer, billed):
                verified[recovered_key(item.key, scheme) if scheme is not Scheme.XML else item.key] = answer
        self.run.cache().set_many(verified)  # one transaction per request, not one per text
        for item in items[len(returned) :]:
            self.fail(item, "the service returned fewer translations than texts sent")
        for name in catalogs:
            self.run.per_catalog[name].counters.requests += 1
        if scheme is not Scheme.XML:
            self._count_recovery(scheme, items, billed_total)
        return billed_total

    def _judge(self, item: Pending, answer: str, billed: int) -> bool:
        """Keep what the gate passes; set the rest aside for recovery or fail it. Whether any segment passed."""
        judged = item.verdicts(answer, self.verify)
        passed = [(ref, v.text) for ref, v in judged if v.text is not None]
        refused = [(ref, v) for ref, v in judged if v.text is None]
        retried = self.window.retried
        for ref, text in passed:
            self.window.done[ref.key] = text
            if ref.key not in retried:  # a length retry's segment was counted with its first answer
                self.run.per_catalog[ref.key.catalog].counters.segments_translated += 1
        if passed and self.run.progress is not None:
            self.run.progress.advance(item.options.target_lang, len(passed), billed)
        if not refused:
            self.outcome.waiting.pop(item.key, None)
        elif all(v.retryable for _, v in refused):  # shown another way in a recovery round
            self.outcome.retry[item.key] = replace(item, refs=[ref for ref, _ in refused])
            self.outcome.first_problem.setdefault(item.key, refused[0][1].problem or "")
        else:
            problem = next(v.problem for _, v in refused if not v.retryable)
            self.fail(
                replace(item, refs=[ref for ref, _ in refused]),
                f"translation not written: {problem}",
                0 if passed else billed,
            )
        return bool(passed)

    def _count_recovery(self, scheme: Scheme, items: list[Pending], billed: int) -> None:
        """Per language: the segments a scheme got past the gate, and what its requests cost."""
        report, done = self.run.report, self.window.done
        for item in items:
            recovery = report.recovery.setdefault(item.options.target_lang, Recovery())
            recovered = [ref for ref in item.refs if ref.key in done]
            if recovered:
                recovery.segments[scheme.value] = recovery.segments.get(scheme.value, 0) + len(recovered)
            if scheme.needs_review_note:
                self.window.notes.update((ref.key, scheme.needs_review_note) for ref in recovered)
        if items:
            report.recovery.setdefault(items[0].options.target_lang, Recovery()).characters += billed


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
