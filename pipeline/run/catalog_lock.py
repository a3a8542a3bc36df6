"""One catalog's lock, as every program that writes a catalog takes it: what a lock's file is named, the
note its holder leaves, the clean-up after a killed holder, and the lock held around one write.

A translation run locks windows of catalogs (:class:`pipeline.run.locks.CatalogLocks`, on its event
loop); ``pipeline refresh``'s merge and ``pipeline review``'s decisions lock the one catalog they are
about to write, for as long as they read it, change it and write it (:func:`one_catalog`), without
loading asyncio. All take the same lock file (the cache folder's ``locks/``, named by a hash of the
catalog's real path) and leave the same note, so that:

- they take turns: a merge or a decision made while a run holds a catalog waits for it, then reads
  what the run wrote; a run waits for them in the same way;
- whoever takes a lock whose note is still there (its holder was killed while holding it) removes
  the temporary files that holder left beside the catalog (:func:`~pipeline.files.swap.discard_left`),
  when the note names a process of this host that has ended, and says so.

Without a cache folder nothing is locked.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

from pipeline.files.lockfile import PID_MAX, POLL_SECONDS, FileLock, ended_holder, holder_note, hostname, read_note
from pipeline.files.swap import discard_left
from pipeline.model import Alert

__all__ = [
    "LOCKS_DIR",
    "CatalogsBusy",
    "claim",
    "describe",
    "lock_file",
    "one_catalog",
    "one_catalog_awaited",
    "read_holder",
    "waiting",
    "waits",
    "who_holds",
]

LOCKS_DIR = "locks"
_OWNER_BYTES = 4096  # a longer note is not ours: not read


class CatalogsBusy(Exception):
    """Another run held a catalog longer than this process would wait; the message names the holder."""


def describe(pid: int, host: str, command: str, since: float, now: float | None = None) -> str:
    """``process 4242 on build-7 (pipeline translate --quiet), since ... (14 min ago)``; whether it is stopped.

    The fields of a holder's note (:class:`pipeline.run.locks.Holder`): a plain function, so that a merge,
    which takes a lock, builds no record class for the note it only writes.
    """
    now = time.time() if now is None else now
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(since))
    shown_host, shown_command = host.translate(_CONTROLS), command.translate(_CONTROLS)
    text = f"process {pid} on {shown_host} ({shown_command}), since {when} ({_ago(now - since)})"
    if host == hostname() and _stopped(pid):
        text += f"; that process is stopped (Ctrl-Z, or a frozen job): `kill -CONT {pid}` resumes it"
    return text


#: Control characters (C0, DEL, C1), shown as ``?``: a note is written by whatever held the lock, and an
#: escape sequence in it would drive the terminal of the run that prints it.
_CONTROLS = dict.fromkeys([*range(0x20), *range(0x7F, 0xA0)], "?")


@contextlib.contextmanager
def one_catalog(
    cache_dir: Path | None, catalog: Path, shown: str, wait: float, log: Callable[[str], None]
) -> Iterator[None]:
    """Hold ``catalog``'s lock while it is read, changed and written once (a merge, a reviewer's decision).

    Waits up to ``wait`` seconds for another holder (a run), saying for whom as a run does, then raises
    :class:`CatalogsBusy`. Without a cache folder nothing is locked; when the lock folder or file cannot
    be made, the write goes on unlocked and says so, as a run's does: the write itself never goes over a
    save (:func:`~pipeline.files.swap.write_over`).
    """
    lock = _lock_of(cache_dir, catalog, shown, log)
    try:
        if lock is not None and not lock.try_acquire():
            for pause in waits(lock, shown, wait, log):
                time.sleep(pause)
    except OSError as exc:
        _unlocked(shown, exc, log)
        lock = None
    with _holding(lock, catalog, shown, log):
        yield


@contextlib.asynccontextmanager
async def one_catalog_awaited(
    cache_dir: Path | None, catalog: Path, shown: str, wait: float, log: Callable[[str], None]
) -> AsyncIterator[None]:
    """:func:`one_catalog` for a server: the wait for another holder lets its event loop answer other requests.

    Once taken, the lock is held until the body ends; a body that does not await holds it for one
    step of the loop, so two requests on the same catalog take turns, each waiting as for a run.
    """
    import asyncio  # here: a merge, which takes locks too, does not load asyncio

    lock = _lock_of(cache_dir, catalog, shown, log)
    try:
        if lock is not None and not lock.try_acquire():
            for pause in waits(lock, shown, wait, log):
                await asyncio.sleep(pause)
    except OSError as exc:
        _unlocked(shown, exc, log)
        lock = None
    with _holding(lock, catalog, shown, log):
        yield


def _lock_of(cache_dir: Path | None, catalog: Path, shown: str, log: Callable[[str], None]) -> FileLock | None:
    """``catalog``'s lock, not taken yet; None when nothing is locked (no cache folder, or no lock folder: said)."""
    if cache_dir is None:
        return None
    directory = cache_dir / LOCKS_DIR
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _unlocked(shown, exc, log)
        return None
    return FileLock(lock_file(directory, catalog))


