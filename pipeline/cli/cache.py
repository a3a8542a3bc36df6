"""``pipeline cache stats|clear``: their parsers."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.cli import add_config_argument


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``cache`` command and its ``stats`` and ``clear`` actions."""
    p = sub.add_parser(
        "cache",
        help="show or empty the translation cache (the local folder, and the shared Redis when configured)",
        description="The translation cache is the local folder ([cache] dir) and, when [cache] url or "
        "PIPELINE_CACHE_URL names one, a Redis shared by every machine. Entries of the shared cache "
        "are counted for the configured service (its namespace) and for every service.",
        epilog="exit codes: 0 done; 1 a store could not be read or cleared (the others were); 2 usage or "
        "configuration error",
    )
    actions = p.add_subparsers(dest="cache_action", required=True, metavar="ACTION")
    stats = actions.add_parser(
        "stats",
        help="entries and sizes of each store",
        description="Entries and sizes of the local cache and of the shared one.",
    )
    clear = actions.add_parser(
        "clear",
        help="empty the local cache (and, with --shared, the shared one)",
        description="Empty the local cache folder's translations (the run state that "
        "lets unchanged catalogs be skipped stays). The shared cache is "
        "emptied only with --shared: every runner using it pays again.",
    )
    for q in (stats, clear):
        add_config_argument(q)
        q.add_argument(
            "--service-url",
            metavar="URL",
            help="the service whose shared entries are meant (default: the configured one)",
        )
        q.add_argument("--cache-dir", type=Path, metavar="DIR", help="local cache folder")
        q.add_argument("--json", action="store_true", help="print the figures as JSON")
    clear.add_argument("--shared", action="store_true", help="also delete this service's entries in the shared cache")
    clear.add_argument(
        "--all-services",
        action="store_true",
        help="with --shared: the entries of every service and version, not only this service's",
    )
    stats.set_defaults(handler="cache:stats")
    clear.set_defaults(handler="cache:clear")
