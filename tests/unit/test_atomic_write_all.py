"""Writing several files at once: each written whole, an error reported for its own file only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.files.swap import atomic_write_all


def test_every_file_is_written_and_an_error_stays_with_its_file(tmp_path: Path) -> None:
    files = [(tmp_path / f"f{i}.po", f"content {i}".encode()) for i in range(12)]
    files[5] = (tmp_path / "missing-folder" / "f5.po", b"lost")
    (tmp_path / "f7.po").write_bytes(b"old")
    errors = atomic_write_all(files)
    assert [e is None for e in errors] == [i != 5 for i in range(12)]
    assert isinstance(errors[5], FileNotFoundError)
    assert [(p.read_bytes() if p.exists() else None) for p, _ in files] == [
        None if i == 5 else f"content {i}".encode() for i in range(12)
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"f{i}.po" for i in range(12) if i != 5)


def test_one_file_or_none(tmp_path: Path) -> None:
    assert atomic_write_all([]) == []
    assert atomic_write_all([(tmp_path / "a", b"x")]) == [None] and (tmp_path / "a").read_bytes() == b"x"


def test_the_writer_starts_each_write_at_once_and_keeps_its_error_with_its_file(tmp_path: Path) -> None:
    from pipeline.files.swap import AtomicWriter

    (tmp_path / "b").mkdir()  # a folder where a file should go: that write fails, alone
    with AtomicWriter(at_once=2) as writer:
        futures = [writer.submit(tmp_path / name, name.encode()) for name in ("a", "b", "c", "d", "e")]
        first = futures[0].result()  # done before the writer is closed: writes do not wait for the others
    assert first is None and (tmp_path / "a").read_bytes() == b"a"
    errors = [f.result() for f in futures]
    assert [e is None for e in errors] == [True, False, True, True, True]
    assert isinstance(errors[1], IsADirectoryError)
    assert [(tmp_path / n).read_bytes() for n in "acde"] == [b"a", b"c", b"d", b"e"]


def test_content_given_in_pieces_is_written_whole_and_a_failure_leaves_the_old_file(tmp_path: Path) -> None:
    from pipeline.files.atomic import atomic_write

    target = tmp_path / "f.json"
    atomic_write(target, (piece for piece in (b"{", b'"a": 1', b"}\n")))
    assert target.read_bytes() == b'{"a": 1}\n'

    def broken() -> Iterator[bytes]:
        yield b"half"
        raise OSError(28, "No space left on device")

    try:
        atomic_write(target, broken())
    except OSError as exc:
        assert exc.errno == 28
    else:
        raise AssertionError("the failure was swallowed")
    assert target.read_bytes() == b'{"a": 1}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]


def test_catalogs_and_state_reach_the_disk_before_the_rename_and_reports_skip_the_flush(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from pipeline.files.atomic import atomic_write
    from pipeline.run.records import RunReport
    from pipeline.run.report import write_reports

    flushed: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        flushed.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    atomic_write(tmp_path / "messages.po", b"msgid ...")
    assert len(flushed) == 1
    json_path, md_path = write_reports(RunReport(service="embedded", dry_run=False), tmp_path / "report")
    assert len(flushed) == 1  # every run writes the reports again: no flush
    assert json_path.read_bytes().startswith(b"{") and md_path.exists()
