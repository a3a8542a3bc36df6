"""Every program that writes a catalog takes its lock, as ``pipeline translate`` does: ``refresh``'s merge and
``review``'s decisions too.

So (a) what one of them leaves beside a catalog when it is killed while writing it (``.<name>.<pid>.<tag>.tmp``)
is removed by whoever takes the catalog's lock next, since the lock's note names its process; and (b) a
merge or a decision made while a run holds the catalog waits for it and merges or decides over what the run
wrote, instead of writing in the middle of the run (which then refused to write over the merge, its
catalog "changed during the run").
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.config import load_settings
from pipeline.review.session import Refused, Session
from pipeline.run.locks import CatalogLocks
from tests.killed_runs import CATALOG, one_catalog_project, translate
from tests.review_project import PO, review_project

#: The template of :func:`tests.killed_runs.one_catalog_project`'s catalog: one message more.
TEMPLATE = 'msgid ""\nmsgstr ""\n\nmsgid "Open the file"\nmsgstr ""\n\nmsgid "Close the file"\nmsgstr ""\n'

#: A program run with ``python -c``, killed (SIGKILL) once it has written a catalog's new bytes beside it,
#: before they are swapped in; ``sys.argv[1:]`` are the command's arguments.
KILLED_WHILE_WRITING = textwrap.dedent(
    """
    import os, signal, sys
    from pipeline.files import atomic

    written = atomic.written_beside

    def write_then_die(*args, **kwargs):
        written(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)

    atomic.written_beside = write_then_die
    from pipeline.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)

#: A review session that accepts its first entry, killed as :data:`KILLED_WHILE_WRITING` is.
REVIEW_KILLED_WHILE_WRITING = textwrap.dedent(
    """
    import os, signal
    from pathlib import Path
    from pipeline.config import load_settings
    from pipeline.files import atomic
    from pipeline.review.session import Session

    written = atomic.written_beside

    def write_then_die(*args, **kwargs):
        written(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)

    session = Session(load_settings(Path("pipeline.toml")))
    entry = session.ordered()[0]
    atomic.written_beside = write_then_die
    session.accept(entry.id, entry.version)
    """
)


def _refresh_project(root: Path) -> Path:
    catalog = one_catalog_project(root)
    (catalog.parent / "messages.pot").write_text(TEMPLATE, encoding="utf-8")
    return catalog


def _litter(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _run(root: Path, *args: str, script: str = KILLED_WHILE_WRITING) -> subprocess.CompletedProcess[str]:
    return translate(root, script, *args)


def _pipeline(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args], cwd=root, env=_ENV, capture_output=True, text=True, timeout=300
    )


_ENV = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}


@pytest.mark.parametrize("after", [["refresh", "--merge-only"], ["translate"]])
def test_what_a_refresh_killed_while_writing_a_merge_left_is_removed_by_the_next_run(
    tmp_path: Path, after: list[str]
) -> None:
    catalog = _refresh_project(tmp_path)
    killed = _run(tmp_path, "refresh", "--merge-only", "--quiet")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    [left] = _litter(catalog.parent)
    assert catalog.read_text(encoding="utf-8") == CATALOG  # the catalog itself is as it was

    again = _pipeline(tmp_path, *after)
    assert again.returncode == 0, again.stderr
    pid = left.split(".")[3]
    assert f"removed 1 temporary file(s) that a killed run (process {pid}) left beside locale/de.po" in again.stderr
    assert _litter(catalog.parent) == []


def test_what_a_review_killed_while_writing_a_decision_left_is_removed_by_the_next_run(tmp_path: Path) -> None:
    review_project(tmp_path)
    catalog = tmp_path / PO
    before = catalog.read_bytes()
    killed = _run(tmp_path, script=REVIEW_KILLED_WHILE_WRITING)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    [left] = _litter(catalog.parent)
    assert catalog.read_bytes() == before

    said: list[str] = []
    session = Session(load_settings(tmp_path / "pipeline.toml"), warn=said.append)
    entry = next(e for e in session.ordered() if session.catalogs[e.catalog].path.name == catalog.name)
    assert session.accept(entry.id, entry.version).entry.status.value == "accepted"
    pid = left.split(".")[3]
    assert said == [f"removed 1 temporary file(s) that a killed run (process {pid}) left beside {PO}"]
    assert _litter(catalog.parent) == []


def _held_by_a_run(cache: Path, catalog: Path) -> CatalogLocks:
    """``catalog``'s lock, held as a translation run holds it (its note names this process)."""
    locks = CatalogLocks(cache)
    assert locks.take_free([catalog.resolve()], str, print)
    return locks


