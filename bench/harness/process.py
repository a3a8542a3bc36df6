"""A whole command measured as a user runs it: a fresh process, beside ``python -c pass`` of the same venv.

Both run in a venv where the checkout is installed as users install it (:mod:`bench.harness.installed`).

Every process is started through GNU ``time`` (Debian's package ``time``): a process forked from the
bench itself would count the bench's memory in its own peak (the memory it had before its exec), one
forked from ``time`` does not, and ``time`` reports that peak (``%M``). ``time`` itself is forked from
the bench, so its own peak is the bench's: the peak is read from what it prints, never from ``wait4``.
CPU seconds come from ``wait4`` on ``time`` (its child's and its own, to the microsecond; ``time``
costs about a millisecond), finer than the hundredths ``time`` prints. Fresh processes may cache bytecode
(in the work folder, even where ``PYTHONDONTWRITEBYTECODE`` is set), as an installed package has; a small
run compiles it before anything is timed (:func:`warm_bytecode`).

The machine may be shared: :func:`paired` times ``python -c pass`` right before each command, so a ratio
is taken between two processes that met the same load, and the load average is printed beside it.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.harness import installed

GNU_TIME = "/usr/bin/time"

#: Exit codes a measured command may end with and still count; a row that counts failed segments
#: (exit 1, said in the report) passes :data:`SOME_FAILED` instead.
ACCEPTED_EXIT = (0,)
SOME_FAILED = (0, 1)


class MissingTool(Exception):
    """A program a row needs is not installed; the row prints why it was skipped."""


@dataclass(frozen=True)
class Timed:
    """One process: wall and CPU seconds, peak RSS, exit code."""

    wall_seconds: float
    cpu_seconds: float
    peak_rss_mib: float
    exit_code: int

    def as_json(self) -> dict[str, Any]:
        """The figures, rounded for printing."""
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in asdict(self).items()}


@dataclass(frozen=True)
class Pair:
    """A command and ``python -c pass`` timed just before it."""

    command: Timed
    python: Timed

    @property
    def ratio(self) -> float:
        """Wall time of the command over ``python -c pass``'s."""
        return self.command.wall_seconds / self.python.wall_seconds

    @property
    def cpu_ratio(self) -> float:
        """CPU seconds of the command over ``python -c pass``'s (steadier than wall time on a busy machine)."""
        return self.command.cpu_seconds / self.python.cpu_seconds


def require(*programs: str) -> None:
    """Raise :class:`MissingTool` naming the first of ``programs`` not installed."""
    for program in programs:
        if shutil.which(program) is None and not Path(program).exists():
            raise MissingTool(f"{program} is not installed")


def fresh_env(work: Path, **extra: str) -> dict[str, str]:
    """A fresh process's environment: a bytecode cache under ``work``, the report out of the real ~/.cache."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(work / "pycache"), "XDG_CACHE_HOME": str(work / "xdg"), **extra}


def pipeline_argv(*args: str) -> list[str]:
    """The ``pipeline`` console script as users install it (:mod:`bench.harness.installed`), with ``args``."""
    return [str(installed.python().with_name("pipeline")), *args]


def python_argv(*args: str) -> list[str]:
    """The Python of the same venv as :func:`pipeline_argv`, with ``args`` (default: ``-c pass``)."""
    return [str(installed.python()), *(args or ("-c", "pass"))]


def timed(argv: Sequence[str], cwd: Path, env: dict[str, str], accept: tuple[int, ...] = ACCEPTED_EXIT) -> Timed:
    """Run ``argv`` to its end and measure it; an exit code outside ``accept`` stops the bench."""
    require(GNU_TIME)
    with tempfile.TemporaryFile() as errors, tempfile.NamedTemporaryFile("r", suffix=".time") as measured:
        started = time.perf_counter()
        process = subprocess.Popen(
            [GNU_TIME, "-o", measured.name, "-f", "%M", *argv],
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in accept:
            errors.seek(0)
            raise RuntimeError(f"{list(argv)} exited {code}: {errors.read().decode(errors='replace')[-2000:]}")
        peak_kib = int(measured.read().split()[-1])  # "Command exited with non-zero status N" may come first
    return Timed(wall, usage.ru_utime + usage.ru_stime, peak_kib / 1024, code)


def paired(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> Pair:
    """``python -c pass``, then ``argv``, each measured, in this order."""
    python = timed(python_argv(), cwd, env)
    return Pair(timed(argv, cwd, env), python)


def python_c_pass(env: dict[str, str], runs: int = 5) -> dict[str, float]:
    """Best and median wall seconds (and median CPU seconds) of ``python -c pass``, printed beside every row."""
    runs_timed = [timed(python_argv(), Path.cwd(), env) for _ in range(runs)]
    seconds = [t.wall_seconds for t in runs_timed]
    return {
        "best_seconds": round(min(seconds), 4),
        "median_seconds": round(statistics.median(seconds), 4),
        "median_cpu_seconds": round(statistics.median(t.cpu_seconds for t in runs_timed), 4),
    }


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages."""
    return [round(x, 2) for x in os.getloadavg()]


def warm_bytecode(work: Path, env: dict[str, str]) -> None:
    """One small embedded run, so every module a run imports is compiled before anything is timed."""
    root = work / "warm-up"
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "de.po").write_text('msgid ""\nmsgstr "Language: de\\n"\n\nmsgid "Hello"\nmsgstr ""\n')
    (root / "pipeline.toml").write_text(
        'catalogs = ["src/*.po"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n', encoding="utf-8"
    )
    subprocess.run(pipeline_argv("translate", "--quiet"), cwd=root, env=env, check=True, capture_output=True)
