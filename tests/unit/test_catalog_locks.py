"""Catalog locks: a second holder waits for the first, says so, and gets the lock once it is released."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from pipeline.files.lockfile import state_lock, state_lock_path
from pipeline.run.catalog_lock import lock_file
from pipeline.run.locks import CatalogLocks, Holder


def test_a_second_run_waits_for_the_catalogs_the_first_holds(tmp_path: Path) -> None:
    catalogs = [tmp_path / "de.po", tmp_path / "fr.po"]
    first, second = CatalogLocks(tmp_path / "cache"), CatalogLocks(tmp_path / "cache")
    asyncio.run(first.acquire(catalogs, str, lambda message: None))
    said: list[str] = []
    waiting, got = threading.Event(), threading.Event()
    waited: list[bool] = []

    def log(message: str) -> None:
        said.append(message)
        waiting.set()  # said before it blocks on the lock

    def take() -> None:
        waited.append(asyncio.run(second.acquire(reversed(catalogs), lambda p: p.name, log)))  # any order: sorted
        got.set()

    thread = threading.Thread(target=take)
    thread.start()
    assert waiting.wait(60)  # a safety net
    assert not got.is_set() and len(said) == 1
    assert said[0].startswith(f"waiting up to 600 s for de.po, which another run holds: process {os.getpid()} on ")
    first.release()
    assert got.wait(60)
    thread.join()
    second.release()
    assert waited == [True]  # the caller is told, so it looks at the catalogs again


def test_a_run_with_nothing_to_lock_takes_no_lock(tmp_path: Path) -> None:
    locks = CatalogLocks(tmp_path / "cache")
    assert asyncio.run(locks.acquire([], str, lambda message: None)) is False
    assert not (tmp_path / "cache").exists()


def test_without_a_cache_folder_nothing_is_locked(tmp_path: Path) -> None:
    locks = CatalogLocks(None)
    asyncio.run(locks.acquire([tmp_path / "de.po"], str, lambda message: None))
    asyncio.run(CatalogLocks(None).acquire([tmp_path / "de.po"], str, lambda message: None))  # does not wait
    assert not any(tmp_path.iterdir())


def test_an_unusable_lock_folder_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the folder should be", encoding="utf-8")
    said: list[str] = []
    asyncio.run(CatalogLocks(tmp_path / "cache").acquire([tmp_path / "de.po"], str, said.append))
    assert len(said) == 1 and said[0].startswith("warning: cannot create")


def test_a_link_in_a_lock_files_place_leaves_what_it_names_alone(tmp_path: Path) -> None:
    victim, catalog, cache = tmp_path / "victim.txt", tmp_path / "de.po", tmp_path / "cache"
    victim.write_bytes(b"precious\n")
    (cache / "locks").mkdir(parents=True)
    os.symlink(victim, lock_file(cache / "locks", catalog))
    said: list[str] = []
    locks = CatalogLocks(cache)
    asyncio.run(locks.acquire([catalog], lambda p: p.name, said.append))
    locks.release()
    assert len(said) == 1 and said[0].startswith("warning: cannot lock de.po (")
    os.symlink(victim, state_lock_path(cache))
    with pytest.raises(OSError), state_lock(state_lock_path(cache)):
        pass
    assert victim.read_bytes() == b"precious\n"


def test_a_holders_note_is_shown_without_its_control_characters() -> None:
    # Anything that can hold the lock (another user's process, on a shared cache folder) writes the
    # note a waiting run prints: an escape sequence in it would drive that run's terminal.
    holder = Holder(4242, "build\x1b]0;owned\x07-7", "pipeline translate \x1b[2J\r\n\x9b31m", 0.0)
    assert holder.describe(now=60.0).startswith(
        "process 4242 on build?]0;owned?-7 (pipeline translate ?[2J???31m), since "
    )
