"""Locks on the catalogs a run works on, so that two runs on the same catalogs take turns.

One lock file per catalog (named by a hash of its real path) in the cache folder's ``locks/``: a
second run (a parallel CI job on the same checkout and cache folder) waits until the first has
written the catalog and saved its state, then finds it settled and sends nothing for it. Locks
are taken in sorted order, so two runs never wait for each other in a circle, and they go with
the process: a run that is killed leaves none behind (``filelock`` uses ``flock`` on POSIX and
``msvcrt.locking`` on Windows). Without a cache folder nothing is locked.

Only catalogs a run may write are locked, after the settled ones were skipped: a run with
nothing to do takes no lock and does not even import ``filelock``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from filelock import BaseFileLock

__all__ = ["LOCKS_DIR", "CatalogLocks"]

LOCKS_DIR = "locks"


class CatalogLocks:
    """Exclusive locks on catalogs, held until :meth:`release` (or the process's end)."""

    def __init__(self, cache_dir: Path | None) -> None:
        self.directory = cache_dir / LOCKS_DIR if cache_dir is not None else None
        self._held: list[BaseFileLock] = []

    def acquire(self, paths: Iterable[Path], name: Callable[[Path], str], log: Callable[[str], None]) -> bool:
        """Lock every catalog of ``paths``, waiting (and saying so) for those another run holds.

        Returns whether it waited: another run may have settled or translated those catalogs
        meanwhile, so the caller looks at them again.
        """
        wanted = sorted(set(paths))
        if self.directory is None or not wanted:
            return False
        from filelock import FileLock, Timeout

        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            log(f"warning: cannot create {self.directory} ({exc.strerror}); catalogs are not locked against other runs")
            return False
        waited = False
        for path in wanted:
            lock = FileLock(self.directory / f"{hashlib.sha256(str(path).encode('utf-8')).hexdigest()[:32]}.lock")
            try:
                try:
                    lock.acquire(blocking=False)
                except Timeout:
                    log(f"waiting for another run that is translating {name(path)}")
                    waited = True
                    lock.acquire()
            except OSError as exc:
                log(f"warning: cannot lock {name(path)} ({exc.strerror}); another run may translate it too")
                continue
            self._held.append(lock)
        return waited

    def release(self) -> None:
        """Let other runs have the catalogs."""
        for lock in self._held:
            lock.release()
        self._held.clear()
