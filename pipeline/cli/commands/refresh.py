"""``pipeline refresh``: what it does and prints.

Apart from ``pipeline check``'s module: a refresh loads neither the checks nor the XLIFF reader
unless its run reads a catalog that needs them.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from pipeline.cli.commands import load_cli_settings, print_issues, print_usage, report_dir, save_reports, stderr_log
from pipeline.errors import ExitCode, UsageError
from pipeline.model import Severity
from pipeline.run.records import RunReport
from pipeline.run.report import awaiting_note, work_lines
from pipeline.workflows.refresh import MergeOutcome
from pipeline.workflows.refresh import refresh as refresh_catalogs


def refresh(args: argparse.Namespace) -> int:
    settings = load_cli_settings(args)
    if args.max_characters is not None:
        if args.max_characters < 0:
            raise UsageError("--max-characters must be 0 or more")
        settings = replace(settings, max_characters=args.max_characters)
    template = args.template.resolve() if args.template else None
    outcome, report = refresh_catalogs(
        settings, args.paths, template, merge_only=args.merge_only, log=stderr_log(args.quiet), frozen=args.frozen
    )
    if args.frozen:  # a check: nothing written, not even the report
        return _print_frozen_refresh(outcome, report)
    changed = sum(1 for c in outcome.catalogs if c.written)
    merged = (
        f"{changed} of {len(outcome.catalogs)} catalogs updated from their template"
        if outcome.catalogs
        else "no catalog merged (no template for them)"
    )
    if report is None:
        print_issues(outcome.issues, args.quiet)
        if not args.quiet:
            print(merged)
        return ExitCode.PARTIAL if any(i.severity is Severity.ERROR for i in outcome.issues) else ExitCode.OK
    report, json_path = save_reports(report, report_dir(args, settings))
    print_issues(report.issues, args.quiet)
    if not args.quiet:
        t = report.totals
        print(
            f"{merged}; {t.segments_translated} segments translated, {t.segments_from_cache} from cache, "
            f"{t.segments_failed} failed{awaiting_note(t)}; {t.billed_characters} characters billed; "
            + (f"report: {json_path}" if json_path else "no report written")
        )
        print_usage(report)
        if report.stopped is not None:
            print(f"stopped early: {report.stopped}", file=sys.stderr)
    return report.exit_code


def _print_frozen_refresh(outcome: MergeOutcome, report: RunReport | None) -> int:
    """What a refresh would merge and translate, one catalog a line, on stdout; returns the exit code (5: something)."""

    merges = [
        f"{c.path}\tmerge: {c.added} added, {c.fuzzy} fuzzy, {c.obsoleted} obsolete, {c.revived} revived, "
        f"{c.removed} removed"
        for c in outcome.catalogs
        if c.written
    ]
    if merges:
        print(f"pipeline refresh --frozen: the merge would change {len(merges)} catalog(s):")
        print("\n".join(merges))
    if report is None:
        print_issues(outcome.issues, quiet=True)
        errors = any(i.severity is Severity.ERROR for i in outcome.issues)
        code = ExitCode.PARTIAL if errors else ExitCode.PENDING if merges else ExitCode.OK
    else:
        print_issues(report.issues, quiet=True)  # the merge's problems are among them
        lines = work_lines(report)
        if lines:
            characters = report.would_send.characters if report.would_send else 0
            print(
                f"pipeline refresh --frozen: translating would change {len(lines)} catalog(s), billing about "
                f"{characters} characters (counted before the merge):"
            )
            print("\n".join(lines))
        code = report.exit_code
    if code == ExitCode.OK:
        print("pipeline refresh --frozen: nothing to merge or translate")
    return code
