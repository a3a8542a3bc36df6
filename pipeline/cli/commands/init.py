"""``pipeline init``: write a commented ``pipeline.toml`` from what the project looks like, then preview a run."""

from __future__ import annotations

import argparse
import sys

from pipeline.cli.commands.translate import preview
from pipeline.config import CONFIG_NAME
from pipeline.errors import ExitCode, UsageError
from pipeline.files.atomic import atomic_write
from pipeline.workflows.init import inspect, one_line, render


def init(args: argparse.Namespace) -> int:
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
    if found.catalogs:
        print(f"wrote {target}: {len(found.catalogs)} catalog pattern(s)")
    else:  # the file names none: every catalog file of the project is one (the default of `catalogs`)
        print(f"wrote {target}: no known layout found, so every .po, .xlf and .xliff file here is a catalog")
    for glob, why in found.catalogs.items():
        print(f"  {one_line(glob)}  ({one_line(why)})")
    if args.no_preview:
        return ExitCode.OK

    print("what `pipeline translate --dry-run` would do:")
    preview(target)
    return ExitCode.OK
