"""Catalog formats: reading catalogs into units and writing translations back, atomically."""

from __future__ import annotations

import errno
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.errors import CatalogError

if TYPE_CHECKING:
    from concurrent.futures import Future

    from pipeline.formats.base import Catalog, Unit, UnitState
    from pipeline.formats.po import PoCatalog

__all__ = [
    "AtomicWriter",
    "Catalog",
    "CatalogError",
    "PoCatalog",
    "Unit",
    "UnitState",
    "atomic_write",
    "atomic_write_all",
    "read_catalog",
]

SUFFIXES = (".po", ".pot")
XLIFF_SUFFIXES = (".xlf", ".xliff")


def read_catalog(path: Path) -> Catalog:
    """Read a catalog of any supported format, chosen by its suffix."""
    if path.suffix.lower() in SUFFIXES:
        from pipeline.formats.po import read_po  # polib only when there is a catalog to read: see pipeline.run

        return read_po(path)
    if path.suffix.lower() in XLIFF_SUFFIXES:
        from pipeline.formats.xliff import read_xliff  # lxml only when there is XLIFF to read

        return read_xliff(path)
    raise CatalogError(str(path), f"unsupported catalog format {path.suffix or '(no suffix)'!r}")


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one, never half.

    A read-only ``path`` is refused (PermissionError), though the rename would replace it: the
    file's permissions say it must not change, whatever its folder allows.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and (not mode & 0o222 or not os.access(path, os.W_OK)):
        raise PermissionError(errno.EACCES, "the file is read-only", str(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        except FileNotFoundError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_all(files: Sequence[tuple[Path, bytes]], workers: int = 8) -> list[OSError | None]:
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

    def submit(self, path: Path, data: bytes) -> Future[OSError | None]:
        """Start writing ``data`` to ``path``; the future holds the OSError the write met, or None."""
        self._slots.acquire()
        future = self._pool.submit(_written, path, data)
        future.add_done_callback(lambda _: self._slots.release())
        return future

    def __enter__(self) -> AtomicWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._pool.shutdown(wait=True)


def _written(path: Path, data: bytes) -> OSError | None:
    try:
        atomic_write(path, data)
    except OSError as exc:
        return exc
    return None


def __getattr__(name: str) -> object:
    # The models are imported on first use: a run with nothing new writes its report through
    # atomic_write and needs neither them nor the plural rules they load.
    if name in ("Catalog", "Unit", "UnitState"):
        from pipeline.formats import base

        return getattr(base, name)
    if name == "PoCatalog":
        from pipeline.formats.po import PoCatalog

        return PoCatalog
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
