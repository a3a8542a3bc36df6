"""``pipeline refresh``: what it does and prints (``--merge-only``: :mod:`~pipeline.cli.commands.merge`).

Apart from ``pipeline check``'s module: a refresh loads neither the checks nor the XLIFF reader
unless its run reads a catalog that needs them.
"""

from __future__ import annotations

import argparse
import sys

from pipeline.cli.commands import print_issues, stderr_log
from pipeline.cli.commands.merge import merged_line, print_frozen_merges, print_merges, refresh_settings
from pipeline.cli.commands.reports import print_usage, report_dir, save_reports
from pipeline.errors import ExitCode
from pipeline.run.records import RunReport
from pipeline.run.report import awaiting_note, not_written_note, work_lines
from pipeline.workflows.merge import MergeOutcome
from pipeline.workflows.refresh import refresh as refresh_catalogs


def refresh(args: argparse.Namespace) -> int:
    settings = refresh_settings(args)
    template = args.template.resolve() if args.template else None
    outcome, report = refresh_catalogs(settings, args.paths, template, log=stderr_log(args.quiet), frozen=args.frozen)
    if report is None:  # no catalog merged: nothing to translate
        return print_merges(outcome, args)
    if args.frozen:  # a check: nothing written, not even the report
        return _print_frozen_refresh(outcome, report)
    report, json_path = save_reports(report, report_dir(args, settings))
    print_issues(report.issues, args.quiet)
    if not args.quiet:
        t = report.totals
        print(
            f"{merged_line(outcome)}; {t.segments_translated} segments translated, {t.segments_from_cache} from "
            f"cache, {t.segments_failed} failed{not_written_note(report)}{awaiting_note(t)}; "
            f"{t.billed_characters} characters billed; "
            + (f"report: {json_path}" if json_path else "no report written")
        )
        print_usage(report)
        if report.stopped is not None:
            print(f"stopped early: {report.stopped}", file=sys.stderr)
    return report.exit_code


def _print_frozen_refresh(outcome: MergeOutcome, report: RunReport) -> int:
    """What a refresh would merge and translate, one catalog a line, on stdout; returns the exit code (5: something)."""
    print_frozen_merges(outcome)
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
