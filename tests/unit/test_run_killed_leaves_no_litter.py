"""A run killed while it writes a catalog leaves a temporary file beside it; the next run removes it.

The file is ``.<catalog>.<pid>.<random>.tmp`` (:func:`pipeline.files.atomic.new_beside`); the lock
file of the catalog still holds the killed run's note, naming its process, so the run that takes the
lock next knows whose files they are (:mod:`pipeline.run.locks`).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import textwrap
import time
import zlib
from pathlib import Path

from pipeline.files.atomic import discard_left, new_beside
from pipeline.files.lockfile import FileLock
from pipeline.run.catalog_lock import lock_file, read_holder
from pipeline.run.locks import CatalogLocks
from tests.killed_runs import CATALOG, ended_process, one_catalog_project, translate

#: ``pipeline translate`` killed (SIGKILL, nothing runs after it) once a catalog's new bytes are
#: written beside it, before they are swapped in.
KILLED_WHILE_WRITING = textwrap.dedent(
    """
    import os, signal, sys
    from pipeline.files import atomic

    written = atomic.written_beside  # what a catalog's new bytes are written beside it with

    def write_then_die(*args, **kwargs):
        written(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)

    atomic.written_beside = write_then_die
    from pipeline.cli import main
    sys.exit(main(["translate", "--quiet"]))
    """
)


def _litter(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_the_run_after_a_kill_removes_the_temporary_file_the_killed_run_left(tmp_path: Path) -> None:
    catalog = one_catalog_project(tmp_path)
    killed = translate(tmp_path, KILLED_WHILE_WRITING)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    left = _litter(catalog.parent)
    assert len(left) == 1 and left[0].startswith(".de.po.")  # the write it had begun
    assert catalog.read_text(encoding="utf-8") == CATALOG  # the catalog itself is the old one

    again = translate(tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"removed 1 temporary file(s) that a killed run (process {left[0].split('.')[3]})" in again.stderr
    assert _litter(catalog.parent) == []
    assert 'msgstr "' in catalog.read_text(encoding="utf-8").split("Open the file")[1]
    assert catalog.read_text(encoding="utf-8") != CATALOG


def _killed_holder(cache: Path, catalog: Path, pid: int, host: str) -> None:
    """Leave the lock file of ``catalog`` as a holder ``pid`` on ``host`` killed while holding it leaves it."""
    locks = CatalogLocks(cache)
    assert locks.take_free([catalog], str, print)
    lock = locks._held[catalog]
    lock.write_note(json.dumps({"pid": pid, "host": host, "command": "pipeline", "since": time.time()}).encode())
    assert lock._fd is not None
    os.close(lock._fd)  # killed: the descriptor goes, the note stays
    lock._fd = None


def _temporary(catalog: Path, pid: int) -> Path:
    """A write ``pid`` began over ``catalog`` as it is (killed before the swap: the name's tag is its checksum)."""
    tag = f"{zlib.crc32(catalog.read_bytes()):08x}" if catalog.exists() else "0" * 8
    path = catalog.parent / f".{catalog.name}.{pid}.{tag}{os.urandom(2).hex()}.tmp"
    path.write_bytes(b"half")
    return path


def test_only_the_ended_holders_files_of_that_catalog_are_removed(tmp_path: Path) -> None:
    catalog, other = tmp_path / "de.po", tmp_path / "fr.po"
    catalog.write_text(CATALOG, encoding="utf-8")
    dead, alive = ended_process(), os.getpid()
    ours = [_temporary(catalog, dead), _temporary(catalog, dead)]
    kept = [
        _temporary(catalog, alive),  # a process still writing (the review server, say)
        _temporary(other, dead),  # another catalog: its own lock decides
        catalog.parent / f".{catalog.name}.{dead}.notours.tmp",  # not a name we make
    ]
    kept[-1].write_bytes(b"")
    os.symlink(catalog, catalog.parent / f".{catalog.name}.{dead}.{'0' * 12}.tmp")  # never a link
    _killed_holder(tmp_path / ".cache", catalog, dead, socket.gethostname())
    said: list[str] = []
    locks = CatalogLocks(tmp_path / ".cache")
    assert not asyncio.run(locks.acquire([catalog], lambda p: p.name, said.append))  # no wait
    locks.release()
    assert not any(p.exists() for p in ours)
    assert all(p.exists() for p in kept)
    assert catalog.exists() and (catalog.parent / f".{catalog.name}.{dead}.{'0' * 12}.tmp").is_symlink()
    assert said == [f"removed 2 temporary file(s) that a killed run (process {dead}) left beside de.po"]


def test_a_holder_of_another_host_or_still_alive_keeps_its_files(tmp_path: Path) -> None:
    catalog = tmp_path / "de.po"
    catalog.write_text(CATALOG, encoding="utf-8")
    for pid, host in ((ended_process(), "another-host"), (os.getpid(), socket.gethostname())):
        left = _temporary(catalog, pid)
        _killed_holder(tmp_path / ".cache", catalog, pid, host)
        said: list[str] = []
        locks = CatalogLocks(tmp_path / ".cache")
        assert locks.take_free([catalog], lambda p: p.name, said.append)
        locks.release()
        assert left.exists() and said == []


def test_a_lock_let_go_is_not_taken_for_an_abandoned_one(tmp_path: Path) -> None:
    lock = FileLock(tmp_path / "x.lock")
    assert lock.try_acquire() and not lock.abandoned
    lock.write_note(b"{}")
    lock.release()
    again = FileLock(tmp_path / "x.lock")
    assert again.try_acquire() and not again.abandoned
    again.release()


def test_temporary_names_carry_the_writing_process(tmp_path: Path) -> None:
    fd, name = new_beside(tmp_path / "de.po")
    os.close(fd)
    assert Path(name).name.startswith(f".de.po.{os.getpid()}.")
    assert discard_left(tmp_path / "de.po", os.getpid()) == 1  # the caller says whose files are left
    assert not Path(name).exists()


def test_a_note_whose_process_or_time_no_system_can_hold_is_no_note(tmp_path: Path) -> None:
    # Anything may be in a lock file: ids past what a pid holds made os.kill raise OverflowError,
    # a time past time_t made the waiting message's localtime raise it, each a traceback.
    catalog = tmp_path / "de.po"
    catalog.write_text(CATALOG, encoding="utf-8")
    here = socket.gethostname()
    for pid in ("1e999", str(2**31), str(2**63), str(10**30), "-1", "0"):
        held = lock_file(tmp_path / ".cache" / "locks", catalog)
        held.parent.mkdir(parents=True, exist_ok=True)
        note = f'{{"pid": {pid}, "host": "{here}", "command": "pipeline", "since": 1}}'
        held.write_bytes(b"\n" + note.encode())
        said: list[str] = []
        locks = CatalogLocks(tmp_path / ".cache")
        assert locks.take_free([catalog], lambda p: p.name, said.append)
        locks.release()
        assert said == []
    for since in ("1e300", "-1e300", "1e999"):
        note = f'{{"pid": {os.getpid()}, "host": "{here}", "command": "pipeline", "since": {since}}}'
        held.write_bytes(b"\n" + note.encode())
        assert read_holder(held) is None
