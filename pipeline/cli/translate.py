"""``pipeline translate``: the command the pre-commit hook starts at every commit.

Light to import: the run's modules are loaded when the command runs, and only as far as the run
needs them (a run with nothing new stops before parsing anything).
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
from pipeline.config import ENV_AUTH_KEY, ENV_SERVICE_URL
from pipeline.model import Severity

if TYPE_CHECKING:
    from pipeline.config import Settings
    from pipeline.run.records import RunReport


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``translate`` command."""
    p = sub.add_parser(
        "translate",
        help="translate the untranslated entries of catalogs",
        description="Translate every untranslated entry of the catalogs (given as PATHs, or found by the "
        "config's globs) and write the translations back marked fuzzy. The service key is read "
        f"from {ENV_AUTH_KEY}; it is never taken from the command line.",
        epilog="exit codes: 0 all done; 1 some segments failed or some input was invalid (the report says "
        "which; everything else was written); 2 usage or configuration error; 3 quota exceeded, budget "
        "reached (work done so far is saved) or the account's characters left cannot cover the run (nothing "
        "sent); 4 authentication refused or service unreachable; 5 --frozen and a run would change a catalog; 6 "
        "another run held catalogs longer than --lock-wait (what was done before is saved)",
    )
    add_catalog_arguments(p)
    p.add_argument(
        "--target-lang",
        action="append",
        default=[],
        metavar="LANG",
        type=_language_code,
        help="only catalogs in this locale (repeatable; gettext or service codes: pt_BR, PT-BR)",
    )
    p.add_argument(
        "--service-url",
        metavar="URL",
        help=f"service base URL, or 'embedded' for the in-process local "
        f"service (default: {ENV_SERVICE_URL} or the config's [service] url)",
    )
    p.add_argument("--report-dir", type=Path, metavar="DIR", help="where report.json and report.md go")
    p.add_argument("--cache-dir", type=Path, metavar="DIR", help="translation cache folder")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the translation cache (catalogs "
        "an earlier run settled, and unchanged since, are still skipped: they have nothing to translate)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="list the catalogs found (with their language) and show what would be sent; send nothing, "
        "write no catalog",
    )
    p.add_argument(
        "--to-utf8",
        action="store_true",
        help="convert a PO catalog whose charset cannot hold its language's letters (a Polish catalog in "
        "ISO-8859-1) to UTF-8, header and bytes, when its translations are written; without it such a "
        "catalog is refused before anything is sent (default: the config's [translate] to_utf8)",
    )
    add_frozen_argument(p, "translate")
    _add_limits(p)
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors (and whom a run waits for)")
    p.set_defaults(func=_translate)


def _add_limits(p: argparse.ArgumentParser) -> None:
    """The options that bound a run: its budget and how long it waits for another run."""
    p.add_argument(
        "--max-characters",
        type=_budget,
        metavar="N",
        help="stop before billing more than N characters in this run; what was translated is saved "
        "and the run exits 3 (default: the config's [translate] max_characters, else no limit)",
    )
    p.add_argument(
        "--lock-wait",
        type=_seconds,
        metavar="SECONDS",
        help="wait at most this long for catalogs another run is translating (it is named on stderr, even "
        "with --quiet), then stop with exit 6 (default: the config's [translate] lock_wait, else 600; 0: "
        "never wait)",
    )


