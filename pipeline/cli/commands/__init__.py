"""What each command does once its arguments are parsed, and what they share once they run (here: their
settings, logging and issue output; the usage line and the reports of a translation run:
:mod:`~pipeline.cli.commands.reports`).

A command's module is loaded by name (``module:function``) when it runs: the parsers
(:mod:`pipeline.cli`'s modules) stay light, so that building one command's parser costs nothing
of the others' work; the command's own module imports what it needs at its top.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from dataclasses import replace

from pipeline.config import Settings, check_service_url, load_settings
from pipeline.model import Alert, Issue, Severity, said_once


def load_cli_settings(args: argparse.Namespace) -> Settings:
    """The settings of ``--config``, with ``--service-url`` (where given) over the configured URL."""
    settings = load_settings(args.config)
    if args.service_url:
        url = check_service_url(args.service_url, "--service-url")
        settings = settings._replace(service=replace(settings.service, url=url))
    if "follow_symlinks_outside" in args and args.follow_symlinks_outside:  # commands on catalogs only
        settings = settings._replace(follow_symlinks_outside=True)
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
    """The report's issues on stderr: all of them, or with ``quiet`` only the errors; a problem many entries
    of a catalog share said once (:func:`pipeline.model.said_once`)."""
    for issue in said_once(issues):
        if issue.severity is Severity.ERROR or not quiet:
            print(f"{issue.where()}: {issue.severity}: {issue.reason}", file=sys.stderr)
