"""The service's layout, read from the source: no import cycles, no private imports, small modules and folders.

Imports are collected at any depth (inside functions, under ``TYPE_CHECKING``), since a deferred
import that closes a cycle still ties the two modules together.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pipeline.service

SERVICE = Path(pipeline.service.__file__).parent
PACKAGE = "pipeline.service"
MAX_MODULE_LINES = 500
MAX_MODULES_PER_FOLDER = 15


def _module_name(path: Path) -> str:
    parts = path.relative_to(SERVICE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(SERVICE.rglob("*.py"))}


def _imports(path: Path, known: dict[str, Path]) -> list[tuple[str, list[str], int]]:
    """(imported module, names taken from it, line) for every import statement of a module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, [], node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [alias.name for alias in node.names]
            submodules = [f"{node.module}.{name}" for name in names if f"{node.module}.{name}" in known]
            if submodules and len(submodules) == len(names):
                found.extend((module, [], node.lineno) for module in submodules)
            else:
                found.append((node.module, names, node.lineno))
    return found


def _graph() -> dict[str, set[str]]:
    known = _modules()
    return {
        name: {target for target, _, _ in _imports(path, known) if target in known and target != name}
        for name, path in known.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def test_the_cycle_finder_finds_a_cycle_through_a_deferred_import():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_inside_the_service():
    assert _cycles(_graph()) == []


def test_no_module_imports_a_private_name_of_another():
    known = _modules()
    offenders = [
        f"{_module_name(path)}:{line} imports {name} from {module}"
        for path in known.values()
        for module, names, line in _imports(path, known)
        if module.startswith("pipeline")
        for name in names
        if name.startswith("_")
    ]
    assert offenders == []


def test_modules_and_folders_stay_small():
    long_modules = {
        _module_name(path): lines
        for path in SERVICE.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    crowded = {
        str(folder.relative_to(SERVICE.parent)): count
        for folder in [SERVICE, *(p for p in SERVICE.rglob("*") if p.is_dir() and p.name != "__pycache__")]
        if (count := len(list(folder.glob("*.py")))) > MAX_MODULES_PER_FOLDER
    }
    assert (long_modules, crowded) == ({}, {})


def test_only_the_assembly_knows_the_test_faults():
    """Scripted failures act in their middleware and the wrappers it installs, never in an endpoint."""
    known = _modules()
    importers = {
        name
        for name, path in known.items()
        for module, _, _ in _imports(path, known)
        if module.startswith(f"{PACKAGE}.testing") and not name.startswith(f"{PACKAGE}.testing")
    }
    assert importers == {f"{PACKAGE}.app"}
