"""Locks between processes on files: :class:`FileLock`, and the lock held while a run's state files are
written (:func:`state_lock`), in one small module, so that a command that only writes its state (a
refresh that merges and translates nothing) loads neither asyncio nor the catalog locks.

A :class:`FileLock` is ``flock`` on POSIX, ``msvcrt.locking`` of the file's first byte on Windows,
held through an open descriptor: the system drops it with the descriptor, so a process that is
killed leaves none behind, and two descriptors conflict even inside one process, as two runs' locks
do. These are the calls the ``filelock`` package makes, so a run of an older ``pipeline`` and this
one still take turns; written here because importing ``filelock`` 4 (with ``decimal``, ``platform``
and ``secrets``) cost about 12 ms of every run that locks a catalog, for two calls.

A holder may leave a note in the lock file it holds (:meth:`FileLock.write_note`), for whoever waits
to read (:func:`read_note`): written through the descriptor that holds the lock, it costs no file
of its own. The note starts at the file's second byte: Windows refuses other processes the locked
first byte, and a reader never needs it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from pipeline.files.atomic import discard_left
from pipeline.files.own import nul_only
from pipeline.files.untrusted import open_own, read_regular

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

__all__ = [
    "LOCKED_FILES",
    "PID_MAX",
    "STATE_LOCK_SECONDS",
    "FileLock",
    "alive",
    "command_line",
    "ended_holder",
    "holder_note",
    "hostname",
    "read_note",
    "state_lock",
    "take_over",
    "report_lock_path",
    "state_lock_path",
]

_STATE_LOCK_NAME = "state.lock"  # held while a save merges a run's changes into the state's files
_REPORT_LOCK_NAME = ".report.lock"  # held while the reports are written
#: The longest lock file of NUL bytes taken for a note a power cut cut short (longer than any note we write).
_NOTE_LIMIT = 1 << 16
#: The files written while holding a folder's state lock (:func:`state_lock`), whose temporary files a killed
#: holder left are removed: the run state's, the sync record, the reviewers' rejections, the reports. A
#: catalog's are not, even in the same folder (its own lock decides: it may hold a save).
LOCKED_FILES = ("state.json", "synced.json", "rejections.json", "report.json", "report.md")

#: Seconds a run waits for the run state's lock: another run holds it only while it writes its state.
STATE_LOCK_SECONDS = 10.0


def state_lock_path(directory: Path) -> Path:
    """The lock file held while the run state in ``directory`` is written (state, provenance, a damaged
    file set aside)."""
    return directory / _STATE_LOCK_NAME


def report_lock_path(directory: Path) -> Path:
    """The lock file held while the reports in ``directory`` are written: hidden, since CI jobs upload that
    folder as it is (GitHub's upload-artifact leaves hidden files out)."""
    return directory / _REPORT_LOCK_NAME


@contextlib.contextmanager
def state_lock(path: Path, wait: float = STATE_LOCK_SECONDS) -> Iterator[None]:
    """Hold the lock at ``path`` while files of its folder are written (the run state, the reports); OSError when
    the lock file cannot be made, or when another process held it for ``wait`` seconds (a run stopped with
    Ctrl-Z there).

    Every file the pipeline writes in that folder is written under it, and its holder leaves a note
    naming its process (:func:`holder_note`). A note still there when the lock is taken was left by a
    holder that was killed: the temporary files it left in the folder for :data:`LOCKED_FILES` (a write
    it had begun) are removed, when it was a process of this host that has ended (:func:`ended_holder`).
    """
    lock = FileLock(path)
    if not lock.acquire(wait):
        raise OSError(errno.EBUSY, f"another process held its lock for {wait:g} s", str(path))
    try:
        take_over(lock, lambda pid: _discard_locked(path.parent, pid))
        yield
    finally:
        lock.release()


def _discard_locked(folder: Path, pid: int) -> None:
    """Remove the temporary files ended process ``pid`` left in ``folder`` for :data:`LOCKED_FILES`."""
    for name in LOCKED_FILES:
        discard_left(folder / name, pid)


def take_over(lock: FileLock, clean: Callable[[int], object]) -> None:
    """``lock`` was just taken: ``clean(pid)`` when its note names a killed holder of this host that has ended
    (:func:`ended_holder`: to remove that process's temporary files), then leave this process's note in it."""
    pid = ended_holder(lock)
    if pid is not None:
        clean(pid)
    with contextlib.suppress(OSError):  # best effort: without it, a killed holder's files just stay
        lock.write_note(holder_note())


def holder_note() -> bytes:
    """The note this process leaves in a lock it holds: its id, its host, its command line, since when (JSON)."""
    note = {"pid": os.getpid(), "host": hostname(), "command": command_line(), "since": time.time()}
    return json.dumps(note).encode()


def command_line() -> str:
    """This process's command line as its user typed it (``python -m pipeline`` shown as ``pipeline``), for notes."""
    if not sys.argv or not sys.argv[0]:
        return "a Python program using pipeline"
    program = Path(sys.argv[0])
    name = "pipeline" if program.name == "pipeline" or program.parent.name == "pipeline" else program.name
    return " ".join([name, *sys.argv[1:]])[:200]


def ended_holder(lock: FileLock, limit: int = 4096) -> int | None:
    """The process id the note of ``lock``'s killed holder names (:attr:`FileLock.abandoned`), when it is a process
    of this host that has ended; None otherwise (no note, not ours, another host's, a process still alive:
    the id used again). Its temporary files are then its alone (:func:`pipeline.files.atomic.discard_left`)."""
    if not lock.abandoned:
        return None
    try:
        data = json.loads(read_note(lock.path, limit))
        pid, host = data["pid"], data["host"]
    except (OSError, ValueError, TypeError, KeyError, RecursionError):
        return None
    if type(pid) is not int or not 0 < pid <= PID_MAX or host != hostname() or alive(pid):
        return None
    return pid


#: The largest process id a note may name: a 32-bit ``pid_t`` (Linux's own ids stay under 2**22).
PID_MAX = 2**31 - 1


def hostname() -> str:
    """This host's name, as notes name it: what ``socket.gethostname()`` gives, without loading ``socket``
    (and ``selectors``) into a run that only writes its report."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    return os.environ.get("COMPUTERNAME", "")  # Windows


def alive(pid: int) -> bool:
    """Whether process ``pid`` of this host exists (True when that cannot be told, as on Windows)."""
    if sys.platform == "win32" or pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, another user's
        return True
    return True


#: Seconds between two tries of a blocking :meth:`FileLock.acquire` (filelock's own interval).
POLL_SECONDS = 0.05
_BUSY = (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK, errno.EDEADLK)


class FileLock:
    """An exclusive lock on ``path`` (created when missing; a link or a FIFO there is an OSError), taken by
    :meth:`try_acquire` or :meth:`acquire`."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self._size = 0  # the file's size when taken, then as the last note left it
        self._foreign = False  # the file held something else than a note of ours when taken: left as it is
        #: Whether the file held a note when this object took it: its last holder ended without
        #: letting it go (killed), and may have left work half done.
        self.abandoned = False

    @property
    def is_locked(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lock unless another descriptor holds it (then False); OSError when the file cannot be opened."""
        if self._fd is not None:
            return True
        # Written (the holder's note) and emptied: never through a link, which a cache folder a project
        # keeps in its own tree may hold (a file of the user's would be overwritten, then emptied).
        fd = open_own(self.path, os.O_RDWR | os.O_CREAT)
        try:
            _lock(fd)
            # Deleted between our open and our lock (by a process that cleaned the folder): a lock on a
            # file nobody else can open would let another run in; the next try opens the new file.
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", str(self.path))
            taken = status.st_nlink > 0
        except OSError as exc:
            os.close(fd)
            if exc.errno in _BUSY:
                return False
            raise
        if not taken:
            os.close(fd)
            return False
        self._fd, self._size = fd, status.st_size
        self.abandoned = status.st_size > 0
        if self.abandoned and not _holds_note(fd):
            # Not a note of ours: another program's file of that name (a folder ``[cache] dir`` names may be
            # anyone's). Locked all the same (flock writes nothing), never written or emptied. But NUL bytes
            # only are a note a power cut cut short (written without a flush): nothing to read, ours to write.
            self.abandoned, self._foreign = False, not nul_only(fd, status.st_size, _NOTE_LIMIT)
        return True

    def acquire(self, timeout: float) -> bool:
        """Take the lock, trying again for up to ``timeout`` seconds; False when it stayed held."""
        deadline = time.monotonic() + timeout
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_SECONDS)
        return True

    def write_note(self, note: bytes) -> None:
        """Leave ``note`` in the lock file while holding it (see :func:`read_note`); OSError when it cannot.

        :meth:`release` takes it away, so that a lock file nobody holds, or one held by a program
        that leaves no such note (an older ``pipeline`` noted beside the file), has none to mislead
        a waiter. Written over what a killed holder left, then cut to length only when that was
        longer: on ext4 a file emptied and then written is flushed to the disk when it is closed
        (``auto_da_alloc``), which cost a run milliseconds per catalog it locked.
        """
        fd = self._fd
        if fd is None:
            raise OSError(errno.EBADF, "the lock is not held", str(self.path))
        if self._foreign:
            raise OSError(errno.EEXIST, "the lock file holds something else than a note of pipeline's", str(self.path))
        data = b"\n" + note  # the first byte is the one Windows locks
        if hasattr(os, "pwrite"):
            os.pwrite(fd, data, 0)
        else:
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, data)
        if self._size > len(data):
            os.ftruncate(fd, len(data))
        self._size = len(data)

    def release(self) -> None:
        """Let the lock go (closing its descriptor, its note taken away); nothing when it is not held."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if self._size and not self._foreign:
                with contextlib.suppress(OSError):  # a note left behind is one a killed holder leaves too
                    os.ftruncate(fd, 0)
                self._size = 0
            _unlock(fd)
        finally:
            os.close(fd)


def _holds_note(fd: int) -> bool:
    """Whether the file open at ``fd`` starts as our notes do (:meth:`FileLock.write_note`: a byte, then JSON)."""
    if hasattr(os, "pread"):
        return os.pread(fd, 2, 0) == b"\n{"
    os.lseek(fd, 0, os.SEEK_SET)
    return os.read(fd, 2) == b"\n{"


def read_note(path: Path, limit: int) -> bytes:
    """The note the holder of the lock file at ``path`` left in it (:meth:`FileLock.write_note`), after the
    first byte; OSError when there is none to read (no such file, not a regular file, a file longer than
    ``limit`` bytes). Read as a file someone else made is: a FIFO put there is refused, not waited on."""
    return read_regular(path, limit)[1:]


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
