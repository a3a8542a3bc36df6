"""Locks on the catalogs a run works on, so that two runs on the same catalogs take turns.

One lock file per catalog (named by a hash of its real path) in the cache folder's ``locks/``: a
second run (a parallel CI job on the same checkout and cache folder) waits until the first has
written the catalog and saved its state, then finds it settled and sends nothing for it. Locks
are taken in sorted order, so two runs never wait for each other in a circle, and they go with
the process: a run that is killed leaves none behind (:mod:`pipeline.files.lockfile`: ``flock`` on
POSIX, ``msvcrt.locking`` on Windows). Without a cache folder nothing is locked.

Each lock holds a file descriptor, so a run locks a window of catalogs at a time, at most
:func:`at_once` of them, and lets them go once the window is written and its state saved. The
next window may be locked before that, while the last requests of the one before are answered,
but only if none of its catalogs is held by another run (:meth:`CatalogLocks.take_free`): a run
waits for another's catalogs only while it holds none, so two runs never hold some and wait for
others. In each lock file its holder leaves a note that says who holds it and since when
(:meth:`~pipeline.files.lockfile.FileLock.write_note`: no file of its own to open per catalog): a
run that has to wait says so, naming the holder, even under ``--quiet``
(:class:`~pipeline.model.Alert`), and gives up after ``Settings.lock_wait`` seconds with
:class:`CatalogsBusy` (exit 6): a run stopped with Ctrl-Z or on a frozen CI runner holds its locks
until it is resumed or ended. A lock whose note is still there when it is taken was held by a run
that was killed: the temporary files that run left beside the catalog (a write it had begun) are
removed, if the note names a process of this host that has ended. Lock files, notes and that clean-up
are :mod:`pipeline.run.catalog_lock`'s, shared with ``refresh``'s merge and ``review``'s decisions, which
lock the one catalog they write around each write.

Only catalogs a run may write are locked, after the settled ones were skipped: a run with
nothing to do takes no lock.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from pipeline.files.descriptors import soft_limit
from pipeline.files.lockfile import FileLock, command_line, hostname
from pipeline.run.catalog_lock import LOCKS_DIR, CatalogsBusy, claim, describe, lock_file, waits

__all__ = ["LOCKS_DIR", "CatalogLocks", "CatalogsBusy", "Holder", "WaitStopped", "at_once"]

#: The most catalogs a run locks at once, whatever its descriptor limit allows.
MOST_AT_ONCE = 512


def at_once(limit: int | None = None) -> int:
    """Catalogs one window may lock: a quarter of the descriptor limit (``limit``, default this
    process's), at most :data:`MOST_AT_ONCE`; the rest stay for the catalogs, cache, service and Python."""
    if limit is None:
        limit = soft_limit()
        if limit is None:
            return MOST_AT_ONCE
    return max(16, min(MOST_AT_ONCE, limit // 4))


class WaitStopped(Exception):
    """The run was asked to stop (a signal) while it waited for a catalog another run holds."""


class Holder(NamedTuple):
    """Who holds a lock: a process on a host, its command line, since when (seconds since the epoch)."""

    pid: int
    host: str
    command: str
    since: float

    @classmethod
    def me(cls) -> Holder:
        """This process, now."""
        return cls(os.getpid(), hostname(), command_line(), time.time())

    def describe(self, now: float | None = None) -> str:
        """``process 4242 on build-7 (pipeline translate --quiet), since ... (14 min ago)``; whether it is stopped."""
        return describe(*self, now=now)


class CatalogLocks:
    """Exclusive locks on catalogs, held until :meth:`release` (or the process's end).

    ``wait``: seconds a run waits for a catalog another run holds before it gives up.
    """

    def __init__(self, cache_dir: Path | None, wait: float = 600.0) -> None:
        self.directory = cache_dir / LOCKS_DIR if cache_dir is not None else None
        self.wait = wait
        self._held: dict[Path, FileLock] = {}

    async def acquire(
        self,
        paths: Iterable[Path],
        name: Callable[[Path], str],
        log: Callable[[str], None],
        stopped: Callable[[], bool] = lambda: False,
    ) -> bool:
        """Lock every catalog of ``paths``, waiting (and saying for whom) for those another run holds.

        Returns whether it waited: another run may have settled or translated those catalogs
        meanwhile, so the caller looks at them again. Raises :class:`CatalogsBusy` when a wait
        outlasts ``wait``, and :class:`WaitStopped` as soon as ``stopped()`` says the run was asked
        to stop (what this call locked is let go either way). The wait sleeps on the event loop:
        the loop's signal handlers run while it waits.
        """
        wanted = sorted(set(paths))
        directory = self._usable(log) if wanted else None
        if directory is None:
            return False
        me = json.dumps(Holder.me()._asdict()).encode("utf-8")
        waited = False
        taken: list[Path] = []
        for path in wanted:
            file = lock_file(directory, path)
            try:
                lock = FileLock(file)
                waited = await self._take(lock, name(path), log, stopped) or waited
            except OSError as exc:
                log(f"warning: cannot lock {name(path)} ({exc.strerror}); another run may translate it too")
                continue
            except (CatalogsBusy, WaitStopped):
                self.release(taken)
                raise
            self._held[path] = lock
            taken.append(path)
            claim(lock, path, me, name, log)
        return waited

    def take_free(self, paths: Iterable[Path], name: Callable[[Path], str], log: Callable[[str], None]) -> bool:
        """Lock every catalog of ``paths`` without waiting; False, holding none of them, when another run holds one."""
        wanted = sorted(set(paths))
        directory = self._usable(log) if wanted else None
        if directory is None:
            return True
        me = json.dumps(Holder.me()._asdict()).encode("utf-8")
        taken: list[Path] = []
        for path in wanted:
            file = lock_file(directory, path)
            try:
                lock = FileLock(file)
                if not lock.try_acquire():
                    self.release(taken)
                    return False
            except OSError as exc:
                log(f"warning: cannot lock {name(path)} ({exc.strerror}); another run may translate it too")
                continue
            self._held[path] = lock
            taken.append(path)
            claim(lock, path, me, name, log)
        return True

    def _usable(self, log: Callable[[str], None]) -> Path | None:
        """The lock folder, made if missing; None without a cache folder, or when it cannot be made (said)."""
        if self.directory is None:
            return None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            log(f"warning: cannot create {self.directory} ({exc.strerror}); catalogs are not locked against other runs")
            return None
        return self.directory

    def release(self, paths: Iterable[Path] | None = None) -> None:
        """Let other runs have the catalogs of ``paths`` (None: every catalog held)."""
        for path in list(self._held) if paths is None else paths:
            lock = self._held.pop(path, None)
            if lock is not None:
                lock.release()

    async def _take(self, lock: FileLock, shown: str, log: Callable[[str], None], stopped: Callable[[], bool]) -> bool:
        """Take ``lock``; True when it had to wait for it. The wait sleeps on the event loop between tries
        (:func:`~pipeline.run.catalog_lock.waits`), so a signal stops it at once (a blocking wait took Ctrl-C only
        when ``lock_wait`` ran out)."""
        if lock.try_acquire():
            return False
        try:
            for pause in waits(lock, shown, self.wait, log):
                await asyncio.sleep(pause)
                if stopped():
                    raise WaitStopped(shown)
        except CatalogsBusy as who:  # waited it all out
            raise CatalogsBusy(
                f"gave up after waiting {self.wait:g} s for {shown}, which another run holds: {who}; nothing "
                f"more was read (run again once it has finished, or end it; [translate] lock_wait or "
                f"--lock-wait sets the wait)"
            ) from None
        return True
