"""``pipeline cache stats|clear``: what the translation cache holds, on either store, and emptying it.

Light to import: the parsers only; the cache package is imported when a command runs.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from pipeline.cli.common import add_config_argument, load_cli_settings
from pipeline.config import Settings
from pipeline.errors import ExitCode


def register(sub: argparse._SubParsersAction) -> None:
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
    stats.set_defaults(func=_stats)
    clear.set_defaults(func=_clear)


def _settings_and_service(args: argparse.Namespace) -> tuple[Settings, str]:
    from pipeline.connect import service_identity

    settings = load_cli_settings(args)
    if args.cache_dir:
        settings = replace(settings, cache_dir=args.cache_dir.resolve())
    return settings, service_identity(settings.service)


def _stats(args: argparse.Namespace) -> int:
    from pipeline.cache.maintenance import cache_stats

    settings, service = _settings_and_service(args)
    return _show(cache_stats(settings, service), args.json)


def _clear(args: argparse.Namespace) -> int:
    from pipeline.cache.maintenance import clear_cache

    if args.all_services and not args.shared:
        from pipeline.errors import UsageError

        raise UsageError("--all-services applies to the shared cache: add --shared")
    settings, service = _settings_and_service(args)
    return _show(clear_cache(settings, service, shared=args.shared, every_service=args.all_services), args.json)


def _show(result: dict[str, object], as_json: bool) -> int:
    if as_json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        for name, figures in result.items():
            print(_line(name, figures))  # type: ignore[arg-type]
    failed = any(isinstance(f, dict) and "error" in f for f in result.values())
    return ExitCode.PARTIAL if failed else ExitCode.OK


def _line(name: str, figures: dict[str, object] | None) -> str:
    if figures is None:
        return f"{name}: not configured"
    where = figures.get("path") or figures.get("url")
    if "error" in figures:
        return f"{name} ({where}): unavailable: {figures['error']}"
    if "cleared" in figures:
        return f"{name} ({where}): {figures['cleared']} entries removed"
    if name == "shared":
        return (
            f"{name} ({where}): {figures['entries']} entries for this service, "
            f"{figures['entries_all_namespaces']} in all"
        )
    legacy = (
        f", plus {_size(figures['legacy_bytes'])} of an old cache.db (`pipeline cache clear` removes it)"
        if figures.get("legacy_bytes")
        else ""
    )
    return f"{name} ({where}): {figures['entries']} entries, {_size(figures['bytes'])}{legacy}"


def _size(count: object) -> str:
    size = int(count)  # type: ignore[call-overload]
    if size < 1024:
        return f"{size} bytes"
    return f"{size / 1024:.1f} KiB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MiB"
