"""Translating the catalogs a run could not skip: scan -> protect -> cache -> batch -> send -> restore -> write.

:mod:`pipeline.run` starts every run and skips the catalogs an earlier run settled; this module,
imported only when some catalog is left (or for a dry run), does the work on the others. Sending,
with its budget and concurrency, lives in :mod:`pipeline.sending`. Texts go out in at most two
rounds sharing one budget: everything the catalogs need, then the plural fallback texts of the
forms whose representative number did not come back (:mod:`pipeline.plurals`).

Order of safety: a translation is cached only after it was restored and verified, and a
catalog is written (atomically) only with verified translations, so a run stopped at any
moment leaves every file whole and a re-run pays only for what was not yet cached. Every
translation written is recorded with its provenance (:mod:`pipeline.state`).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline import locales, plurals
from pipeline.cache import TranslationCache, cache_key
from pipeline.config import Settings
from pipeline.errors import AuthenticationError, QuotaExceededError, TransportError
from pipeline.formats import Unit, atomic_write
from pipeline.model import Issue, Protected, Segment, SegmentKey, TranslationOptions
from pipeline.progress import Progress
from pipeline.protect import PlaceholderMismatch, protect, restore
from pipeline.resources.plan import ResourcePlan
from pipeline.run import QUOTA_STOP, CatalogReport, RunReport, StartedRun, service_identity
from pipeline.scan import ScannedCatalog, scan
from pipeline.sending import Budget, ClientFactory, estimate, open_client, send_all
from pipeline.state import RunState, Settled

if TYPE_CHECKING:  # the client (httpx) is imported only when a request is really needed
    from pipeline.client import AsyncClient


@dataclass
class _Pending:
    """One unique text to send, and every segment waiting for it."""

    options: TranslationOptions
    protected: Protected
    key: str
    refs: list[Segment]


def translation_options(settings: Settings, target_lang: str, context: str | None,
                        resources: ResourcePlan | None = None) -> TranslationOptions:
    """The options every segment of ``target_lang`` is sent with (``context`` aside)."""
    if resources is not None:  # glossary, style list, formality, model type, translation memory
        return resources.options(locales.service_source(settings.source_lang), target_lang, context)
    return TranslationOptions(source_lang=locales.service_source(settings.source_lang), target_lang=target_lang,
                              context=context)


async def translate(run: StartedRun, log: Callable[[str], None], client_factory: ClientFactory | None = None,
                    progress: Progress | None = None) -> None:
    """Scan the catalogs ``run`` has left, translate what they need and write the results back into them.

    Fills ``run.report`` (issues, per-catalog counters, timings); never raises for per-segment
    trouble. ``client_factory`` replaces the client the settings describe (tests inject a
    transport this way).
    """
    settings, options, report, state, per_catalog = run.settings, run.options, run.report, run.state, run.per_catalog
    clock = run.started
    resources = ResourcePlan(settings)  # glossary files are read and checked before any request
    snapshots = {path: _snapshot(path) for path in run.paths}  # taken before parsing: see _settle
    inputs: dict[str, str] = {}  # target -> inputs hash of its options, for provenance

    def inputs_hash(target: str) -> str:
        if target not in inputs:
            inputs[target] = translation_options(settings, target, None, resources).inputs_hash()
        return inputs[target]

    def stale(display: str, target: str, unit: Unit) -> bool:
        return state.is_stale(display, unit, inputs_hash(target))

    scanned, issues = scan(settings, run.paths, options.target_langs, **(
        {"retranslate": stale} if options.retranslate_stale else {}))
    report.issues.extend(issues)
    for s in scanned:
        per_catalog[s.display] = CatalogReport(s.display, s.target_lang)
        per_catalog[s.display].counters.segments_skipped += s.skipped
    done: dict[SegmentKey, str] = {}  # segment -> verified translation
    pending, spare = _plan(settings, scanned, per_catalog, done, resources)
    report.timings["scan"], clock = round(time.monotonic() - clock, 3), time.monotonic()
    if pending or spare:  # a run with nothing to send opens neither the cache nor a client
        cache = TranslationCache(settings.cache_dir if options.use_cache else None)
        try:
            pending = _serve_from_cache(cache, pending, per_catalog, done)
            # Number sentences the cache answered already tell which fallbacks are needed.
            needed = _serve_from_cache(cache, _needed(scanned, spare, done), per_catalog, done)
            if options.dry_run:
                report.would_send = {**estimate({**pending, **needed}), "fallback_texts": sum(
                    1 for key in spare if key not in needed and cache.get(key) is None)}
            elif pending or needed:
                client = client_factory() if client_factory else open_client(settings, log)
                try:
                    left = await _send_rounds(settings, client, cache, resources, scanned, pending, spare, report,
                                              per_catalog, done, log, progress)
                finally:
                    await client.aclose()
                if left:
                    report.remaining = {"segments": sum(len(p.refs) for p in left), "texts": len(left),
                                        "characters": sum(len(p.protected.text) for p in left)}
        finally:
            cache.close()
    if options.dry_run and not report.would_send:
        report.would_send = {**estimate({}), "fallback_texts": 0}
    report.timings["translate"], clock = round(time.monotonic() - clock, 3), time.monotonic()
    if not options.dry_run:
        failed = {i.catalog for i in report.issues if i.severity == "error"}
        for s in scanned:
            before = len(report.issues)
            written, data = _write(settings, s, done, report, per_catalog[s.display], snapshots.get(s.path))
            if written:
                state.record(s.display, ((s.catalog.units[i], forms, inputs_hash(s.target_lang))
                                         for i, forms in written.items()))
            failed.update(i.catalog for i in report.issues[before:] if i.severity == "error")
            _settle(state, s, run.fingerprint, data or snapshots.get(s.path), written, s.display in failed, report)
        run.save_state()
    report.timings["write"] = round(time.monotonic() - clock, 3)


async def _send_rounds(settings: Settings, client: AsyncClient, cache: TranslationCache, resources: ResourcePlan,
                       scanned: list[ScannedCatalog], pending: dict[str, _Pending], spare: dict[str, _Pending],
                       report: RunReport, per_catalog: dict[str, CatalogReport], done: dict[SegmentKey, str],
                       log: Callable[[str], None], progress: Progress | None) -> list[_Pending]:
    """Send round one, then the fallbacks of the plural forms whose number did not come back; returns what is left.

    Both rounds share one budget; a stop in round one (budget, quota, service) means no round two.
    """
    from pipeline.resources.attach import attach_resources

    try:
        attached = await attach_resources(client, resources, {**pending, **spare}, report.service, report.issues,
                                          log)
    except QuotaExceededError as exc:  # what the cache served is still written
        report.stopped = f"{QUOTA_STOP}: {exc.message}"
        return list(pending.values())
    except (AuthenticationError, TransportError) as exc:
        report.stopped = str(exc)
        return list(pending.values())
    fallback_keys = {seg.key for s in scanned for seg in s.fallbacks}
    pending, spare = _split(attached, fallback_keys)
    pending = _serve_from_cache(cache, pending, per_catalog, done)  # keys of features left out
    budget = Budget(settings.max_characters)
    progress = progress or Progress()
    left: list[_Pending] = []
    for first in (True, False):
        if not first:
            if report.stopped:
                break
            pending = _serve_from_cache(cache, _needed(scanned, spare, done), per_catalog, done)
            if pending:
                entries = {(ref.key.catalog, ref.key.unit) for p in pending.values() for ref in p.refs}
                log(f"{len(entries)} plural entries need a fallback text: a representative number did not come back")
        if not pending:
            continue
        progress.start(_per_language(pending))
        outcome = await send_all(settings, client, pending, cache, report, per_catalog, done, log, progress, budget)
        report.totals.requests += outcome.requests
        left.extend(p for p in pending.values() if p.key not in outcome.finished)
    return left


def _per_language(pending: dict[str, _Pending]) -> Counter[str]:
    totals: Counter[str] = Counter()
    for item in pending.values():
        totals[item.options.target_lang] += len(item.refs)
    return totals


def _snapshot(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _settle(state: RunState, s: ScannedCatalog, fingerprint: str, data: bytes | None,
            written: dict[int, tuple[str, ...]], failed: bool, report: RunReport) -> None:
    """Remember ``s`` as settled when nothing is left to do in it, so the next run skips it unread.

    ``data`` is what was parsed (read before parsing) or what was written: if the file changed in
    between, its hash no longer matches and the next run parses it again, which is always safe.
    """
    if failed or data is None or set(written) != set(s.source_forms):
        state.unsettle(s.display)
        return
    notices = tuple((i.line, i.reason, i.severity) for i in report.issues if i.catalog == s.display)
    try:
        stat = s.path.stat()
    except OSError:
        state.unsettle(s.display)
        return
    if stat.st_size != len(data):
        state.unsettle(s.display)
        return
    state.settle(s.display, Settled(stat.st_size, stat.st_mtime_ns, hashlib.sha256(data).hexdigest(), fingerprint,
                                    s.locale, s.target_lang, s.skipped, notices))


def _plan(settings: Settings, scanned: list[ScannedCatalog], per_catalog: dict[str, CatalogReport],
          done: dict[SegmentKey, str], resources: ResourcePlan) -> tuple[dict[str, _Pending], dict[str, _Pending]]:
    """Protect every segment; copy those with nothing to translate; dedupe the rest by cache key.

    Returns the texts of round one, and the spare ones: plural fallback texts that no round-one
    text shares a key with (a fallback that does rides along for free).
    """
    identity = service_identity(settings)
    pending: dict[str, _Pending] = {}
    fallback_keys: set[SegmentKey] = set()
    per_context: dict[tuple[str, str | None], TranslationOptions] = {}  # few distinct, thousands of segments
    for s in scanned:
        fallback_keys.update(seg.key for seg in s.fallbacks)
        for seg in (*s.segments, *s.fallbacks):
            protected = protect(seg.text, seg.flags)
            if not protected.needs_translation:
                done[seg.key] = seg.text
                if seg.key not in fallback_keys:  # a fallback counts only where it is used
                    per_catalog[s.display].counters.segments_copied += 1
                continue
            opts = per_context.get((s.target_lang, seg.context))
            if opts is None:
                opts = per_context[s.target_lang, seg.context] = translation_options(settings, s.target_lang,
                                                                                     seg.context, resources)
            key = cache_key(identity, resources.key_options(opts, protected.text), protected.text)
            item = pending.get(key)
            if item is None:
                pending[key] = item = _Pending(opts, protected, key, [])
            item.refs.append(seg)
    return _split(pending, fallback_keys)


def _split(pending: dict[str, _Pending],
           fallback_keys: set[SegmentKey]) -> tuple[dict[str, _Pending], dict[str, _Pending]]:
    """Round-one texts, and the texts only plural fallbacks wait for."""
    first: dict[str, _Pending] = {}
    spare: dict[str, _Pending] = {}
    for key, item in pending.items():
        (spare if all(ref.key in fallback_keys for ref in item.refs) else first)[key] = item
    return first, spare


def _needed(scanned: list[ScannedCatalog], spare: dict[str, _Pending],
            done: dict[SegmentKey, str]) -> dict[str, _Pending]:
    """The spare texts some plural form now needs (its number did not come back), with only the refs that need them."""
    if not spare:
        return {}
    wanted: set[SegmentKey] = set()
    for s in scanned:
        for index, plan in s.plural_plans.items():
            if plan.fallbacks:
                missing = plurals.missing_fallbacks(plan, lambda f: done.get(SegmentKey(s.display, index, f)),
                                                    s.catalog.units[index].flags)
                wanted.update(SegmentKey(s.display, index, form) for form in missing)
    needed: dict[str, _Pending] = {}
    for key, item in spare.items():
        refs = [ref for ref in item.refs if ref.key in wanted]
        if refs:
            needed[key] = replace(item, refs=refs)
    return needed


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


def _write(settings: Settings, s: ScannedCatalog, done: dict[SegmentKey, str], report: RunReport,
           cat: CatalogReport, read: bytes | None) -> tuple[dict[int, tuple[str, ...]], bytes | None]:
    """Write every unit whose forms are all translated and verified; leave the rest untouched.

    ``read`` is the catalog's bytes before it was parsed: a file that no longer has them (saved by
    a translator, removed, switched by a checkout while the requests were out) is left alone.
    Returns the units written (index -> forms) and the bytes written, or ``({}, None)``.
    """
    translations: dict[int, tuple[str, ...]] = {}
    for index, forms in s.source_forms.items():
        texts = [done.get(SegmentKey(s.display, index, form)) for form in forms]
        warnings: tuple[str, ...] = ()
        if index in s.plural_plans:  # representative-number forms: put the count back, or fall back
            assembled = plurals.assemble(s.plural_plans[index], lambda f: done.get(SegmentKey(s.display, index, f)),
                                         s.catalog.units[index].flags)
            texts, warnings = list(assembled.texts or (None,)), assembled.warnings
        if any(t is None for t in texts):
            continue
        problem = next(filter(None, (s.catalog.write_problem(t, index) for t in texts)), None)  # type: ignore[arg-type]
        if problem:
            report.issues.append(Issue(s.display, f"not written: {problem}", s.catalog.units[index].line,
                                       s.target_lang))
            cat.counters.segments_failed += 1
            continue
        if warnings and not settings.mark_fuzzy:  # an approximate entry must stay fuzzy: leave it for a human
            report.issues.extend(Issue(s.display, f"not written (fuzzy marking is off): {w}",
                                       s.catalog.units[index].line, s.target_lang, severity="skipped")
                                 for w in warnings)
            cat.counters.segments_skipped += 1
            continue
        report.issues.extend(Issue(s.display, w, s.catalog.units[index].line, s.target_lang, severity="warning")
                             for w in warnings)
        translations[index] = tuple(texts)  # type: ignore[arg-type]
    if not translations:
        return {}, None
    data = s.catalog.render(translations, mark_fuzzy=settings.mark_fuzzy)
    if read is None or _snapshot(s.path) != read:
        report.issues.append(Issue(s.display, "not written: the catalog was changed or removed during the run; "
                                   "run again (the translations are cached)", None, s.target_lang))
        return {}, None
    try:
        atomic_write(s.path, data)
        cat.written = True
    except OSError as exc:
        report.issues.append(Issue(s.display, f"cannot write the catalog: {exc.strerror}", None, s.target_lang))
        return {}, None
    return translations, data
