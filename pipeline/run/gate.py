"""The gate: the one place that decides whether a translation may be written.

Two checks, both here:

* :func:`verify` for every text that comes back from the service or out of the cache: the
  placeholders restored exactly (:func:`~pipeline.placeholders.protect.restore`) and something
  left besides them. Only a verified text is cached, and only a verified text reaches a catalog.
* :func:`admit` for every unit about to be written: all its forms verified, plural forms
  assembled from their representative-number texts (:mod:`pipeline.run.plurals`), the catalog
  format able to hold the text, and an approximate entry written only when it can stay fuzzy.

The sending and cache stages take :func:`verify` as an argument from the orchestrator, so
that this module stays the single verifier without the stages importing each other.
"""

from __future__ import annotations

from pipeline.config import Settings
from pipeline.model import Issue, Protected, SegmentKey, Severity
from pipeline.placeholders.protect import PlaceholderMismatch, restore
from pipeline.run import plurals
from pipeline.run.records import CatalogReport, RunReport, ScannedCatalog, Verdict

__all__ = ["admit", "verify"]


def verify(protected: Protected, translation: str) -> Verdict:
    """Restore ``translation`` (as the service returned it for ``protected``) and check it may be written."""
    try:
        restored = restore(translation, protected)
    except PlaceholderMismatch as exc:
        return Verdict(None, str(exc))
    if not restored.strip():
        return Verdict(None, "the service returned an empty text")
    return Verdict(restored)


def admit(settings: Settings, s: ScannedCatalog, done: dict[SegmentKey, str], report: RunReport,
          cat: CatalogReport) -> dict[int, tuple[str, ...]]:
    """The units of ``s`` that may be written (index -> target forms); reports why the others may not."""
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
                                       s.catalog.units[index].line, s.target_lang, severity=Severity.SKIPPED)
                                 for w in warnings)
            cat.counters.segments_skipped += 1
            continue
        report.issues.extend(Issue(s.display, w, s.catalog.units[index].line, s.target_lang, severity=Severity.WARNING)
                             for w in warnings)
        translations[index] = tuple(texts)  # type: ignore[arg-type]
    return translations
