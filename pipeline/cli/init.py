"""``pipeline init``: write a commented ``pipeline.toml`` from what the project looks like.

Light to import: the parser only; the project is looked at when the command runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pipeline.config import CONFIG_NAME
from pipeline.errors import ExitCode, UsageError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``init`` command."""
    p = sub.add_parser(
        "init",
        help=f"write a commented {CONFIG_NAME} from what the project looks like",
        description=f"Look at the project in DIR (default: the current folder) and write {CONFIG_NAME} there: "
        "catalog globs from Django's LOCALE_PATHS and app locale/ folders, Babel's sections in setup.cfg or "
        "pyproject.toml, Sphinx's locale_dirs, a WordPress languages/ folder, Angular's angular.json i18n "
        "section and Symfony's translations/, each with a comment saying where it came from. Nothing of the "
        "project is run. Then show what `pipeline translate --dry-run` would do with it.",
        epilog=f"exit codes: 0 written; 2 {CONFIG_NAME} exists already (pass --force to replace it)",
    )
    p.add_argument("directory", nargs="?", type=Path, default=Path("."), metavar="DIR", help="the project's root")
    p.add_argument("--force", action="store_true", help=f"replace an existing {CONFIG_NAME}")
    p.add_argument("--no-preview", action="store_true", help="do not show what a dry run would do")
    p.set_defaults(func=_init)


def _init(args: argparse.Namespace) -> int:
    from pipeline.formats import atomic_write
    from pipeline.workflows.init import inspect, one_line, render

    root = args.directory.resolve()
    target = root / CONFIG_NAME
    if not root.is_dir():
        raise UsageError(
            f"{root}: {'not a folder' if root.exists() else 'no such folder'}; init writes {CONFIG_NAME} in one"
        )
    if target.is_dir():
        raise UsageError(f"{target} is a folder: not replaced")
    if target.exists() and not args.force:
        print(f"pipeline: error: {target} exists already; pass --force to replace it", file=sys.stderr)
        return ExitCode.USAGE
    found = inspect(root)
    try:
        atomic_write(target, render(found).encode("utf-8"))
    except OSError as exc:
        raise UsageError(f"{target}: cannot write: {exc.strerror}") from None
    print(f"wrote {target}: {len(found.catalogs)} catalog pattern(s)")
    for glob, why in found.catalogs.items():
        print(f"  {one_line(glob)}  ({one_line(why)})")
    if args.no_preview:
        return ExitCode.OK
    from pipeline.cli.translate import preview

    print("what `pipeline translate --dry-run` would do:")
    preview(target)
    return ExitCode.OK
