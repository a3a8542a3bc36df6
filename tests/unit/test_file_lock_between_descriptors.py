"""pipeline.files.lockfile: one holder at a time, whatever process or object holds it; gone with its descriptor."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.files.lockfile import FileLock, read_note

HOLD = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


def test_a_second_lock_on_the_same_file_waits_for_the_first_to_let_go(tmp_path: Path) -> None:
    first, second = FileLock(tmp_path / "a.lock"), FileLock(tmp_path / "a.lock")
    assert first.try_acquire() and first.is_locked
    assert not second.try_acquire() and not second.is_locked
    assert not second.acquire(timeout=0)
    first.release()
    assert second.try_acquire()
    second.release()
    second.release()  # a second release does nothing


def test_a_lock_another_process_holds_is_refused_and_taken_once_that_process_ends(tmp_path: Path) -> None:
    path = tmp_path / "b.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    lock = FileLock(path)
    try:
        assert not lock.try_acquire()
    finally:
        holder.communicate("", timeout=30)  # the holder ends: the system drops its lock
    assert lock.try_acquire()
    fd = os.open(path, os.O_RDWR)
    try:
        with pytest.raises(BlockingIOError):  # an independent flock on the file sees it held
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)
        lock.release()


def test_a_lock_file_deleted_under_its_lock_is_not_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.lock"
    real_flock = fcntl.flock

    def flock_then_delete(fd: int, operation: int) -> None:
        real_flock(fd, operation)
        if operation & fcntl.LOCK_EX:
            path.unlink()  # another process cleaned the folder between our open and our lock

    monkeypatch.setattr(fcntl, "flock", flock_then_delete)
    assert not FileLock(path).try_acquire()
    monkeypatch.setattr(fcntl, "flock", real_flock)
    assert FileLock(path).try_acquire()


def test_a_lock_file_that_cannot_be_made_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        FileLock(tmp_path / "missing" / "d.lock").try_acquire()


def test_a_holders_note_is_read_from_the_lock_file_without_its_first_byte(tmp_path: Path) -> None:
    path = tmp_path / "e.lock"
    lock = FileLock(path)
    assert lock.try_acquire()
    try:
        lock.write_note(b'{"pid": 123456789}')
        assert read_note(path, 4096) == b'{"pid": 123456789}'
        lock.write_note(b'{"pid": 1}')  # a shorter note leaves nothing of the longer one
        assert read_note(path, 4096) == b'{"pid": 1}'
        assert path.read_bytes()[1:] == b'{"pid": 1}'  # the first byte is the one Windows locks
        with pytest.raises(OSError, match="larger than 10 bytes"):  # the lock byte and a 10-byte note
            read_note(path, 10)
    finally:
        lock.release()
    assert path.read_bytes() == b""  # nobody holds it: no note to mislead a waiter
    killed = FileLock(path)
    assert killed.try_acquire()
    killed.write_note(b'{"pid": 123456789}')
    os.close(killed._fd or -1)  # a holder killed: its note stays
    taken = FileLock(path)  # the next holder writes over it
    assert taken.try_acquire()
    taken.write_note(b"{}")
    assert read_note(path, 4096) == b"{}"
    taken.release()


def test_a_note_needs_the_lock_and_a_fifo_is_no_note(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        FileLock(tmp_path / "f.lock").write_note(b"{}")
    os.mkfifo(tmp_path / "g.lock")
    with pytest.raises(OSError, match="not a regular file"):
        read_note(tmp_path / "g.lock", 4096)


def test_a_link_or_a_fifo_in_the_lock_files_place_is_refused_and_what_it_names_left_alone(tmp_path: Path) -> None:
    # A cache folder may be one a project configures in its own tree ([cache] dir), so a clone can
    # put anything there: taking a lock through a link wrote the note into the file it named and
    # emptied it on release.
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    os.symlink(victim, tmp_path / "h.lock")
    with pytest.raises(OSError, match="a link, not a regular file"):
        FileLock(tmp_path / "h.lock").try_acquire()
    os.mkfifo(tmp_path / "i.lock")
    with pytest.raises(OSError, match="not a regular file"):
        FileLock(tmp_path / "i.lock").try_acquire()
    assert victim.read_bytes() == b"precious\n"
