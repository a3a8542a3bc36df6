"""Files and repositories a run did not make, handled as hostile: reading one, and finding its work tree.

:func:`read_regular` reads a file someone else made (a catalog, a compendium, a glossary, a
configuration, a project file ``init`` looks at, a document): a regular file only, within a size.
:func:`open_own` and :func:`made_here` open or make a file of the pipeline's own where someone else may
have put a link or a FIFO first.
:func:`work_tree` says whether a folder is in a git work tree; :mod:`pipeline.files.git` asks git,
safely, which files it sees there.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["READ_FLAGS", "made_here", "open_own", "read_regular", "work_tree"]

#: How a file someone else made is opened: without waiting (a FIFO opens at once), never as the
#: terminal it may be.
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


def read_regular(path: Path | str, limit: int | None = None, follow: bool = True) -> bytes:
    """The bytes of the regular file at ``path`` (links followed unless ``follow`` is False: a link there is then an
    OSError); OSError for anything else or past ``limit`` bytes.

    For a file someone else made: a name in a project, a glob's match or an argument may be a FIFO
    (opening it waits for a writer that never comes, deaf to Ctrl-C), a device or a link to one
    (``/dev/zero`` never ends), or far larger than anything of its kind. The file is looked at
    through its descriptor (what is read is what was looked at) and read only when it is a regular
    file. Every refusal is an OSError whose ``strerror`` says why (``not a regular file (a FIFO)``,
    ``larger than N bytes``), so callers' handling of unreadable files names the file with it.
    """
    fd = os.open(path, READ_FLAGS if follow else READ_FLAGS | getattr(os, "O_NOFOLLOW", 0))
    try:
        status = os.fstat(fd)
        mode = status.st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device"
            raise OSError(errno.EINVAL, f"not a regular file ({kind})", os.fspath(path))
        if limit is not None and status.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", os.fspath(path))
        # Read with os.read, not a file object: one opened on the descriptor would ask again for its
        # status, whether it is a terminal and where it stands (five system calls more per file, for
        # every catalog a run reads, twice). The first read asks for a byte more than the file's
        # size: a file that grew meanwhile (or a /proc file, sized 0) is read on, and the empty read
        # that follows says where it ends.
        pieces: list[bytes] = []
        size, asked = 0, status.st_size + 1
        while piece := os.read(fd, asked):
            pieces.append(piece)
            size += len(piece)
            if limit is not None and size > limit:
                raise OSError(errno.EFBIG, f"larger than {limit} bytes", os.fspath(path))
            asked = _MORE
    finally:
        os.close(fd)
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


_MORE = 1 << 20  # bytes asked for by each read after the first


def open_own(path: Path, flags: int) -> int:
    """``os.open(path, flags)`` (0666 less the umask when it makes the file) for a file of the pipeline's
    own in a folder someone else may have put things in: never through a link (OSError "a link, not a
    regular file"), never waiting on a FIFO. The caller looks at what it opened (``os.fstat``).

    A cache folder a project keeps in its own tree holds whatever a clone put there: through a link,
    a file of the user's would be written where the pipeline meant its own.
    """
    try:
        return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0), 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a link
            raise OSError(errno.ELOOP, "a link, not a regular file", os.fspath(path)) from None
        raise


def made_here(path: Path) -> None:
    """Make the file ``path`` unless it is there (:func:`open_own`); OSError when anything but a regular file
    is there. For a file a library opens by name after us (SQLite)."""
    fd = open_own(path, os.O_RDONLY | os.O_CREAT | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
    finally:
        os.close(fd)


def work_tree(top: Path) -> Path | None:
    """The git work tree ``top`` is in (the nearest folder holding ``.git``, itself or above), or None."""
    return next((folder for folder in (top, *top.parents) if (folder / ".git").exists()), None)
