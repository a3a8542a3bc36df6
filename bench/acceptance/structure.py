"""Issue 38's counts of how the code is laid out, for one tree, printed as JSON.

``python -m bench.acceptance.structure [TREE ...]``: each TREE is a folder holding ``pipeline/``
(a checkout; the working tree by default). Compare two commits with ``git worktree add --detach
/tmp/before <commit>`` and ``python -m bench.acceptance.structure /tmp/before .``.

What is counted (each by reading the source, so a figure means the same thing at every commit):

- the run's context: fields of the class the stages share, those that may be None, and the
  ``assert ... is not None`` lines that show a field was filled in later;
- who writes the report: modules outside the ledger that assign to ``report.<field>`` or append to
  ``report.issues``, and the lines that set ``report.stopped``;
- where the run reads the cache (``.get_many(``, ``.cache.get(``, ``serve_from_cache(``) and where
  it starts an account-usage read;
- imports: inside functions (in all, under ``cli/``, under ``run/``), lazy ``__getattr__`` in
  ``__init__`` files, ``sys.modules`` edits, and the pairs of top-level folders (or modules) that
  import each other;
- the config: places that give ``max_attempts`` a default, calls of ``display_path`` with a
  ``Settings``;
- ``type: ignore`` comments (``pipeline/`` and in all), ``sys.path.insert`` and lines in ``bench/``,
  real sleeps and clock readings in ``tests/``, LICENSE, CHANGELOG lines.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CONTEXT_CLASSES = ("RunContext", "RunInputs")
USAGE_READ = re.compile(r"(?<!def )\b(?:read_usage_soon|start_usage|start_languages)\(")
PATH_INSERT = re.compile(r"^\s*sys\.path\.insert\(", re.M)
TIMING = re.compile(r"(?<![\w.])time\.(sleep|monotonic|perf_counter)\(|\basyncio\.sleep\((?!0\))[^)]")


def _python(folder: Path) -> Iterator[Path]:
    yield from sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _module(tree: Path, path: Path) -> str:
    parts = list(path.relative_to(tree).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: Path, path: Path, node: ast.AST) -> Iterator[str]:
    """The modules ``node`` imports (relative imports resolved against ``path``)."""
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = _module(tree, path).split(".")
            if path.name != "__init__.py":
                package = package[:-1]
            base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
        yield base
        yield from (f"{base}.{a.name}" for a in node.names)


def _top(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _context(sources: dict[str, str]) -> dict[str, Any]:
    fields: dict[str, tuple[int, int]] = {}
    for name, text in sources.items():
        if not name.startswith("pipeline.run"):
            continue
        for node in ast.parse(text).body:
            if isinstance(node, ast.ClassDef) and node.name in CONTEXT_CLASSES:
                annotated = [n for n in node.body if isinstance(n, ast.AnnAssign)]
                optional = [n for n in annotated if "None" in ast.unparse(n.annotation)]
                fields[f"{name}.{node.name}"] = (len(annotated), len(optional))
    asserts = sum(
        len(re.findall(r"assert (?:self\.)?(?:run|self|work)\.\w+ is not None", text))
        for name, text in sources.items()
        if name.startswith("pipeline.run")
    )
    return {
        "context_classes": {k: {"fields": f, "optional": o} for k, (f, o) in fields.items()},
        "asserts_filled_in": asserts,
    }


def _report_writers(sources: dict[str, str]) -> dict[str, Any]:
    writes = re.compile(r"\breport\.(?!json)\w+(?:\.\w+)*\s*(?:[+-]?=(?!=)|\.append\(|\.extend\()|\breport\.issues\[")
    writers = sorted(
        name
        for name, text in sources.items()
        if name.startswith("pipeline.run") and name != "pipeline.run.ledger" and writes.search(text)
    )
    stopped = sum(len(re.findall(r"\breport\.stopped\s*=(?!=)", text)) for text in sources.values())
    return {"report_writers_outside_ledger": writers, "report_stopped_set": stopped}


def _counts(tree: Path) -> dict[str, Any]:
    pipeline = tree / "pipeline"
    sources = {_module(tree, p): p.read_text(encoding="utf-8") for p in _python(pipeline)}
    paths = {_module(tree, p): p for p in _python(pipeline)}
    in_function = {"all": 0, "cli": 0, "run": 0}
    edges: set[tuple[str, str]] = set()
    lazy, sys_modules = [], 0
    for name, text in sources.items():
        parsed = ast.parse(text)
        for node in ast.walk(parsed):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = sum(isinstance(s, (ast.Import, ast.ImportFrom)) for s in ast.walk(node))
                in_function["all"] += n
                for folder in ("cli", "run"):
                    in_function[folder] += n if name.startswith(f"pipeline.{folder}") else 0
            for target in _imports(tree, paths[name], node):
                if target.startswith("pipeline.") and _top(target) in {_top(m) for m in sources}:
                    if _top(name) != _top(target):
                        edges.add((_top(name), _top(target)))
        if paths[name].name == "__init__.py" and re.search(r"^def __getattr__", text, re.M):
            lazy.append(name)
        sys_modules += len(re.findall(r"sys\.modules\[[^\]]+\]\s*=|sys\.modules\.setdefault\(", text))
    two_way = sorted(f"{a} <-> {b}" for a, b in edges if (b, a) in edges and a < b)
    everything = [*_python(pipeline), *_python(tree / "tests"), *_python(tree / "bench")]
    ignores = {p: len(re.findall(r"#\s*type:\s*ignore", p.read_text(encoding="utf-8"))) for p in everything}
    bench = list(_python(tree / "bench"))
    tests = list(_python(tree / "tests"))
    changelog = tree / "CHANGELOG.md"
    return {
        "tree": str(tree),
        **_context(sources),
        **_report_writers(sources),
        "cache_read_sites": {
            name: n
            for name, text in sources.items()
            if name.startswith("pipeline.run")
            and (n := len(re.findall(r"\.get_many\(|\.cache\.get\(|serve_from_cache\(", text)))
        },
        "usage_read_starts": sum(len(USAGE_READ.findall(t)) for t in sources.values()),
        "imports_in_functions": in_function,
        "lazy_getattr_init": lazy,
        "sys_modules_edits": sys_modules,
        "two_way_folder_imports": two_way,
        "max_attempts_defaults": sum(len(re.findall(r"max_attempts\b[^=\n]*=\s*5\b", t)) for t in sources.values()),
        "display_path_with_settings": sum(
            len(re.findall(r"display_path\((?:\w+\.)?settings\s*[,)]", t)) for t in sources.values()
        ),
        "type_ignore": {
            "pipeline": sum(n for p, n in ignores.items() if pipeline in p.parents),
            "all": sum(ignores.values()),
        },
        "bench": {
            "scripts": len([p for p in bench if p.name != "__init__.py"]),
            "flat_scripts": len([p for p in bench if p.parent == tree / "bench" and p.name != "__init__.py"]),
            "lines": sum(len(p.read_text(encoding="utf-8").splitlines()) for p in bench),
            "sys_path_insert": sum(len(PATH_INSERT.findall(p.read_text(encoding="utf-8"))) for p in bench),
        },
        "tests_timing_calls": sum(
            len(TIMING.findall(p.read_text(encoding="utf-8")))
            for p in tests
            if p.name not in ("waiting.py", "virtual_time.py", "test_suite_rules.py")
        ),
        "license": (tree / "LICENSE").is_file(),
        "changelog_lines": len(changelog.read_text(encoding="utf-8").splitlines()) if changelog.is_file() else 0,
    }


def main() -> int:
    trees = [Path(a).resolve() for a in sys.argv[1:]] or [Path.cwd()]
    print(json.dumps([_counts(t) for t in trees], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
