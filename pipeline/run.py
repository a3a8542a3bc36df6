"""The one orchestrator: scan -> protect -> cache -> batch -> translate -> restore -> write -> report.

Per-segment problems become :class:`~pipeline.model.Issue` records and the run goes on. Only
three things stop it early, each saving what was already translated: the service refusing the
key or being unreachable (exit 4), and the quota running out (exit 3).

Order of safety: a translation is cached only after it was restored and verified, and a
catalog is written (atomically) only with verified translations, so a run stopped at any
moment leaves every file whole and a re-run pays only for what was not yet cached.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline import __version__, locales
from pipeline.batching import pack
from pipeline.cache import TranslationCache, cache_key
from pipeline.config import ENV_AUTH_KEY, ENV_SERVICE_URL, Settings
from pipeline.errors import (AuthenticationError, ExitCode, PayloadTooLargeError, QuotaExceededError, ServiceError,
                             TransportError, UsageError)
from pipeline.formats import atomic_write
from pipeline.model import Counters, Issue, Protected, Segment, SegmentKey, TranslationOptions
from pipeline.protect import TAG, PlaceholderMismatch, protect, restore
from pipeline.scan import ScannedCatalog, discover, scan

if TYPE_CHECKING:  # the client (httpx) is imported only when a request is really needed
    from pipeline.client import AsyncClient, TranslateResult

EMBEDDED_BASE_URL = "http://embedded.invalid"
ClientFactory = Callable[[], "AsyncClient"]


@dataclass(frozen=True)
class RunOptions:
    """What one ``pipeline translate`` invocation asks for, beyond the settings."""

    paths: tuple[Path, ...] = ()
    target_langs: tuple[str, ...] = ()
    dry_run: bool = False
    use_cache: bool = True


@dataclass
class CatalogReport:
    """The outcome for one catalog."""

    path: str
    target_lang: str
    counters: Counters = field(default_factory=Counters)
    written: bool = False


@dataclass
class RunReport:
    """The outcome of a run: what the report files and the exit code are made from."""

    service: str
    dry_run: bool
    catalogs: list[CatalogReport] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    totals: Counters = field(default_factory=Counters)
    duration_seconds: float = 0.0
    stopped: str | None = None  # why the run stopped early, if it did
    would_send: dict[str, int] = field(default_factory=dict)  # dry run: requests, characters, segments
    exit_code: int = ExitCode.OK


@dataclass
class _Pending:
    """One unique text to send, and every segment waiting for it."""

    options: TranslationOptions
    protected: Protected
    key: str
    refs: list[Segment]


def run_translate(settings: Settings, options: RunOptions, log: Callable[[str], None] | None = None,
                  client_factory: ClientFactory | None = None) -> RunReport:
    """Run a whole translation job synchronously; see :func:`translate_catalogs`."""
    return asyncio.run(translate_catalogs(settings, options, log or _stderr, client_factory))


def _stderr(message: str) -> None:
    print(f"pipeline: {message}", file=sys.stderr)


def service_identity(settings: Settings) -> str:
    """What names the service in cache keys: results of one service are not reused for another."""
    if settings.service.embedded:
        return f"embedded/{__version__}"
    return (settings.service.url or "").rstrip("/")


async def translate_catalogs(settings: Settings, options: RunOptions, log: Callable[[str], None],
                             client_factory: ClientFactory | None = None) -> RunReport:
    """Translate every catalog of the run and write the results back; never raises for per-segment trouble.

    ``client_factory`` replaces the client the settings describe (tests inject a transport this way).
    """
    started = time.monotonic()
    if not options.dry_run and not settings.service.url:
        raise UsageError(f"no translation service configured: pass --service-url URL (or 'embedded' for the "
                         f"local in-process service), or set {ENV_SERVICE_URL}, or set [service] url in pipeline.toml")
    report = RunReport(service=service_identity(settings), dry_run=options.dry_run)
    scanned, issues = scan(settings, discover(settings, options.paths), options.target_langs)
    report.issues.extend(issues)
    per_catalog = {s.display: CatalogReport(s.display, s.target_lang) for s in scanned}
    for s in scanned:
        per_catalog[s.display].counters.segments_skipped += s.skipped
    done: dict[SegmentKey, str] = {}  # segment -> verified translation
    pending = _plan(settings, scanned, per_catalog, done)
    cache = TranslationCache(settings.cache_dir if options.use_cache else None)
    try:
        pending = _serve_from_cache(cache, pending, per_catalog, done)
        if options.dry_run:
            report.would_send = _estimate(pending)
        elif pending:
            client = client_factory() if client_factory else _open_client(settings, log)
            await _send(settings, client, pending, cache, report, per_catalog, done, log)
    finally:
        cache.close()
    if not options.dry_run:
        for s in scanned:
            _write(settings, s, done, report, per_catalog[s.display])
    report.catalogs = list(per_catalog.values())
    requests = report.totals.requests  # a request can serve several catalogs: count it once
    for cat in report.catalogs:
        report.totals.add(cat.counters)
    report.totals.requests = requests
    report.duration_seconds = round(time.monotonic() - started, 3)
    report.exit_code = _exit_code(report)
    return report


def _plan(settings: Settings, scanned: list[ScannedCatalog], per_catalog: dict[str, CatalogReport],
          done: dict[SegmentKey, str]) -> dict[str, _Pending]:
    """Protect every segment; copy those with nothing to translate; dedupe the rest by cache key."""
    identity = service_identity(settings)
    source = locales.service_source(settings.source_lang)
    pending: dict[str, _Pending] = {}
    for s in scanned:
        for seg in s.segments:
            protected = protect(seg.text, seg.flags)
            if not protected.needs_translation:
                done[seg.key] = seg.text
                per_catalog[s.display].counters.segments_copied += 1
                continue
            opts = TranslationOptions(source_lang=source, target_lang=s.target_lang, context=seg.context)
            key = cache_key(identity, opts, protected.text)
            item = pending.get(key)
            if item is None:
                pending[key] = item = _Pending(opts, protected, key, [])
            item.refs.append(seg)
    return pending


def _serve_from_cache(cache: TranslationCache, pending: dict[str, _Pending], per_catalog: dict[str, CatalogReport],
                      done: dict[SegmentKey, str]) -> dict[str, _Pending]:
    left: dict[str, _Pending] = {}
    for key, item in pending.items():
        cached = cache.get(key)
        try:
            translated = restore(cached, item.protected) if cached is not None else None
        except PlaceholderMismatch:  # verified before it was stored, so the cache file was tampered with
            translated = None
        if translated is None:
            left[key] = item
            continue
        for ref in item.refs:
            done[ref.key] = translated
            counters = per_catalog[ref.key.catalog].counters
            counters.segments_from_cache += 1
            counters.characters_saved += len(item.protected.text)
    return left


def _estimate(pending: dict[str, _Pending]) -> dict[str, int]:
    """What a real run would send: requests (and their lower bound), characters billed, unique texts, segments."""
    requests = lower_bound = 0
    for texts in _groups(pending).values():
        packing = pack([p.protected.text for p in texts], _params(texts[0].options))
        requests += len(packing.batches)
        lower_bound += packing.lower_bound
    return {"requests": requests, "requests_lower_bound": lower_bound,
            "characters": sum(len(p.protected.text) for p in pending.values()),
            "texts": len(pending), "segments": sum(len(p.refs) for p in pending.values())}


def _groups(pending: dict[str, _Pending]) -> dict[TranslationOptions, list[_Pending]]:
    groups: dict[TranslationOptions, list[_Pending]] = defaultdict(list)
    for item in pending.values():
        groups[item.options].append(item)
    return groups


def _params(opts: TranslationOptions) -> dict[str, object]:
    from pipeline.client import translate_params

    return translate_params(source_lang=opts.source_lang, target_lang=opts.target_lang, context=opts.context,
                            formality=opts.formality, glossary_id=opts.glossary_id, style_id=opts.style_id,
                            model_type=opts.model_type, tag_handling="xml", ignore_tags=[TAG],
                            show_billed_characters=True)


def _open_client(settings: Settings, log: Callable[[str], None]) -> AsyncClient:
    import httpx

    from pipeline.client import AsyncClient, RetryPolicy

    retry = RetryPolicy(max_attempts=settings.service.max_attempts)
    common = {"retry": retry, "timeout": settings.service.timeout, "reporting_tag": settings.service.reporting_tag}
    if settings.service.embedded:
        from pipeline.service import AccountSpec, ServiceConfig, create_app

        key = secrets.token_urlsafe(24)  # lives only in this process
        app = create_app(ServiceConfig(accounts=(AccountSpec("paid", (key,)),)))
        log("using the embedded local service (in-process pseudo-translation, no network, no account)")
        return AsyncClient(EMBEDDED_BASE_URL, key, transport=httpx.ASGITransport(app=app), **common)
    key = os.environ.get(ENV_AUTH_KEY)
    if not key:
        raise UsageError(f"the service at {settings.service.url} needs a key: set {ENV_AUTH_KEY}")
    log(f"using the translation service at {settings.service.url}")
    return AsyncClient(settings.service.url, key, **common)  # type: ignore[arg-type]


async def _send(settings: Settings, client: AsyncClient, pending: dict[str, _Pending], cache: TranslationCache,
                report: RunReport, per_catalog: dict[str, CatalogReport], done: dict[SegmentKey, str],
                log: Callable[[str], None]) -> None:
    """Send every pending text, concurrently, and record verified results as they arrive."""
    stop = asyncio.Event()
    sent = 0  # requests answered, for the report's totals
    limiter = asyncio.Semaphore(settings.service.concurrency)

    def fail(item: _Pending, reason: str) -> None:
        for ref in item.refs:
            report.issues.append(Issue(ref.key.catalog, reason, ref.line, item.options.target_lang))
            per_catalog[ref.key.catalog].counters.segments_failed += 1

    async def send(items: list[_Pending], params: dict[str, object]) -> None:
        nonlocal sent
        if stop.is_set():
            return
        async with limiter:
            if stop.is_set():
                return
            try:
                result = await client.translate([i.protected.text for i in items], **params)
            except PayloadTooLargeError as exc:
                too_large = exc
            except QuotaExceededError as exc:
                report.stopped = f"quota exceeded: {exc.message}"
                stop.set()
                return
            except (AuthenticationError, TransportError) as exc:
                report.stopped = str(exc)
                stop.set()
                return
            except ServiceError as exc:
                for item in items:
                    fail(item, f"the service refused the request: {exc}")
                return
            else:
                sent += 1
                _record(items, result, cache, per_catalog, done, fail)
                return
        # A 413 despite the measured size (a service with a smaller limit): split and retry, the
        # halves outside this request's concurrency slot.
        if len(items) == 1:
            fail(items[0], f"the service refused the text as too large: {too_large.message}")
            return
        half = len(items) // 2
        await asyncio.gather(send(items[:half], params), send(items[half:], params))

    try:
        targets = await _check_targets(client, pending, fail)
        tasks = []
        for opts, items in _groups(pending).items():
            if opts.target_lang not in targets:
                continue
            params = _params(opts)
            packing = pack([i.protected.text for i in items], params)
            for index in packing.too_large:
                fail(items[index], "the text is too large for one request (128 KiB body limit)")
            tasks.extend(send([items[i] for i in batch], params) for batch in packing.batches)
        log(f"sending {sum(len(p.refs) for p in pending.values())} segments "
            f"({len(pending)} unique texts) in about {len(tasks)} requests")
        await asyncio.gather(*tasks)
    except (AuthenticationError, TransportError) as exc:
        report.stopped = str(exc)
    finally:
        report.totals.requests = sent
        await client.aclose()


async def _check_targets(client: AsyncClient, pending: dict[str, _Pending], fail: Callable[[_Pending, str], None]) -> set[str]:
    """The wanted target codes the service offers; segments for the others fail with a reason."""
    languages = await client.languages("translate_text", include=("beta",))
    offered = {lang.code.upper() for lang in languages if lang.usable_as_target}
    wanted = {item.options.target_lang for item in pending.values()}
    for item in pending.values():
        if item.options.target_lang not in offered:
            fail(item, f"the service does not offer target language {item.options.target_lang}")
    return wanted & offered


def _record(items: list[_Pending], result: TranslateResult, cache: TranslationCache, per_catalog: dict[str, CatalogReport],
            done: dict[SegmentKey, str], fail: Callable[[_Pending, str], None]) -> None:
    """Restore and verify each returned text; cache and keep the good ones, report the others."""
    texts = [i.protected.text for i in items]
    billed_total = result.billed_characters if result.billed_characters is not None else sum(map(len, texts))
    shares = _shares(billed_total, [len(t) for t in texts])
    catalogs_in_request: set[str] = set()
    for item, translation, billed in zip(items, result.translations, shares):
        per_catalog[item.refs[0].key.catalog].counters.billed_characters += billed
        catalogs_in_request.update(ref.key.catalog for ref in item.refs)
        try:
            restored = restore(translation.text, item.protected)
        except PlaceholderMismatch as exc:
            fail(item, f"translation not written: {exc}")
            continue
        if not restored.strip():
            fail(item, "translation not written: the service returned an empty text")
            continue
        cache.set(item.key, translation.text)
        for ref in item.refs:
            done[ref.key] = restored
            per_catalog[ref.key.catalog].counters.segments_translated += 1
    if len(result.translations) != len(items):
        for item in items[len(result.translations):]:
            fail(item, "the service returned fewer translations than texts sent")
    for name in catalogs_in_request:
        per_catalog[name].counters.requests += 1


def _shares(total: int, weights: Sequence[int]) -> list[int]:
    """Split ``total`` billed characters over texts in proportion to their lengths, exactly."""
    weight = sum(weights)
    if not weight:
        return [0] * len(weights)
    shares = [total * w // weight for w in weights]
    shares[-1] += total - sum(shares)
    return shares


def _write(settings: Settings, s: ScannedCatalog, done: dict[SegmentKey, str], report: RunReport,
           cat: CatalogReport) -> None:
    """Write every unit whose forms are all translated and verified; leave the rest untouched."""
    translations: dict[int, tuple[str, ...]] = {}
    for index, forms in s.source_forms.items():
        texts = [done.get(SegmentKey(s.display, index, form)) for form in forms]
        if any(t is None for t in texts):
            continue
        problem = next(filter(None, (s.catalog.write_problem(t) for t in texts)), None)  # type: ignore[arg-type]
        if problem:
            report.issues.append(Issue(s.display, f"not written: {problem}", s.catalog.units[index].line,
                                       s.target_lang))
            cat.counters.segments_failed += 1
            continue
        translations[index] = tuple(texts)  # type: ignore[arg-type]
    if not translations:
        return
    try:
        atomic_write(s.path, s.catalog.render(translations, mark_fuzzy=settings.mark_fuzzy))
        cat.written = True
    except OSError as exc:
        report.issues.append(Issue(s.display, f"cannot write the catalog: {exc.strerror}", None, s.target_lang))


def _exit_code(report: RunReport) -> int:
    if report.stopped and report.stopped.startswith("quota"):
        return ExitCode.QUOTA
    if report.stopped:
        return ExitCode.UNAVAILABLE
    if any(i.severity == "error" for i in report.issues):
        return ExitCode.PARTIAL
    return ExitCode.OK
