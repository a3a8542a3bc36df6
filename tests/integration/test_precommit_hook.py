"""The hooks of ``.pre-commit-hooks.yaml`` under the real pre-commit framework, in a temporary git repository.

The hook repository is a copy of this working tree committed into a temporary git repository (a
clone of HEAD would miss uncommitted work). pre-commit builds the hook's virtualenv once per test
session (one PRE_COMMIT_HOME) by pip-installing that copy through the configured package index.

Each staging habit (``git add -A``, ``git commit -a``, a commit of only some catalogs) must pass on
its second try and leave the work tree clean: the hook changes nothing but the catalogs it
translates, its cache, run state and report going to the user's cache folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# The first commit of the session builds the hook's virtualenv: pip installs the package and its
# dependencies from the index. On a loaded machine that outlasts the suite's 120 s safety net (it did,
# with two suites at once), so this file's net is wider; nothing here asserts a duration.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("pipeline", "pyproject.toml", "README.md", ".pre-commit-hooks.yaml")
CATALOG = """\
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Language: de\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

msgid "Open"
msgstr "Öffnen"

#, python-format
msgid "Deleted %(name)s"
msgstr ""

msgid "Share with <b>everyone</b>"
msgstr ""
"""
CONFIG = """\
source_lang = "en"
catalogs = ["locale/*.po"]
[service]
url = "embedded"
[cache]
dir = ".pipeline-cache"
[report]
dir = "build/pipeline-report"
"""


MINIMAL_CONFIG = """\
source_lang = "en"
catalogs = ["locale/*.po"]
[service]
url = "embedded"
"""
NEW_ENTRY = '\nmsgid "Save all"\nmsgstr ""\n'
# The hook configuration of docs/recipes.md as written: the embedded service needs no extra.
HOOKS_CONFIG = "  - id: translate-catalogs\n  - id: check-catalogs\n"


def _git(
    cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=check)


def _env(home: Path, user_home: Path | None = None) -> dict[str, str]:
    """The environment of a user whose pre-commit store is ``home``; their own files go under ``user_home``."""
    user_home = user_home or home.parent
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PIPELINE_", "XDG_"))}
    env.update(
        PRE_COMMIT_HOME=str(home),
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.org",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.org",
        GIT_CONFIG_NOSYSTEM="1",
        HOME=str(user_home),
        XDG_CACHE_HOME=str(user_home / ".cache"),
    )
    return env


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A git repository holding this working tree; returns its path and commit."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path_factory.mktemp("hook-repo")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=ignore)
        else:
            shutil.copy2(source, repo / name)
    env = _env(tmp_path_factory.mktemp("pre-commit-home"))
    _git(repo, "init", "-q", env=env)
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "-m", "hook repository", env=env)
    return repo, _git(repo, "rev-parse", "HEAD", env=env).stdout.strip()


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit store for the session: the hook's virtualenv is built once, by the first test."""
    return tmp_path_factory.mktemp("pre-commit-store")


