"""``pipeline check`` (a release gate needing no service) and ``pipeline refresh`` (the nightly job).

Light to import: the parsers only; each command imports its modules when it runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cli.common import (
    add_catalog_arguments,
    add_frozen_argument,
    load_cli_settings,
    print_issues,
    print_usage,
    report_dir,
    save_reports,
    stderr_log,
)
from pipeline.errors import ExitCode, UsageError
from pipeline.model import Severity

if TYPE_CHECKING:
    from pipeline.run.records import RunReport
    from pipeline.workflows.refresh import MergeOutcome


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``check`` and ``refresh`` subcommands."""
    p = sub.add_parser(
        "check",
        help="check translations without the service (placeholders, plurals, markup, whitespace)",
        description="Check every translated entry of the catalogs. Errors break the program or the catalog: "
        "what `msgfmt --check` rejects (the format directives of every format flag gettext knows, "
        "newlines at both ends, plural forms and the Plural-Forms header), and a placeholder the source "
        "has (markup, variables, ICU structure) missing, added or changed, and markup added that runs code. "
        "Warnings are style, or code no format flag of the entry names that a translator may adapt: "
        "entities vs characters, other edge whitespace, translated attribute text, bidi and invisible "
        "characters, URLs, date formats, options, paths. Key-based XLIFF (Symfony) is checked against the "
        "texts of the source-language file beside it. Fuzzy (needs-review) entries are checked too, and "
        "reported apart: they are what machine translation wrote; --skip-fuzzy leaves them out, as msgfmt does.",
        epilog="exit codes: 0 no error (warnings may be printed); 1 some translation is broken, a catalog "
        "cannot be read, or (--strict) a warning; 2 usage or configuration error",
    )
    add_catalog_arguments(p)
    p.add_argument("--skip-fuzzy", action="store_true", help="leave fuzzy (needs-review) entries out, as msgfmt does")
    p.add_argument("--strict", action="store_true", help="fail on warnings too, not only on errors")
    p.add_argument("-q", "--quiet", action="store_true", help="print errors only, no warnings or summary")
    p.set_defaults(func=_check)

    r = sub.add_parser(
        "refresh",
        help="update catalogs from their template, then translate what is new or stale",
        description="For each catalog: merge its template (POT) with msgmerge semantics (new entries added, "
        "changed ones marked fuzzy with the previous source, removed ones made obsolete) editing only "
        "the entries that change; sync glossaries and style rules; translate what is new and "
        "re-translate machine translations whose source changed (never an entry a human edited); "
        "write the report. A second refresh changes nothing.",
        epilog="exit codes: as `pipeline translate` (0 all done; 1 some segments failed or input was invalid; "
        "2 usage or configuration error; 3 quota or budget reached, or too few characters left for the run; "
        "4 service refused or unreachable; 5 --frozen and a refresh would change a catalog)",
    )
    add_catalog_arguments(r)
    r.add_argument(
        "--template",
        type=Path,
        metavar="POT",
        help="the template of every catalog (default: config `[refresh] template`, else <domain>.pot "
        "found next to the locale folders)",
    )
    r.add_argument("--service-url", metavar="URL", help="service base URL, or 'embedded'")
    r.add_argument("--report-dir", type=Path, metavar="DIR", help="where report.json and report.md go")
    r.add_argument(
        "--max-characters",
        type=int,
        metavar="N",
        help="stop before billing more than N characters "
        "(saved work is kept; exit 3); default: the config's [translate] max_characters",
    )
    r.add_argument(
        "--merge-only",
        action="store_true",
        help="update the catalogs from the template; translate nothing, send nothing",
    )
    add_frozen_argument(r, "refresh")
    r.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    r.set_defaults(func=_refresh)


def _check(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from pipeline.catalog_paths import display_path, find_catalogs
    from pipeline.config import load_settings
    from pipeline.workflows.check import check_paths

    settings = load_settings(args.config)
    if args.follow_symlinks_outside:
        settings = replace(settings, follow_symlinks_outside=True)
    found = find_catalogs(settings, args.paths, writing=False)
    paths = found.paths
    display = {p: display_path(settings, p) for p in paths}
    checked = check_paths(paths, display, include_fuzzy=not args.skip_fuzzy, settings=settings)
    errors = warnings = 0
    for title, issues in (("", [*found.refused, *checked.issues]), ("fuzzy entry: ", checked.fuzzy)):
        for issue in sorted(issues, key=lambda i: (i.catalog, i.line or 0)):
            if issue.severity is Severity.ERROR:
                errors += 1
                print(f"{issue.where()}: {title}{issue.reason}")
            else:
                warnings += 1
                if not args.quiet or args.strict:
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


def _refresh(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from pipeline.run.report import awaiting_note
    from pipeline.workflows.refresh import refresh

    settings = load_cli_settings(args)
    if args.max_characters is not None:
        if args.max_characters < 0:
            raise UsageError("--max-characters must be 0 or more")
        settings = replace(settings, max_characters=args.max_characters)
    template = args.template.resolve() if args.template else None
    outcome, report = refresh(
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
    json_path = save_reports(report, report_dir(args, settings))
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
    from pipeline.run.report import work_lines

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
