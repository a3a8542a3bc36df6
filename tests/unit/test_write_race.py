"""A translator saving a catalog while the run writes it: the save is kept, reported, never overwritten.

The run checks that a catalog still holds the bytes it was read with and then replaces it; a save
landing between the two was lost (8 of 10 tries when the check and the rename ran in different
threads). The saves here land at chosen instants through a hook, not a timed race.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pipeline.errors import ExitCode
from pipeline.files import atomic, swap
from pipeline.files.swap import ChangedMeanwhile, write_over
from tests.run_fakes import FakeService, project, run

CATALOG = "locale/de/LC_MESSAGES/app.po"


def save_when_the_writer_starts(monkeypatch: pytest.MonkeyPatch, path: Path, edit: bytes) -> list[str]:
    """Save ``edit`` to ``path`` the moment the writer makes its temporary file for ``path``."""
    real = atomic.new_beside
    saved: list[str] = []

    def new_beside(target: Path, tag: str = "") -> tuple[int, str]:
        if not saved and target.name == path.name and os.path.samefile(target.parent, path.parent):
            path.write_bytes(edit)
            saved.append(str(path))
        return real(target, tag)

    monkeypatch.setattr(atomic, "new_beside", new_beside)
    return saved


def test_a_save_while_the_run_writes_the_catalog_is_kept_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = project(tmp_path)
    path = tmp_path / CATALOG
    edit = path.read_bytes().replace(b'msgstr "Fertig"', b'msgstr "Erledigt"')
    saved = save_when_the_writer_starts(monkeypatch, path, edit)
    report = run(settings, FakeService())
    assert saved and path.read_bytes() == edit  # the translator's save, whole
    assert report.exit_code == ExitCode.PARTIAL
    assert [(i.catalog, i.reason.split(":")[0]) for i in report.issues] == [(CATALOG, "not written")]
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    monkeypatch.undo()
    service = FakeService()
    again = run(settings, service)  # the next run writes into the saved file, paying nothing again
    assert again.exit_code == ExitCode.OK and service.requests == []
    text = path.read_text(encoding="utf-8")
    assert 'msgstr "Erledigt"' in text and "[DE] Open" in text


def exchange_supported(tmp_path: Path) -> bool:
    from pipeline.files.swap import _exchange

    a, b = tmp_path / "probe-a", tmp_path / "probe-b"
    a.write_bytes(b"a")
    b.write_bytes(b"b")
    try:
        return _exchange(str(a), b) and a.read_bytes() == b"b"
    finally:
        a.unlink()
        b.unlink()


def test_a_save_at_the_last_instant_before_the_swap_is_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not exchange_supported(tmp_path):
        pytest.skip("no atomic exchange of two paths here (Linux renameat2 RENAME_EXCHANGE)")
    path = tmp_path / "app.po"
    path.write_bytes(b"as read")
    real = swap._exchange
    calls: list[bytes] = []

    def save_then_exchange(tmp: str, target: Path) -> bool:
        if not calls:
            target.write_bytes(b"saved by a translator")
        calls.append(target.read_bytes())
        return real(tmp, target)

    monkeypatch.setattr(swap, "_exchange", save_then_exchange)
    with pytest.raises(ChangedMeanwhile):
        write_over(path, b"translated", b"as read")
    assert len(calls) == 2  # swapped in, found the save displaced, swapped back
    assert path.read_bytes() == b"saved by a translator" and sorted(p.name for p in tmp_path.iterdir()) == ["app.po"]


def test_without_an_exchange_the_last_check_is_made_just_before_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(swap, "_exchange", lambda tmp, target: False)  # other systems, NFS, ...
    path = tmp_path / "app.po"
    path.write_bytes(b"as read")
    saved = save_when_the_writer_starts(monkeypatch, path, b"saved by a translator")
    with pytest.raises(ChangedMeanwhile):
        write_over(path, b"translated", b"as read")
    assert saved and path.read_bytes() == b"saved by a translator"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.po"]
    write_over(path, b"translated", b"saved by a translator")
    assert path.read_bytes() == b"translated"


def test_an_unchanged_file_is_replaced_and_a_removed_one_is_not_created(tmp_path: Path, exchange: bool) -> None:
    path = tmp_path / "app.po"
    path.write_bytes(b"as read")
    path.chmod(0o640)
    write_over(path, b"translated", b"as read")
    assert path.read_bytes() == b"translated" and path.stat().st_mode & 0o777 == 0o640
    path.unlink()
    with pytest.raises(ChangedMeanwhile):
        write_over(path, b"again", b"translated")
    assert list(tmp_path.iterdir()) == []


def test_two_saves_in_the_instant_of_the_swap_are_both_kept_the_later_at_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not exchange_supported(tmp_path):
        pytest.skip("no atomic exchange of two paths here (Linux renameat2 RENAME_EXCHANGE)")
    path = tmp_path / "app.po"
    path.write_bytes(b"as read")
    real = swap._exchange
    calls: list[int] = []

    def saves(tmp: str, target: Path) -> bool:
        calls.append(1)
        if len(calls) == 1:
            target.write_bytes(b"first save")  # in place, just before the swap
        if len(calls) == 2:  # the second save lands as editors save: a new file renamed over the path
            (tmp_path / "editor.tmp").write_bytes(b"second save")
            os.replace(tmp_path / "editor.tmp", target)
        return real(tmp, target)

    monkeypatch.setattr(swap, "_exchange", saves)
    with pytest.raises(ChangedMeanwhile) as caught:
        write_over(path, b"translated", b"as read")
    kept = caught.value.kept
    assert kept is not None and Path(kept).read_bytes() == b"first save"
    assert path.read_bytes() == b"second save"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["app.po", Path(kept).name])


@pytest.mark.parametrize(
    ("now", "replaced"),
    [
        (b"as read", True),
        (b"as read, and a line saved after it", False),  # longer: the byte past the end is asked for
        (b"as rea", False),  # shorter
        (b"As read", False),
        (b"x" * (swap._COMPARED + 5), True),  # compared a piece at a time
        (b"x" * (swap._COMPARED + 5) + b"y", False),
        (b"x" * (swap._COMPARED + 4), False),
    ],
)
def test_a_file_is_replaced_only_while_it_holds_exactly_the_bytes_read(
    tmp_path: Path, exchange: bool, now: bytes, replaced: bool
) -> None:
    path = tmp_path / "app.po"
    path.write_bytes(now)
    read = b"x" * (swap._COMPARED + 5) if now.startswith(b"x") else b"as read"
    if replaced:
        write_over(path, b"translated", read)
    else:
        with pytest.raises(ChangedMeanwhile):
            write_over(path, b"translated", read)
    assert path.read_bytes() == (b"translated" if replaced else now)
    assert [p.name for p in tmp_path.iterdir()] == ["app.po"]


def test_a_file_written_in_pieces_holds_them_in_order(tmp_path: Path) -> None:
    big = bytes(range(256)) * 1024  # larger than a write at a time: goes out as it is
    pieces: list[bytes | memoryview] = [b"a", memoryview(b"bc"), big, memoryview(big)[5:9], b""]
    pieces[3:3] = [bytes([n]) * 1000 for n in range(200)]
    path = tmp_path / "app.po"
    path.write_bytes(b"as read")
    write_over(path, iter(pieces), b"as read")
    assert path.read_bytes() == b"".join(pieces)


def test_a_catalog_turned_into_a_fifo_during_the_run_is_left_as_it_is_without_waiting(
    tmp_path: Path, exchange: bool
) -> None:
    # The check that the file still holds what was read opened it to read: a FIFO put there (or a
    # link to one) waited for a writer that never came, and the run with it.
    path = tmp_path / "app.po"
    os.mkfifo(path)
    with pytest.raises(ChangedMeanwhile):
        write_over(path, b"translated", b"as read")
    assert [p.name for p in tmp_path.iterdir()] == ["app.po"] and stat.S_ISFIFO(os.lstat(path).st_mode)


def made_a_link_when_the_writer_starts(monkeypatch: pytest.MonkeyPatch, path: Path, target: Path) -> list[str]:
    """Put a link to ``target`` (a file holding the same bytes) in ``path``'s place the moment the writer makes its
    temporary file for ``path``."""
    real = atomic.new_beside
    made: list[str] = []

    def new_beside(beside: Path, tag: str = "") -> tuple[int, str]:
        if not made and beside.name == path.name and os.path.samefile(beside.parent, path.parent):
            target.write_bytes(path.read_bytes())
            path.unlink()
            path.symlink_to(os.path.relpath(target, path.parent))
            made.append(str(path))
        return real(beside, tag)

    monkeypatch.setattr(atomic, "new_beside", new_beside)
    return made


def test_a_catalog_made_a_link_during_the_run_is_left_as_it_is_and_so_is_the_file_it_leads_to(
    tmp_path: Path, exchange: bool
) -> None:
    # A catalog replaced by a link to a file holding the same bytes (a shared catalog, a checkout that made it one)
    # passed the check through the link: the link was replaced by a regular file with the new bytes, and the file
    # it led to kept the old ones. A link found at the start is written through, to its target (and refused when it
    # leaves the project); one put there meanwhile is a change like a save: left as it is, for the next run.
    path, shared = tmp_path / "app.po", tmp_path / "shared.po"
    shared.write_bytes(b"as read")
    path.symlink_to("shared.po")
    with pytest.raises(ChangedMeanwhile) as raised:
        write_over(path, b"translated", b"as read")
    assert raised.value.linked
    assert os.readlink(path) == "shared.po" and shared.read_bytes() == b"as read"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.po", "shared.po"]


def test_a_run_says_a_catalog_was_made_a_link_while_it_wrote_and_the_next_run_writes_through_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exchange: bool
) -> None:
    settings = project(tmp_path)
    path, shared = tmp_path / CATALOG, tmp_path / "locale" / "shared-de.po"
    made = made_a_link_when_the_writer_starts(monkeypatch, path, shared)
    before = path.read_bytes()
    report = run(settings, FakeService())
    assert made and path.is_symlink() and shared.read_bytes() == before
    assert report.exit_code == ExitCode.PARTIAL
    assert [(i.catalog, i.reason) for i in report.issues] == [
        (CATALOG, "not written: the catalog was made a symbolic link during the run; run again")
    ]
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    monkeypatch.undo()
    again = run(settings, FakeService())  # the link, found at the start now, is written through
    assert again.exit_code == ExitCode.OK, again.issues
    assert path.is_symlink() and "[DE] Open" in shared.read_text(encoding="utf-8")


def test_a_catalog_made_a_link_outside_the_project_before_its_window_reads_it_is_neither_read_nor_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The catalogs are found (links resolved, one leaving the project refused) before the run locks and reads each
    # window, which may come after a wait for another run's lock (lock_wait: minutes) or after earlier windows. A
    # catalog made a link meanwhile was read through it: a file outside the project was parsed, sent and billed.
    from pipeline import catalog_paths

    project_dir, elsewhere = tmp_path / "project", tmp_path / "elsewhere.po"
    project_dir.mkdir()
    settings = project(project_dir)
    path = project_dir / CATALOG
    elsewhere.write_text(path.read_text(encoding="utf-8") + '\nmsgid "Private words"\nmsgstr ""\n', encoding="utf-8")
    real = catalog_paths.find_catalogs

    def found_then_linked(*args: object, **kwargs: object) -> object:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        path.unlink()
        path.symlink_to(elsewhere)
        return found

    monkeypatch.setattr("pipeline.run.orchestrate.start.find_catalogs", found_then_linked)
    service = FakeService()
    report = run(settings, service)
    assert not any("Private" in text for body in service.requests for text in body["text"])
    assert path.is_symlink() and "Private words" in elsewhere.read_text(encoding="utf-8")
    assert report.exit_code == ExitCode.PARTIAL
    assert [(i.catalog, i.reason) for i in report.issues] == [
        (CATALOG, "not read: the catalog was made a symbolic link during the run; run again")
    ]
