"""``pipeline cache stats|clear``: what the translation cache holds, on either store, and emptying it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping

from pipeline.cache.maintenance import Figures, cache_stats, clear_cache
from pipeline.cli.commands import load_cli_settings
from pipeline.config import Settings
from pipeline.connect import service_identity
from pipeline.errors import ExitCode, UsageError


def _settings_and_service(args: argparse.Namespace) -> tuple[Settings, str]:
    settings = load_cli_settings(args)
    if args.cache_dir:
        settings = settings._replace(cache_dir=args.cache_dir.resolve())
    return settings, service_identity(settings.service)


def stats(args: argparse.Namespace) -> int:
    settings, service = _settings_and_service(args)
    return _show(cache_stats(settings, service), args.json)


def clear(args: argparse.Namespace) -> int:
    if args.all_services and not args.shared:
        raise UsageError("--all-services applies to the shared cache: add --shared")
    settings, service = _settings_and_service(args)
    return _show(clear_cache(settings, service, shared=args.shared, every_service=args.all_services), args.json)


def _show(result: Mapping[str, Figures | None], as_json: bool) -> int:
    if as_json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        for name, figures in result.items():
            print(_line(name, figures))
    failed = any(isinstance(f, dict) and "error" in f for f in result.values())
    return ExitCode.PARTIAL if failed else ExitCode.OK


def _line(name: str, figures: Figures | None) -> str:
    if figures is None:
        return f"{name}: not configured"
    where = figures.get("path") or figures.get("url")
    if "error" in figures:
        return f"{name} ({where}): unavailable: {figures['error']}"
    if "cleared" in figures:
        return f"{name} ({where}): {figures['cleared']} entries removed{_aside(figures)}"
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
    return f"{name} ({where}): {figures['entries']} entries, {_size(figures['bytes'])}{legacy}{_aside(figures)}"


def _aside(figures: Figures) -> str:
    if not figures.get("set_aside"):
        return ""
    return f" (the file was not a database SQLite can read: moved to {figures['set_aside']}, a new one made)"


def _size(count: object) -> str:
    if not isinstance(count, int):
        return str(count)
    size = count
    if size < 1024:
        return f"{size} bytes"
    return f"{size / 1024:.1f} KiB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MiB"
