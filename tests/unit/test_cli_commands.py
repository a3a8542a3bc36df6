"""The command line's parser: each command is parsed by a parser that imports only its own module."""

from __future__ import annotations

import pytest


def test_each_command_parses_with_only_its_own_module_and_the_map_names_every_command() -> None:
    import argparse
    import subprocess
    import sys

    from pipeline.cli import COMMANDS, build_parser

    def commands(parser: argparse.ArgumentParser) -> set[str]:
        (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return set(sub.choices)

    assert commands(build_parser()) == set(COMMANDS)  # a command added to a module is in the map
    for command in COMMANDS:
        assert command in commands(build_parser(command))
    # In a fresh process, `refresh` loads its own module and none of the others'.
    probe = (
        "import sys; from pipeline.cli import build_parser; build_parser('refresh'); "
        "print(sorted(m for m in sys.modules if m.startswith(('pipeline.cli.', 'pipeline.service'))))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['pipeline.cli.workflows']"


def test_a_commands_parser_is_built_and_used_without_loading_shutil() -> None:
    import subprocess
    import sys

    # argparse's own formatter imports shutil (and bz2, lzma) for the terminal's width: 4 ms of every command.
    probe = (
        "import sys; from pipeline.cli import build_parser; "
        "build_parser('refresh').parse_args(['refresh', '--merge-only']); print('shutil' in sys.modules)"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "False"


@pytest.mark.parametrize("columns", [None, "57", "200", "", "0", "-3", "wide"])
def test_the_help_is_as_wide_as_argparse_makes_it(monkeypatch: pytest.MonkeyPatch, columns: str | None) -> None:
    import argparse

    from pipeline.cli import HelpFormatter, build_parser

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert HelpFormatter("pipeline")._width == argparse.HelpFormatter("pipeline")._width  # shutil's answer, less 2
    if columns in ("57", "200"):  # refresh's description fills its lines up to the width, and no further
        (sub,) = (a for a in build_parser("refresh")._actions if isinstance(a, argparse._SubParsersAction))
        widest = max(map(len, sub.choices["refresh"].format_help().splitlines()))
        assert int(columns) - 12 < widest <= int(columns) - 2


def _every_parser() -> list[tuple[str, object]]:
    """``(prog, parser)`` of ``pipeline`` and of every command and action below it."""
    import argparse

    from pipeline.cli import build_parser

    found: list[tuple[str, object]] = []
    todo: list[argparse.ArgumentParser] = [build_parser()]
    while todo:
        parser = todo.pop()
        found.append((parser.prog, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())
    return found


def test_every_commands_help_says_what_it_does_and_what_each_argument_means() -> None:
    import argparse

    # `pipeline languages --help` printed its usage and options with no word on what it does.
    undescribed = []
    unexplained = []
    for prog, parser in _every_parser():
        assert isinstance(parser, argparse.ArgumentParser)
        if not (parser.description or "").strip():
            undescribed.append(prog)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction | argparse._HelpAction | argparse._VersionAction):
                continue
            if not (action.help or "").strip():
                unexplained.append(f"{prog} {'/'.join(action.option_strings) or action.dest}")
    assert undescribed == []
    assert unexplained == []
