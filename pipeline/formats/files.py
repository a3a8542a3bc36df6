"""Reading a file someone else made: a regular file only, within a size.

A name in a project, a glob's match or a command-line argument may be a FIFO (opening it waits
for a writer that never comes, deaf to Ctrl-C), a device or a link to one (``/dev/zero`` never
ends, ``/dev/tty`` waits for a keyboard), or far larger than anything of its kind. The file is
opened without waiting (``O_NONBLOCK``: a FIFO opens at once), looked at through its descriptor
(what is read is what was looked at) and read only when it is a regular file, at most ``limit``
bytes. Every refusal is an :class:`OSError` whose ``strerror`` says why, so callers' existing
handling of unreadable files reports it with the file's name.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["read_regular"]

_CHUNK = 1 << 20

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


def read_regular(path: Path | str, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (links followed); OSError for anything else or past ``limit`` bytes."""
    fd = os.open(path, _FLAGS)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            kind = (
                "a folder"
                if stat.S_ISDIR(status.st_mode)
                else "a FIFO"
                if stat.S_ISFIFO(status.st_mode)
                else "a device"
            )
            raise OSError(errno.EINVAL, f"not a regular file ({kind or 'a device'})", os.fspath(path))
        if limit is not None and status.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", os.fspath(path))
        with open(fd, "rb", closefd=False) as handle:
            if limit is None:
                return handle.read()
            data = handle.read(status.st_size + 1)  # all of it, unless it grew (or is a /proc file, sized 0)
            while len(data) <= limit and (more := handle.read(_CHUNK)):
                data += more
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit} bytes", os.fspath(path))
    return data
