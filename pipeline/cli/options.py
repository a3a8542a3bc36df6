"""The arguments several commands share: the catalogs, ``--config``, ``--frozen``; and the values argparse checks."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.config import CONFIG_NAME
from pipeline.config.checks import code

__all__ = ["add_catalog_arguments", "add_config_argument", "add_frozen_argument", "language_code"]


def add_catalog_arguments(p: argparse.ArgumentParser) -> None:
    """The PATH arguments and ``--config`` option of every command that works on the project's catalogs."""
    p.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="catalog files or folders (default: the config's `catalogs` globs)",
    )
    p.add_argument(
        "--follow-symlinks-outside",
        action="store_true",
        help="also read and write catalogs that are symbolic links to files outside the project (the "
        "config file's folder and the PATHs given); refused by default",
    )
    add_config_argument(p)


def add_config_argument(p: argparse.ArgumentParser) -> None:
    """The ``--config`` option of every command that reads the project's configuration."""
    p.add_argument(
        "--config", type=Path, help=f"config file (default: ./{CONFIG_NAME}, or [tool.pipeline] in ./pyproject.toml)"
    )


def add_frozen_argument(p: argparse.ArgumentParser, command: str) -> None:
    """The ``--frozen`` option of ``translate`` and ``refresh``: the CI check."""
    p.add_argument(
        "--frozen",
        action="store_true",
        help=f"check only (for CI): send nothing and write nothing, not even the report; exit 5 listing "
        f"what a `pipeline {command}` would change (catalog, language, segments, estimated "
        f"characters, from the cache of the service the last run used when none is configured), 0 when "
        f"there is nothing to do, 1 (as a run would) when what is left is what the last run refused "
        f"in catalogs unchanged since, or input no run can use; needs no key",
    )


def language_code(value: str) -> str:
    """A language code argument (``--target-lang``), checked as the configuration's are."""
    problem = code(value)
    if problem:
        raise argparse.ArgumentTypeError(problem.removeprefix(": "))
    return value
