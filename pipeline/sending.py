"""Sending the run's unique texts: grouped by options, packed, sent concurrently within a budget.

One semaphore bounds the requests in flight across every target language, so a run over many
languages keeps ``concurrency`` requests busy until the last batch. The budget
(``max_characters``) is checked before each request: a request reserves the characters it will
be billed (the service bills every character of the texts sent, tags included, and nothing for
``context``), so concurrent requests can never together go beyond the budget.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections import defaultdict
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pipeline.batching import pack
from pipeline.cache import TranslationCache
from pipeline.config import ENV_AUTH_KEY, Settings
from pipeline.errors import (AuthenticationError, PayloadTooLargeError, QuotaExceededError, ServiceError,
                             TransportError, UsageError)
from pipeline.model import Issue, SegmentKey, TranslationOptions
from pipeline.progress import Progress
from pipeline.protect import TAG, PlaceholderMismatch, restore
from pipeline.run import BUDGET_STOP, EMBEDDED_BASE_URL, QUOTA_STOP

if TYPE_CHECKING:  # the client (httpx) is imported only when a request is really needed
    from pipeline.client import AsyncClient, TranslateResult
    from pipeline.run import CatalogReport, RunReport
    from pipeline.translating import _Pending

ClientFactory = Callable[[], "AsyncClient"]


@dataclass
class Budget:
    """Billed characters a run may still spend; None means no limit."""

    limit: int | None
    spent: int = 0
    reserved: int = 0

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


def groups(pending: dict[str, _Pending], with_context: bool = True) -> dict[TranslationOptions, list[_Pending]]:
    """Pending texts by the options they share (one request carries one set of options)."""
    grouped: dict[TranslationOptions, list[_Pending]] = defaultdict(list)
    without: dict[TranslationOptions, TranslationOptions] = {}  # a few distinct options, thousands of texts
    for item in pending.values():
        opts = item.options
        if not with_context:
            if opts not in without:
                without[opts] = replace(opts, context=None)
            opts = without[opts]
        grouped[opts].append(item)
    return grouped


def params(opts: TranslationOptions) -> dict[str, Any]:
    """The translate request's parameters (without ``text``) for a group's options."""
    from pipeline.client import translate_params

    return translate_params(source_lang=opts.source_lang, target_lang=opts.target_lang, context=opts.context,
                            formality=opts.formality, glossary_id=opts.glossary_id, style_id=opts.style_id,
                            model_type=opts.model_type, custom_instructions=opts.custom_instructions,
                            translation_memory_id=opts.translation_memory_id,
                            translation_memory_threshold=opts.translation_memory_threshold,
                            tag_handling="xml", tag_handling_version=opts.tag_handling_version, ignore_tags=[TAG],
                            show_billed_characters=True)


def context_requests(pending: dict[str, _Pending], planned: int) -> int:
    """Requests that grouping by context costs: ``planned`` minus what the texts would need without context."""
    without = 0
    for opts, items in groups(pending, with_context=False).items():
        texts = list(dict.fromkeys(i.protected.text for i in items))  # without context, equal texts merge
        without += len(pack(texts, params(opts)).batches)
    return max(0, planned - without)


def estimate(pending: dict[str, _Pending]) -> dict[str, int]:
    """What a real run would send: requests (and their lower bound), characters billed, unique texts, segments."""
    requests = lower_bound = 0
    for opts, items in groups(pending).items():
        packing = pack([p.protected.text for p in items], params(opts))
        requests += len(packing.batches)
        lower_bound += packing.lower_bound
    return {"requests": requests, "requests_lower_bound": lower_bound,
            "context_requests": context_requests(pending, requests),
            "characters": sum(len(p.protected.text) for p in pending.values()),
            "texts": len(pending), "segments": sum(len(p.refs) for p in pending.values())}


def open_client(settings: Settings, log: Callable[[str], None]) -> AsyncClient:
    """The async client the settings describe: the embedded service in-process, or the configured URL."""
    import httpx

    from pipeline.client import AsyncClient, RetryPolicy

    retry = RetryPolicy(max_attempts=settings.service.max_attempts)
    common: dict[str, Any] = {"retry": retry, "timeout": settings.service.timeout,
                              "reporting_tag": settings.service.reporting_tag}
    if settings.service.embedded:
        from pipeline.service import AccountSpec, ServiceConfig, create_app

        key = secrets.token_urlsafe(24)  # lives only in this process
        app = create_app(ServiceConfig(accounts=(AccountSpec("paid", (key,)),)))
        log("using the embedded local service (in-process pseudo-translation, no network, no account)")
        return AsyncClient(EMBEDDED_BASE_URL, key, transport=httpx.ASGITransport(app=app), **common)
    remote_key = os.environ.get(ENV_AUTH_KEY)
    if not remote_key or not settings.service.url:
        raise UsageError(f"the service at {settings.service.url} needs a key: set {ENV_AUTH_KEY}")
    log(f"using the translation service at {settings.service.url}")
    return AsyncClient(settings.service.url, remote_key, **common)


async def send_all(settings: Settings, client: AsyncClient, pending: dict[str, _Pending], cache: TranslationCache,
                   report: RunReport, per_catalog: dict[str, CatalogReport], done: dict[SegmentKey, str],
                   log: Callable[[str], None], progress: Progress, budget: Budget) -> Outcome:
    """Send every pending text, concurrently and within the budget; record verified results as they arrive.

    ``budget`` is shared by the rounds of one run (plural fallbacks are a second round); the caller
    closes ``client``.
    """
    stop = asyncio.Event()
    outcome = Outcome()
    limiter = asyncio.Semaphore(settings.service.concurrency)

    def halt(reason: str) -> None:
        if report.stopped is None:
            report.stopped = reason
        stop.set()

    def fail(item: _Pending, reason: str, billed: int = 0) -> None:
        outcome.finished.add(item.key)
        for ref in item.refs:
            report.issues.append(Issue(ref.key.catalog, reason, ref.line, item.options.target_lang))
            per_catalog[ref.key.catalog].counters.segments_failed += 1
        progress.advance(item.options.target_lang, len(item.refs), billed)

    async def send(items: list[_Pending], request_params: dict[str, Any]) -> None:
        if stop.is_set():
            return
        async with limiter:
            if stop.is_set():
                return
            costs = [len(i.protected.text) for i in items]
            fit = budget.fitting(costs)
            if fit < len(items):
                # Send what still fits, then stop: the rest is left for a run with a new budget.
                halt(f"{BUDGET_STOP} of {budget.limit} billed characters reached")
                items, costs = items[:fit], costs[:fit]
                if not items:
                    return
            cost = sum(costs)
            budget.reserve(cost)
            billed = 0
            try:
                result = await client.translate([i.protected.text for i in items], **request_params)
            except PayloadTooLargeError as exc:
                too_large = exc
            except QuotaExceededError as exc:
                halt(f"{QUOTA_STOP}: {exc.message}")
                return
            except (AuthenticationError, TransportError) as exc:
                halt(str(exc))
                return
            except ServiceError as exc:
                for item in items:
                    fail(item, f"the service refused the request: {exc}")
                return
            else:
                outcome.requests += 1
                billed = _record(items, result, cache, per_catalog, done, fail, outcome, progress)
                return
            finally:
                budget.settle(cost, billed)
        # A 413 despite the measured size (a service with a smaller limit): split and retry, the
        # halves outside this request's concurrency slot.
        if len(items) == 1:
            fail(items[0], f"the service refused the text as too large: {too_large.message}")
            return
        half = len(items) // 2
        await asyncio.gather(send(items[:half], request_params), send(items[half:], request_params))

    try:
        targets = await _check_targets(client, pending, fail)
        tasks: list[Coroutine[Any, Any, None]] = []
        planned = 0
        for opts, items in groups(pending).items():
            if opts.target_lang not in targets:
                continue
            request_params = params(opts)
            packing = pack([i.protected.text for i in items], request_params)
            for index in packing.too_large:
                fail(items[index], "the text is too large for one request (128 KiB body limit)")
            planned += len(packing.batches)
            tasks.extend(send([items[i] for i in batch], request_params) for batch in packing.batches)
        report.context_requests += context_requests(pending, planned)
        log(f"sending {sum(len(p.refs) for p in pending.values())} segments "
            f"({len(pending)} unique texts) in about {len(tasks)} requests")
        await asyncio.gather(*tasks)
    except (AuthenticationError, TransportError) as exc:
        halt(str(exc))
    finally:
        progress.finish()
    return outcome


async def _check_targets(client: AsyncClient, pending: dict[str, _Pending],
                         fail: Callable[[_Pending, str], None]) -> set[str]:
    """The wanted target codes the service offers; segments for the others fail with a reason."""
    languages = await client.languages("translate_text", include=("beta",))
    offered = {lang.code.upper() for lang in languages if lang.usable_as_target}
    wanted = {item.options.target_lang for item in pending.values()}
    for item in pending.values():
        if item.options.target_lang not in offered:
            fail(item, f"the service does not offer target language {item.options.target_lang}")
    return wanted & offered


def _record(items: list[_Pending], result: TranslateResult, cache: TranslationCache,
            per_catalog: dict[str, CatalogReport], done: dict[SegmentKey, str], fail: Callable[..., None],
            outcome: Outcome, progress: Progress) -> int:
    """Restore and verify each returned text; cache and keep the good ones, report the others; returns billed."""
    texts = [i.protected.text for i in items]
    billed_total = result.billed_characters if result.billed_characters is not None else sum(map(len, texts))
    shares = _shares(billed_total, [len(t) for t in texts])
    catalogs_in_request: set[str] = set()
    verified: dict[str, str] = {}
    for item, translation, billed in zip(items, result.translations, shares):
        per_catalog[item.refs[0].key.catalog].counters.billed_characters += billed
        catalogs_in_request.update(ref.key.catalog for ref in item.refs)
        try:
            restored = restore(translation.text, item.protected)
        except PlaceholderMismatch as exc:
            fail(item, f"translation not written: {exc}", billed)
            continue
        if not restored.strip():
            fail(item, "translation not written: the service returned an empty text", billed)
            continue
        verified[item.key] = translation.text
        outcome.finished.add(item.key)
        for ref in item.refs:
            done[ref.key] = restored
            per_catalog[ref.key.catalog].counters.segments_translated += 1
        progress.advance(item.options.target_lang, len(item.refs), billed)
    cache.set_many(verified)  # one transaction per request, not one per text
    if len(result.translations) != len(items):
        for item in items[len(result.translations):]:
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
