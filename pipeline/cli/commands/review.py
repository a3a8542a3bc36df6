"""``pipeline review``: serve the page of entries awaiting review (starlette and uvicorn, loaded when it runs)."""

from __future__ import annotations

import argparse
import sys
import threading
import webbrowser

from pipeline.config import load_settings
from pipeline.errors import ExitCode, UsageError
from pipeline.review import server
from pipeline.review.session import Session


def review(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be between 0 and 65535")
    settings = load_settings(args.config)
    if args.follow_symlinks_outside:
        settings = settings._replace(follow_symlinks_outside=True)
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
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    server.serve(session, sock, ready)
    lines = session.summary()
    print(f"pipeline review: {'; '.join(lines) if lines else 'no decision made'}")
    print(f"pipeline review: {session.awaiting()} entries still await review")
    return ExitCode.OK
