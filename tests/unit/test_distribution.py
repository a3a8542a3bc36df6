"""The distribution's name, and the command that adds an extra for the way the package was installed."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from pipeline.distribution import DISTRIBUTION, __version__, install_hint, install_route

ROOT = Path(__file__).resolve().parents[2]


def test_the_distribution_name_and_version_are_those_of_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert (project["name"], project["version"]) == (DISTRIBUTION, __version__) == ("pipeline-i18n", __version__)


def test_the_embedded_service_serve_and_review_need_no_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {d.split(">")[0].split("=")[0] for d in project["dependencies"]}
    assert {"starlette", "python-multipart", "py3langid", "uvicorn", "h11"} <= core
    # Empty, so that an instruction written for an older version still installs.
    assert project["optional-dependencies"]["serve"] == project["optional-dependencies"]["review"] == []


def test_version_names_the_distribution() -> None:
    done = subprocess.run([sys.executable, "-m", "pipeline", "--version"], capture_output=True, text=True)
    assert done.stdout.strip() == f"pipeline {__version__} ({DISTRIBUTION})"


def test_each_install_route_gets_its_own_command(tmp_path: Path) -> None:
    plain = tmp_path / "venv"
    plain.mkdir()
    pipx = tmp_path / "pipx" / "venvs" / DISTRIBUTION
    pipx.mkdir(parents=True)
    (pipx / "pipx_metadata.json").write_text("{}")
    hook = tmp_path / "pre-commit" / "repoabc123" / "py_env-python3.11"
    hook.mkdir(parents=True)
    assert [install_route(str(p)) for p in (plain, pipx, hook)] == ["pip", "pipx", "pre-commit"]
    python = str(plain / "bin" / "python")
    assert install_hint("redis", str(plain), python) == (
        f"{python} -m pip install 'redis>=5.0' (the [redis] extra of pipeline-i18n)"
    )
    assert install_hint("redis", str(pipx)) == "pipx inject pipeline-i18n 'redis>=5.0'"
    assert install_hint("redis", str(hook)) == (
        "add additional_dependencies: ['redis>=5.0'] to the hook in .pre-commit-config.yaml"
    )
