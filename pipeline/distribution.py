"""The package's version, its name on the package index, and how to add an optional part (an extra)
to the environment this copy runs in. Light: everything may import it without importing the package API.

The import package and the command are ``pipeline``; the distribution (what ``pip install`` and
``pipx install`` take) is :data:`DISTRIBUTION`, because ``pipeline`` on the package index is an
unrelated project.

The one extra left is ``redis``, for the shared cache. The package is installed three ways, and
each adds a package its own way: ``pip`` into a virtual environment or the user's Python, ``pipx``
into an environment of its own, and the pre-commit framework into the hook's environment, which
only ``additional_dependencies`` in the user's ``.pre-commit-config.yaml`` can change
(:func:`install_hint`). The packages are the extra's as the installed metadata lists them, so the
advice never drifts from ``pyproject.toml``.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

__all__ = ["DISTRIBUTION", "__version__", "install_hint", "install_route"]

__version__ = "0.1.0"  # keep in step with pyproject.toml
DISTRIBUTION = "pipeline-i18n"  # keep in step with pyproject.toml's [project] name


#: The packages of each extra, for a copy run without installed metadata (a source tree on sys.path).
_FALLBACK = {"redis": ("redis>=5.0",)}


def install_route(prefix: str | None = None) -> str:
    """``"pre-commit"``, ``"pipx"`` or ``"pip"``: how the environment at ``prefix`` (sys.prefix) was made."""
    where = Path(prefix or sys.prefix)
    if where.name.startswith("py_env-"):  # pre-commit's name for a Python hook's environment
        return "pre-commit"
    if (where / "pipx_metadata.json").is_file():  # pipx keeps one beside each environment it made
        return "pipx"
    return "pip"


def requirements(extra: str) -> tuple[str, ...]:
    """The requirements the installed distribution lists for ``extra`` (``redis>=5.0``)."""
    from importlib import metadata

    try:
        listed = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return _FALLBACK.get(extra, ())
    found = []
    for line in listed:
        requirement, _, marker = line.partition(";")
        if marker and _names_extra(marker, extra):
            found.append(requirement.strip().replace(" ", ""))
    return tuple(found) or _FALLBACK.get(extra, ())


def _names_extra(marker: str, extra: str) -> bool:
    compact = marker.replace(" ", "").replace("'", '"')
    return f'extra=="{extra}"' in compact


def install_hint(extra: str, prefix: str | None = None, executable: str | None = None) -> str:
    """The command (or hook setting) that adds ``extra`` where this copy runs: ``pipx inject pipeline-i18n redis``."""
    packages = requirements(extra)
    quoted = " ".join(shlex.quote(p) for p in packages)
    route = install_route(prefix)
    if route == "pre-commit":
        listed = ", ".join(f"'{p}'" for p in packages)
        return f"add additional_dependencies: [{listed}] to the hook in .pre-commit-config.yaml"
    if route == "pipx":
        return f"pipx inject {Path(prefix or sys.prefix).name} {quoted}"
    return (
        f"{shlex.quote(executable or sys.executable)} -m pip install {quoted} (the [{extra}] extra of {DISTRIBUTION})"
    )
