"""``pipeline refresh --merge-only``: the merge step alone, and what a refresh prints of its merges.

Apart from :mod:`~pipeline.cli.commands.refresh`: the merge step loads nothing of a translation
run (its stages, its records, its report), so that a release build's merge costs little more than
reading and writing its catalogs.
"""

from __future__ import annotations

import argparse

from pipeline.cli.commands import load_cli_settings, print_issues, stderr_log
from pipeline.config import Settings
from pipeline.errors import ExitCode, UsageError
from pipeline.model import Severity
from pipeline.workflows.merge import MergeOutcome, merge_templates


def merge_only(args: argparse.Namespace) -> int:
    settings = refresh_settings(args)
    template = args.template.resolve() if args.template else None
    outcome = merge_templates(settings, args.paths, template, log=stderr_log(args.quiet), frozen=args.frozen)
    return print_merges(outcome, args)


def refresh_settings(args: argparse.Namespace) -> Settings:
    """The settings of a refresh: the config's, with the command line's over them."""
    settings = load_cli_settings(args)
    if args.max_characters is not None:
        if args.max_characters < 0:
            raise UsageError("--max-characters must be 0 or more")
        settings = settings._replace(max_characters=args.max_characters)
    if args.lock_wait is not None:
        settings = settings._replace(lock_wait=args.lock_wait)
    return settings


def print_merges(outcome: MergeOutcome, args: argparse.Namespace) -> int:
    """What a refresh that translates nothing prints: its merges and their problems; returns the exit code."""
    errors = any(i.severity is Severity.ERROR for i in outcome.issues)
    if args.frozen:  # a check: nothing was written
        merges = print_frozen_merges(outcome)
        print_issues(outcome.issues, quiet=True)
        code = ExitCode.PARTIAL if errors else ExitCode.PENDING if merges else ExitCode.OK
        if code == ExitCode.OK:
            print("pipeline refresh --frozen: nothing to merge or translate")
        return code
    print_issues(outcome.issues, args.quiet)
    if not args.quiet:
        print(merged_line(outcome))
    return ExitCode.PARTIAL if errors else ExitCode.OK


def merged_line(outcome: MergeOutcome) -> str:
    """How many catalogs the merge step changed."""
    if not outcome.catalogs:  # the problems printed above say why (no template, a catalog held by a run, ...)
        return "no catalog merged"
    changed = sum(1 for c in outcome.catalogs if c.written)
    return f"{changed} of {len(outcome.catalogs)} catalogs updated from their template"


def print_frozen_merges(outcome: MergeOutcome) -> bool:
    """What a refresh would merge, one catalog a line, on stdout; whether there is any."""
    merges = [
        f"{c.path}\tmerge: {c.added} added, {c.fuzzy} fuzzy, {c.obsoleted} obsolete, {c.revived} revived, "
        f"{c.removed} removed"
        for c in outcome.catalogs
        if c.written
    ]
    if merges:
        print(f"pipeline refresh --frozen: the merge would change {len(merges)} catalog(s):")
        print("\n".join(merges))
    return bool(merges)
