"""Fixtures shared by every test folder."""

from __future__ import annotations

import gc
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"

# Properties that write and read files: a file system's latency is not the code's, so no deadline
# (the default 200 ms fails them on a busy machine), and a tmp_path shared by the examples is fine
# (each example writes over it).
settings.register_profile(
    "files", deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@pytest.fixture(autouse=True)
def user_cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh user cache folder per test: runs without a configured cache folder keep theirs there,
    and a test must neither see another's cache nor write into the real ``~/.cache``."""
    home = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


@pytest.fixture
def data_dir() -> Path:
    """The read-only fixture files in tests/data."""
    return DATA


@pytest.fixture
def msgfmt_check() -> Callable[[Path], None]:
    """Check a PO file with GNU ``msgfmt --check`` when it is installed; skip the check otherwise."""
    msgfmt = shutil.which("msgfmt")

    def check(path: Path) -> None:
        if msgfmt is None:
            pytest.skip("GNU msgfmt is not installed")
        done = subprocess.run([msgfmt, "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, f"msgfmt --check {path}:\n{done.stderr}"

    return check


def pytest_unconfigure(config: pytest.Config) -> None:
    """Collect the session's garbage once, then freeze what is left before pytest's own last collections.

    pytest collects garbage five times as it ends, to report finalizers that fail. A worker of
    ``make test`` holds close to a million objects by then, and on a loaded machine those full
    collections outlast the 5 s execnet gives a worker to end before it interrupts it: a
    KeyboardInterrupt traceback after a run that passed. Collected once here, under the same hook,
    the garbage is reported all the same, and the later collections skip what is frozen.
    """
    gc.collect()
    gc.freeze()


def pytest_report_header() -> str | None:
    """Say so when the sample catalogs cannot be read as committed (no git): a translated copy changes results."""
    from tests.sample_project import SAMPLES_MUTABLE

    if SAMPLES_MUTABLE:
        return "sample_locales/: read from the working tree (no git checkout); `make translate` changes what tests see"
    return None
