"""What each command does once its arguments are parsed, and what they share once they run (here: their
settings, logging, issue output, the usage line and the reports).

A command's module is loaded by name (``module:function``) when it runs: the parsers
(:mod:`pipeline.cli`'s modules) stay light, so that building one command's parser costs nothing
of the others' work; the command's own module imports what it needs at its top.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from pipeline.config import REPORT_SUBDIR, Settings, check_service_url, load_settings, project_dir
from pipeline.errors import ExitCode
from pipeline.model import Alert, Issue, Severity
from pipeline.run import report as report_files
from pipeline.run.records import RunReport
from pipeline.run.report import usage_line


def report_dir(args: argparse.Namespace, settings: Settings) -> Path:
    """Where the report goes: ``--report-dir``, else the configured folder, else the project's cache folder."""
    if args.report_dir:
        given: Path = args.report_dir
        return given.resolve()
    return settings.report_dir or project_dir(settings.root) / REPORT_SUBDIR


def load_cli_settings(args: argparse.Namespace) -> Settings:
    """The settings of ``--config``, with ``--service-url`` (where given) over the configured URL."""
    settings = load_settings(args.config)
    if args.service_url:
        url = check_service_url(args.service_url, "--service-url")
        settings = replace(settings, service=replace(settings.service, url=url))
    if "follow_symlinks_outside" in args and args.follow_symlinks_outside:  # commands on catalogs only
        settings = replace(settings, follow_symlinks_outside=True)
    return settings


def stderr_log(quiet: bool = False) -> Callable[[str], None]:
    """Where a command's progress messages go: stderr, as ``pipeline: ...``; with ``quiet`` only alerts."""
    return _alerts_only if quiet else _to_stderr


def _alerts_only(message: str) -> None:
    if isinstance(message, Alert):  # waiting for another run's locks: silence there looks like a hang
        _to_stderr(message)


def _to_stderr(message: str) -> None:
    try:
        print(f"pipeline: {message}", file=sys.stderr)
    except BrokenPipeError:  # ``2>&1 | head``: a progress line must not stop a run with answers paid for
        _Stderr.reader_gone = True


class _Stderr:
    reader_gone = False


def stderr_reader_gone() -> bool:
    """Whether a progress message found the reader of stderr gone (the command went on without its messages)."""
    return _Stderr.reader_gone


def print_issues(issues: Iterable[Issue], quiet: bool) -> None:
    """The report's issues on stderr: all of them, or with ``quiet`` only the errors."""
    for issue in issues:
        if issue.severity is Severity.ERROR or not quiet:
            print(f"{issue.where()}: {issue.severity}: {issue.reason}", file=sys.stderr)


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
            f"pipeline: error: cannot write the report in {directory}: {exc.strerror}; the catalogs, the cache "
            f"and the run state are saved",
            file=sys.stderr,
        )
        return replace(report, exit_code=max(report.exit_code, ExitCode.PARTIAL)), None
    return report, json_path
