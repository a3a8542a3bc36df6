"""What a run decided, in one place: the only writer of its report.

The stages find things out and return records (a scanned catalog, a plan, the gate's admission, a
write's outcome); the orchestrator hands them to the :class:`Ledger`, and the stages that receive
answers one at a time (the cache, the sending rounds) hand it each as it comes. Nothing else
writes the report: every counter, issue and stop of ``report.json`` is set by a method here, named
after what happened. The first stop is the one reported (:meth:`Ledger.stop`); a signal overrides
it, since the user asked the run to stop (:meth:`Ledger.interrupted`).

The windows' translations and the notes that go with them are the ledger's too (:class:`Decisions`):
what was translated, copied, served from the cache or reused, what asks for a reviewer's note,
what was sent again for its length. The stages read them (the gate admits from them, the plural
planner picks fallbacks by them) and never write them. Everything in them is keyed by catalog, and
a catalog belongs to one window: two windows (one being written while the next sends) share them,
and each window lets go of its own catalogs' (:meth:`Ledger.release_translations`,
:meth:`Ledger.close_window`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from pipeline.model import Cause, Counters, Issue, Severity
from pipeline.run.journal import Settled
from pipeline.run.ledger.decisions import Decisions, Translations
from pipeline.run.records import CatalogReport, Remaining, RunReport, Stop, StopReason

if TYPE_CHECKING:  # records of a run with work: a run with nothing new loads none of them
    from pipeline.run.quota import Allowance, UsageRecord
    from pipeline.run.window import CatalogWork, DryRunEstimate, Pending, Recovery, ReusedUnit
    from pipeline.segments import SegmentKey

__all__ = ["Decisions", "Ledger", "Translations"]


class Ledger:
    """What the run decided (translations, counters, issues, the stop), and the report made of it."""

    def __init__(
        self,
        service: str,
        dry_run: bool,
        budget: int | None,
        log: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.report = RunReport(service=service, dry_run=dry_run, budget=budget)
        self.log = log
        self.clock = clock  # seconds, for the report's timings (tests give a virtual one)
        self.window = Decisions()
        self._catalogs: dict[str, CatalogReport] = {}
        self._said: set[str] = set()
        self._left: set[str] = set()  # keys of the texts counted in the report's remaining
        self._answered = False
        self._timed_until = -math.inf  # the latest second a stage's timing counted

    # -- what was said --------------------------------------------------------------------------

    def say_once(self, message: str) -> None:
        """Log ``message`` unless this run said it already (a corpus is read in several windows)."""
        if message not in self._said:
            self._said.add(message)
            self.log(message)

    def warn(self, where: object, message: str) -> None:
        """A warning of the report: said once, when the run ends, where CI reads it."""
        reason = message.removeprefix("warning: ")
        if not any(i.catalog == str(where) and i.reason == reason for i in self.report.issues):
            self.report.issues.append(Issue(str(where), reason, severity=Severity.WARNING))

    def add_issues(self, issues: Iterable[Issue]) -> None:
        """Issues a stage found (a catalog it cannot read, a resource left out), in the order found."""
        self.report.issues.extend(issues)

    def issues_of(self, catalog: str) -> list[Issue]:
        """The issues reported for ``catalog`` so far."""
        return [i for i in self.report.issues if i.catalog == catalog]

    # -- catalogs ---------------------------------------------------------------------------------

    def unchanged(self, display: str, record: Settled) -> None:
        """A catalog an earlier run settled, skipped unread: its counts and notices as that run left them."""
        cat = self._catalogs[display] = CatalogReport(display, record.target_lang, unchanged=True)
        cat.counters.segments_skipped = record.skipped
        cat.counters.awaiting_review = record.awaiting or 0
        self.report.issues.extend(
            Issue(
                display, reason, line, record.target_lang or None, Severity(severity), Cause(cause) if cause else None
            )
            for line, reason, severity, cause in record.notices
        )
        self.report.unchanged_catalogs += 1

    def scanned(self, display: str, target: str, skipped: int, awaiting: int) -> None:
        """A catalog read: its language, the units skipped while scanning, those awaiting review."""
        cat = self._catalogs[display] = CatalogReport(display, target)
        cat.counters.segments_skipped += skipped
        cat.counters.awaiting_review = awaiting

    def counters(self, display: str) -> Counters:
        """A copy of ``display``'s counters as they are now."""
        return replace(self._catalogs[display].counters)

    def written(self, display: str, awaiting: int) -> None:
        """The catalog was written; ``awaiting``: its units awaiting review now."""
        cat = self._catalogs[display]
        cat.written = True
        cat.counters.awaiting_review = awaiting

    def not_written(self, displays: Iterable[str], reused_too: bool = False) -> None:
        """The catalogs were not written after all: what the cache, reuse or copying would have given them is not
        counted, and what the service translated for them is counted as not written (it was billed, and is
        cached); with ``reused_too`` (nothing of the window is written) their reused units are not listed either."""
        names = set(displays)
        for name in names:
            c = self._catalogs[name].counters
            c.segments_from_cache = c.segments_copied = c.segments_reused = c.characters_reused = 0
            c.segments_not_written += c.segments_translated
            c.segments_translated = 0
        if reused_too:
            self.report.reused[:] = [r for r in self.report.reused if r.catalog not in names]

    def cache_lost(self) -> None:
        """Some translation of this run is in no cache a later run reads (the cache fell back to memory)."""
        self.report.translations_cached = False

    # -- the stop ---------------------------------------------------------------------------------

    @property
    def stopped(self) -> Stop | None:
        """Why the run stopped early, if it did."""
        return self.report.stopped

    def stop(self, reason: StopReason, message: str) -> None:
        """The run stops for ``reason`` (the first reason is the one reported)."""
        if self.report.stopped is None:
            self.report.stopped = Stop(reason, message)

    def interrupted(self, stop: Stop) -> None:
        """A signal stopped the run: whatever else stopped it, the user asked it to stop."""
        self.report.stopped = stop

    def nothing_changed(self) -> None:
        """The run stopped before the service answered it once: the report says no catalog was changed."""
        stop, unchanged = self.report.stopped, "; no catalog was changed"
        if stop is not None and not stop.message.endswith(unchanged):
            self.report.stopped = Stop(stop.reason, stop.message + unchanged)

    # -- the service ------------------------------------------------------------------------------

    @property
    def service_answered(self) -> bool:
        """Whether the service answered this run once (its key works)."""
        return self._answered

    def answered(self) -> None:
        """The service answered a request of this run."""
        self._answered = True

    def usage_before(self, usage: UsageRecord, needed: int) -> None:
        """The account's usage as read before a window's first request (the run's first read is its 'before').

        The note of every later read replaces the first's; each note is said once.
        """
        if usage.note:
            self.say_once(usage.note)
        elif usage.before is not None:
            left, holder = usage.before.left, usage.before.holder
            self.log(f"{left} characters left this period ({holder} limit); this run needs at most {needed}")
        current = self.report.usage
        self.report.usage = usage if current is None else replace(current, note=usage.note)

    @property
    def usage_read(self) -> bool:
        """Whether the account's usage was read before this run's requests (an 'after' is then worth reading)."""
        return self.report.usage is not None and self.report.usage.before is not None

    def usage_after(self, after: Allowance | None) -> None:
        """The account's usage once a window's requests were billed."""
        if self.report.usage is not None:
            self.report.usage.after = after

    def service_languages(self, languages: str) -> None:
        """The hash of the target languages the service offers, as read by this run."""
        self.report.service_languages = languages

    def requests(self, count: int, context: int = 0) -> None:
        """``count`` translate requests were answered, ``context`` of them only because texts are grouped by context."""
        self.report.totals.requests += count
        self.report.context_requests += context

    # -- a window's translations ------------------------------------------------------------------

    @property
    def done(self) -> Mapping[SegmentKey, str]:
        """The open windows' verified translations, by segment."""
        return self.window.done

    def release_translations(self, catalogs: Collection[str]) -> None:
        """The gate admitted what is written of ``catalogs``: their translations and notes make room for the
        rendering."""
        window = self.window
        window.done.release(catalogs)
        window.notes = {key: note for key, note in window.notes.items() if key.catalog not in catalogs}
        if window.asked is not None:
            window.asked = {key for key in window.asked if key.catalog not in catalogs}

    def close_window(self, catalogs: Collection[str]) -> None:
        """A window's catalogs are done with: nothing decided for them is kept."""
        self.release_translations(catalogs)
        window = self.window
        window.retried = {key: first for key, first in window.retried.items() if key.catalog not in catalogs}
        for by_catalog in (window.review, window.reused, window.withheld):
            for name in catalogs:
                by_catalog.pop(name, None)

    def keep_asked(self, keep: bool) -> None:
        """Whether to remember which segments the service translated (not the cache): only a reviewer's rejection
        asks (:meth:`withhold`, a text asked for once more), and without one the record would cost a set entry
        per segment of the window for nothing."""
        self.window.asked = set() if keep else None

    def was_asked(self, key: SegmentKey) -> bool:
        """Whether the service translated ``key`` in this run (not the cache); known when :meth:`keep_asked` said so."""
        if self.window.asked is None:
            raise RuntimeError("the run keeps no record of what the service translated: it has no reviewer rejection")
        return key in self.window.asked

    def copied(self, key: SegmentKey, text: str, counted: bool = True) -> None:
        """A segment with nothing to translate is written as it is (a plural fallback counts only where used)."""
        self.window.done[key] = text
        if counted:
            self._catalogs[key.catalog].counters.segments_copied += 1

    def served(self, key: SegmentKey, text: str, characters: int, note: str | None = None) -> None:
        """A segment's translation came from the cache, saving ``characters``."""
        self.window.done[key] = text
        if note:
            self.window.notes[key] = note
        counters = self._catalogs[key.catalog].counters
        if key not in self.window.retried:  # a length retry's segment was counted with its first answer
            counters.segments_from_cache += 1
        counters.characters_saved += characters

    def translated(self, key: SegmentKey, text: str, note: str | None = None) -> None:
        """The service's answer for a segment passed the gate (``note``: why it needs a reviewer's eye)."""
        self.window.done[key] = text
        if self.window.asked is not None:
            self.window.asked.add(key)
        if note:
            self.window.notes[key] = note
        if key not in self.window.retried:  # a length retry's segment was counted with its first answer
            self._catalogs[key.catalog].counters.segments_translated += 1

    def billed(self, catalog: str, characters: int) -> None:
        """``characters`` of a request were billed for a text of ``catalog`` (the first that needs it)."""
        self._catalogs[catalog].counters.billed_characters += characters

    def requested(self, catalogs: Iterable[str]) -> None:
        """One request carried texts of each of ``catalogs``."""
        for name in catalogs:
            self._catalogs[name].counters.requests += 1

    def failed(
        self, refs: Iterable[SegmentKey], lines: Iterable[int], target: str, reason: str, cause: Cause | None
    ) -> None:
        """The segments could not be translated, for ``reason``; a length retry's keeps its first answer (a warning)."""
        keys, where = list(refs), list(lines)
        retried = self.window.retried
        if retried and keys and all(key in retried for key in keys):
            note = f"the shorter translation asked for was not used ({reason}): the first one is kept"
            self.report.issues.extend(
                Issue(key.catalog, note, line, target, Severity.WARNING) for key, line in zip(keys, where, strict=True)
            )
            return
        for key, line in zip(keys, where, strict=True):
            self.report.issues.append(Issue(key.catalog, reason, line, target, cause=cause))
            self._catalogs[key.catalog].counters.segments_failed += 1

    def not_offered(self, catalog: str, segments: int, skip: bool, issue: Issue, target: str = "") -> None:
        """The service does not offer the catalog's language: its ``segments`` are skipped or failed, said once.

        A catalog the scan refused for it is reported here (in ``target``, "" when the language has no code).
        """
        counters = self._catalogs.setdefault(catalog, CatalogReport(catalog, target)).counters
        if skip:
            counters.segments_skipped += segments
        else:
            counters.segments_failed += segments
        self.report.issues.append(issue)

    def recovered(self, target: str, more: Recovery) -> None:
        """What a recovery scheme's requests for ``target`` got past the gate, and cost."""
        recovery = self.report.recovery.setdefault(target, replace(more, segments={}, characters=0))
        for scheme, segments in more.segments.items():
            if segments:
                recovery.segments[scheme] = recovery.segments.get(scheme, 0) + segments
        recovery.characters += more.characters

    # -- what reviewers rejected ----------------------------------------------------------------

    def take_back(self, key: SegmentKey, characters: int) -> None:
        """A segment served from the cache a reviewer rejected the text of is asked for once more: not counted yet."""
        if self.window.done.pop(key, None) is None:
            return
        self.window.notes.pop(key, None)
        counters = self._catalogs[key.catalog].counters
        if key not in self.window.retried:
            counters.segments_from_cache -= 1
        counters.characters_saved -= characters

    def withhold(self, display: str, keys: Iterable[SegmentKey], sent: Collection[SegmentKey]) -> None:
        """A unit would be written with exactly a text a reviewer rejected: it is left untranslated.

        ``sent``: its segments that had a text to translate (served or translated; the others were copied).
        """
        counters = self._catalogs[display].counters
        for key in keys:
            if self.window.done.pop(key, None) is None:
                continue
            self.window.notes.pop(key, None)
            if self.was_asked(key):
                counters.segments_translated -= 1
            elif key in sent:
                counters.segments_from_cache -= 1
            else:
                counters.segments_copied -= 1
            counters.segments_skipped += 1
        self.window.withheld[display] = self.window.withheld.get(display, 0) + 1

    def left_rejected(self, display: str, target: str) -> None:
        """Say once for the catalog how many entries were left untranslated for a reviewer's rejection."""
        count = self.window.withheld.pop(display, 0)
        if count:
            entries = "entry" if count == 1 else "entries"
            reason = f"{count} {entries} left untranslated: a reviewer rejected this translation"
            self.report.issues.append(Issue(display, reason, target_lang=target, severity=Severity.SKIPPED))

    # -- reuse and length limits ------------------------------------------------------------------

    def reused(self, unit: ReusedUnit) -> None:
        """A unit is written with a reviewed translation found elsewhere, marked for review with a note."""
        counters = self._catalogs[unit.catalog].counters
        for key in unit.copied:  # nothing to translate in them: the plan had copied them
            if self.window.done.pop(key, None) is not None:
                counters.segments_copied -= 1
        self.window.done.update(unit.forms)
        self.window.review.setdefault(unit.catalog, {})[unit.unit] = f"pipeline: reused from {unit.origin}"
        self.window.reused.setdefault(unit.catalog, set()).add(unit.unit)
        self.report.reused.append(unit.listed())

    def reuse_saved(self, segments: Iterable[str], billed_to: str | None, characters: int) -> None:
        """Reused units need a text no more: each of its segments counts (per catalog), its characters once."""
        for catalog in segments:
            self._catalogs[catalog].counters.segments_reused += 1
        if billed_to is not None:
            self._catalogs[billed_to].counters.characters_reused += characters

    def retried(self, key: SegmentKey, first: str) -> None:
        """A segment's translation is asked for again, shorter; ``first`` is kept if the retry does not help."""
        self.window.retried[key] = first
        self._catalogs[key.catalog].counters.length_retried += 1

    def kept_shorter(self, catalogs: Collection[str]) -> None:
        """Each retried segment of ``catalogs`` keeps the shorter of its two answers (its first when the retry was
        not answered)."""
        for key, first in self.window.retried.items():
            if key.catalog not in catalogs:
                continue
            now = self.window.done.get(key)
            if now is None or len(first) <= len(now):
                self.window.done[key] = first

    def over_length(self, display: str, index: int, note: str) -> None:
        """A unit still over its length limit is written marked for review, with ``note``."""
        self._catalogs[display].counters.length_over += 1
        self.window.review.setdefault(display, {})[index] = note

    def refused_for_length(self, keys: Iterable[SegmentKey], issue: Issue) -> None:
        """A unit still over its length limit is not written (``over_length = "refuse"``)."""
        for key in keys:
            self.window.done.pop(key, None)
        self._catalogs[issue.catalog].counters.length_refused += 1
        self.report.issues.append(issue)

    # -- the gate, the write, what is left --------------------------------------------------------

    def admitted(self, display: str, issues: Sequence[Issue], failed: int, skipped: int) -> None:
        """What the gate said of a catalog's units: the issues, the units it kept out as failed or skipped."""
        counters = self._catalogs[display].counters
        counters.segments_failed += failed
        counters.segments_skipped += skipped
        self.report.issues.extend(issues)

    def leave(self, texts: Iterable[Pending]) -> None:
        """Count ``texts`` (not sent by a stopped run) in what remains for the next run.

        Every segment counts; a text counted already (an earlier part left it too) adds its segments only.
        """
        texts = list(texts)
        if not texts:
            return
        new = [t for t in texts if t.key not in self._left]
        self._left.update(t.key for t in new)
        more = Remaining(
            segments=sum(len(t.refs) for t in texts),
            texts=len(new),
            characters=sum(len(t.protected.text) for t in new),
        )
        self.report.remaining = more if self.report.remaining is None else self.report.remaining.plus(more)

    def estimate(self, would_send: DryRunEstimate, would_write: list[CatalogWork]) -> None:
        """What a real run would send and write (a dry run)."""
        self.report.would_send, self.report.would_write = would_send, would_write

    def catalogs(self) -> dict[str, CatalogReport]:
        """The catalogs seen so far, by name (read only: the dry-run estimate counts what they would get)."""
        return dict(self._catalogs)

    def timed(self, stage: str, since: float, counts: bool = True) -> float:
        """Add the seconds since ``since`` to the stage's timing (windows add up); returns now.

        Two open windows time the same seconds: each second counts once. The later window's stages do not
        count (``counts``) until the earlier one has ended; its next stage then counts from there.
        """
        now = self.clock()
        if not counts:
            return now
        seconds = max(0.0, now - max(since, self._timed_until))
        self._timed_until = max(self._timed_until, now)
        self.report.timings[stage] = round(self.report.timings.get(stage, 0.0) + seconds, 3)
        return now

    def finish(self, started: float, exit_code: Callable[[RunReport], int]) -> RunReport:
        """Sum the counters, time the run, set its exit code (``exit_code`` of the report as summed): the report."""
        report = self.report
        for stage in ("scan", "translate", "write"):  # a run that skipped everything did none of them
            report.timings.setdefault(stage, 0.0)
        report.catalogs = list(self._catalogs.values())
        requests = report.totals.requests  # a request can serve several catalogs: count it once
        for cat in report.catalogs:
            report.totals.add(cat.counters)
        report.totals.requests = requests
        report.duration_seconds = round(self.clock() - started, 3)
        report.exit_code = exit_code(report)
        return report