@contextlib.contextmanager
def _merging_while_a_run_holds(root: Path, catalog: Path) -> Iterator[Callable[[], tuple[int, str, str]]]:
    """``pipeline refresh --merge-only --quiet`` in ``root`` started while a run holds ``catalog`` (lock_wait 120 s),
    given once it says it waits: a call lets the catalog go and gives the merge's exit code, output and errors."""
    (root / "pipeline.toml").write_text(
        (root / "pipeline.toml").read_text() + "[translate]\nlock_wait = 120\n", encoding="utf-8"
    )
    run = _held_by_a_run(root / ".cache", catalog)
    command = [sys.executable, "-m", "pipeline", "refresh", "--merge-only", "--quiet"]
    merging = subprocess.Popen(command, cwd=root, env=_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def let_go() -> tuple[int, str, str]:
        run.release()
        out, err = merging.communicate(timeout=300)
        return merging.returncode, out, err

    try:
        assert merging.stderr is not None
        said = merging.stderr.readline()  # the wait is said even with --quiet; EOF if the merge did not wait
        assert said.startswith("pipeline: waiting up to 120 s for locale/de.po, which another run holds: process"), said
        yield let_go
    finally:
        run.release()
        if merging.poll() is None:
            merging.kill()
            merging.wait()


def test_a_merge_waits_for_the_run_that_holds_the_catalog_and_merges_what_it_wrote(tmp_path: Path) -> None:
    catalog = _refresh_project(tmp_path)
    with _merging_while_a_run_holds(tmp_path, catalog) as let_go:
        assert catalog.read_text(encoding="utf-8") == CATALOG  # nothing written while the run holds it
        translated = CATALOG.replace('"Open the file"\nmsgstr ""', '"Open the file"\nmsgstr "Datei öffnen"')
        catalog.write_text(translated, encoding="utf-8")  # what the run writes before it lets the catalog go
        code, out, err = let_go()
    assert code == 0, err
    assert out == ""
    units = {u.sources[0]: u for u in read_catalog(catalog).units}
    assert units["Open the file"].targets == ("Datei öffnen",)  # the run's save is kept
    assert "Close the file" in units  # and merged with the template


def test_a_merge_that_waited_longer_than_lock_wait_merges_nothing_and_says_who_holds_the_catalog(
    tmp_path: Path,
) -> None:
    catalog = _refresh_project(tmp_path)
    run = _held_by_a_run(tmp_path / ".cache", catalog)
    try:
        merged = _pipeline(tmp_path, "refresh", "--merge-only", "--lock-wait", "0")
    finally:
        run.release()
    assert merged.returncode == 1, merged.stderr
    assert "locale/de.po: error: not merged: another run held it longer than lock_wait (0 s): process" in merged.stderr
    assert catalog.read_text(encoding="utf-8") == CATALOG
    again = _pipeline(tmp_path, "refresh", "--merge-only")
    assert again.returncode == 0, again.stderr
    assert "Close the file" in catalog.read_text(encoding="utf-8")


def test_a_decision_while_a_run_holds_the_catalog_is_refused_naming_it_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    settings = review_project(tmp_path)
    catalog = tmp_path / PO
    session = Session(settings._replace(lock_wait=0))
    entry = next(e for e in session.ordered() if session.catalogs[e.catalog].path.name == catalog.name)
    before = catalog.read_bytes()
    run = _held_by_a_run(tmp_path / ".cache", catalog)
    try:
        with pytest.raises(Refused, match=r"another run holds .*app\.po.*: process \d+ .*nothing was written"):
            session.accept(entry.id, entry.version)
    finally:
        run.release()
    assert catalog.read_bytes() == before
    assert session.accept(entry.id, entry.version).entry.status.value == "accepted"  # once it is let go
    assert next(u for u in read_catalog(catalog).units if u.position == entry.index).state is UnitState.TRANSLATED


def test_a_merge_waits_lock_wait_in_all_not_once_per_catalog_a_run_holds(tmp_path: Path) -> None:
    # A run holds a window of catalogs (16 at least) at once: a merge that waited a whole lock_wait for each of
    # them waited 16 times what --lock-wait says (a run stopped with Ctrl-Z: hours for a wait of minutes).
    catalog = _refresh_project(tmp_path)
    other = catalog.with_name("fr.po")
    other.write_text(CATALOG.replace("Language: de", "Language: fr"), encoding="utf-8")
    run = CatalogLocks(tmp_path / ".cache")
    assert run.take_free([catalog.resolve(), other.resolve()], str, print)
    try:
        merged = _pipeline(tmp_path, "refresh", "--merge-only", "--lock-wait", "1")
    finally:
        run.release()
    assert merged.returncode == 1, merged.stderr
    waits = [line for line in merged.stderr.splitlines() if line.startswith("pipeline: waiting up to")]
    assert [w.split(" for ")[0] for w in waits] == ["pipeline: waiting up to 1 s", "pipeline: waiting up to 0 s"]
    assert "locale/fr.po: error: not merged: another run held it longer than lock_wait (1 s)" in merged.stderr
    assert catalog.read_text(encoding="utf-8") == CATALOG


def test_a_catalog_made_a_link_while_a_merge_waits_is_left_as_it_is_and_so_is_the_file_it_leads_to(
    tmp_path: Path,
) -> None:
    # The merge read the catalog, then waited for the run that held it; meanwhile the catalog was made a link to a
    # file holding the same bytes. The merge replaced the link by a regular file holding the merge, and the file
    # it led to was not merged. It is a change like a save: not merged, said, both left as they are.
    catalog = _refresh_project(tmp_path)
    shared = tmp_path / "shared" / "de.po"
    shared.parent.mkdir()
    with _merging_while_a_run_holds(tmp_path, catalog) as let_go:
        shared.write_text(CATALOG, encoding="utf-8")
        catalog.unlink()
        catalog.symlink_to("../shared/de.po")
        code, _, err = let_go()
    assert code == 1, err
    assert "locale/de.po: error: not merged: the catalog was made a symbolic link during the run; run again" in err
    assert os.readlink(catalog) == "../shared/de.po" and shared.read_text(encoding="utf-8") == CATALOG
    assert not [p for p in catalog.parent.iterdir() if p.name.endswith(".tmp")]
