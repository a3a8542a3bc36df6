"""Locks between processes on files: :class:`FileLock`, and the lock held while a run's state files are
written (:func:`state_lock`), in one small module, so that a command that only writes its state (a
refresh that merges and translates nothing) loads neither asyncio nor the catalog locks.

A :class:`FileLock` is ``flock`` on POSIX, ``msvcrt.locking`` of the file's first byte on Windows,
held through an open descriptor: the system drops it with the descriptor, so a process that is
killed leaves none behind, and two descriptors conflict even inside one process, as two runs' locks
do. These are the calls the ``filelock`` package makes, so a run of an older ``pipeline`` and this
one still take turns; written here because importing ``filelock`` 4 (with ``decimal``, ``platform``
and ``secrets``) cost about 12 ms of every run that locks a catalog, for two calls.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

__all__ = ["STATE_LOCK_SECONDS", "FileLock", "state_lock"]

#: Seconds a run waits for the run state's lock: another run holds it only while it writes its state.
STATE_LOCK_SECONDS = 10.0


@contextlib.contextmanager
def state_lock(path: Path, wait: float = STATE_LOCK_SECONDS) -> Iterator[None]:
    """Hold the lock at ``path`` while the run state is written; OSError when the lock file cannot be
    made, or when another process held it for ``wait`` seconds (a run stopped with Ctrl-Z there)."""
    lock = FileLock(path)
    if not lock.acquire(wait):
        raise OSError(errno.EBUSY, f"another process held its lock for {wait:g} s", str(path))
    try:
        yield
    finally:
        lock.release()


#: Seconds between two tries of a blocking :meth:`FileLock.acquire` (filelock's own interval).
POLL_SECONDS = 0.05
_BUSY = (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK, errno.EDEADLK)


class FileLock:
    """An exclusive lock on ``path`` (created when missing), taken by :meth:`try_acquire` or :meth:`acquire`."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    @property
    def is_locked(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lock unless another descriptor holds it (then False); OSError when the file cannot be opened."""
        if self._fd is not None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            _lock(fd)
            # Deleted between our open and our lock (by a process that cleaned the folder): a lock on a
            # file nobody else can open would let another run in; the next try opens the new file.
            taken = os.fstat(fd).st_nlink > 0
        except OSError as exc:
            os.close(fd)
            if exc.errno in _BUSY:
                return False
            raise
        if not taken:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def acquire(self, timeout: float) -> bool:
        """Take the lock, trying again for up to ``timeout`` seconds; False when it stayed held."""
        deadline = time.monotonic() + timeout
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_SECONDS)
        return True

    def release(self) -> None:
        """Let the lock go (closing its descriptor); nothing when it is not held."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            _unlock(fd)
        finally:
            os.close(fd)


if sys.platform == "win32":

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)  # Windows unlocks the byte range at the current position
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
