"""Command-line entry point, ``pipeline <command> ...``, and its front door: what a command loads.

One module per command group registers its subcommands through a ``register(subparsers)``
function that adds parsers and names each one's ``handler`` (``module:function``, a module of
:mod:`pipeline.cli.commands` unless dotted): :mod:`~pipeline.cli.translate`, :mod:`~pipeline.cli.init`,
:mod:`~pipeline.cli.workflows` (check, refresh), :mod:`~pipeline.cli.review`,
:mod:`~pipeline.cli.resources` (glossary, style), :mod:`~pipeline.cli.cache` (stats, clear),
:mod:`~pipeline.cli.client` (the service's endpoints); ``pipeline serve`` registers from
:mod:`pipeline.service.cli`. The arguments they share are here (:func:`add_catalog_arguments`, ...).

This module decides what a command loads, and nothing else does: :func:`build_parser` imports the
command's parser module alone (``pipeline translate``, what the pre-commit hook starts at every
commit, builds only its own parser), and :func:`main` imports the command's handler module when it
runs. A handler module imports what it needs at its top. :func:`run` is the process's own
entry point: it tunes what only a whole process may.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from pipeline.config import CONFIG_NAME
from pipeline.config.checks import code
from pipeline.distribution import DISTRIBUTION, __version__
from pipeline.errors import PipelineError

__all__ = [
    "COMMANDS",
    "GC_THRESHOLDS",
    "ArgumentParser",
    "HelpFormatter",
    "add_catalog_arguments",
    "add_config_argument",
    "add_frozen_argument",
    "add_lock_wait_argument",
    "build_parser",
    "handler",
    "language_code",
    "main",
    "run",
]

#: The collector's thresholds in the ``pipeline`` process (Python's are 700, 10, 10): see :func:`run`.
GC_THRESHOLDS = (100_000, 20, 20)


#: The module that registers each command (in the order ``--help`` lists them), so that one command's
#: parser is built without importing the others' modules.
COMMANDS = {
    "translate": "pipeline.cli.translate",
    "serve": "pipeline.service.cli",
    "init": "pipeline.cli.init",
    **dict.fromkeys(("languages", "usage", "keys", "document", "write"), "pipeline.cli.client"),
    **dict.fromkeys(("check", "refresh"), "pipeline.cli.workflows"),
    "review": "pipeline.cli.review",
    **dict.fromkeys(("glossary", "style"), "pipeline.cli.resources"),
    "cache": "pipeline.cli.cache",
}


def _terminal_columns() -> int:
    """The terminal's width in columns, as :func:`shutil.get_terminal_size` gives it: ``$COLUMNS``, else the
    width of the terminal standard output is, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    try:
        return (os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 0) or 80
    except (ValueError, OSError):  # standard output closed, or not a terminal
        return 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, as wide as the terminal (:func:`_terminal_columns`, less 2, as argparse's own).

    argparse makes a formatter for every argument a parser is given (to check its metavar), and its
    own asks :func:`shutil.get_terminal_size` for the width: importing shutil, and bz2, lzma and
    zlib with it, cost every command about 4 ms of CPU, for a width that only ``--help`` and usage
    errors print with.
    """

    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, _terminal_columns() - 2 if width is None else width)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, its help formatted by :class:`HelpFormatter` unless told otherwise; the parsers of
    its subcommands (``add_subparsers``) are of this class too."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(**kwargs)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The full argument parser of ``pipeline``, or (given a known ``command``) one that knows only that command.

    ``pipeline translate`` is what the pre-commit hook starts at every commit, and ``pipeline
    refresh`` what a release build runs: building the parsers of every other command (and
    importing their modules) would cost each more than Python's start-up.
    """
    parser = ArgumentParser(
        prog="pipeline",
        description="Machine-translate Gettext PO/POT and XLIFF catalogs through the translation service.",
    )
    parser.add_argument("--version", action="version", version=f"pipeline {__version__} ({DISTRIBUTION})")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = [COMMANDS[command]] if command in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for name in modules:
        importlib.import_module(name).register(sub)
    return parser


# -- the arguments several commands share ------------------------------------------------------


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


def add_lock_wait_argument(p: argparse.ArgumentParser, waits_for: str) -> None:
    """The ``--lock-wait`` option of ``translate`` and ``refresh``: how long to wait for catalogs another run holds."""
    p.add_argument(
        "--lock-wait",
        type=_seconds,
        metavar="SECONDS",
        help=f"wait at most this long for catalogs another run is translating (it is named on stderr, even "
        f"with --quiet), then {waits_for} (default: the config's [translate] lock_wait, else 600; 0: never wait)",
    )


def _seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {value!r}") from None
    if not 0 <= number < float("inf"):
        raise argparse.ArgumentTypeError("must be 0 or more seconds")
    return number


def language_code(value: str) -> str:
    """A language code argument (``--target-lang``), checked as the configuration's are."""
    problem = code(value)
    if problem:
        raise argparse.ArgumentTypeError(problem.removeprefix(": "))
    return value


#: The exit status when the reader of standard output left: 128 + SIGPIPE, as a shell reports a tool SIGPIPE ended.
EXIT_READER_GONE = 141


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    argv = sys.argv[1:] if argv is None else argv
    _missing_streams()
    _printable_stdout()
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        return int(handler(args.handler)(args))
    except PipelineError as exc:
        print(f"pipeline: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("pipeline: interrupted", file=sys.stderr)
        return 130


def handler(name: str) -> Callable[[argparse.Namespace], int]:
    """The function ``name`` (``module:function``; a module of :mod:`pipeline.cli.commands` unless dotted)
    that runs a command, its module loaded now."""
    module, _, function = name.partition(":")
    loaded = importlib.import_module(module if "." in module else f"pipeline.cli.commands.{module}")
    run: Callable[[argparse.Namespace], int] = getattr(loaded, function)
    return run


def _missing_streams() -> None:
    """Standard output or error the process was started without (``pipeline translate >&- 2>&-``, a daemon's
    child) lead to the null device, as a daemon's do.

    Python leaves such a stream None: a command's ``sys.stdout.write`` failed with a traceback (after a run
    had written its catalogs), and ``print(..., file=sys.stderr)`` wrote the errors into standard output. The
    descriptor itself is taken too, so that no file or socket the run opens becomes descriptor 1 or 2.
    """
    for fd, name in ((1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is None:
            null = os.open(os.devnull, os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, open(fd, "w", encoding="utf-8", closefd=False))


def _printable_stdout() -> None:
    """Standard output writes what its encoding lacks as ``\\xXX``, ``\\uXXXX`` (a file name's undecodable bytes as
    ``\\udcXX``), as stderr does, instead of failing.

    A path holds undecodable bytes when a folder's name is not UTF-8 (a Latin-1 name from an old archive),
    and a path or a message holds letters an ASCII or Latin-1 terminal cannot show. Python's C locale
    without its UTF-8 mode (``PYTHONUTF8=0``) writes ASCII with ``surrogateescape``, which fails on those
    letters (``pipeline check`` failed with a traceback on the first issue naming ``größe.po``).
    """
    stream = sys.stdout
    if getattr(stream, "errors", None) in ("strict", "surrogateescape") and hasattr(stream, "reconfigure"):
        stream.reconfigure(errors="backslashreplace")


def run() -> NoReturn:
    """The process's entry point (the ``pipeline`` console script, ``python -m pipeline``): :func:`main`, then exit.

    The process is the command's own, so it may tune the garbage collector as library code never
    does: a run makes hundreds of thousands of small records that live until it ends and almost
    never form cycles, and at Python's default thresholds the collector walked them again and
    again (5 % of a run's CPU on six languages of Django's catalogs, 7.5 % on a 1 MB catalog, 9 % on
    4 MB; 1 to 2 % at :data:`GC_THRESHOLDS`, the peak memory alike). A run's start-up alone (the
    modules of the command, the run, the client and the local service: their functions, classes and
    records, all alive until the end) makes about 50,000 objects the collector tracks; a first
    collection at 50,000 walked them all to free a few hundred, 13-14 ms of CPU (4 %) of a run that
    translates one new string.

    The process ends here, and every object it leaves goes with it: frozen, they are skipped by the
    interpreter's final garbage collections, which otherwise walk all of them (about a tenth of a
    run with nothing new). Files are closed by the code that opened them, never left to those
    collections; standard streams are flushed at exit either way.

    Nor does the process run httpx's own command line: httpx imports it, and with it click and
    pygments where they are installed (click comes with uvicorn), unless the import
    is refused, which httpx answers with a stub. About 25 ms of every run that sends a request.
    Nor does it load trio, which httpcore imports where it is installed (Selenium brings it, for one)
    to serve trio's event loops besides asyncio's: the process runs asyncio's alone, and the import
    took 55-80 ms of the first request of every run over the network (85 ms of CPU, measured on
    this project's development environment).
    """
    for unused in ("httpx._main", "trio"):  # None: the import is refused
        sys.modules.setdefault(unused, None)  # type: ignore[arg-type]
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        try:
            code = main()
        finally:  # argparse's --help exits from inside main: its text is flushed here too
            sys.stdout.flush()
    except BrokenPipeError:
        code = _reader_gone()
    common = sys.modules.get("pipeline.cli.commands")  # loaded by every command that logs
    if common is not None and common.stderr_reader_gone():
        code = EXIT_READER_GONE
    gc.freeze()
    sys.exit(code)


def _reader_gone() -> int:
    """The reader of standard output left (``pipeline usage --json | head -c 30``): the rest of the output
    is dropped, as a Unix tool that SIGPIPE ends drops it, with no traceback, and the exit status says so.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush finds nowhere to fail
    return EXIT_READER_GONE


if __name__ == "__main__":  # pragma: no cover
    run()
