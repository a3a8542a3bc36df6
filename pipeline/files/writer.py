"""Atomic writes in worker threads: every atomic write waits for the disk (fsync), and in threads the waits
overlap each other and whatever the caller does meanwhile. Apart from :mod:`pipeline.files.swap`, so that
what writes one file (``refresh``'s merge, ``pipeline review``) loads no thread pool.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from pipeline.files.atomic import Content, atomic_write
from pipeline.files.swap import write_over

__all__ = ["AtomicWriter"]


class AtomicWriter:
    """Atomic writes in worker threads, each started as soon as its file is ready (``with`` waits for all).

    While a caller prepares the next file (renders a catalog), the writes submitted so far wait for
    the disk in the background; :meth:`submit` waits only when ``at_once`` writes are still pending.
    """

    def __init__(self, at_once: int = 8) -> None:
        self._pool = ThreadPoolExecutor(max_workers=at_once)
        self._slots = threading.BoundedSemaphore(at_once)

    def submit(self, path: Path, data: Content, expected: bytes | None = None) -> Future[OSError | None]:
        """Start writing ``data`` to ``path`` (only over ``expected``: see :func:`~pipeline.files.swap.write_over`); the
        future holds the OSError the write met (:class:`~pipeline.files.swap.ChangedMeanwhile` among them), or None.
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
        if expected is None:
            atomic_write(path, data)
        else:
            write_over(path, data, expected)
    except OSError as exc:
        return exc
    return None
