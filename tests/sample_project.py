"""Checks shared by the end-to-end tests: a copy of sample_locales/ translated as a user would."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from pipeline.catalogs import UnitState, read_catalog
from pipeline.placeholders.protect import protect

REPO = Path(__file__).resolve().parent.parent


def _pristine_samples() -> Path:
    """The sample catalogs as git's index holds them, exported once per test process.

    ``make translate`` rewrites sample_locales/ in place, and the tests must not depend on whether
    it ran: they read what ``git checkout sample_locales`` would restore (committed, or staged with
    ``git add``). Outside a git checkout (an unpacked archive) the working tree is all there is;
    ``pytest_report_header`` says so.
    """
    if shutil.which("git") is None:
        return REPO / "sample_locales"
    git = ["git", "-C", str(REPO)]
    listed = subprocess.run([*git, "ls-files", "-z", "--", "sample_locales"], capture_output=True, check=False)
    if listed.returncode != 0 or not listed.stdout:
        return REPO / "sample_locales"
    # checkout-index writes each file under its path from the top of the work tree.
    within = subprocess.run([*git, "rev-parse", "--show-prefix"], capture_output=True, text=True, check=True)
    target = Path(tempfile.mkdtemp(prefix="pipeline-samples-"))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    subprocess.run([*git, "checkout-index", "-z", "--stdin", f"--prefix={target}/"], input=listed.stdout, check=True)
    return target / within.stdout.strip() / "sample_locales"


SAMPLES = _pristine_samples()
#: Whether SAMPLES is the working tree's sample_locales/ (no git to read them from), which make translate changes.
SAMPLES_MUTABLE = SAMPLES == REPO / "sample_locales"


def copy_sample_project(tmp_path: Path, service_url: str) -> Path:
    """A copy of the sample catalogs with a pipeline.toml pointing at ``service_url``; returns its root."""
    root = tmp_path / "project"
    shutil.copytree(SAMPLES, root / "sample_locales")
    (root / "pipeline.toml").write_text(
        'source_lang = "en"\ncatalogs = ["sample_locales/*/LC_MESSAGES/*.po"]\n'
        f'[service]\nurl = "{service_url}"\n[cache]\ndir = ".cache"\n[report]\ndir = "report"\n',
        encoding="utf-8",
    )
    return root


def assert_translated_faithfully(root: Path, msgfmt_check: Callable[[Path], None]) -> int:
    """Every untranslated sample entry is filled and fuzzy, everything else unchanged; returns the count."""
    filled = 0
    for original_path in sorted(SAMPLES.glob("*/LC_MESSAGES/*.po")):
        path = root / "sample_locales" / original_path.relative_to(SAMPLES)
        before, after = read_catalog(original_path), read_catalog(path)
        assert len(before.units) == len(after.units)
        for old, new in zip(before.units, after.units, strict=True):
            if old.state is UnitState.UNTRANSLATED:
                assert new.state is UnitState.FUZZY and all(new.targets), (path, new)
                if protect(old.sources[0], old.flags).needs_translation:
                    assert new.targets[0] != old.sources[0], (path, new)
                else:  # nothing but placeholders, digits or punctuation: copied, not sent
                    assert new.targets == (old.sources[-1],) * len(new.targets), (path, new)
                filled += 1
            else:
                assert (new.targets, new.flags, new.state) == (old.targets, old.flags, old.state), (path, new)
        msgfmt_check(path)
        _assert_only_translated_lines_changed(original_path.read_text("utf-8"), path.read_text("utf-8"))
    return filled


def _assert_only_translated_lines_changed(before: str, after: str) -> None:
    import difflib

    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        assert line[1:].startswith(("msgstr", '"', "#, ")), f"unexpected change: {line!r}"


def expected_segments(samples: Path) -> int:
    """Segments the sample catalogs need: one per entry, and for plurals one per text of the plural plan."""
    from pipeline.run.plurals import plan_unit

    total = 0
    for path in samples.glob("*/LC_MESSAGES/*.po"):
        catalog = read_catalog(path)
        for unit in catalog.units:
            if unit.state is UnitState.UNTRANSLATED:
                total += (
                    len(plan_unit(unit.sources, unit.flags, unit.nforms, catalog.plural).texts) if unit.plural else 1
                )
    return total
