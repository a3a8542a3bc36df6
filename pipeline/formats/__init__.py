"""Catalog formats: reading catalogs into units and writing translations back, atomically.

A catalog is replaced only if it still holds the bytes the run read (``expected``): a translator
may save it at any moment, and the check and the replacement must be one step. On Linux they
are: the new file is swapped in with ``renameat2(RENAME_EXCHANGE)``, the file it displaced is
compared with what was read, and a file saved meanwhile is swapped straight back. Where no
atomic exchange exists (other systems, some network file systems) the last check is made right
before the rename, after the slow part (writing and flushing the new file), which leaves a
window of microseconds instead of the whole flush.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.errors import CatalogError

if TYPE_CHECKING:
    from concurrent.futures import Future

    from pipeline.formats.base import Catalog, Reviewed, Unit, UnitState
    from pipeline.formats.po import PoCatalog

__all__ = [
    "AtomicWriter",
    "Catalog",
    "CatalogError",
    "ChangedMeanwhile",
    "Content",
    "PoCatalog",
    "Reviewed",
    "Unit",
    "UnitState",
    "atomic_write",
    "atomic_write_all",
    "read_catalog",
]

SUFFIXES = (".po", ".pot")
XLIFF_SUFFIXES = (".xlf", ".xliff")


def read_catalog(path: Path, raw: bytes | None = None) -> Catalog:
    """Read a catalog of any supported format, chosen by its suffix (from ``raw``, its bytes as already read)."""
    if path.suffix.lower() in SUFFIXES:
        from pipeline.formats.po import read_po  # polib only when there is a catalog to read: see pipeline.run

        return read_po(path, raw)
    if path.suffix.lower() in XLIFF_SUFFIXES:
        from pipeline.formats.xliff import read_xliff  # lxml only when there is XLIFF to read

        return read_xliff(path, raw)
    raise CatalogError(str(path), f"unsupported catalog format {path.suffix or '(no suffix)'!r}")


class ChangedMeanwhile(OSError):
    """The file no longer held the bytes it was read with (saved, removed): it was left as it is.

    ``kept``: where an earlier save was kept, when a file was saved twice in the instant of the
    exchange (both saves are kept; the later one at the file's own path).
    """

    def __init__(self, path: Path, reason: str, kept: str | None = None) -> None:
        super().__init__(errno.ESTALE, reason, str(path))
        self.kept = kept


#: A file's new content: its bytes, or its pieces in order (written as they come: a large file
#: need not be held whole in memory).
Content = bytes | Iterable[bytes | memoryview]


def atomic_write(path: Path, data: Content, expected: bytes | None = None, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one, never half.

    With ``expected``, only while ``path`` still holds exactly those bytes, checked in the same
    step as the replacement (see the module's docstring); otherwise :class:`ChangedMeanwhile`,
    and ``path`` is left as it is (a removed file is not created again). A read-only ``path`` is
    refused (PermissionError), though the rename would replace it: the file's permissions say it
    must not change, whatever its folder allows. ``durable``: the new bytes reach the disk before
    the rename; a file that every run writes again from scratch (the reports) may skip the flush,
    which costs more than the rest of writing it: after a power cut it may be old or empty, and
    the next run writes it again.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and (not mode & 0o222 or not os.access(path, os.W_OK)):
        raise PermissionError(errno.EACCES, "the file is read-only", str(path))
    fd, tmp = _new_beside(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                handle.writelines(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        try:
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        except FileNotFoundError:
            pass
        if expected is None:
            os.replace(tmp, path)
            return
        ours = os.stat(tmp)
        exchanged = _exchange(tmp, path)
    except FileNotFoundError as exc:
        _discard(tmp)
        if expected is not None and exc.filename == str(path):
            raise ChangedMeanwhile(path, "removed during the run") from None
        raise
    except BaseException:
        _discard(tmp)
        raise
    if exchanged:
        _settle_exchange(tmp, path, expected, ours)
        return
    try:  # no atomic exchange here: the last check, then the rename at once
        if _contents(path) != expected:
            raise ChangedMeanwhile(path, "changed during the run")
        os.replace(tmp, path)
    except BaseException:
        _discard(tmp)
        raise


def _new_beside(path: Path) -> tuple[int, str]:
    """A new, empty file in ``path``'s folder (``.<name>.<random>.tmp``), open for writing.

    Created as ``open()`` creates a file, 0666 less the umask (``tempfile.mkstemp`` makes it 0600
    whatever the umask: a report or a new pipeline.toml a team's CI or group could not read). A
    file that existed gets its own mode back before the swap.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", str(path.parent))


def _settle_exchange(displaced: str, path: Path, expected: bytes, ours: os.stat_result) -> None:
    """After the new file (``ours``) was swapped in: drop what it displaced if that is what was read, else swap back.

    Nothing but our own new file and the file that was read is ever deleted: a save is put back,
    or, saved twice in the instant between (extremely unlikely), the later save is put at ``path``
    and the earlier one kept beside it, named in the error.
    """
    if _contents(Path(displaced)) == expected:
        _discard(displaced)
        return
    try:
        _exchange(displaced, path)  # the save goes back where it was
        if os.path.samestat(os.stat(displaced), ours):
            _discard(displaced)
            raise ChangedMeanwhile(path, "changed during the run")
        _exchange(displaced, path)  # a second save replaced ours meanwhile: the later one at path
    except OSError as exc:
        if isinstance(exc, ChangedMeanwhile):
            raise
        raise ChangedMeanwhile(path, "saved during the run, and could not be put back", kept=displaced) from None
    raise ChangedMeanwhile(path, "saved twice during the run", kept=displaced)


def _discard(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _contents(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _exchange(tmp: str, path: Path) -> bool:
    """Swap ``tmp`` and ``path`` atomically; False where the system or file system cannot.

    Linux ``renameat2(RENAME_EXCHANGE)`` (glibc 2.28 and later; ext4, xfs, btrfs, tmpfs, ...).
    """
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    import ctypes

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
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a libc without it (musl before 1.2.x, old glibc)
        return None


def atomic_write_all(files: Sequence[tuple[Path, Content]], workers: int = 8) -> list[OSError | None]:
    """Write several files as :func:`atomic_write` does, at once; per file, the OSError it met or None.

    Every atomic write waits for the disk (fsync): one after another, a run's catalogs and their
    provenance files queued up for most of a second; in threads the waits overlap.
    """
    if len(files) < 2:
        return [_written(path, data) for path, data in files]
    with AtomicWriter(workers) as writer:
        futures = [writer.submit(path, data) for path, data in files]
    return [future.result() for future in futures]


class AtomicWriter:
    """Atomic writes in worker threads, each started as soon as its file is ready (``with`` waits for all).

    While a caller prepares the next file (renders a catalog), the writes submitted so far wait for
    the disk in the background; :meth:`submit` waits only when ``at_once`` writes are still pending.
    """

    def __init__(self, at_once: int = 8) -> None:
        from concurrent.futures import ThreadPoolExecutor  # only a run that writes pays for the import

        self._pool = ThreadPoolExecutor(max_workers=at_once)
        self._slots = threading.BoundedSemaphore(at_once)

    def submit(self, path: Path, data: Content, expected: bytes | None = None) -> Future[OSError | None]:
        """Start writing ``data`` to ``path`` (only over ``expected``: see :func:`atomic_write`); the
        future holds the OSError the write met (:class:`ChangedMeanwhile` among them), or None.
        """
        self._slots.acquire()
        future = self._pool.submit(_written, path, data, expected)
        future.add_done_callback(lambda _: self._slots.release())
        return future

    def __enter__(self) -> AtomicWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._pool.shutdown(wait=True)


def _written(path: Path, data: Content, expected: bytes | None = None) -> OSError | None:
    try:
        atomic_write(path, data, expected)
    except OSError as exc:
        return exc
    return None


def __getattr__(name: str) -> object:
    # The models are imported on first use: a run with nothing new writes its report through
    # atomic_write and needs neither them nor the plural rules they load.
    if name in ("Catalog", "Reviewed", "Unit", "UnitState"):
        from pipeline.formats import base

        return getattr(base, name)
    if name == "PoCatalog":
        from pipeline.formats.po import PoCatalog

        return PoCatalog
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
