"""``pipeline check`` (a release gate needing no service) and ``pipeline refresh`` (the nightly job): their parsers."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cli import (
    add_catalog_arguments,
    add_frozen_argument,
    add_lock_wait_argument,
)

if TYPE_CHECKING:
    pass


#: `pipeline check --help`: what is an error and what a warning.
_CHECK_DESCRIPTION = (
    "Check every translated entry of the catalogs. Errors break the program or the catalog: "
    "what `msgfmt --check` rejects (the format directives of every format flag gettext knows, "
    "newlines at both ends, plural forms and the Plural-Forms header), and a placeholder the source "
    "has (markup, variables, ICU structure) missing, added or changed, and markup added that runs code. "
    "Warnings are style, or code no format flag of the entry names that a translator may adapt: "
    "entities vs characters, other edge whitespace, translated attribute text, bidi and invisible "
    "characters, URLs, date formats, options, paths, a usage line's command moved among its options or "
    "against their bracket. Key-based XLIFF (Symfony) is checked against the "
    "texts of the source-language file beside it, a Zope message id (Plone) against its #. Default: text. "
    "Fuzzy (needs-review) entries are checked too, and "
    "reported apart: they are what machine translation wrote; --skip-fuzzy leaves them out, as msgfmt does."
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``check`` and ``refresh`` subcommands."""
    p = sub.add_parser(
        "check",
        help="check translations without the service (placeholders, plurals, markup, whitespace)",
        description=_CHECK_DESCRIPTION,
        epilog="exit codes: 0 no error (warnings may be printed); 1 some translation is broken, a catalog "
        "cannot be read, or (--strict) a warning; 2 usage or configuration error",
    )
    add_catalog_arguments(p)
    p.add_argument("--skip-fuzzy", action="store_true", help="leave fuzzy (needs-review) entries out, as msgfmt does")
    p.add_argument("--strict", action="store_true", help="fail on warnings too, not only on errors")
    p.add_argument("-q", "--quiet", action="store_true", help="print errors only, no warnings or summary")
    p.set_defaults(handler="workflows:check")
    _register_refresh(sub)


def _register_refresh(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        "4 service refused or unreachable; 5 --frozen and a refresh would change a catalog; 6 another run held "
        "catalogs longer than --lock-wait)",
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
        dest="handler",
        action="store_const",
        const="merge:merge_only",  # the merge step's own handler, which loads nothing of a translation run
        help="update the catalogs from the template; translate nothing, send nothing",
    )
    add_lock_wait_argument(r, "leave the catalogs it holds as they are: not merged (exit 1), not translated (exit 6)")
    add_frozen_argument(r, "refresh")
    r.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    r.set_defaults(handler="refresh:refresh")
