"""Replacing a file only while it still holds the bytes that were read (one step, a save never lost).

A translator may save a catalog at any moment, and the check and the replacement must be one step.
On Linux they are: the new file is swapped in with ``renameat2(RENAME_EXCHANGE)``, the file it
displaced is compared with what was read, and a file saved meanwhile is swapped straight back.
Where no atomic exchange exists (other systems, some network file systems) the last check is made
right before the rename, after the slow part (writing and flushing the new file), which leaves a
window of microseconds instead of the whole flush. ``pipeline review`` writes a reviewer's decisions
this way, ``refresh`` its merged catalogs, and a run its catalogs, in worker threads
(:mod:`pipeline.files.writer`).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import stat
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

from pipeline.files import atomic
from pipeline.files.atomic import Content
from pipeline.files.untrusted import READ_FLAGS

__all__ = ["ChangedMeanwhile", "discard_left", "write_over"]


class ChangedMeanwhile(OSError):
    """The file no longer held the bytes it was read with (saved, removed, made a link): it was left as it is.

    ``kept``: where an earlier save was kept, when a file was saved twice in the instant of the
    exchange (both saves are kept; the later one at the file's own path). ``linked``: a symbolic link
    is in its place now (left, and the file it leads to, as they are).
    """

    def __init__(self, path: Path, reason: str, kept: str | None = None) -> None:
        super().__init__(errno.ESTALE, reason, str(path))
        self.kept = kept
        self.linked = os.path.islink(path)

    @property
    def kept_note(self) -> str:
        """What a message about it adds: where an earlier save was kept ("" when none was)."""
        return "" if self.kept is None else f"; an earlier save is kept in {self.kept}"


def write_over(path: Path, data: Content, expected: bytes) -> None:
    """Replace ``path`` with ``data`` (as :func:`~pipeline.files.atomic.atomic_write` does) only while it
    holds exactly ``expected``, checked in the same step as the replacement; otherwise
    :class:`ChangedMeanwhile`, and ``path`` is left as it is (a removed file is not created again).

    ``path`` is the file itself, never a link (callers resolve the links they follow): a link put in its
    place meanwhile is a change, even to a file holding ``expected``. Replacing it would leave the file
    it leads to unwritten and undo whoever put it there; following it would write a file the caller
    never chose (one a run refuses as leaving the project).
    """
    # The name carries a checksum of ``expected``: a run killed between the exchange and its settling leaves
    # the displaced file under it, and the next run can tell what was read (removed) from a save (kept).
    tmp, ours = atomic.written_beside(path, data, tag=_tag(expected))
    try:
        exchanged = _exchange(tmp, path)
    except FileNotFoundError as exc:
        atomic.discard(tmp)
        if exc.filename == str(path):
            raise ChangedMeanwhile(path, "removed during the run") from None
        raise
    except BaseException:
        atomic.discard(tmp)
        raise
    if exchanged:
        _settle_exchange(tmp, path, expected, ours)
        return
    try:  # no atomic exchange here: the last check, then the rename at once
        if not _holds(path, expected):
            raise ChangedMeanwhile(path, "changed during the run")
        os.replace(tmp, path)
    except BaseException:
        atomic.discard(tmp)
        raise


def discard_left(path: Path, pid: int) -> tuple[int, list[str]]:
    """Remove what process ``pid``, killed while writing over ``path``, left beside it: how many, and the names of
    the files kept.

    Its temporary file holds either its unfinished new bytes (killed before the exchange) or, killed in
    the instant between the exchange and its settling, the file it displaced: the catalog as read, or a
    translator's save made during the run. The name's tag is a checksum of what was read
    (:func:`write_over`): a file holding that, or left beside a catalog that still holds it (no exchange
    yet), is removed. Anything else may be someone's save, and is kept (a file written by a version
    that tagged no name is kept too).
    """
    removed, kept = 0, []
    now: list[str | None] = []  # the checksum of path as it is now, read once when needed
    for left in atomic.left_beside(path, pid):
        tag = os.path.basename(left).rsplit(".", 2)[-2][:_TAG_DIGITS]
        if _crc(left) != tag:
            if not now:
                now.append(_crc(str(path)))
            if now[0] != tag:
                kept.append(os.path.basename(left))
                continue
        try:
            os.unlink(left)
        except OSError:
            continue
        removed += 1
    return removed, kept


_TAG_DIGITS = 8


def _tag(data: bytes) -> str:
    """The checksum of ``data`` that begins a temporary file's random part (:func:`discard_left`)."""
    return f"{zlib.crc32(data):0{_TAG_DIGITS}x}"


