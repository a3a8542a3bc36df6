"""What the commands that run a translation (``translate``, ``refresh``) print and save at its end: the
account's usage line and the run's reports."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from pipeline.config import REPORT_SUBDIR, Settings, project_dir
from pipeline.errors import ExitCode
from pipeline.run import report as report_files
from pipeline.run.records import RunReport
from pipeline.run.report import usage_line


def report_dir(args: argparse.Namespace, settings: Settings) -> Path:
    """Where the report goes: ``--report-dir``, else the configured folder, else the project's cache folder."""
    if args.report_dir:
        given: Path = args.report_dir
        return given.resolve()
    return settings.report_dir or project_dir(settings.root) / REPORT_SUBDIR


def print_usage(report: RunReport) -> None:
    """The account's usage before and after the run, on stderr, when it was read.

    Why it was not (the usage call failed, no limit) was said once while the run went on.
    """
    if report.usage is not None and report.usage.before is not None:
        print(f"pipeline: {usage_line(report)}", file=sys.stderr)


def save_reports(report: RunReport, directory: Path) -> tuple[RunReport, Path | None]:
    """Write ``report.json`` and ``report.md``; the report, and where its JSON is (None: it could not be written).

    When that fails (a full disk) it is said, and the report returned has at least exit 1: the
    catalogs, cache and state were written before, so only the report is lost and the run's outcome
    stays what it was, but something needs a look.
    """
    try:
        json_path, _ = report_files.write_reports(report, directory)
    except OSError as exc:
        print(
            f"pipeline: error: cannot write the report in {directory}: {exc.strerror}; what the run wrote before "
            f"it (catalogs, cache, run state) is saved; [report] dir in the config or --report-dir names another "
            "folder",
            file=sys.stderr,
        )
        return replace(report, exit_code=max(report.exit_code, ExitCode.PARTIAL)), None
    return report, json_path
