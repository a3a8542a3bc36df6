"""A repository's own configuration, or the environment, never makes discovery run a program.

Discovery asks git which files are the project's (``git ls-files``), and git honours the
repository's ``.git/config``: a project that came as an archive, a shared folder or a CI cache
can name a program there (``core.fsmonitor`` runs at every ``ls-files``). Every key and variable
below names a marker-writing script; ``translate --dry-run``, ``check`` and ``init`` must run
none of them, and still see the files git sees.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import ExitCode

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

CATALOG = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\nmsgid "Hi"\nmsgstr ""\n'
)

#: Repository configuration that names a program: (key, value), the value's ``{evil}`` the script.
CONFIG = [
    ("core.fsmonitor", "{evil}"),
    ("core.hooksPath", "{hooks}"),
    ("diff.external", "{evil}"),
    ("core.pager", "{evil}"),
    ("pager.ls-files", "{evil}"),
    ("core.editor", "{evil}"),
    ("core.askPass", "{evil}"),
    ("core.sshCommand", "{evil}"),
    ("core.gitProxy", "{evil}"),
    ("credential.helper", "!{evil}"),
    ("filter.evil.clean", "{evil}"),
    ("filter.evil.smudge", "{evil}"),
    ("filter.evil.process", "{evil}"),
    ("diff.evil.textconv", "{evil}"),
    ("core.alternateRefsCommand", "{evil}"),
    ("uploadpack.packObjectsHook", "{evil}"),
]
#: Variables of the environment that name a program git may start.
ENVIRONMENT = [
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "PAGER",
    "GIT_EDITOR",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_PROXY_COMMAND",
]
COMMANDS = [["translate", "--dry-run"], ["check"], ["init", "--force", "--no-preview"]]


def _script(folder: Path, marker: Path) -> Path:
    script = folder / "evil.sh"
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> "{marker}"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def _project(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A git work tree with one tracked and one untracked catalog, a filter attribute on every file, and a
    hooks folder of marker scripts; the script and the marker (not created)."""
    root = tmp_path / "project"
    for name in ("locale/de/LC_MESSAGES/app.po", "locale/fr/LC_MESSAGES/app.po"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(CATALOG.replace("de", name.split("/")[1]), encoding="utf-8")
    (root / "pipeline.toml").write_text('catalogs = ["locale/*/LC_MESSAGES/*.po"]\n', encoding="utf-8")
    (root / ".gitattributes").write_text("* filter=evil diff=evil\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", ".gitattributes", "locale/de"], check=True)
    marker = tmp_path / "ran"
    script = _script(tmp_path, marker)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "reference-transaction", "post-checkout", "pre-commit", "fsmonitor-watchman"):
        shutil.copy(script, hooks / hook)
        shutil.copy(script, root / ".git" / "hooks" / hook)
    (root / "locale/de/LC_MESSAGES/app.po").write_text(CATALOG + "\n", encoding="utf-8")  # modified: stat differs
    return root, script, marker


def _run(root: Path, command: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.chdir(root)
    return main([*command, *(["--config", str(root / "pipeline.toml")] if command[0] != "init" else [])])


@pytest.mark.parametrize(("key", "value"), CONFIG)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_no_key_of_the_repository_config_runs_a_program(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    key: str,
    value: str,
    command: list[str],
) -> None:
    root, script, marker = _project(tmp_path)
    value = value.format(evil=script, hooks=tmp_path / "hooks")
    subprocess.run(["git", "-C", str(root), "config", key, value], check=True)
    code = _run(root, command, monkeypatch)
    captured = capsys.readouterr()
    assert not marker.exists(), marker.read_text()
    assert code == ExitCode.OK, captured.err
    if command[0] == "check":  # git still told which files are the project's: the untracked catalog too
        assert "in 2 catalog(s)" in captured.out + captured.err


@pytest.mark.parametrize("variable", ENVIRONMENT)
def test_no_variable_of_the_environment_runs_a_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], variable: str
) -> None:
    root, script, marker = _project(tmp_path)
    monkeypatch.setenv(variable, str(script))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")  # configuration from the environment: named programs too
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(script))
    assert _run(root, ["check"], monkeypatch) == ExitCode.OK
    assert not marker.exists(), marker.read_text()
    captured = capsys.readouterr()
    assert "in 2 catalog(s)" in captured.out + captured.err


def test_a_git_exec_path_of_the_environment_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``GIT_EXEC_PATH`` names where git finds its own programs: a folder holding a fake ``git`` there."""
    root, script, marker = _project(tmp_path)
    fake = tmp_path / "libexec"
    fake.mkdir()
    for name in ("git", "git-ls-files", "git-submodule"):
        shutil.copy(script, fake / name)
    monkeypatch.setenv("GIT_EXEC_PATH", str(fake))
    assert _run(root, ["check"], monkeypatch) == ExitCode.OK
    assert not marker.exists(), marker.read_text()


def test_a_repository_inside_the_work_tree_runs_nothing_of_its_own_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A clone inside the project is asked through its own git (its catalogs are found): the same settings."""
    root, script, marker = _project(tmp_path)
    nested = root / "plugins" / "extra"
    (nested / "locale/it/LC_MESSAGES").mkdir(parents=True)
    (nested / "locale/it/LC_MESSAGES/app.po").write_text(CATALOG.replace("de", "it"), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    subprocess.run(["git", "-C", str(nested), "config", "core.fsmonitor", str(script)], check=True)
    (root / "pipeline.toml").write_text('catalogs = ["**/locale/*/LC_MESSAGES/*.po"]\n', encoding="utf-8")
    assert _run(root, ["check"], monkeypatch) == ExitCode.OK
    captured = capsys.readouterr()
    assert not marker.exists(), marker.read_text()
    assert "in 3 catalog(s)" in captured.out + captured.err
