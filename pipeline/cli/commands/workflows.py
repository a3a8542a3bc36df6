"""``pipeline check``: what it does and prints (``pipeline refresh``: :mod:`pipeline.cli.commands.refresh`)."""

from __future__ import annotations

import argparse
import sys

from pipeline.catalog_paths import display_path, find_catalogs
from pipeline.config import load_settings
from pipeline.errors import ExitCode
from pipeline.model import Severity, said_once
from pipeline.workflows.check import check_paths


def check(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    if args.follow_symlinks_outside:
        settings = settings._replace(follow_symlinks_outside=True)
    found = find_catalogs(settings, args.paths, writing=False)
    paths = found.paths
    display = {p: display_path(settings.root, p) for p in paths}
    checked = check_paths(paths, display, include_fuzzy=not args.skip_fuzzy, settings=settings)
    errors = warnings = 0
    for title, issues in (("", [*found.refused, *checked.issues]), ("fuzzy entry: ", checked.fuzzy)):
        errors += sum(1 for i in issues if i.severity is Severity.ERROR)
        warnings += sum(1 for i in issues if i.severity is not Severity.ERROR)
        # A problem many entries of a catalog share is said once, with how many and their first lines.
        for issue in sorted(said_once(issues), key=lambda i: (i.catalog, i.line or 0)):
            if issue.severity is Severity.ERROR:
                print(f"{issue.where()}: {title}{issue.reason}")
            elif not args.quiet or args.strict:
                print(f"{issue.where()}: {title}{issue.severity}: {issue.reason}")
    if not args.quiet:
        fuzzy = sum(1 for i in checked.fuzzy if i.severity is Severity.ERROR)
        awaiting = f"; {checked.awaiting} entries await review (pipeline review)" if checked.awaiting else ""
        print(
            f"pipeline check: {errors} error(s), {warnings} warning(s) in {checked.read} catalog(s); "
            f"{fuzzy} of the errors in fuzzy entries{awaiting}",
            file=sys.stderr,
        )
    return ExitCode.PARTIAL if errors or (args.strict and warnings) else ExitCode.OK
