"""The hooks of ``.pre-commit-hooks.yaml`` under the real pre-commit framework, in a temporary git repository.

The hook repository is a copy of this working tree committed into a temporary git repository (a
clone of HEAD would miss uncommitted work). pre-commit builds the hook's virtualenv once per test
session (one PRE_COMMIT_HOME) by pip-installing that copy through the configured package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

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


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=check)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PIPELINE_"))}
    env.update(PRE_COMMIT_HOME=str(home), GIT_AUTHOR_NAME="Test", GIT_AUTHOR_EMAIL="test@example.org",
               GIT_COMMITTER_NAME="Test", GIT_COMMITTER_EMAIL="test@example.org", GIT_CONFIG_NOSYSTEM="1",
               HOME=str(home.parent))
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


def test_translate_hook_fails_once_then_passes(hook_repo: tuple[Path, str], tmp_path: Path):
    repo, rev = hook_repo
    home = tmp_path / "home" / "pre-commit"
    home.mkdir(parents=True)
    env = _env(home)
    project = tmp_path / "project"
    (project / "locale").mkdir(parents=True)
    (project / "locale" / "de.po").write_text(CATALOG, encoding="utf-8")
    (project / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    (project / ".gitignore").write_text(".pipeline-cache/\nbuild/\n", encoding="utf-8")
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {repo}\n  rev: {rev}\n  hooks:\n  - id: translate-catalogs\n  - id: check-catalogs\n",
        encoding="utf-8")
    _git(project, "init", "-q", env=env)
    installed = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=project, env=env,
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    _git(project, "add", "-A", env=env)

    started = time.monotonic()
    first = _git(project, "commit", "-m", "new strings", env=env, check=False)
    first_seconds = time.monotonic() - started
    assert first.returncode != 0, first.stdout + first.stderr
    assert "files were modified by this hook" in first.stdout + first.stderr
    translated = (project / "locale" / "de.po").read_text(encoding="utf-8")
    assert 'msgstr "Öffnen"' in translated  # a human translation is left alone
    assert translated.count("#, fuzzy") == 2 and 'msgstr ""\n' not in translated.split("\n\n", 1)[1]
    assert "%(name)s" in translated.split('msgid "Deleted %(name)s"', 1)[1]

    _git(project, "add", "-A", env=env)
    started = time.monotonic()
    second = _git(project, "commit", "-m", "new strings, translated", env=env, check=False)
    second_seconds = time.monotonic() - started
    assert second.returncode == 0, second.stdout + second.stderr
    assert _git(project, "status", "--porcelain", env=env).stdout == ""
    print(f"pre-commit: first commit (builds the hook env) {first_seconds:.1f} s, second {second_seconds:.1f} s")
