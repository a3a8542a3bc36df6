"""Inside a git work tree, catalogs git does not list itself are found all the same, never skipped in silence.

A ``catalogs`` glob that starts above the config's folder, a submodule and a repository cloned
inside the work tree (git lists it as one untracked folder): each is searched as its own git sees
it, as a walk outside git would find it. ``--frozen`` says there is work (exit 5); before, it
said 0 and the catalogs stayed untranslated.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import ExitCode

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

CATALOG = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\nmsgid "Hi"\nmsgstr ""\n'
)


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "protocol.file.allow=always",
            "-C",
            str(root),
            *args,
        ],
        check=True,
        capture_output=True,
    )


def _catalog(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CATALOG, encoding="utf-8")


def _repository(root: Path, *catalogs: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q")
    for name in catalogs:
        _catalog(root / name)
    if catalogs:
        _git(root, "add", *catalogs)
        _git(root, "commit", "-qm", "catalogs")
    return root


def _frozen(config: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    monkeypatch.chdir(config.parent)
    code = main(["translate", "--frozen", "--config", str(config)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _config(folder: Path, catalogs: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "pipeline.toml"
    config.write_text(f'catalogs = ["{catalogs}"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n')
    return config


@pytest.mark.parametrize("git", [True, False], ids=["in-git", "no-git"])
def test_a_glob_that_starts_above_the_config_folder_finds_its_catalogs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], git: bool
) -> None:
    root = tmp_path / "monorepo"
    if git:
        _repository(root, "shared/locale/de.po")
    else:
        _catalog(root / "shared/locale/de.po")
    config = _config(root / "app", "../shared/locale/*.po")
    code, out = _frozen(config, monkeypatch, capsys)
    assert code == ExitCode.PENDING, out
    assert "shared/locale/de.po" in out


def test_catalogs_of_a_submodule_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    library = _repository(tmp_path / "library", "locale/de.po")
    root = _repository(tmp_path / "project", "locale/de.po")
    _git(root, "submodule", "add", "-q", str(library), "vendor/library")
    _catalog(root / "vendor/library/locale/new.po")  # untracked in the submodule: as git there sees it
    config = _config(root, "**/locale/*.po")
    code, out = _frozen(config, monkeypatch, capsys)
    assert code == ExitCode.PENDING, out
    for name in ("vendor/library/locale/de.po", "vendor/library/locale/new.po", "locale/de.po"):
        assert name in out


def test_catalogs_of_a_repository_cloned_inside_are_found_as_its_git_sees_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repository(tmp_path / "project")
    nested = _repository(root / "plugins/extra", "locale/de.po")
    _catalog(nested / "build/locale/de.po")
    (nested / ".gitignore").write_text("build/\n", encoding="utf-8")
    _catalog(root / "node_modules/pkg/locale/de.po")
    _repository(root / "node_modules/pkg")  # an installed package's clone: not the project's
    config = _config(root, "**/locale/*.po")
    code, out = _frozen(config, monkeypatch, capsys)
    assert code == ExitCode.PENDING, out
    assert "plugins/extra/locale/de.po" in out
    assert "build/locale" not in out and "node_modules" not in out


def test_a_repository_inside_that_git_cannot_list_is_walked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repository(tmp_path / "project")
    nested = _repository(root / "plugins/broken", "locale/de.po")
    (nested / ".git" / "index").write_bytes(b"DIRC not an index")  # git there fails
    config = _config(root, "**/locale/*.po")
    code, out = _frozen(config, monkeypatch, capsys)
    assert code == ExitCode.PENDING, out
    assert "plugins/broken/locale/de.po" in out
