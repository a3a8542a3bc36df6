"""Sending the run's unique texts: grouped by options, packed (:mod:`.packing`), sent concurrently within a budget.

One limiter (:mod:`.concurrency`) bounds the requests in flight across every target language, so
a run over many languages keeps the service busy until the last batch: it finds how many requests
the service takes at once (growing while answers come, backing off and pausing every sender on a
429, honouring Retry-After), never more than ``[service] concurrency``. The budget
(``max_characters``) is checked before each request: a request reserves the characters it will
be billed (the service bills every character of the texts sent, tags included, and nothing for
``context``), so concurrent requests can never together go beyond the budget.

Before the first request the account's usage is read (:func:`check_quota`): a run that what is
left of the account's or the key's characters cannot cover stops before sending anything.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pipeline import protocol
from pipeline.cache import TranslationCache
from pipeline.config import Settings
from pipeline.errors import (
    AuthenticationError,
    PayloadTooLargeError,
    QuotaExceededError,
    RateLimitedError,
    ServiceError,
    TransportError,
)
from pipeline.model import Cause, Issue, SegmentKey, TranslationOptions
from pipeline.placeholders.schemes import RECOVERY, Scheme, applicable, decode, encode
from pipeline.placeholders.schemes import request_params as scheme_params
from pipeline.quota import Allowance, allowance, shortfall
from pipeline.run.progress import Progress
from pipeline.run.records import (
    CatalogReport,
    CatalogWork,
    DryRunEstimate,
    Pending,
    Recovery,
    RunReport,
    Stop,
    StopReason,
    UsageRecord,
    Verify,
)
from pipeline.run.request import recovered_key, request_params
from pipeline.run.send.concurrency import Controller, Limiter, Ticket
from pipeline.run.send.packing import pack

if TYPE_CHECKING:  # the client (httpx) is imported only when a request is really needed
    from pipeline.client import AsyncClient, TranslateResult


@dataclass
class Budget:
    """Billed characters a run may still spend; None means no limit."""

    limit: int | None
    spent: int = 0
    reserved: int = 0

    @property
    def left(self) -> int | None:
        """What may still be spent (None: no limit)."""
        return None if self.limit is None else max(0, self.limit - self.spent - self.reserved)

    def fitting(self, costs: Sequence[int]) -> int:
        """How many of ``costs``, taken in order, fit in what is left."""
        if self.limit is None:
            return len(costs)
        room, count = self.limit - self.spent - self.reserved, 0
        for cost in costs:
            if cost > room:
                break
            room -= cost
            count += 1
        return count

    def reserve(self, cost: int) -> None:
        """Set ``cost`` aside for a request about to be sent."""
        self.reserved += cost

    def settle(self, reserved: int, billed: int) -> None:
        """Replace a reservation by what the request was really billed (0 when it failed)."""
        self.reserved -= reserved
        self.spent += billed


@dataclass
class Outcome:
    """What the sending stage adds to the report besides per-catalog counters."""

    requests: int = 0
    finished: set[str] = field(default_factory=set)  # cache keys recorded or failed
    retry: dict[str, Pending] = field(default_factory=dict)  # refused for their placeholders: recover
    first_problem: dict[str, str] = field(default_factory=dict)  # why the first attempt was refused


def groups(pending: dict[str, Pending], with_context: bool = True) -> dict[TranslationOptions, list[Pending]]:
    """Pending texts by the options they share (one request carries one set of options)."""
    grouped: dict[TranslationOptions, list[Pending]] = defaultdict(list)
    without: dict[TranslationOptions, TranslationOptions] = {}  # a few distinct options, thousands of texts
    for item in pending.values():
        opts = item.options
        if not with_context:
            if opts not in without:
                without[opts] = replace(opts, context=None)
            opts = without[opts]
        grouped[opts].append(item)
    return grouped


def context_requests(pending: dict[str, Pending], planned: int) -> int:
    """Requests that grouping by context costs: ``planned`` minus what the texts would need without context."""
    without = 0
    for opts, items in groups(pending, with_context=False).items():
        texts = list(dict.fromkeys(i.protected.text for i in items))  # without context, equal texts merge
        without += len(pack(texts, request_params(opts)).batches)
    return max(0, planned - without)


def estimate(pending: dict[str, Pending]) -> DryRunEstimate:
    """What a real run would send: requests (and their lower bound), characters billed, unique texts, segments."""
    requests = lower_bound = 0
    for opts, items in groups(pending).items():
        packing = pack([p.protected.text for p in items], request_params(opts))
        requests += len(packing.batches)
        lower_bound += packing.lower_bound
    return DryRunEstimate(
        requests=requests,
        requests_lower_bound=lower_bound,
        context_requests=context_requests(pending, requests),
        characters=sum(len(p.protected.text) for p in pending.values()),
        texts=len(pending),
        segments=sum(len(p.refs) for p in pending.values()),
    )


def would_write(per_catalog: dict[str, CatalogReport], pending: dict[str, Pending]) -> list[CatalogWork]:
    """Per catalog a real run would change: the segments it would write and the characters it would bill."""
    segments: Counter[str] = Counter()
    characters: Counter[str] = Counter()
    for item in pending.values():
        for name, count in Counter(ref.key.catalog for ref in item.refs).items():
            segments[name] += count
            characters[name] += len(item.protected.text)
    work = []
    for name, cat in per_catalog.items():
        writes = cat.counters.segments_copied + cat.counters.segments_from_cache + segments[name]
        if writes and not cat.unchanged:
            work.append(CatalogWork(name, cat.target_lang, writes, characters[name]))
    return work


async def read_usage(client: AsyncClient) -> tuple[Allowance | None, str | None]:
    """What the account and the key have used and may use this period, or (None, why not)."""
    try:
        return allowance(await client.usage()), None
    except ServiceError as exc:
        return None, f"the account's usage could not be read ({exc}); the run goes on without a quota check"


async def check_quota(
    client: AsyncClient, needed: int, budget: int | None, log: Callable[[str], None], earlier: int = 0
) -> tuple[UsageRecord, Stop | None]:
    """Read the usage before the first request; a :class:`Stop` when what is left cannot cover ``needed``.

    ``needed`` is what the run will bill (after the cache and deduplication); a ``budget`` caps it.
    No limit, or no answer, and the run goes on: the log and the report say so. ``earlier`` is
    what the run already billed for catalogs read before (a corpus read in windows).
    """
    before, note = await read_usage(client)
    record = UsageRecord(before=before, note=note)
    if before is not None and before.left is None:
        record.note = "the service gives no character limit for this account or key: no quota check"
    if record.note:
        log(record.note)
        return record, None
    assert before is not None
    message = shortfall(before, needed, budget, earlier)
    if message is not None:
        return record, Stop(StopReason.QUOTA, message)
    log(f"{before.left} characters left this period ({before.holder} limit); this run needs at most {needed}")
    return record, None


async def send_all(
    settings: Settings,
    client: AsyncClient,
    pending: dict[str, Pending],
    cache: TranslationCache,
    report: RunReport,
    per_catalog: dict[str, CatalogReport],
    done: dict[SegmentKey, str],
    log: Callable[[str], None],
    progress: Progress,
    budget: Budget,
    verify: Verify,
    notes: dict[SegmentKey, str],
    *,
    limiter: Limiter,
    offered: Awaitable[set[str]],
    stop: asyncio.Event | None = None,
    outcome: Outcome | None = None,
) -> Outcome:
    """Send every pending text, concurrently and within the budget; record verified results as they arrive.

    ``budget`` is shared by the rounds of one run (plural fallbacks are a second round); ``verify``
    is the gate's check, applied to every returned text before it is cached or kept. A text the
    gate refuses for its placeholders is sent again under each recovery scheme in turn
    (:mod:`pipeline.placeholders.schemes`); ``notes`` gets the segments whose scheme asks for a
    reviewer's eye. The caller closes ``client``. Once ``stop`` is set (a signal) nothing more is sent;
    a caller that may cancel this call passes ``outcome`` to keep what came back before.

    The rounds of one run pass the same ``limiter`` (what it learnt of the service's limit holds
    for the next round; the caller closes it) and the target codes the service ``offered`` (see
    :func:`offered_targets`, read once per window).
    """
    stop = stop if stop is not None else asyncio.Event()
    outcome = outcome if outcome is not None else Outcome()
    # 429s come back here, where they pause every sender; the client still retries 5xx and transport errors.
    sender = client.with_retry(replace(client.retry, retry_rate_limited=False))

    def halt(reason: StopReason, message: str) -> None:
        if report.stopped is None:
            report.stopped = Stop(reason, message)
        stop.set()

    def fail(item: Pending, reason: str, billed: int = 0, cause: Cause | None = None) -> None:
        outcome.finished.add(item.key)
        for ref in item.refs:
            report.issues.append(Issue(ref.key.catalog, reason, ref.line, item.options.target_lang, cause=cause))
            per_catalog[ref.key.catalog].counters.segments_failed += 1
        progress.advance(item.options.target_lang, len(item.refs), billed)

    async def translate(texts: list[str], params: dict[str, Any], ticket: Ticket) -> TranslateResult | None:
        """One request, sent again after each 429 once the limiter lets it (None: the run stopped meanwhile).

        ``max_attempts`` bounds every send of it, 429s and the client's own retries (5xx, transport) together.
        """
        used = 0
        while True:
            left = sender.retry.max_attempts - used
            try:
                result = await (
                    sender if not used else sender.with_retry(replace(sender.retry, max_attempts=left))
                ).translate(texts, **params)
            except RateLimitedError as exc:
                pause = limiter.refused(ticket, exc.retry_after)
                used += exc.attempts
                if used >= sender.retry.max_attempts:
                    raise
                await limiter.sleep(pause)  # Retry-After, for this request whatever the others do
                if stop.is_set():
                    return None
                ticket = await limiter.acquire()
                if stop.is_set():
                    limiter.release(ticket)
                    return None
                continue
            except BaseException:
                limiter.release(ticket)
                raise
            limiter.answered(ticket)
            return result

    async def send(items: list[Pending], params: dict[str, Any], scheme: Scheme = Scheme.XML) -> None:
        if stop.is_set():
            return
        ticket = await limiter.acquire()
        if stop.is_set():
            limiter.release(ticket)
            return
        sent = [encode(scheme, i.protected) for i in items]  # one text per item but with pieces
        costs = [sum(map(len, texts)) for texts in sent]
        fit = budget.fitting(costs)
        if fit < len(items):
            # Send what still fits, then stop: the rest is left for a run with a new budget.
            halt(StopReason.BUDGET, f"budget of {budget.limit} billed characters reached")
            items, costs, sent = items[:fit], costs[:fit], sent[:fit]
            if not items:
                limiter.release(ticket)
                return
        cost = sum(costs)
        budget.reserve(cost)
        billed = 0
        try:
            result = await translate([t for texts in sent for t in texts], params, ticket)
        except PayloadTooLargeError as exc:
            too_large = exc
        except QuotaExceededError as exc:
            halt(StopReason.QUOTA, f"quota exceeded: {exc.message}")
            return
        except (AuthenticationError, TransportError) as exc:
            halt(StopReason.SERVICE, str(exc))
            return
        except ServiceError as exc:
            for item in items:
                fail(item, f"the service refused the request: {exc}")
            return
        else:
            if result is None:
                return
            outcome.requests += 1
            answers, keys = None, None
            if scheme is not Scheme.XML:  # decode to the canonical form the gate and cache know
                answers = _decoded(scheme, items, sent, [t.text for t in result.translations])
                keys = [recovered_key(i.key, scheme) for i in items]
            billed = _record(
                items, result, cache, per_catalog, done, fail, outcome, progress, verify, answers, keys, costs
            )
            if scheme is not Scheme.XML:
                _count_recovery(report, scheme, items, done, notes, billed)
            return
        finally:
            budget.settle(cost, billed)
        # A 413 despite the measured size (a service with a smaller limit): split and retry, each
        # half with a ticket of its own.
        if len(items) == 1:
            fail(items[0], f"the service refused the text as too large: {too_large.message}")
            return
        half = len(items) // 2
        await asyncio.gather(send(items[:half], params, scheme), send(items[half:], params, scheme))

    async def recover() -> None:
        """Send the segments refused for their placeholders again, each scheme in turn, until they pass."""
        for scheme in RECOVERY:
            if stop.is_set() or not outcome.retry:
                break
            round_items, outcome.retry = outcome.retry, {}
            batches: list[Coroutine[Any, Any, None]] = []
            for opts, items in groups(round_items).items():
                usable = [i for i in items if applicable(scheme, i.protected, opts.model_type)]
                outcome.retry.update((i.key, i) for i in items if i not in usable)  # left for the next scheme
                params = {
                    **{k: v for k, v in request_params(opts).items() if k not in _SCHEME_PARAMS},
                    **scheme_params(scheme),
                }
                batches.extend(send(batch, params, scheme) for batch in _recovery_batches(scheme, usable))
            await asyncio.gather(*batches)
        for key, item in outcome.retry.items():  # no scheme got these past the gate (or the run stopped)
            if not stop.is_set():
                fail(
                    item,
                    f"translation not written: {outcome.first_problem.get(key)} (and damaged again "
                    f"however the placeholders were shown)",
                )
        if stop.is_set():  # left unsent, for the next run: it pays only for these
            outcome.finished.difference_update(outcome.retry)
        outcome.retry.clear()

    try:
        targets = _check_targets(await offered, pending, fail)
        tasks: list[Coroutine[Any, Any, None]] = []
        planned = 0
        for opts, items in groups(pending).items():
            if opts.target_lang not in targets:
                continue
            params = request_params(opts)
            packing = pack([i.protected.text for i in items], params)
            for index in packing.too_large:
                fail(items[index], "the text is too large for one request (128 KiB body limit)")
            planned += len(packing.batches)
            tasks.extend(send([items[i] for i in batch], params) for batch in packing.batches)
        report.context_requests += context_requests(pending, planned)
        log(
            f"sending {sum(len(p.refs) for p in pending.values())} segments "
            f"({len(pending)} unique texts) in about {len(tasks)} requests"
        )
        await asyncio.gather(*tasks)
        if outcome.retry:
            log(
                f"{sum(len(p.refs) for p in outcome.retry.values())} segments came back with damaged "
                f"placeholders: sending them again, showing the placeholders another way"
            )
            await recover()
    except (AuthenticationError, TransportError) as exc:
        halt(StopReason.SERVICE, str(exc))
    finally:
        progress.finish()
    return outcome


def new_limiter(settings: Settings) -> Limiter:
    """The limiter of a run's requests: it finds the service's limit, never above ``[service] concurrency``."""
    return Limiter(Controller(settings.service.concurrency))


#: Parameters a recovery scheme sets (or leaves out) itself.
_SCHEME_PARAMS = frozenset({"tag_handling", "tag_handling_version", "ignore_tags"})


def _decoded(scheme: Scheme, items: list[Pending], sent: list[tuple[str, ...]], returned: list[str]) -> list[str]:
    """The canonical answer of each item from the texts the service returned for a scheme's request."""
    answers: list[str] = []
    position = 0
    for item, texts in zip(items, sent, strict=True):
        part = returned[position : position + len(texts)]
        position += len(texts)
        if len(part) < len(texts):
            break  # fewer translations than texts: _record fails the rest
        answers.append(decode(scheme, item.protected, part))
    return answers