def _unlocked(shown: str, exc: OSError, log: Callable[[str], None]) -> None:
    log(f"warning: cannot lock {shown} ({exc.strerror}); another run may write it meanwhile")


def waits(lock: FileLock, shown: str, wait: float, log: Callable[[str], None]) -> Iterator[float]:
    """The pauses before each new try to take ``lock``, which another process holds, within ``wait`` seconds
    (said once); ends once taken, raises :class:`CatalogsBusy` when the wait is over. The caller pauses, as
    its way of waiting allows (a sleep, or an event loop's)."""
    who = who_holds(lock.path)
    log(waiting(wait, shown, who))
    deadline = time.monotonic() + wait
    while True:
        yield min(POLL_SECONDS, max(0.0, deadline - time.monotonic()))
        if lock.try_acquire():
            return
        if time.monotonic() >= deadline:
            raise CatalogsBusy(who)


@contextlib.contextmanager
def _holding(lock: FileLock | None, catalog: Path, shown: str, log: Callable[[str], None]) -> Iterator[None]:
    """Body of a write under ``lock``, just taken (None: nothing locked); let go after it."""
    if lock is None:
        yield
        return
    try:
        claim(lock, catalog, holder_note(), lambda _: shown, log)
        yield
    finally:
        lock.release()


def waiting(wait: float, shown: str, who: str) -> Alert:
    """What a process that waits for a catalog another holds says, even under ``--quiet``."""
    return Alert(f"waiting up to {wait:g} s for {shown}, which another run holds: {who}")


def who_holds(file: Path) -> str:
    """Who holds the lock ``file``, as its note says (``process 4242 on build-7 (...)``)."""
    note = read_holder(file)
    return describe(*note) if note else "another run (it left no note of who it is)"


def lock_file(directory: Path, catalog: Path) -> Path:
    """The lock file of ``catalog`` in ``directory``: named by a hash of its path."""
    return directory / f"{hashlib.sha256(os.fsencode(catalog)).hexdigest()[:32]}.lock"


def claim(lock: FileLock, catalog: Path, me: bytes, name: Callable[[Path], str], log: Callable[[str], None]) -> None:
    """``lock`` on ``catalog`` was just taken: clear what a killed holder left, then say who holds it, in
    its file (best effort: a waiter without a note just says less)."""
    _clear_left(lock, catalog, name, log)  # reads the killed holder's note: before ours is written over it
    try:
        lock.write_note(me)
    except OSError:
        pass


def _clear_left(lock: FileLock, catalog: Path, name: Callable[[Path], str], log: Callable[[str], None]) -> None:
    """Remove what the killed holder of ``lock`` left beside ``catalog``: temporary files of a write
    it had begun (:func:`~pipeline.files.swap.discard_left`). Only when the note it left names a
    process of this host that has ended: a process still alive (the id used again) keeps its files."""
    pid = ended_holder(lock, _OWNER_BYTES)
    if pid is None:
        return
    removed, kept = discard_left(catalog, pid)
    if removed:
        log(f"removed {removed} temporary file(s) that a killed run (process {pid}) left beside {name(catalog)}")
    for left in kept:
        log(
            f"kept {left}, which a killed run (process {pid}) left beside {name(catalog)}: it may hold a save made "
            f"during that run; compare it with the catalog, then remove it"
        )


def read_holder(file: Path) -> tuple[int, str, str, float] | None:
    """The note of whoever holds ``file``'s lock: process id, host, command line, since when; None when there is
    none, or it is not ours."""
    try:
        data = json.loads(read_note(file, _OWNER_BYTES))
        note = (int(data["pid"]), str(data["host"]), str(data["command"]), float(data["since"]))
        time.localtime(note[3])  # a time this system can show: not NaN, infinite or past time_t
    except (OSError, ValueError, TypeError, KeyError, RecursionError, OverflowError):
        return None
    return note if 0 < note[0] <= PID_MAX else None  # an id os.kill takes (a pid_t), not a group


def _stopped(pid: int) -> bool:
    """Whether process ``pid`` of this host is stopped (Linux: its state in /proc is T or t)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read(4096)
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] in (b"T", b"t")


def _ago(seconds: float) -> str:
    if seconds < 120:
        return f"{max(seconds, 0):.0f} s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min ago"
    return f"{seconds / 3600:.1f} h ago"
