"""``pipeline review``: review what machine translation wrote, in a local web page.

Light to import: the parser only; the review app (starlette, uvicorn) is imported when it runs.
"""

from __future__ import annotations

import argparse
import sys

from pipeline.cli.common import add_catalog_arguments
from pipeline.errors import ExitCode, UsageError


def register(sub: argparse._SubParsersAction) -> None:
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
    p.set_defaults(func=_review)


def _review(args: argparse.Namespace) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        from pipeline.distribution import install_hint

        raise UsageError(
            f"pipeline review needs {exc.name}, which is not installed: {install_hint('review')}"
        ) from None
    from dataclasses import replace

    from pipeline.config import load_settings
    from pipeline.review import server
    from pipeline.review.session import Session

    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be between 0 and 65535")
    settings = load_settings(args.config)
    if args.follow_symlinks_outside:
        settings = replace(settings, follow_symlinks_outside=True)
    session = Session(settings, args.paths, warn=lambda message: print(f"pipeline review: {message}", file=sys.stderr))
    if not session.entries:
        print(f"pipeline review: nothing awaits review in {len(session.catalogs)} catalog(s)")
        return ExitCode.OK
    try:
        sock = server.bind(args.port)
    except OSError as exc:
        raise UsageError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror}") from None

    def ready(url: str) -> None:
        print(url, flush=True)
        print(
            f"pipeline review: {session.awaiting()} entries await review in {len(session.catalogs)} catalog(s); "
            f"the page's Done button or Ctrl-C ends the review",
            file=sys.stderr,
        )
        if not args.no_open:
            import threading
            import webbrowser

            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    server.serve(session, sock, ready)
    lines = session.summary()
    print(f"pipeline review: {'; '.join(lines) if lines else 'no decision made'}")
    print(f"pipeline review: {session.awaiting()} entries still await review")
    return ExitCode.OK