def _language_code(value: str) -> str:
    from pipeline.locales import check_code

    problem = check_code(value)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def _budget(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return number


def _seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {value!r}") from None
    if not 0 <= number < float("inf"):
        raise argparse.ArgumentTypeError("must be 0 or more seconds")
    return number


def _settings(args: argparse.Namespace) -> Settings:
    from dataclasses import replace

    settings = load_cli_settings(args)
    if args.cache_dir:
        settings = replace(settings, cache_dir=args.cache_dir.resolve())
    if args.max_characters is not None:
        settings = replace(settings, max_characters=args.max_characters)
    if args.lock_wait is not None:
        settings = replace(settings, lock_wait=args.lock_wait)
    if args.to_utf8:
        settings = replace(settings, to_utf8=True)
    return settings


def _translate(args: argparse.Namespace) -> int:
    from pipeline.run.orchestrate import RunOptions, run_translate
    from pipeline.run.report import awaiting_note, reuse_and_length
    from pipeline.run.report.progress import for_stream

    settings = _settings(args)
    options = RunOptions(
        paths=tuple(args.paths),
        target_langs=tuple(args.target_lang),
        dry_run=args.dry_run or args.frozen,
        use_cache=not args.no_cache,
        frozen=args.frozen,
    )
    log = stderr_log(args.quiet)
    progress = for_stream(sys.stderr, args.quiet, log)
    report = run_translate(settings, options, progress.around(log), progress=progress)
    if args.frozen:  # a check: nothing written, not even the report
        return print_frozen(report, "translate")
    json_path = save_reports(report, report_dir(args, settings))
    print_issues(report.issues, args.quiet)
    if not args.quiet:
        t = report.totals
        if report.would_send is not None:
            print_found(report)
            print(f"dry run: {dry_run_line(report)}")
        else:
            print(
                f"{t.segments_translated} translated, {t.segments_from_cache} from cache, {t.segments_copied} "
                f"copied, {t.segments_failed} failed, {t.segments_skipped} skipped{reuse_and_length(t)}"
                f"{awaiting_note(t)}; "
                f"{t.billed_characters} characters billed in {t.requests} requests; "
                + (
                    f"{report.unchanged_catalogs} catalog(s) unchanged since a run that finished them, not read; "
                    if report.unchanged_catalogs
                    else ""
                )
                + (f"report: {json_path}" if json_path else "no report written")
            )
            print_usage(report)
    if report.stopped is not None:  # an early stop is the reason for a non-zero exit: shown even with --quiet
        left = report.remaining
        rest = f"; left for the next run: {left.segments} segments, {left.characters} characters" if left else ""
        print(f"pipeline: stopped early: {report.stopped}{rest}", file=sys.stderr)
    return report.exit_code


def print_frozen(report: RunReport, command: str) -> int:
    """The outcome of ``--frozen``: what a run would change, one catalog a line, on stdout; returns the exit code."""
    from pipeline.run.report import work_lines

    print_issues(report.issues, quiet=True)
    lines = work_lines(report)
    if lines:
        w = report.would_send
        print(
            f"pipeline {command} --frozen: a run would change {len(lines)} catalog(s), billing about "
            f"{w.characters if w else 0} characters:"
        )
        print("\n".join(lines))
    elif report.exit_code == 0:
        print(f"pipeline {command} --frozen: nothing to translate")
    else:
        errors = sum(1 for i in report.issues if i.severity is Severity.ERROR)
        print(
            f"pipeline {command} --frozen: nothing a run could translate; {errors} error(s) above, which a run "
            f"would report too (exit {report.exit_code})"
        )
    return report.exit_code


def print_found(report: RunReport) -> None:
    """The catalogs a dry run found, one a line with its language, those skipped unread marked so."""
    if not report.catalogs:
        print("found no catalog to translate")
        return
    print(f"found {len(report.catalogs)} catalog(s):")
    for cat in sorted(report.catalogs, key=lambda c: c.path):
        note = " (unchanged since a run that finished it: not read)" if cat.unchanged else ""
        print(f"  {cat.path} ({cat.target_lang}){note}")


def dry_run_line(report: RunReport) -> str:
    """What a dry run found: what a real run would write without the service, and what it would send."""
    from pipeline.run.report import fallback_note

    t, w = report.totals, report.would_send
    assert w is not None
    kept = [
        f"{n} {what}"
        for n, what in (
            (t.segments_from_cache, "from the cache"),
            (t.segments_reused, "reused from reviewed translations"),
            (t.segments_copied, "copied (nothing to translate)"),
        )
        if n
    ]
    writes = f"would write {', '.join(kept)}; " if kept else ""
    return (
        f"{writes}would send {w.segments} segments ({w.texts} unique texts) in {w.requests} requests, about "
        f"{w.characters} billed characters{fallback_note(w)}"
    )


def preview(config: Path) -> None:
    """What ``pipeline translate --dry-run --config CONFIG`` prints: the catalogs found, the problems, the estimate."""
    from pipeline.config import load_settings
    from pipeline.run.orchestrate import RunOptions, run_translate

    report = run_translate(load_settings(config), RunOptions(dry_run=True), stderr_log())
    print_issues(report.issues, quiet=False)
    print_found(report)
    if report.would_send is not None:
        print(dry_run_line(report))
