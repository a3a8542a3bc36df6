"""A run killed in the instant between swapping a catalog's new bytes in (``renameat2(RENAME_EXCHANGE)``) and
settling the exchange leaves the file it displaced under the temporary name: the catalog as the run read it,
or a translator's save made during the run. The next run removes the first and keeps the second.

The temporary name carries a checksum of the bytes the run read (``.<name>.<pid>.<crc32><random>.tmp``):
a file left under it that holds those bytes, or one left beside a catalog that still holds them (killed
before the swap), is the run's own to remove. Anything else may be a save, and is kept and named.
"""

from __future__ import annotations

import signal
import subprocess
import textwrap
from pathlib import Path

import pytest

from pipeline.files import swap
from tests.killed_runs import CATALOG, ended_process, one_catalog_project, translate

#: ``pipeline translate`` killed (SIGKILL) right after the exchange, before it is settled; with ``save``, a
#: translator saves the catalog after the run read it and before the exchange.
KILLED_IN_THE_EXCHANGE = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from pipeline.files import atomic, swap

    save = sys.argv[1]
    written = atomic.written_beside

    def write_then_save(path, *args, **kwargs):
        made = written(path, *args, **kwargs)
        if save:
            Path(path).write_text(save, encoding="utf-8")  # the translator's save, in the editor's own way
        return made

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    atomic.written_beside = write_then_save
    swap._settle_exchange = die
    from pipeline.cli import main
    sys.exit(main(["translate", "--quiet"]))
    """
)


def _translate(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return translate(root, KILLED_IN_THE_EXCHANGE, *args) if args else translate(root)


def _litter(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.endswith(".tmp"))


pytestmark = pytest.mark.skipif(swap._renameat2() is None, reason="no atomic exchange on this system")


def test_the_catalog_as_read_left_by_a_run_killed_in_the_exchange_is_removed(tmp_path: Path) -> None:
    catalog = one_catalog_project(tmp_path)
    killed = _translate(tmp_path, "")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    [left] = _litter(catalog.parent)
    assert left.read_text(encoding="utf-8") == CATALOG  # displaced: the catalog as the run read it
    assert catalog.read_text(encoding="utf-8") != CATALOG  # the run's new bytes are in place
    again = _translate(tmp_path)
    assert again.returncode == 0, again.stderr
    assert _litter(catalog.parent) == []


def test_a_save_displaced_by_a_run_killed_in_the_exchange_is_kept_and_named(tmp_path: Path) -> None:
    catalog = one_catalog_project(tmp_path)
    saved = CATALOG.replace('msgid "Open the file"\nmsgstr ""', 'msgid "Open the file"\nmsgstr "Datei öffnen"')
    killed = _translate(tmp_path, saved)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    [left] = _litter(catalog.parent)
    assert left.read_text(encoding="utf-8") == saved  # displaced: the translator's save
    again = _translate(tmp_path)
    assert again.returncode == 0, again.stderr
    assert [p.read_text(encoding="utf-8") for p in _litter(catalog.parent)] == [saved]  # kept
    assert f"kept {left.name}" in again.stderr and "de.po" in again.stderr


def test_a_write_begun_before_a_kill_is_removed_when_the_catalog_still_holds_what_was_read(tmp_path: Path) -> None:
    # The temporary file of a write killed before its swap holds the run's new bytes, the catalog the old ones.
    catalog = one_catalog_project(tmp_path)
    tag = f"{__import__('zlib').crc32(CATALOG.encode()):08x}"
    left = catalog.parent / f".de.po.{ended_process()}.{tag}abcd.tmp"
    left.write_text("half a new catalog")
    _abandoned_lock(tmp_path, catalog, int(left.name.split(".")[3]))
    again = _translate(tmp_path)
    assert again.returncode == 0, again.stderr
    assert _litter(catalog.parent) == []


def _abandoned_lock(root: Path, catalog: Path, pid: int) -> None:
    import json
    import time

    from pipeline.files.lockfile import hostname
    from pipeline.run.catalog_lock import lock_file

    lock = lock_file(root / ".cache" / "locks", catalog.resolve())
    lock.parent.mkdir(parents=True, exist_ok=True)
    note = {"pid": pid, "host": hostname(), "command": "pipeline", "since": time.time()}
    lock.write_bytes(b"\n" + json.dumps(note).encode())
