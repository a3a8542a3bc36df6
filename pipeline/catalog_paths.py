"""Which files a run works on, and how reports name them.

Kept apart from :mod:`pipeline.run.scan` (which parses) so that finding the catalogs imports no parser.

A catalog reached through a symbolic link that leaves the project (the config file's folder and
the paths given on the command line) is neither read nor written unless
``Settings.follow_symlinks_outside`` allows it: a ``de.po`` linked to ``~/.ssh/config`` or to
another project's catalog must not be rewritten, nor have its content quoted in a report.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.config import Settings
from pipeline.model import Issue, Severity

CATALOG_SUFFIXES = (".po", ".xlf", ".xliff")
OUTSIDE_LINK = (
    "is a symbolic link to {target}, outside the project: neither read nor written "
    "(pass --follow-symlinks-outside to allow it)"
)
FOLDER = "is a folder named like a catalog: not read"
READ_ONLY = "is read-only: left alone (nothing sent for it, nothing written)"


@dataclass(frozen=True)
class Found:
    """The catalogs of a run, and what was refused: links out of the project, folders named like catalogs."""

    paths: list[Path]
    refused: list[Issue] = field(default_factory=list)


def find_catalogs(settings: Settings, paths: Sequence[Path] = (), writing: bool = True) -> Found:
    """The catalog files of the run: the given paths (files or folders) or the configured globs.

    ``writing``: the command writes catalogs, so a read-only one is refused before anything is
    sent for it (a rename would replace it anyway: permissions guard the file, not its folder).
    """
    roots = [settings.root.resolve(), *(p.resolve() for p in paths if p.is_dir())]
    candidates: set[Path] = set()
    if paths:
        for path in paths:
            if path.is_dir():
                candidates.update(p for p in path.rglob("*") if p.suffix.lower() in CATALOG_SUFFIXES)
            else:
                candidates.add(path)  # a missing or odd file is reported when it is read
    else:
        for pattern in settings.catalogs:
            candidates.update(settings.root.glob(pattern))
    excluded = {p.resolve() for pattern in settings.exclude for p in settings.root.glob(pattern)}
    found: set[Path] = set()
    refused: list[Issue] = []
    folders: dict[str, str] = {}
    for candidate in sorted(candidates):
        real = _resolve(candidate, folders)
        if real in excluded:
            continue
        if candidate.is_dir():
            if candidate.suffix.lower() in CATALOG_SUFFIXES:  # other folders a glob matches are just folders
                refused.append(
                    Issue(display_path(settings, Path(os.path.abspath(candidate))), FOLDER, severity=Severity.WARNING)
                )
            continue
        if not settings.follow_symlinks_outside and _leaves(candidate, real, roots):
            refused.append(
                Issue(display_path(settings, Path(os.path.abspath(candidate))), OUTSIDE_LINK.format(target=real))
            )
            continue
        if writing and read_only(real):
            refused.append(Issue(display_path(settings, Path(os.path.abspath(candidate))), READ_ONLY))
            continue
        found.add(real)
    return Found(sorted(found), refused)


def discover(settings: Settings, paths: Sequence[Path] = ()) -> list[Path]:
    """The catalog files of the run (see :func:`find_catalogs`), without the refused links."""
    return find_catalogs(settings, paths).paths


def read_only(path: Path) -> bool:
    """Whether ``path`` is an existing file its owner (or, for root, anyone) may not write."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False  # missing: reported when it is read
    return not mode & 0o222 or not os.access(path, os.W_OK)


def _resolve(path: Path, folders: dict[str, str]) -> Path:
    """``path.resolve()``, resolving each folder on the way once (kept in ``folders``).

    A project's catalogs share most of their folders: resolved whole, each path looked at every
    folder above it again. A path that is itself a link is resolved whole, and so is every path
    on Windows, where resolving also normalises the names.
    """
    if os.name != "posix" or path.name in ("", "..") or os.path.islink(path):
        return path.resolve()
    return Path(_real_folder(os.path.dirname(path), folders), path.name)


def _real_folder(folder: str, folders: dict[str, str]) -> str:
    if folder not in folders:
        name = os.path.basename(folder)
        if name in ("", ".", "..") or os.path.islink(folder):
            folders[folder] = str(Path(folder).resolve())
        else:
            folders[folder] = os.path.join(_real_folder(os.path.dirname(folder), folders), name)
    return folders[folder]


def _leaves(path: Path, real: Path, roots: Sequence[Path]) -> bool:
    """Whether ``path`` reaches, through a symbolic link, a file outside every root."""
    if any(real.is_relative_to(root) for root in roots):
        return False
    return Path(os.path.abspath(path)) != real  # no link on the way: a file the user named, where it is


def display_path(settings: Settings, path: Path) -> str:
    """``path`` relative to the project root where it lies inside it."""
    try:
        return str(path.relative_to(settings.root))
    except ValueError:
        return str(path)


#: Catalog bytes a run reads at once, unless its largest catalog is bigger. A corpus larger than
#: that is worked through in windows: each is scanned, translated, written and let go before the
#: next is read, so a run's memory follows its largest catalog (or this), not the corpus. A text
#: shared by two windows is paid once: the second finds it in the cache.
WINDOW_BYTES = 2**20


def catalog_windows(paths: list[Path], budget: int | None = None) -> list[list[Path]]:
    """``paths`` in order, cut into runs whose files together stay within ``budget`` bytes (default
    :data:`WINDOW_BYTES`), or within the largest file when it is bigger."""
    sizes = []
    for path in paths:
        try:
            sizes.append(path.stat().st_size)
        except OSError:  # the scan reports it
            sizes.append(0)
    budget = max([WINDOW_BYTES if budget is None else budget, *sizes])
    windows: list[list[Path]] = []
    total = budget + 1
    for path, size in zip(paths, sizes, strict=True):
        if total + size > budget:
            windows.append([])
            total = 0
        windows[-1].append(path)
        total += size
    return windows
