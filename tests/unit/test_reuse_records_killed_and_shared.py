"""The reuse index's records (the cache folder's ``reuse/``) are written as the other files of the cache folder
are: under a lock whose holder leaves a note naming its process, so that what a run killed while writing one
left (``.<record>.<pid>.<random>.tmp``) is removed by the next run that writes records, and two runs never
write records at once (the second keeps none: it parses those catalogs again next time, never wrongly).
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from pipeline.files.lockfile import FileLock, hostname
from pipeline.run.reuse import index
from tests.killed_runs import ended_process, killed_writing, translate

#: ``pipeline translate`` killed (SIGKILL) once a reuse record's new bytes are written beside it, before the rename.
KILLED_WHILE_RECORDING = killed_writing("pipeline.run.reuse.index")

HEADER = 'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'


def _project(root: Path) -> Path:
    """A project whose first run settles a reviewed catalog; the next run's new catalog makes the index record it."""
    folder = root / "locale" / "de" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "django.po").write_text(HEADER + 'msgid "Save"\nmsgstr "Speichern"\n', encoding="utf-8")
    (root / "pipeline.toml").write_text(
        'catalogs = ["locale/*/LC_MESSAGES/*.po"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n'
        '[report]\ndir = "report"\n',
        encoding="utf-8",
    )
    first = translate(root)
    assert first.returncode == 0, first.stderr
    (folder / "new.po").write_text(HEADER + 'msgid "Save"\nmsgstr ""\n', encoding="utf-8")
    return root / ".cache" / index.INDEX_DIR


def _litter(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp")) if folder.exists() else []


def test_what_a_run_killed_while_writing_a_reuse_record_left_is_removed_by_the_next_run(tmp_path: Path) -> None:
    records = _project(tmp_path)
    killed = translate(tmp_path, KILLED_WHILE_RECORDING)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    [left] = _litter(records)
    again = translate(tmp_path)
    assert again.returncode == 0, again.stderr
    assert _litter(records) == []
    [record] = records.glob("*.json")
    assert json.loads(record.read_text(encoding="utf-8"))["entries"][0][2] == ["Speichern"]
    assert left.split(".")[3] != str(os.getpid())


def test_a_killed_holders_records_are_removed_and_nothing_else(tmp_path: Path) -> None:
    records = _project(tmp_path)
    records.mkdir(parents=True, exist_ok=True)
    dead, alive = ended_process(), os.getpid()
    name = "0123456789abcdef0123456789abcdef.json"
    ours = records / f".{name}.{dead}.{'a' * 12}.tmp"
    kept = [
        records / f".{name}.{alive}.{'b' * 12}.tmp",  # a live process's write
        records / f".{name}.{dead}.notours.tmp",  # not a name we make
        records / f".notarecord.{dead}.{'c' * 12}.tmp",  # not a record's
    ]
    for path in (ours, *kept):
        path.write_bytes(b"half")
    lock = FileLock(records / index.LOCK_NAME)
    assert lock.try_acquire()
    lock.write_note(json.dumps({"pid": dead, "host": hostname(), "command": "pipeline", "since": time.time()}).encode())
    assert lock._fd is not None
    os.close(lock._fd)  # killed: the descriptor goes, the note stays
    lock._fd = None
    done = translate(tmp_path)
    assert done.returncode == 0, done.stderr
    assert not ours.exists()
    assert all(p.exists() for p in kept)


def test_a_run_writes_no_record_while_another_holds_the_records_lock(tmp_path: Path) -> None:
    records = _project(tmp_path)
    records.mkdir(parents=True, exist_ok=True)
    other = FileLock(records / index.LOCK_NAME)
    assert other.try_acquire()  # another run, writing its records
    try:
        done = translate(tmp_path)
    finally:
        other.release()
    assert done.returncode == 0, done.stderr
    assert list(records.glob("*.json")) == [] and _litter(records) == []
    new = (tmp_path / "locale" / "de" / "LC_MESSAGES" / "new.po").read_text(encoding="utf-8")
    assert 'msgstr "Speichern"' in new  # reused all the same