def _crc(path: str) -> str | None:
    """:func:`_tag` of the regular file at ``path``, read a piece at a time; None when it cannot be read."""
    crc = 0
    try:
        fd = os.open(path, READ_FLAGS | getattr(os, "O_NOFOLLOW", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            while piece := os.read(fd, _COMPARED):
                crc = zlib.crc32(piece, crc)
        finally:
            os.close(fd)
    except OSError:
        return None
    return f"{crc:0{_TAG_DIGITS}x}"


def _settle_exchange(displaced: str, path: Path, expected: bytes, ours: os.stat_result) -> None:
    """After the new file (``ours``) was swapped in: drop what it displaced if that is what was read, else swap back.

    Nothing but our own new file and the file that was read is ever deleted: a save is put back,
    or, saved twice in the instant between (extremely unlikely), the later save is put at ``path``
    and the earlier one kept beside it, named in the error.
    """
    if _holds(Path(displaced), expected):
        atomic.discard(displaced)
        return
    try:
        _exchange(displaced, path)  # the save goes back where it was
        if os.path.samestat(os.stat(displaced), ours):
            atomic.discard(displaced)
            raise ChangedMeanwhile(path, "changed during the run")
        _exchange(displaced, path)  # a second save replaced ours meanwhile: the later one at path
    except OSError as exc:
        if isinstance(exc, ChangedMeanwhile):
            raise
        raise ChangedMeanwhile(path, "saved during the run, and could not be put back", kept=displaced) from None
    raise ChangedMeanwhile(path, "saved twice during the run", kept=displaced)


def _holds(path: Path, expected: bytes) -> bool:
    """Whether ``path`` holds exactly ``expected`` (False when it cannot be read); read a piece at a time, so
    that a large catalog's old bytes are not held beside its new ones."""
    at = 0
    try:
        # As a file someone else made: a FIFO put there opens without waiting, reads as empty; a link is not the
        # file that was read (write_over).
        fd = os.open(path, READ_FLAGS | getattr(os, "O_NOFOLLOW", 0))
        try:
            while True:
                # A byte more than expected is asked for: a longer file shows it. A read of a regular file
                # that gives less than asked has reached its end (one read for a catalog that is as read).
                asked = min(_COMPARED, len(expected) - at + 1)
                piece = os.read(fd, asked)
                # startswith compares in place, with memcmp; a memoryview slice compares byte by byte.
                if not expected.startswith(piece, at):
                    return False
                at += len(piece)
                if len(piece) < asked:
                    break
        finally:
            os.close(fd)
    except OSError:
        return False
    return at == len(expected)


_COMPARED = 1 << 20  # bytes read and compared at a time


def _exchange(tmp: str, path: Path) -> bool:
    """Swap ``tmp`` and ``path`` atomically; False where the system or file system cannot.

    Linux ``renameat2(RENAME_EXCHANGE)`` (glibc 2.28 and later; ext4, xfs, btrfs, tmpfs, ...).
    """
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(tmp), _AT_FDCWD, os.fsencode(path), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EPERM):  # not here: rename as everywhere else
        return False
    raise OSError(code, os.strerror(code), str(path))


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a libc without it (musl before 1.2.x, old glibc)
        return None
