"""Command-line entry point: ``pipeline <command> ...``.

Each area registers its own subcommands through a ``register(subparsers)`` function that adds
parsers and sets ``func`` (a callable taking the parsed namespace and returning an exit code).
Registering modules stay light to import: heavy imports happen inside ``func``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline import __version__
from pipeline.config import CONFIG_NAME, ENV_AUTH_KEY, ENV_SERVICE_URL, Settings, load_settings
from pipeline.errors import PipelineError

if TYPE_CHECKING:
    from pipeline.model import Issue


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The full argument parser of ``pipeline``, or (given ``command``) one that knows only ``translate``.

    ``pipeline translate`` is what the pre-commit hook starts at every commit: building the parsers
    of every other command (and importing their modules) would cost it more than Python's start-up.
    """
    parser = argparse.ArgumentParser(
        prog="pipeline",
        description="Machine-translate Gettext PO/POT and XLIFF catalogs through the translation service.",
    )
    parser.add_argument("--version", action="version", version=f"pipeline {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _register_translate(sub)
    if command == "translate":
        return parser
    from pipeline.service import cli as service_cli

    service_cli.register(sub)
    from pipeline.client import cli as client_cli

    client_cli.register(sub)
    from pipeline import workflow_cli

    workflow_cli.register(sub)
    from pipeline import resources_cli

    resources_cli.register(sub)
    return parser


def _register_translate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "translate",
        help="translate the untranslated entries of catalogs",
        description="Translate every untranslated entry of the catalogs (given as PATHs, or found by the "
                    "config's globs) and write the translations back marked fuzzy. The service key is read "
                    f"from {ENV_AUTH_KEY}; it is never taken from the command line.",
        epilog="exit codes: 0 all done; 1 some segments failed or some input was invalid (the report says "
               "which; everything else was written); 2 usage or configuration error; 3 quota exceeded or "
               "budget reached (work done so far is saved); 4 authentication refused or service unreachable",
    )
    add_catalog_arguments(p)
    p.add_argument("--target-lang", action="append", default=[], metavar="LANG",
                   help="only catalogs in this locale (repeatable; gettext or service codes: pt_BR, PT-BR)")
    p.add_argument("--service-url", metavar="URL", help=f"service base URL, or 'embedded' for the in-process local "
                   f"service (default: {ENV_SERVICE_URL} or the config's [service] url)")
    p.add_argument("--report-dir", type=Path, metavar="DIR", help="where report.json and report.md go")
    p.add_argument("--cache-dir", type=Path, metavar="DIR", help="translation cache folder")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the translation cache (catalogs "
                   "an earlier run settled, and unchanged since, are still skipped: they have nothing to translate)")
    p.add_argument("--dry-run", action="store_true", help="show what would be sent; send nothing, write no catalog")
    p.add_argument("--max-characters", type=_budget, metavar="N",
                   help="stop before billing more than N characters in this run; what was translated is saved "
                        "and the run exits 3 (default: the config's [translate] max_characters, else no limit)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=_translate)


def add_catalog_arguments(p: argparse.ArgumentParser) -> None:
    """The PATH arguments and ``--config`` option of every command that works on the project's catalogs."""
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="catalog files or folders (default: the config's `catalogs` globs)")
    add_config_argument(p)


def add_config_argument(p: argparse.ArgumentParser) -> None:
    """The ``--config`` option of every command that reads the project's configuration."""
    p.add_argument("--config", type=Path, help=f"config file (default: ./{CONFIG_NAME}, or [tool.pipeline] in "
                   "./pyproject.toml)")


def load_cli_settings(args: argparse.Namespace) -> Settings:
    """The settings of ``--config``, with ``--service-url`` (where given) over the configured URL."""
    from dataclasses import replace

    settings = load_settings(args.config)
    if args.service_url:
        settings = replace(settings, service=replace(settings.service, url=args.service_url))
    return settings


def stderr_log(quiet: bool = False) -> Callable[[str], None]:
    """Where a command's progress messages go: stderr, as ``pipeline: ...``; nowhere when ``quiet``."""
    return _ignore if quiet else _to_stderr


def _ignore(message: str) -> None:
    pass


def _to_stderr(message: str) -> None:
    print(f"pipeline: {message}", file=sys.stderr)


def print_issues(issues: Iterable[Issue], quiet: bool) -> None:
    """The report's issues on stderr: all of them, or with ``quiet`` only the errors."""
    for issue in issues:
        if issue.severity == "error" or not quiet:
            print(f"{issue.where()}: {issue.severity}: {issue.reason}", file=sys.stderr)


def _budget(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return number


def _translate(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from pipeline.progress import for_stream
    from pipeline.report import fallback_note, write_reports
    from pipeline.run import RunOptions, run_translate

    settings = load_cli_settings(args)
    if args.cache_dir:
        settings = replace(settings, cache_dir=args.cache_dir.resolve())
    if args.max_characters is not None:
        settings = replace(settings, max_characters=args.max_characters)
    report_dir = (args.report_dir.resolve() if args.report_dir else settings.report_dir) or Path("pipeline-report")
    options = RunOptions(paths=tuple(args.paths), target_langs=tuple(args.target_lang), dry_run=args.dry_run,
                         use_cache=not args.no_cache)
    log = stderr_log(args.quiet)
    report = run_translate(settings, options, log, progress=for_stream(sys.stderr, args.quiet, log))
    json_path, _ = write_reports(report, report_dir)
    print_issues(report.issues, args.quiet)
    if not args.quiet:
        t = report.totals
        if report.dry_run:
            w = report.would_send
            print(f"dry run: would send {w['segments']} segments ({w['texts']} unique texts) in {w['requests']} "
                  f"requests, about {w['characters']} billed characters{fallback_note(w)}; {t.segments_from_cache} "
                  f"from cache")
        else:
            print(f"{t.segments_translated} translated, {t.segments_from_cache} from cache, {t.segments_copied} "
                  f"copied, {t.segments_failed} failed, {t.segments_skipped} skipped; {t.billed_characters} "
                  f"characters billed in {t.requests} requests; "
                  + (f"{report.unchanged_catalogs} catalog(s) unchanged since a run that finished them, not read; "
                     if report.unchanged_catalogs else "")
                  + f"report: {json_path}")
    if report.stopped:  # an early stop is the reason for a non-zero exit: shown even with --quiet
        left = report.remaining
        rest = f"; left for the next run: {left['segments']} segments, {left['characters']} characters" if left else ""
        print(f"pipeline: stopped early: {report.stopped}{rest}", file=sys.stderr)
    return report.exit_code


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except PipelineError as exc:
        print(f"pipeline: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("pipeline: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
