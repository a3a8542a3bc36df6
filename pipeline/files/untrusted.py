"""Files and repositories a run did not make, handled as hostile: reading one, and finding its work tree.

:func:`read_regular` reads a file someone else made (a catalog, a compendium, a glossary, a
configuration, a project file ``init`` looks at, a document): a regular file only, within a size.
:func:`work_tree` says whether a folder is in a git work tree; :mod:`pipeline.files.git` asks git,
safely, which files it sees there.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["read_regular", "work_tree"]

#: How a file someone else made is opened: without waiting (a FIFO opens at once), never as the
#: terminal it may be.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


def read_regular(path: Path | str, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (links followed); OSError for anything else or past ``limit`` bytes.

    For a file someone else made: a name in a project, a glob's match or an argument may be a FIFO
    (opening it waits for a writer that never comes, deaf to Ctrl-C), a device or a link to one
    (``/dev/zero`` never ends), or far larger than anything of its kind. The file is looked at
    through its descriptor (what is read is what was looked at) and read only when it is a regular
    file. Every refusal is an OSError whose ``strerror`` says why (``not a regular file (a FIFO)``,
    ``larger than N bytes``), so callers' handling of unreadable files names the file with it.
    """
    fd = os.open(path, _READ_FLAGS)
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


def work_tree(top: Path) -> Path | None:
    """The git work tree ``top`` is in (the nearest folder holding ``.git``, itself or above), or None."""
    return next((folder for folder in (top, *top.parents) if (folder / ".git").exists()), None)
