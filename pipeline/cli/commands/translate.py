"""``pipeline translate``: run the translation, print what it did, save its report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from pipeline.catalog_paths import where_searched
from pipeline.cli.commands import load_cli_settings, print_issues, stderr_log
from pipeline.cli.commands.reports import print_usage, report_dir, save_reports
from pipeline.config import Settings, load_settings
from pipeline.model import Severity
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import RunReport
from pipeline.run.report import awaiting_note, fallback_note, not_written_note, reuse_and_length, work_lines
from pipeline.run.report.progress import for_stream


def _settings(args: argparse.Namespace) -> Settings:
    settings = load_cli_settings(args)
    if args.cache_dir:
        settings = settings._replace(cache_dir=args.cache_dir.resolve())
    if args.max_characters is not None:
        settings = settings._replace(max_characters=args.max_characters)
    if args.lock_wait is not None:
        settings = settings._replace(lock_wait=args.lock_wait)
    if args.to_utf8:
        settings = settings._replace(to_utf8=True)
    return settings


def translate(args: argparse.Namespace) -> int:
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
    report, json_path = save_reports(report, report_dir(args, settings))
    print_issues(report.issues, args.quiet)
    if not args.quiet:
        t = report.totals
        if report.would_send is not None:
            print_found(report, settings, options.paths, options.target_langs)
            print(f"dry run: {dry_run_line(report)}")
        else:
            nothing = nothing_found(report, settings, options.paths, options.target_langs)
            if nothing:
                print(nothing)
            print(
                f"{t.segments_translated} translated, {t.segments_from_cache} from cache, {t.segments_copied} "
                f"copied, {t.segments_failed} failed, {t.segments_skipped} skipped{reuse_and_length(t)}"
                f"{not_written_note(report)}{awaiting_note(t)}; "
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


def print_found(
    report: RunReport, settings: Settings, paths: Sequence[Path] = (), target_langs: Sequence[str] = ()
) -> None:
    """The catalogs a dry run found, one a line with its language, those skipped unread marked so."""
    nothing = nothing_found(report, settings, paths, target_langs)
    if nothing:
        print(nothing)
        return
    print(f"found {len(report.catalogs)} catalog(s):")
    for cat in sorted(report.catalogs, key=lambda c: c.path):
        note = " (unchanged since a run that finished it: not read)" if cat.unchanged else ""
        print(f"  {cat.path}{f' ({cat.target_lang})' if cat.target_lang else ''}{note}")


def nothing_found(
    report: RunReport, settings: Settings, paths: Sequence[Path] = (), target_langs: Sequence[str] = ()
) -> str | None:
    """Why a run has no catalog to list: every one found was left out (the issues above say why), or
    none was found in the languages asked (``target_langs`` and the settings'), or none at all, and where
    the run looked; None when it has catalogs."""
    if report.catalogs:
        return None
    left_out = {i.catalog for i in report.issues if i.severity is not Severity.WARNING}
    if left_out:
        found = "the file found is" if len(left_out) == 1 else f"the {len(left_out)} files found are"
        return f"no catalog to translate: {found} left out, for the reasons above"
    files_only = bool(paths) and not any(p.is_dir() for p in paths)  # each was read: none needed anything
    asked = [code.upper().replace("_", "-") for code in (*settings.target_langs, *target_langs)]
    if asked:
        found = f"found no catalog in {', '.join(dict.fromkeys(asked))} (the languages asked)"
        if files_only:
            return f"{found} among the files given"
        return f"{found}: {where_searched(settings, paths)}, or none in those languages"
    if files_only:
        return "no catalog to translate among the files given"
    return f"found no catalog: {where_searched(settings, paths)}"


def dry_run_line(report: RunReport) -> str:
    """What a dry run found: what a real run would write without the service, and what it would send."""

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

    settings = load_settings(config)
    report = run_translate(settings, RunOptions(dry_run=True), stderr_log())
    print_issues(report.issues, quiet=False)
    print_found(report, settings)
    if report.would_send is not None:
        print(dry_run_line(report))
