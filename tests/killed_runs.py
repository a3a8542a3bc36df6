"""A one-catalog project, ``pipeline translate`` run in a process of its own (to be SIGKILLed by a script at a
chosen point), and the id of a process that has ended: what the tests of a killed run's leftovers share."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

CATALOG = (
    'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    'msgid "Open the file"\nmsgstr ""\n'
)


def one_catalog_project(root: Path) -> Path:
    """``root/locale/de.po`` (:data:`CATALOG`) with a pipeline.toml for the embedded service; the catalog's path."""
    catalog = root / "locale" / "de.po"
    catalog.parent.mkdir()
    catalog.write_text(CATALOG, encoding="utf-8")
    (root / "pipeline.toml").write_text(
        'catalogs = ["locale/*.po"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n[report]\ndir = "report"\n'
    )
    return catalog


def translate(root: Path, *script: str) -> subprocess.CompletedProcess[str]:
    """``pipeline translate`` in ``root``, in a new process; with ``script`` (and its arguments), ``python -c``
    that instead (a script that patches the pipeline to kill itself, then runs it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    command = [sys.executable, "-c", *script] if script else [sys.executable, "-m", "pipeline", "translate"]
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=300)


def ended_process() -> int:
    """The id of a process of this host that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def killed_writing(module: str) -> str:
    """A script for :func:`translate`: ``pipeline translate --quiet``, killed (SIGKILL) once ``module``'s
    ``atomic_write`` has written a file's new bytes beside it, before the rename."""
    return textwrap.dedent(
        f"""
        import importlib, os, signal, sys
        from pipeline.files import atomic

        def write_then_die(path, data, durable=True):
            atomic.write_beside(path, data, durable)
            os.kill(os.getpid(), signal.SIGKILL)

        importlib.import_module("{module}").atomic_write = write_then_die
        from pipeline.cli import main
        sys.exit(main(["translate", "--quiet"]))
        """
    )
