"""The command line's parser: each command is parsed by a parser that imports only its own module."""

from __future__ import annotations


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
