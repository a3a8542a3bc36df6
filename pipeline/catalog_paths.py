"""Which files a run works on, and how reports name them.

Kept apart from :mod:`pipeline.run.scan` (which parses) so that finding the catalogs imports no parser.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pipeline.config import Settings

CATALOG_SUFFIXES = (".po", ".xlf", ".xliff")


def discover(settings: Settings, paths: Sequence[Path] = ()) -> list[Path]:
    """The catalog files of the run: the given paths (files or folders) or the configured globs."""
    found: set[Path] = set()
    if paths:
        for path in paths:
            path = path.resolve()
            if path.is_dir():
                found.update(p for p in path.rglob("*") if p.suffix.lower() in CATALOG_SUFFIXES and p.is_file())
            else:
                found.add(path)  # a missing or odd file is reported when it is read
    else:
        for pattern in settings.catalogs:
            found.update(p.resolve() for p in settings.root.glob(pattern) if p.is_file())
    excluded = {p.resolve() for pattern in settings.exclude for p in settings.root.glob(pattern)}
    return sorted(found - excluded)


def display_path(settings: Settings, path: Path) -> str:
    """``path`` relative to the project root where it lies inside it."""
    try:
        return str(path.relative_to(settings.root))
    except ValueError:
        return str(path)
