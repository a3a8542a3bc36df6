"""The lock held while a run's state files are written: one small module, so that a command that only
writes its state (a refresh that merges and translates nothing) loads neither asyncio nor the catalog locks.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

__all__ = ["STATE_LOCK_SECONDS", "creatable", "state_lock"]


#: Seconds a run waits for the run state's lock: another run holds it only while it writes its state.
STATE_LOCK_SECONDS = 10.0


@contextlib.contextmanager
def state_lock(path: Path, wait: float = STATE_LOCK_SECONDS) -> Iterator[None]:
    """Hold the lock at ``path`` while the run state is written; OSError when the lock file cannot be
    made, or when another process held it for ``wait`` seconds (a run stopped with Ctrl-Z there)."""
    creatable(path)
    lock = FileLock(path, timeout=wait)
    try:
        lock.acquire()
    except Timeout:
        raise OSError(errno.EBUSY, f"another process held its lock for {wait:g} s", str(path)) from None
    try:
        yield
    finally:
        lock.release()


def creatable(path: Path) -> None:
    """Make the lock file ``path`` if it is missing; OSError when it cannot be.

    filelock takes a lock file it cannot create in a folder that exists (``--cache-dir /proc``)
    for one another process is about to make, and tries again until its timeout: for ever, or
    for the whole lock wait.
    """
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o666))
