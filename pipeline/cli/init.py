"""``pipeline init``: its parser (what it does: :mod:`pipeline.cli.commands.init`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.config import CONFIG_NAME


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    p.set_defaults(handler="init:init")
