"""A run killed while it writes a file of the cache or report folder (the run state, a report) leaves a
temporary file there; whoever takes that folder's lock next removes it.

Every file the pipeline writes in those folders is written while holding the folder's lock
(``state.lock``), and the holder leaves a note in it naming its process: a note still there when the
lock is taken names a run that was killed while it held it, and only that process's temporary files
(``.<name>.<pid>.<random>.tmp``, regular files, never through a link) are removed, and only when it
is a process of this host that has ended.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from pathlib import Path

from pipeline.files.lockfile import FileLock, state_lock, state_lock_path
from tests.killed_runs import ended_process, killed_writing, one_catalog_project, translate


def _killed_holder(folder: Path, pid: int, host: str) -> None:
    """Leave ``folder``'s state lock as a holder ``pid`` on ``host`` killed while holding it leaves it."""
    lock = FileLock(state_lock_path(folder))
    assert lock.try_acquire()
    lock.write_note(json.dumps({"pid": pid, "host": host, "command": "pipeline", "since": time.time()}).encode())
    assert lock._fd is not None
    os.close(lock._fd)  # killed: the descriptor goes, the note stays
    lock._fd = None


def _temporary(folder: Path, name: str, pid: int) -> Path:
    path = folder / f".{name}.{pid}.{os.urandom(6).hex()}.tmp"
    path.write_bytes(b"half")
    return path


def test_the_ended_holders_temporary_files_are_removed_and_nothing_else(tmp_path: Path) -> None:
    dead, alive = ended_process(), os.getpid()
    (tmp_path / "state.json").write_text("{}")
    ours = [_temporary(tmp_path, "state.json", dead), _temporary(tmp_path, "report.json", dead)]
    kept = [
        _temporary(tmp_path, "state.json", alive),  # a live process's write
        tmp_path / f".state.json.{dead}.notours.tmp",  # not a name we make
        tmp_path / f".state.json.{dead}1.{'a' * 12}.tmp",  # another process whose id starts alike
    ]
    kept[1].write_bytes(b"")
    kept[2].write_bytes(b"")
    link = tmp_path / f".victim.{dead}.{'0' * 12}.tmp"
    os.symlink(tmp_path / "state.json", link)
    _killed_holder(tmp_path, dead, socket.gethostname())
    with state_lock(state_lock_path(tmp_path)):
        pass
    assert not any(p.exists() for p in ours)
    assert all(p.exists() for p in kept)
    assert link.is_symlink() and (tmp_path / "state.json").read_text() == "{}"


def test_a_holder_of_another_host_or_still_alive_keeps_its_files(tmp_path: Path) -> None:
    for pid, host in ((ended_process(), "another-host"), (os.getpid(), socket.gethostname())):
        left = _temporary(tmp_path, "state.json", pid)
        _killed_holder(tmp_path, pid, host)
        with state_lock(state_lock_path(tmp_path)):
            pass
        assert left.exists()


def test_the_state_lock_says_who_holds_it_while_held_and_nothing_once_let_go(tmp_path: Path) -> None:
    path = state_lock_path(tmp_path)
    with state_lock(path):
        note = json.loads(path.read_bytes()[1:])
        assert note["pid"] == os.getpid() and note["host"] == socket.gethostname()
    assert path.read_bytes() == b""


#: ``pipeline translate`` killed (SIGKILL) once a report's new bytes are written beside it, before the rename.
KILLED_WHILE_REPORTING = killed_writing("pipeline.run.report")


def test_the_run_after_a_kill_while_writing_the_report_removes_what_it_left(tmp_path: Path) -> None:
    one_catalog_project(tmp_path)
    killed = translate(tmp_path, KILLED_WHILE_REPORTING)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    report = tmp_path / "report"
    [left] = [p.name for p in report.iterdir() if p.name.endswith(".tmp")]
    assert left.startswith(".report.json.")
    again = translate(tmp_path)
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in report.iterdir()) == [".report.lock", "report.json", "report.md"]


def test_only_the_files_written_under_the_lock_are_cleared_not_a_catalogs_beside_them(tmp_path: Path) -> None:
    # [report] dir = "." in a project whose catalogs are at its top: a catalog's temporary file there is the
    # catalog lock's business (it may hold a save: pipeline.files.swap.discard_left), not the state lock's.
    dead = ended_process()
    catalog_temp = _temporary(tmp_path, "de.po", dead)
    report_temp = _temporary(tmp_path, "report.json", dead)
    _killed_holder(tmp_path, dead, socket.gethostname())
    with state_lock(state_lock_path(tmp_path)):
        pass
    assert catalog_temp.exists() and not report_temp.exists()


def test_the_files_written_under_a_state_lock_are_the_ones_it_clears() -> None:
    from pipeline.files.lockfile import LOCKED_FILES
    from pipeline.resources.synced import RECORD_NAME
    from pipeline.run.journal import STATE_NAME
    from pipeline.run.provenance import REJECTIONS_NAME
    from pipeline.run.report import REPORT_FILES

    assert set(LOCKED_FILES) == {STATE_NAME, RECORD_NAME, REJECTIONS_NAME, *REPORT_FILES}