class Project:
    """A user's git repository with the hooks installed; commands run as that user."""

    def __init__(self, path: Path, env: dict[str, str]) -> None:
        self.path, self.env = path, env

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """``git *args`` in the project."""
        return _git(self.path, *args, env=self.env, check=check)

    def commit(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``git commit *args`` with the hooks; never raises (the caller checks the outcome)."""
        return self.git("commit", *args, check=False)

    def status(self) -> str:
        """``git status --porcelain``, untracked files listed one by one."""
        return self.git("status", "--porcelain", "--untracked-files=all").stdout

    def tracked(self) -> set[str]:
        """The files of the last commit."""
        return set(self.git("ls-tree", "-r", "--name-only", "HEAD").stdout.split())

    @property
    def cache_home(self) -> Path:
        """The user's cache folder ($XDG_CACHE_HOME)."""
        return Path(self.env["XDG_CACHE_HOME"])


def _project(
    tmp_path: Path,
    hook_repo: tuple[Path, str],
    pre_commit_home: Path,
    config: str | None,
    catalogs: dict[str, str],
    extra_env: dict[str, str] | None = None,
) -> Project:
    repo, rev = hook_repo
    env = {**_env(pre_commit_home, tmp_path / "user"), **(extra_env or {})}
    path = tmp_path / "project"
    (path / "locale").mkdir(parents=True)
    for name, text in catalogs.items():
        (path / "locale" / name).write_text(text, encoding="utf-8")
    if config is not None:
        (path / "pipeline.toml").write_text(config, encoding="utf-8")
    (path / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {repo}\n  rev: {rev}\n  hooks:\n{HOOKS_CONFIG}", encoding="utf-8"
    )
    project = Project(path, env)
    project.git("init", "-q")
    installed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=path, env=env, capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return project


def _catalog(lang: str) -> str:
    return CATALOG.replace('"Language: de\\n"', f'"Language: {lang}\\n"')


def _assert_translated(project: Project, name: str) -> None:
    text = (project.path / "locale" / name).read_text(encoding="utf-8")
    assert 'msgstr ""\n\n' not in text.split("\n\n", 1)[1] + "\n" and text.endswith('"\n'), text
    assert "#, fuzzy" in text


def _assert_failed_once(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "files were modified by this hook" in result.stdout + result.stderr


def _assert_passed(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stdout + result.stderr


def _assert_hook_files_outside(project: Project, tracked: set[str]) -> None:
    """Only the project's own files were committed; the hook's state and report are in the user's cache folder."""
    assert project.tracked() == tracked
    assert project.status() == ""
    assert len(list(project.cache_home.glob("pipeline/*/state.json"))) == 1
    assert len(list(project.cache_home.glob("pipeline/*/report/report.json"))) == 1


def test_translate_hook_fails_once_then_passes(
    hook_repo: tuple[Path, str], pre_commit_home: Path, tmp_path: Path
) -> None:
    repo, rev = hook_repo
    env = _env(pre_commit_home, tmp_path / "user")
    project = tmp_path / "project"
    (project / "locale").mkdir(parents=True)
    (project / "locale" / "de.po").write_text(CATALOG, encoding="utf-8")
    (project / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    (project / ".gitignore").write_text(".pipeline-cache/\nbuild/\n", encoding="utf-8")
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {repo}\n  rev: {rev}\n  hooks:\n{HOOKS_CONFIG}",
        encoding="utf-8",
    )
    _git(project, "init", "-q", env=env)
    installed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=project, env=env, capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    _git(project, "add", "-A", env=env)

    first = _git(project, "commit", "-m", "new strings", env=env, check=False)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "files were modified by this hook" in first.stdout + first.stderr
    translated = (project / "locale" / "de.po").read_text(encoding="utf-8")
    assert 'msgstr "Öffnen"' in translated  # a human translation is left alone
    assert translated.count("#, fuzzy") == 2 and 'msgstr ""\n' not in translated.split("\n\n", 1)[1]
    assert "%(name)s" in translated.split('msgid "Deleted %(name)s"', 1)[1]

    _git(project, "add", "-A", env=env)
    second = _git(project, "commit", "-m", "new strings, translated", env=env, check=False)
    assert second.returncode == 0, second.stdout + second.stderr
    assert _git(project, "status", "--porcelain", env=env).stdout == ""
    # The configuration put the cache and report in the work tree (ignored): they are used there.
    assert (project / ".pipeline-cache" / "state.json").is_file()
    assert (project / "build" / "pipeline-report" / "report.json").is_file()


PROJECT_FILES = {".pre-commit-config.yaml", "pipeline.toml", "locale/de.po", "locale/fr.po"}


def test_git_add_all_passes_on_the_second_try(
    hook_repo: tuple[Path, str], pre_commit_home: Path, tmp_path: Path
) -> None:
    project = _project(
        tmp_path, hook_repo, pre_commit_home, MINIMAL_CONFIG, {"de.po": CATALOG, "fr.po": _catalog("fr")}
    )
    project.git("add", "-A")
    _assert_failed_once(project.commit("-m", "new strings"))
    _assert_translated(project, "de.po")
    _assert_translated(project, "fr.po")
    # Nothing but the catalogs changed since they were staged; nothing new appeared.
    assert project.status() == "A  .pre-commit-config.yaml\nAM locale/de.po\nAM locale/fr.po\nA  pipeline.toml\n"

    project.git("add", "-A")
    _assert_passed(project.commit("-m", "new strings, translated"))
    _assert_hook_files_outside(project, PROJECT_FILES)

    project.git("add", "-A")  # a third habit-driven commit finds nothing to add
    assert project.git("diff", "--cached", "--name-only").stdout == ""


def test_git_commit_all_passes_on_the_second_try(
    hook_repo: tuple[Path, str], pre_commit_home: Path, tmp_path: Path
) -> None:
    project = _project(
        tmp_path, hook_repo, pre_commit_home, MINIMAL_CONFIG, {"de.po": CATALOG, "fr.po": _catalog("fr")}
    )
    project.git("add", "-A")
    project.git("commit", "-q", "--no-verify", "-m", "the project before the hook")
    with (project.path / "locale" / "de.po").open("a", encoding="utf-8") as handle:
        handle.write(NEW_ENTRY)

    _assert_failed_once(project.commit("-a", "-m", "a new string"))
    _assert_translated(project, "de.po")
    assert 'msgid "Deleted %(name)s"\nmsgstr ""' in (project.path / "locale" / "fr.po").read_text(encoding="utf-8")
    assert project.status() == " M locale/de.po\n"

    _assert_passed(project.commit("-a", "-m", "a new string, translated"))
    _assert_hook_files_outside(project, PROJECT_FILES)


def test_commit_of_some_catalogs_passes_and_leaves_the_others_alone(
    hook_repo: tuple[Path, str], pre_commit_home: Path, tmp_path: Path
) -> None:
    project = _project(
        tmp_path, hook_repo, pre_commit_home, MINIMAL_CONFIG, {"de.po": CATALOG, "fr.po": _catalog("fr")}
    )
    project.git("add", ".pre-commit-config.yaml", "pipeline.toml", "locale/de.po")

    _assert_failed_once(project.commit("-m", "German first"))
    _assert_translated(project, "de.po")
    fr = (project.path / "locale" / "fr.po").read_text(encoding="utf-8")
    assert fr == _catalog("fr")  # not staged: the hook never saw it
    assert project.status() == "A  .pre-commit-config.yaml\nAM locale/de.po\nA  pipeline.toml\n?? locale/fr.po\n"

    project.git("add", "locale/de.po")
    _assert_passed(project.commit("-m", "German first, translated"))
    assert project.status() == "?? locale/fr.po\n"  # the user's own unstaged work, untouched

    project.git("add", "locale/fr.po")
    _assert_failed_once(project.commit("-m", "French"))
    project.git("add", "locale/fr.po")
    _assert_passed(project.commit("-m", "French, translated"))
    _assert_hook_files_outside(project, PROJECT_FILES)


def test_without_a_config_file_the_hook_writes_nothing_but_the_catalog(
    hook_repo: tuple[Path, str], pre_commit_home: Path, tmp_path: Path
) -> None:
    project = _project(
        tmp_path, hook_repo, pre_commit_home, None, {"de.po": CATALOG}, extra_env={"PIPELINE_SERVICE_URL": "embedded"}
    )
    project.git("add", "-A")
    _assert_failed_once(project.commit("-m", "new strings"))
    _assert_translated(project, "de.po")
    project.git("add", "-A")
    _assert_passed(project.commit("-m", "new strings, translated"))
    _assert_hook_files_outside(project, {".pre-commit-config.yaml", "locale/de.po"})
