"""Fixtures shared by every test folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"


@pytest.fixture
def data_dir() -> Path:
    """The read-only fixture files in tests/data."""
    return DATA


@pytest.fixture
def msgfmt_check():
    """Check a PO file with GNU ``msgfmt --check`` when it is installed; skip the check otherwise."""
    msgfmt = shutil.which("msgfmt")

    def check(path: Path) -> None:
        if msgfmt is None:
            pytest.skip("GNU msgfmt is not installed")
        done = subprocess.run([msgfmt, "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, f"msgfmt --check {path}:\n{done.stderr}"

    return check
