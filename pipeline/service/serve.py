"""``pipeline serve``: the local service over HTTP until stopped (its parser: :mod:`pipeline.service.cli`).

Loaded by the command line's front door when ``serve`` runs, and with it uvicorn (a dependency of
every install, imported by no other command but ``review``).
"""

from __future__ import annotations

import argparse
import os

from pipeline.errors import UsageError
from pipeline.service import server
from pipeline.service.app import ServiceStartError, create_app
from pipeline.service.cli import accounts_from
from pipeline.service.config import ServiceConfig

__all__ = ["run_serve"]


def run_serve(args: argparse.Namespace) -> int:
    """Run the service until stopped; returns the exit code."""
    config = ServiceConfig(
        accounts=accounts_from(args, os.environ),
        data_dir=args.data_dir,
        test_faults=args.test_faults,
        document_retention_hours=args.document_retention_hours,
    )

    try:
        sock = server.bind(args.host, args.port)
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    try:
        server.run(create_app(config), sock)
    except ServiceStartError as exc:
        where = f" with data directory {args.data_dir}" if args.data_dir else ""
        raise UsageError(f"cannot start the service{where}: {exc}") from None
    return 0