def _recovery_batches(scheme: Scheme, items: list[Pending]) -> list[list[Pending]]:
    """Recovery rounds are small: fill requests greedily, well inside the text and size limits."""
    batches: list[list[Pending]] = []
    count = size = 0
    for item in items:
        texts = encode(scheme, item.protected)
        weight = sum(protocol.encoded_text_size(t) + 1 for t in texts)
        if (
            batches
            and count + len(texts) <= protocol.MAX_TEXTS_PER_REQUEST
            and size + weight <= protocol.MAX_TRANSLATE_BODY_BYTES // 2
        ):
            batches[-1].append(item)
            count, size = count + len(texts), size + weight
        else:
            batches.append([item])
            count, size = len(texts), weight
    return batches


def _count_recovery(
    report: RunReport,
    scheme: Scheme,
    items: list[Pending],
    done: dict[SegmentKey, str],
    notes: dict[SegmentKey, str],
    billed: int,
) -> None:
    """Per language: the segments a scheme got past the gate, and what its requests cost."""
    for item in items:
        recovery = report.recovery.setdefault(item.options.target_lang, Recovery())
        recovered = [ref for ref in item.refs if ref.key in done]
        if recovered:
            recovery.segments[scheme.value] = recovery.segments.get(scheme.value, 0) + len(recovered)
        if scheme.needs_review_note:
            notes.update((ref.key, scheme.needs_review_note) for ref in recovered)
    if items:
        report.recovery.setdefault(items[0].options.target_lang, Recovery()).characters += billed


