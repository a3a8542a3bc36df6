"""Writing a file atomically: readers see the old file or the new one, never half.

Used for everything the pipeline writes: catalogs, the run state and provenance, the reports, the
sync records, a new ``pipeline.toml``. A file may be replaced only if it still holds the bytes the
run read (``expected``): a translator may save a catalog at any moment, and the check and the
replacement must be one step. On Linux they are: the new file is swapped in with
``renameat2(RENAME_EXCHANGE)``, the file it displaced is compared with what was read, and a file
saved meanwhile is swapped straight back. Where no atomic exchange exists (other systems, some
network file systems) the last check is made right before the rename, after the slow part
(writing and flushing the new file), which leaves a window of microseconds instead of the whole
flush. Many files at once, in worker threads: :mod:`pipeline.files.writer`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = [
    "Content",
    "atomic_write",
    "discard",
    "discard_left",
    "left_beside",
    "left_in",
    "write_beside",
    "written_beside",
]


#: A file's new content: its bytes, or its pieces in order (written as they come: a large file
#: need not be held whole in memory).
Content = bytes | Iterable[bytes | memoryview]


def atomic_write(path: Path, data: Content, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one, never half.

    A read-only ``path`` is refused (PermissionError), though the rename would replace it: the
    file's permissions say it must not change, whatever its folder allows. ``durable``: the new
    bytes reach the disk before the rename; a file that every run writes again from scratch (the
    reports) may skip the flush, which costs more than the rest of writing it: after a power cut
    it may be old or empty, and the next run writes it again. Replacing a file only while it still
    holds what was read: :func:`pipeline.files.swap.write_over`.
    """
    tmp = write_beside(path, data, durable)
    try:
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise


def write_beside(path: Path, data: Content, durable: bool = True) -> str:
    r"""A new file beside ``path`` holding ``data``, flushed (``durable``) and with ``path``'s mode: its name.

    Refuses a read-only ``path`` (see :func:`atomic_write`); the caller renames the file into place
    or :func:`discard`\ s it.
    """
    return written_beside(path, data, durable)[0]


def written_beside(path: Path, data: Content, durable: bool = True, tag: str = "") -> tuple[str, os.stat_result]:
    """:func:`write_beside`, and the new file's status as it was made (its identity: ``os.path.samestat``);
    ``tag`` begins the random part of its name (:func:`new_beside`).

    Each system call here is a turn of the GIL for a writer thread, against every other thread:
    the bytes go out through ``os.write`` (a file object would ask the descriptor's status and
    position first), and the mode is set only where the new file did not get it when it was made.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and (not mode & 0o222 or not os.access(path, os.W_OK)):
        raise PermissionError(errno.EACCES, "the file is read-only", str(path))
    fd, tmp = new_beside(path, tag)
    try:
        made = os.fstat(fd)
        # Given ``path``'s mode (as it was, above) before a byte is written: a file kept private
        # (0600) must not have its new content in a file others may open meanwhile.
        if mode is not None and stat.S_IMODE(made.st_mode) != stat.S_IMODE(mode):
            if hasattr(os, "fchmod"):
                os.fchmod(fd, stat.S_IMODE(mode))
            else:  # Windows before Python 3.13
                os.chmod(tmp, stat.S_IMODE(mode))
        _write_all(fd, (data,) if isinstance(data, bytes) else data)
        if durable:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        discard(tmp)
        raise
    os.close(fd)
    return tmp, made


def _write_all(fd: int, pieces: Iterable[bytes | memoryview]) -> None:
    """Write ``pieces`` in order, gathered up to :data:`_BUFFER` bytes a call (a large piece goes out as it is)."""
    gathered: list[bytes | memoryview] = []
    size = 0
    for piece in pieces:
        if size + len(piece) > _BUFFER and gathered:
            _write_out(fd, gathered)
            gathered, size = [], 0
        gathered.append(piece)
        size += len(piece)
    if gathered:
        _write_out(fd, gathered)


def _write_out(fd: int, gathered: list[bytes | memoryview]) -> None:
    view = memoryview(gathered[0] if len(gathered) == 1 else b"".join(gathered))
    while view:
        view = view[os.write(fd, view) :]


_BUFFER = 1 << 16  # bytes written at a time, at most (but for a larger piece)


def new_beside(path: Path, tag: str = "") -> tuple[int, str]:
    """A new, empty file in ``path``'s folder (``.<name>.<pid>.<random>.tmp``), open for writing.

    Created as ``open()`` creates a file, 0666 less the umask (``tempfile.mkstemp`` makes it 0600
    whatever the umask: a report or a new pipeline.toml a team's CI or group could not read). A
    file that existed gets its own mode back before the swap. The name carries the writing
    process's id, so that what a killed process left can be told apart (:func:`discard_left`). The
    random part is 12 hex digits; ``tag`` (at most 8 hex digits) is its beginning: a checksum of what
    the file replaces, for :func:`pipeline.files.swap.discard_left`.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        random = (tag + os.urandom(6).hex())[:12]
        tmp = os.path.join(path.parent, f".{path.name}.{os.getpid()}.{random}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", str(path.parent))


def discard(tmp: str) -> None:
    """Remove the file ``tmp`` if it is there."""
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def discard_left(path: Path, pid: int) -> int:
    """Remove the temporary files that process ``pid``, now ended, left beside ``path`` (see
    :func:`new_beside`): how many. Only regular files of exactly that name's shape are touched.
    A file written over by an exchange: :func:`pipeline.files.swap.discard_left`."""
    removed = 0
    for found in left_beside(path, pid):
        try:
            os.unlink(found)
        except OSError:
            continue
        removed += 1
    return removed


def left_beside(path: Path, pid: int) -> list[str]:
    """The temporary files process ``pid`` left beside ``path`` (:func:`new_beside`): regular files (not links)
    of exactly that name's shape."""
    return left_in(path.parent, pid, lambda name: name == path.name)


def left_in(folder: Path, pid: int, named: Callable[[str], bool]) -> list[str]:
    """The temporary files process ``pid`` left in ``folder`` (:func:`new_beside`) for the files whose names
    ``named`` accepts: regular files (not links) of exactly that name's shape."""
    left = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        found = entry.name
        if not found.startswith(".") or not found.endswith(".tmp"):
            continue
        stem, _, random = found[1 : -len(".tmp")].rpartition(".")  # <name>.<pid>, <random>
        name, _, written_by = stem.rpartition(".")
        if written_by != str(pid) or len(random) != 12 or not all(c in "0123456789abcdef" for c in random):
            continue
        if not name or not named(name):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                left.append(entry.path)
        except OSError:
            continue
    return left
