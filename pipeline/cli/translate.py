"""``pipeline translate``, the command the pre-commit hook starts at every commit: its parser.

What it does: :mod:`pipeline.cli.commands.translate`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.cli import add_catalog_arguments, add_frozen_argument, add_lock_wait_argument, language_code
from pipeline.config import ENV_AUTH_KEY, ENV_SERVICE_URL


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        type=language_code,
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
    p.set_defaults(handler="translate:translate")


def _add_limits(p: argparse.ArgumentParser) -> None:
    """The options that bound a run: its budget and how long it waits for another run."""
    p.add_argument(
        "--max-characters",
        type=_budget,
        metavar="N",
        help="stop before billing more than N characters in this run; what was translated is saved "
        "and the run exits 3 (default: the config's [translate] max_characters, else no limit)",
    )
    add_lock_wait_argument(p, "stop with exit 6")


def _budget(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return number
