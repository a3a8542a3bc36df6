"""``pipeline refresh``: the nightly job. Merge templates into catalogs, then translate what is new or stale.

Steps, each safe to stop after:

1. merge: every PO catalog is updated from its template and written atomically when it changed
   (:mod:`pipeline.workflows.merge`, which also says which template belongs to a catalog);
2. translate: :func:`pipeline.run.orchestrate.run_translate` with ``retranslate_stale``: untranslated units are
   translated, and fuzzy units still holding our untouched machine translation are re-translated
   when their source, glossary or style list changed; a unit a human edited or confirmed is never
   touched. Glossaries and style lists are synced by that run (``pipeline.resources.attach``) before
   the first request that uses them, found by content hash, so an unchanged one costs nothing;
3. the report (``report.json`` / ``report.md``) of the run, with the merge's problems among its issues.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.config import Settings
from pipeline.errors import ExitCode
from pipeline.model import Severity
from pipeline.run import cache_folder
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.workflows.merge import MergeOutcome, merge_templates

if TYPE_CHECKING:
    from pipeline.connect import ClientFactory
    from pipeline.run.records import RunReport


def refresh(
    settings: Settings,
    paths: Sequence[Path] = (),
    template: Path | None = None,
    *,
    merge_only: bool = False,
    log: Callable[[str], None] = lambda message: None,
    client_factory: ClientFactory | None = None,
    frozen: bool = False,
) -> tuple[MergeOutcome, RunReport | None]:
    """Merge, then translate new and stale entries; returns ``(MergeOutcome, RunReport or None)``.

    ``frozen``: merge in memory and estimate the translation (a dry run), writing and sending
    nothing; the report's exit code is 5 when a refresh would change a catalog. The estimate of a
    catalog the merge would change is of the catalog before the merge (its new entries come on top).
    """
    if not frozen:  # the merge locks catalogs and saves its state in the cache folder too: asked once for both
        settings = cache_folder.usable(settings, log)
    outcome = merge_templates(settings, paths, template, log=log, frozen=frozen)
    if merge_only or not outcome.merged_paths:
        return outcome, None
    options = RunOptions(paths=tuple(outcome.merged_paths), retranslate_stale=True, dry_run=frozen, frozen=frozen)
    report = run_translate(settings, options, log, client_factory)
    code = report.exit_code
    if any(i.severity is Severity.ERROR for i in outcome.issues) and code in (0, ExitCode.PENDING):
        code = ExitCode.PARTIAL
    elif frozen and code == 0 and any(c.written for c in outcome.catalogs):
        code = ExitCode.PENDING
    return outcome, replace(report, issues=[*outcome.issues, *report.issues], exit_code=code)
