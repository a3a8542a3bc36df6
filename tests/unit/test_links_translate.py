"""Catalogs reached through symbolic links: after a link changes, the next run translates what is now there.

Through the whole command (``pipeline translate --quiet`` in a process of its own, embedded
service), as the pre-commit hook runs it, a minute after the last change: a skip of settled
catalogs, or anything else that skips work, must never turn a re-pointed link, or a link whose
target appeared since, into a false no-op (exit 0 with strings left untranslated). The no-op
stamp that did is gone (CHANGELOG.md); these keep whatever skips work from doing it again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from pipeline.catalogs import read_catalog


def main(argv: list[str]) -> int:
    """``pipeline ARGV`` in a process of its own from the working folder: the whole command, as the hook runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    return subprocess.run([sys.executable, "-m", "pipeline", *argv], cwd=os.getcwd(), env=env, check=False).returncode


QUIET = ["translate", "--quiet"]


def catalog(language: str, *texts: str) -> str:
    entries = "".join(f'\nmsgid "{text}"\nmsgstr ""\n' for text in texts)
    return f'msgid ""\nmsgstr ""\n"Language: {language}\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n{entries}'


def untranslated(path: Path) -> int:
    """Entries of ``path`` still without a translation."""
    return sum(1 for unit in read_catalog(path).units if not any(unit.targets))


def age(root: Path, seconds: int = 60) -> None:
    """Set every folder's and link's times back, as they are when the hook runs long after the last edit."""
    past = time.time_ns() - seconds * 10**9
    for folder, names, files in os.walk(root):
        os.utime(folder, ns=(past, past))
        for name in (*names, *files):
            os.utime(os.path.join(folder, name), ns=(past, past), follow_symlinks=False)


def settled_then(root: Path) -> None:
    """A run that translates, a no-op run after it (everything settled), and time passing."""
    assert main(QUIET) == 0
    age(root)
    assert main(QUIET) == 0 and report(root)["unchanged_catalogs"] >= 1
    age(root)


def report(root: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((root / "report" / "report.json").read_text())
    return result


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Make a project in ``tmp_path/project`` (the working folder) with this ``catalogs``/``exclude`` config."""
    for name in ("PIPELINE_SERVICE_URL", "PIPELINE_AUTH_KEY", "PIPELINE_CACHE_URL"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)

    def make(catalogs: list[str], exclude: Sequence[str] = ()) -> Path:
        (root / "pipeline.toml").write_text(
            f"catalogs = {json.dumps(catalogs)}\nexclude = {json.dumps(list(exclude))}\n"
            '[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n[report]\ndir = "report"\n'
        )
        return root

    return make


def test_a_folder_link_re_pointed_to_another_version_is_translated_there(project: Callable[..., Path]) -> None:
    root = project(["locale/current/*.po"])
    for version in ("v1", "v2"):
        (root / "locale" / version).mkdir(parents=True)
        (root / "locale" / version / "de.po").write_text(catalog("de", "Hello", "Goodbye"))  # the same bytes
    (root / "locale" / "current").symlink_to("v1")
    settled_then(root)
    assert untranslated(root / "locale/v1/de.po") == 0
    (root / "locale" / "current").unlink()
    (root / "locale" / "current").symlink_to("v2")
    age(root)
    assert main(QUIET) == 0
    assert untranslated(root / "locale/v2/de.po") == 0 and report(root)["unchanged_catalogs"] == 0


def test_a_catalog_link_re_pointed_to_a_file_with_the_same_bytes_is_translated_there(
    project: Callable[..., Path],
) -> None:
    root = project(["locale/*.po"])
    (root / "store").mkdir()
    (root / "locale").mkdir()
    for name in ("a.po", "b.po"):
        (root / "store" / name).write_text(catalog("de", "Hello"))
    (root / "locale" / "de.po").symlink_to("../store/a.po")
    settled_then(root)
    (root / "locale" / "de.po").unlink()
    (root / "locale" / "de.po").symlink_to("../store/b.po")
    age(root)
    assert main(QUIET) == 0 and untranslated(root / "store/b.po") == 0


@pytest.mark.parametrize("pattern", ["locale/*/*.po", "locale/**/*.po"])
def test_a_folder_link_whose_target_appears_later_is_translated_then(
    project: Callable[..., Path], pattern: str
) -> None:
    root = project([pattern])
    (root / "locale" / "app").mkdir(parents=True)
    (root / "locale" / "app" / "de.po").write_text(catalog("de", "Hello"))
    (root / "third_party").mkdir()  # a submodule not checked out yet: its folder is there, empty
    (root / "locale" / "vendor").symlink_to("../third_party/locale")
    settled_then(root)
    (root / "third_party" / "locale").mkdir()  # checked out
    (root / "third_party" / "locale" / "de.po").write_text(catalog("de", "Vendor text"))
    age(root)
    assert main(QUIET) == 0 and untranslated(root / "third_party/locale/de.po") == 0


def test_a_link_re_pointed_away_from_an_excluded_folder_is_translated_where_it_now_leads(
    project: Callable[..., Path],
) -> None:
    root = project(["locale/current/*.po"], exclude=["locale/v1/*.po"])  # v1 is frozen: never written
    for version in ("v1", "v2"):
        (root / "locale" / version).mkdir(parents=True)
        (root / "locale" / version / "de.po").write_text(catalog("de", "Hello"))
    (root / "locale" / "current").symlink_to("v1")
    assert main(QUIET) == 0 and main(QUIET) == 0  # excluded where the link leads: nothing to do
    assert untranslated(root / "locale/v1/de.po") == 1
    age(root)
    (root / "locale" / "current").unlink()
    (root / "locale" / "current").symlink_to("v2")
    age(root)
    assert main(QUIET) == 0 and untranslated(root / "locale/v2/de.po") == 0
    assert untranslated(root / "locale/v1/de.po") == 1


def test_a_link_target_that_appears_in_an_excluded_folder_stays_out_until_the_exclusion_goes(
    project: Callable[..., Path],
) -> None:
    root = project(["locale/*/*.po"], exclude=["third_party/**"])
    (root / "locale" / "app").mkdir(parents=True)
    (root / "locale" / "app" / "de.po").write_text(catalog("de", "Hello"))
    (root / "third_party").mkdir()
    (root / "locale" / "vendor").symlink_to("../third_party/locale")
    settled_then(root)
    (root / "third_party" / "locale").mkdir()
    (root / "third_party" / "locale" / "fr.po").write_text(catalog("fr", "Old text"))
    before = (root / "third_party" / "locale" / "fr.po").read_bytes()
    age(root)
    assert main(QUIET) == 0
    assert (root / "third_party" / "locale" / "fr.po").read_bytes() == before  # excluded where it lies, as meant
    project(["locale/*/*.po"])  # the exclusion goes: third_party's catalog is in the run now
    age(root)
    assert main(QUIET) == 0 and untranslated(root / "third_party/locale/fr.po") == 0