async def offered_targets(client: AsyncClient, report: RunReport) -> set[str]:
    """The target codes the service offers (upper case); their hash goes into the report.

    A catalog settled because its language is not offered is looked at again once the service's
    list changes.
    """
    languages = await client.languages("translate_text", include=("beta",))
    offered = {lang.code.upper() for lang in languages if lang.usable_as_target}
    report.service_languages = hashlib.sha256(" ".join(sorted(offered)).encode()).hexdigest()[:16]
    return offered


def _check_targets(offered: set[str], pending: dict[str, Pending], fail: Callable[..., None]) -> set[str]:
    """The wanted target codes the service offers; segments for the others fail with a reason."""
    wanted = {item.options.target_lang for item in pending.values()}
    for item in pending.values():
        if item.options.target_lang not in offered:
            fail(item, f"the service does not offer target language {item.options.target_lang}", cause=Cause.LANGUAGE)
    return wanted & offered


def _record(
    items: list[Pending],
    result: TranslateResult,
    cache: TranslationCache,
    per_catalog: dict[str, CatalogReport],
    done: dict[SegmentKey, str],
    fail: Callable[..., None],
    outcome: Outcome,
    progress: Progress,
    verify: Verify,
    answers: Sequence[str] | None = None,
    cache_keys: Sequence[str] | None = None,
    sizes: Sequence[int] | None = None,
) -> int:
    """Verify each returned text for each segment; cache and keep the good ones, report the others; returns billed.

    ``answers`` replaces the returned texts when a recovery scheme sent them another way (decoded to
    the canonical form), and ``cache_keys`` says where a verified answer is cached.
    """
    sizes = sizes if sizes is not None else [len(i.protected.text) for i in items]
    billed_total = result.billed_characters if result.billed_characters is not None else sum(sizes)
    shares = _shares(billed_total, sizes)
    catalogs_in_request: set[str] = set()
    verified: dict[str, str] = {}
    returned = answers if answers is not None else [t.text for t in result.translations]
    for index, (item, answer, billed) in enumerate(zip(items, returned, shares, strict=False)):
        per_catalog[item.refs[0].key.catalog].counters.billed_characters += billed
        catalogs_in_request.update(ref.key.catalog for ref in item.refs)
        judged = item.verdicts(answer, verify)
        passed = [(ref, v.text) for ref, v in judged if v.text is not None]
        refused = [(ref, v) for ref, v in judged if v.text is None]
        if passed:
            verified[cache_keys[index] if cache_keys else item.key] = answer
            for ref, text in passed:
                done[ref.key] = text
                per_catalog[ref.key.catalog].counters.segments_translated += 1
            progress.advance(item.options.target_lang, len(passed), billed)
        if not refused:
            outcome.finished.add(item.key)
            continue
        rest = replace(item, refs=[ref for ref, _ in refused])
        if all(v.retryable for _, v in refused):
            outcome.retry[item.key] = rest  # shown another way in a recovery round
            outcome.first_problem.setdefault(item.key, refused[0][1].problem or "")
        else:
            fail(
                rest,
                f"translation not written: {next(v.problem for _, v in refused if not v.retryable)}",
                0 if passed else billed,
            )
    cache.set_many(verified)  # one transaction per request, not one per text
    if len(returned) != len(items):
        for item in items[len(returned) :]:
            fail(item, "the service returned fewer translations than texts sent")
    for name in catalogs_in_request:
        per_catalog[name].counters.requests += 1
    return billed_total


def _shares(total: int, weights: Sequence[int]) -> list[int]:
    """Split ``total`` billed characters over texts in proportion to their lengths, exactly."""
    weight = sum(weights)
    if not weight:
        return [0] * len(weights)
    shares = [total * w // weight for w in weights]
    shares[-1] += total - sum(shares)
    return shares
