"""Discovery finds the project's own catalogs: what git sees, never installed packages or tools' folders."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline import catalog_paths
from pipeline.catalog_paths import find_catalogs, project_files
from pipeline.cli import main
from pipeline.config import Settings

CATALOG = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\nmsgid "Hi"\nmsgstr ""\n'
)
XLIFF = (
    '<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2"><file source-language="en" '
    'target-language="de"><body><trans-unit id="1"><source>Hi</source></trans-unit></body></file></xliff>\n'
)
OURS = ["locale/de/LC_MESSAGES/django.po", "app/locale/de/LC_MESSAGES/django.po", "translations/messages.de.xlf"]
NOT_OURS = [
    ".venv/lib/python3.11/site-packages/django/conf/locale/de/LC_MESSAGES/django.po",
    "venv/lib/python3.11/site-packages/django/conf/locale/de/LC_MESSAGES/django.po",
    "env2/share/locale/de/LC_MESSAGES/tool.po",  # a virtual environment by its pyvenv.cfg, whatever its name
    "lib/site-packages/pkg/de.po",
    "node_modules/pkg/locale/de.po",
    "frontend/node_modules/pkg/de.po",
    ".tox/py311/de.po",
    ".git-rewrite/de.po",
]


def _tree(root: Path, names: list[str]) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(XLIFF if name.endswith(".xlf") else CATALOG, encoding="utf-8")
    for venv in (".venv", "venv", "env2"):
        (root / venv).mkdir(exist_ok=True)
        (root / venv / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")


def _names(found: list[Path], root: Path) -> set[str]:
    return {p.relative_to(root.resolve()).as_posix() for p in found}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_outside_git_installed_packages_and_hidden_folders_are_left_out(tmp_path: Path) -> None:
    _tree(tmp_path, OURS + NOT_OURS)
    assert _names(find_catalogs(Settings(root=tmp_path)).paths, tmp_path) == set(OURS)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_in_a_git_work_tree_the_files_git_sees_are_the_candidates(tmp_path: Path) -> None:
    _tree(tmp_path, [*OURS, *NOT_OURS, "build/locale/de.po", "untracked/de.po"])
    (tmp_path / ".gitignore").write_text("build/\n", encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", *OURS, ".gitignore")
    (tmp_path / "venv" / ".gitignore").unlink(missing_ok=True)
    found = _names(find_catalogs(Settings(root=tmp_path)).paths, tmp_path)
    assert found == {*OURS, "untracked/de.po"}  # untracked and not ignored counts; the ignored build/ does not
    (tmp_path / "locale/de/LC_MESSAGES/django.po").unlink()  # tracked, deleted: nothing to read
    assert "locale/de/LC_MESSAGES/django.po" not in _names(find_catalogs(Settings(root=tmp_path)).paths, tmp_path)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_folder_given_inside_a_git_work_tree_is_searched_as_git_sees_it(tmp_path: Path) -> None:
    _tree(tmp_path, [*OURS, "app/node_modules/x/de.po", "app/build/de.po"])
    (tmp_path / ".gitignore").write_text("build/\n", encoding="utf-8")
    _git(tmp_path, "init", "-q")
    found = _names(find_catalogs(Settings(root=tmp_path), [tmp_path / "app"]).paths, tmp_path)
    assert found == {"app/locale/de/LC_MESSAGES/django.po"}


def test_globs_apply_on_top_and_may_name_a_hidden_folder_in_their_literal_part(tmp_path: Path) -> None:
    _tree(tmp_path, [*OURS, ".translations/de.po", ".translations/.old/de.po"])
    settings = Settings(root=tmp_path, catalogs=("**/*.po", ".translations/**/*.po"), exclude=("app/**",))
    found = _names(find_catalogs(settings).paths, tmp_path)
    assert found == {"locale/de/LC_MESSAGES/django.po", ".translations/de.po"}


def test_xliff_is_found_by_default(tmp_path: Path) -> None:
    _tree(tmp_path, ["translations/messages.de.xlf", "src/locale/messages.fr.xliff", "notes.txt"])
    assert _names(find_catalogs(Settings(root=tmp_path)).paths, tmp_path) == {
        "translations/messages.de.xlf",
        "src/locale/messages.fr.xliff",
    }


def test_catalogs_given_as_files_walk_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, OURS)

    def no_walk(*args: object, **kwargs: object) -> None:
        raise AssertionError("walked the tree")

    monkeypatch.setattr(os, "walk", no_walk)  # the os module catalog_paths walks with
    monkeypatch.setattr(catalog_paths, "_git_files", no_walk)
    given = [tmp_path / OURS[0], tmp_path / OURS[1]]
    settings = Settings(root=tmp_path, exclude=("app/**",))
    assert _names(find_catalogs(settings, given).paths, tmp_path) == {OURS[0]}


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("**/*.po", ["de.po", "a/b/de.po"], ["de.pot", "a/de.po.bak"]),
        ("locale/*/LC_MESSAGES/*.po", ["locale/de/LC_MESSAGES/x.po"], ["locale/x.po", "locale/a/b/LC_MESSAGES/x.po"]),
        ("po/[a-c]?.po", ["po/ab.po"], ["po/de.po", "po/a/b.po"]),
        ("po/[!a]*.po", ["po/de.po"], ["po/ab.po"]),
        ("src/*/**/*.txt", ["src/a/b.txt", "src/a/b/c.txt"], ["src/b.txt"]),
    ],
)
def test_globs_match_as_pathlib_globs_do(tmp_path: Path, pattern: str, matches: list[str], misses: list[str]) -> None:
    for name in matches + misses:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        if not (tmp_path / name).exists():
            (tmp_path / name).write_text("", encoding="utf-8")
    expected = {p.relative_to(tmp_path).as_posix() for p in tmp_path.glob(pattern) if p.is_file()}
    assert set(project_files(tmp_path, [pattern])) == expected == set(matches)


def test_dry_run_lists_the_catalogs_it_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _tree(tmp_path, [*OURS, *NOT_OURS])
    (tmp_path / "pipeline.toml").write_text('[service]\nurl = "embedded"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert main(["translate", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "found 3 catalog(s):" in out
    assert all(f"  {name} (DE)" in out for name in OURS)
    assert "site-packages" not in out and "node_modules" not in out


def test_a_link_back_up_the_tree_is_walked_once_not_forever(tmp_path: Path) -> None:
    _tree(tmp_path, OURS)
    (tmp_path / "locale" / "loop").symlink_to(tmp_path, target_is_directory=True)
    found = find_catalogs(Settings(root=tmp_path))
    assert _names(found.paths, tmp_path) == set(OURS) and found.refused == []
