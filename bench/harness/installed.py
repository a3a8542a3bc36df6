"""The package as users install it: a virtualenv of its own where the checkout is installed, not editable, no extras.

The developer's ``.venv`` (``make install``) is an editable install with the test extras, and neither is
what a user runs (``pip install pipeline-i18n``, pipx and the pre-commit framework all install the
built package, without extras):

- the editable install's import hook is a ``.pth`` file that every interpreter of that venv loads at
  start-up, about 12 ms: ``python -c pass`` there takes twice what it takes in a plain virtualenv, and
  every row that divides by it looked twice as good as a user would find it;
- the test extras bring Selenium, which brings trio, and httpcore imports trio whenever it is installed
  (about 70 ms, the first time a run makes an HTTP transport).

Every row therefore runs ``pipeline`` and ``python -c pass`` in a virtualenv made from the checkout by
``pip install`` and kept, by the hash of what is installed, under the system's temporary folder. The
checkout is this one, or ``$PIPELINE_BENCH_INSTALL`` (another worktree: a before/after comparison then
runs the same bench code against two installs). A bench holds its venv with a shared lock, taken
exclusive only to build it: concurrent benches build a venv once, and the pruning of old venvs (the
newest :data:`KEEP` stay) never removes one in use.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parents[2]
VENVS = Path(tempfile.gettempdir()) / "pipeline-bench-venvs"
KEEP = 6
COMPLETE = ".complete"  # written last: a venv without it was interrupted and is built again

#: Open for the bench's life: a shared lock on each venv it runs.
_held: list[IO[bytes]] = []


def source() -> Path:
    """The checkout the bench installs."""
    return Path(os.environ.get("PIPELINE_BENCH_INSTALL") or HERE).resolve()


def source_hash(root: Path) -> str:
    """A hash of everything ``pip install`` takes from ``root``: the project files and the package's."""
    digest = hashlib.sha256()
    files = [root / "pyproject.toml", root / "README.md"]
    files += sorted(p for p in (root / "pipeline").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@cache
def python() -> Path:
    """The Python of the venv where :func:`source` is installed, built on first use."""
    root = source()
    venv = VENVS / source_hash(root)
    VENVS.mkdir(parents=True, exist_ok=True)
    lock = (VENVS / f"{venv.name}.lock").open("wb")
    fcntl.flock(lock, fcntl.LOCK_SH)  # while held, no other bench rebuilds it and no pruner removes it
    if not (venv / COMPLETE).exists():
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder; a bench running a built venv never waits here
        if not (venv / COMPLETE).exists():
            shutil.rmtree(venv, ignore_errors=True)
            print(f"# installing {root} into {venv} (pip install, not editable, no extras)", file=sys.stderr)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
            subprocess.run([*pip, str(root)], check=True, stdout=subprocess.DEVNULL)
            (venv / COMPLETE).touch()
        os.utime(venv / COMPLETE)  # the newest now: a pruner keeps it even while the lock is converted back
        fcntl.flock(lock, fcntl.LOCK_SH)
    os.utime(venv / COMPLETE)
    _held.append(lock)
    _prune(keep=venv)
    return venv / "bin" / "python"


def _prune(keep: Path) -> None:
    """Remove all but the :data:`KEEP` most recently used venvs, skipping any another bench holds."""
    built = sorted(
        (p for p in VENVS.iterdir() if (p / COMPLETE).exists()),
        key=lambda p: (p / COMPLETE).stat().st_mtime,
        reverse=True,
    )
    for venv in built[KEEP:]:
        if venv == keep:
            continue
        with (VENVS / f"{venv.name}.lock").open("wb") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # in use by another bench
            shutil.rmtree(venv, ignore_errors=True)
