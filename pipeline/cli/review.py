"""``pipeline review``: its parser (what it does: :mod:`pipeline.cli.commands.review`)."""

from __future__ import annotations

import argparse

from pipeline.cli import add_catalog_arguments


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``review`` subcommand."""
    p = sub.add_parser(
        "review",
        help="review the translations awaiting review in a local web page: accept, edit, reject",
        description="Serve a page on 127.0.0.1 listing the entries of the project's catalogs that await review "
        "(fuzzy in PO, needs-review in XLIFF), machine translations first, with the checks' verdict, placeholders "
        "marked, plural forms with their numbers and the previous source. Accept, edit (checked by the rules of "
        "`pipeline check`), reject (emptied: the next run translates it again) or keep an entry with a note, "
        "from the keyboard. Each decision is written to its catalog at once, atomically, never over a change "
        "another program saved meanwhile. Nothing is sent to the translation service.",
        epilog="The page's address carries a random token that every request must show; it is printed first. "
        "exit codes: 0 done (a summary per language is printed); 2 usage or configuration error",
    )
    add_catalog_arguments(p)
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 to serve the page on (default: any free)")
    p.add_argument(
        "--no-open",
        action="store_true",
        help="do not open a browser; the page's address, token included, is the first line of output",
    )
    p.set_defaults(handler="review:review")
