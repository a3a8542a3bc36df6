"""Files a command creates get the permissions ``open()`` would give them: 0666 less the umask.

A team's CI uploads ``report.json`` as an artefact and a shared checkout is read by a group: a
file made 0600 whatever the umask locks them out. A file that existed keeps its own mode. No file
the pipeline writes holds a secret (the key and the cache password are never written), so none is
kept private on purpose.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import ExitCode
from pipeline.files.atomic import atomic_write
from pipeline.files.swap import write_over
from tests.sample_project import copy_sample_project


@pytest.fixture(params=[0o022, 0o002, 0o077])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_init_writes_pipeline_toml_as_open_would(
    tmp_path: Path, umask: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--no-preview", str(tmp_path)]) == ExitCode.OK
    assert _mode(tmp_path / "pipeline.toml") == 0o666 & ~umask


def test_translate_writes_its_reports_and_state_as_open_would(
    tmp_path: Path, umask: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_sample_project(tmp_path, "embedded")
    monkeypatch.chdir(root)
    assert main(["translate", "--config", str(root / "pipeline.toml")]) == ExitCode.OK
    created = [root / "report" / "report.json", root / "report" / "report.md"]
    created += [p for p in (root / ".cache").rglob("*") if p.is_file()]  # cache, state, locks, provenance
    assert len(created) > 3
    assert {str(p.relative_to(root)): _mode(p) for p in created} == {
        str(p.relative_to(root)): 0o666 & ~umask for p in created
    }


def test_a_catalog_keeps_its_own_mode(
    tmp_path: Path, umask: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_sample_project(tmp_path, "embedded")
    catalogs = sorted((root / "sample_locales").glob("*/LC_MESSAGES/*.po"))
    for n, path in enumerate(catalogs):
        path.chmod((0o640, 0o664, 0o600)[n % 3])
    before = {p: _mode(p) for p in catalogs}
    monkeypatch.chdir(root)
    assert main(["translate", "--config", str(root / "pipeline.toml")]) == ExitCode.OK
    assert {p: _mode(p) for p in catalogs} == before


@pytest.mark.parametrize("replace", [atomic_write, lambda path, data: write_over(path, data, b"old")])
def test_a_private_files_new_bytes_are_never_in_a_file_others_may_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replace: Callable[[Path, bytes], None]
) -> None:
    # The new file was made 0666 less the umask and given the old file's mode after its bytes were
    # written: another user could open it meanwhile, and read a 0600 file's new content.
    path = tmp_path / "de.po"
    path.write_bytes(b"old")
    path.chmod(0o600)
    modes: list[int] = []
    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        modes.append(stat.S_IMODE(os.fstat(fd).st_mode))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    old = os.umask(0o022)
    try:
        replace(path, b"new")
    finally:
        os.umask(old)
    assert modes == [0o600] and _mode(path) == 0o600 and path.read_bytes() == b"new"
