"""Output on a terminal that cannot show every letter: what it lacks is escaped, never a traceback.

A path or a message holds letters an ASCII or Latin-1 terminal cannot show (``de/größe.po``). Python's
C locale without its UTF-8 mode writes standard output as ASCII with ``surrogateescape``, a Latin-1
locale as Latin-1: both fail on such a letter unless the stream escapes it, as stderr always does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CATALOG = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\n'
    '#, c-format\nmsgid "Size %s \u2603"\nmsgstr "Gr\u00f6\u00dfe \u2603"\n'
)


ESCAPED = b"de/gr\\xf6\\xdfe \\u2603.po:7: C format: "


@pytest.mark.parametrize(
    ("environment", "named"),
    [
        ({"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}, ESCAPED),
        ({"PYTHONIOENCODING": "ascii"}, ESCAPED),
        ({"PYTHONIOENCODING": "latin-1"}, b"de/gr\xf6\xdfe \\u2603.po:7: C format: "),  # what Latin-1 has, as Latin-1
    ],
)
def test_check_names_a_catalog_the_terminal_cannot_show_escaped(
    tmp_path: Path, environment: dict[str, str], named: bytes
) -> None:
    (tmp_path / "de").mkdir()
    (tmp_path / "de" / "gr\u00f6\u00dfe \u2603.po").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "pipeline.toml").write_text('source_lang = "en"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIPELINE_", "LC_", "PYTHONIO"))}
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "check"], cwd=tmp_path, env={**env, **environment}, capture_output=True
    )
    assert b"Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1  # the missing %s
    assert done.stdout.startswith(named), done.stdout
