"""The shape of the package, checked from its source: no import cycles, small modules and folders, no private imports.

Every module under pipeline/ is parsed with ``ast``; every import counts, wherever it is written
(at the top, inside a function, under ``TYPE_CHECKING``), since a deferred import only hides a
cycle until the day someone moves it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pipeline"
MAX_LINES = 500
MAX_MODULES_PER_FOLDER = 15
# The run's stages (pipeline/run/): only the orchestrator (a package: its modules too) imports them.
# ``report`` also renders a finished report for the commands, and ``scan`` lists a project's target
# languages for ``pipeline glossary|style sync``.
ORCHESTRATOR = "pipeline.run.orchestrate"
STAGES = {"settled", "scan", "plan", "reuse", "cached", "send", "gate", "write", "report"}
STAGE_ENTRY_POINTS = {
    "pipeline.run.report": {
        "pipeline.cli.commands.translate",
        "pipeline.cli.commands.refresh",
        "pipeline.cli.commands.reports",
    },
    "pipeline.run.scan": {"pipeline.cli.commands.resources"},
    # The one gate: `pipeline check` runs its rules over existing translations, and `pipeline review`
    # judges a reviewer's edit (and the translation shown) by them.
    "pipeline.run.gate": {"pipeline.workflows.check", "pipeline.review.entries"},
}


@dataclass(frozen=True)
class Import:
    importer: str
    target: str  # a module of the package
    names: tuple[str, ...]  # the names taken from it (empty for ``import x``)
    line: int


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
ALL_MODULES = {_module_name(p) for p in PACKAGE.rglob("*.py")}  # the service too: imports of it resolve


def _resolve(importer: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = importer.split(".") if path.name == "__init__.py" else importer.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(name: str, path: Path) -> list[Import]:
    found: list[Import] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend(
                Import(name, alias.name, (), node.lineno)
                for alias in node.names
                if alias.name.split(".")[0] == "pipeline"
            )
        elif isinstance(node, ast.ImportFrom):
            module = _resolve(name, path, node)
            if module.split(".")[0] != "pipeline":
                continue
            # ``from pipeline.run import plan`` imports the module pipeline.run.plan, not the package.
            submodules = [a.name for a in node.names if f"{module}.{a.name}" in ALL_MODULES]
            found.extend(Import(name, f"{module}.{sub}", (), node.lineno) for sub in submodules)
            names = tuple(a.name for a in node.names if a.name not in submodules)
            if names:
                found.append(Import(name, module, names, node.lineno))
    return found


IMPORTS = [imp for name, path in MODULES.items() for imp in _imports(name, path)]


def _cycles(imports: list[Import]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        graph.setdefault(imp.importer, set())
        graph.setdefault(imp.target, set())
        if imp.target != imp.importer:
            graph[imp.importer].add(imp.target)
    # Tarjan's strongly connected components: every component with more than one module is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
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


def test_the_checks_see_the_package() -> None:
    """A broken walk (wrong root, nothing parsed) must not pass every check below by finding nothing."""
    assert {"pipeline.cli", "pipeline.run.orchestrate", "pipeline.run.gate", "pipeline.catalogs.po"} <= set(MODULES)
    assert any(imp.importer.startswith(ORCHESTRATOR) and imp.target == "pipeline.run.gate" for imp in IMPORTS)
    assert {"pipeline.service.app", "pipeline.service.api.translate", "pipeline.service.store.jobs"} <= set(MODULES)


def test_no_import_cycles() -> None:
    assert _cycles(IMPORTS) == []


def test_the_cycle_check_finds_a_cycle_through_a_deferred_import(tmp_path: Path) -> None:
    """The check itself: two modules importing each other, one of them inside a function, are reported."""
    (tmp_path / "a.py").write_text("from pipeline import cli\n")
    (tmp_path / "b.py").write_text("def f():\n    from pipeline.run.orchestrate import run_translate\n")
    imports = [*_imports("pipeline.run.orchestrate", tmp_path / "a.py"), *_imports("pipeline.cli", tmp_path / "b.py")]
    assert _cycles(imports) == [["pipeline.cli", "pipeline.run.orchestrate"]]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_are_at_most_500_lines(name: str) -> None:
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{MODULES[name].relative_to(ROOT)} has {lines} lines: split it by what it does"


def test_folders_hold_at_most_15_modules() -> None:
    folders = {path.parent for path in MODULES.values()}
    crowded = {
        str(folder.relative_to(ROOT)): n
        for folder in folders
        if (n := len(list(folder.glob("*.py")))) > MAX_MODULES_PER_FOLDER
    }
    assert crowded == {}


def test_no_module_imports_another_modules_private_name() -> None:
    private = [
        f"{imp.importer}:{imp.line} imports {name} from {imp.target}"
        for imp in IMPORTS
        for name in imp.names
        if name.startswith("_") and not name.startswith("__")
    ]
    assert private == []


def test_only_the_orchestrator_imports_the_run_stages() -> None:
    stray = []
    for imp in IMPORTS:
        stage = imp.target.removeprefix("pipeline.run.")
        orchestrator = imp.importer == ORCHESTRATOR or imp.importer.startswith(f"{ORCHESTRATOR}.")
        if imp.target.startswith("pipeline.run.") and stage in STAGES and not orchestrator:
            if imp.importer not in STAGE_ENTRY_POINTS.get(imp.target, set()):
                stray.append(f"{imp.importer}:{imp.line} imports {imp.target}")
    assert stray == []


def test_only_the_service_assembly_knows_the_test_faults() -> None:
    """Scripted failures act in their middleware and the wrappers it installs, never in an endpoint."""
    importers = {
        imp.importer
        for imp in IMPORTS
        if imp.target.startswith("pipeline.service.testing") and not imp.importer.startswith("pipeline.service.testing")
    }
    assert importers == {"pipeline.service.app"}


MAX_FUNCTION_LINES = 60
MAX_PARAMETERS = 8
# The client's methods and request builders that mirror one API call's parameter list: one keyword
# per field of the service's request, as the official clients have them.
MIRRORS_THE_API = {
    "pipeline.client.endpoints:translate",
    "pipeline.client.endpoints:translate_document",
    "pipeline.client.endpoints:upload_document",
    "pipeline.client.requests:translate_params",
    "pipeline.client.requests:upload_document",
}


def _functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((f"{name}:{node.name}", node))
    return found


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = node.args
    named = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg not in ("self", "cls")]
    return len(named) + (args.vararg is not None) + (args.kwarg is not None)


def test_no_function_is_over_60_lines() -> None:
    long = {
        where: node.end_lineno - node.lineno + 1
        for where, node in _functions()
        if node.end_lineno is not None and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    }
    assert {where: n for where, n in long.items() if where not in MIRRORS_THE_API} == {}


def test_no_function_takes_more_than_8_parameters_but_those_that_mirror_the_api() -> None:
    many = {where: _parameters(node) for where, node in _functions() if _parameters(node) > MAX_PARAMETERS}
    assert {where: n for where, n in many.items() if where not in MIRRORS_THE_API} == {}
    assert MIRRORS_THE_API <= {where for where, _ in _functions()}  # no stale exemption


def test_the_function_checks_see_long_and_wide_functions(tmp_path: Path) -> None:
    """The checks themselves: a 61-line function and a 9-parameter one are counted as such."""
    source = "def wide(a, b, c, d, e, f, g, h, *rest):\n    pass\n\ndef long():\n" + "    x = 1\n" * 60
    tree = ast.parse(source)
    wide, long = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert _parameters(wide) == 9
    assert long.end_lineno is not None and long.end_lineno - long.lineno + 1 == 61


# The independent damage checker (issue 35): it judges the placeholder protection and the gate, so it
# may not share their code, directly or through a module that imports them.
CHECKER = "pipeline.damage"
CHECKED = ("pipeline.placeholders", "pipeline.run", "pipeline.catalogs")


def _reachable(start: set[str], imports: list[Import]) -> set[str]:
    """Every module of the package that ``start``'s modules import, directly or through others."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        graph.setdefault(imp.importer, set()).add(imp.target)
    seen: set[str] = set()
    todo = list(start)
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def _shared_with_the_checked(imports: list[Import]) -> list[str]:
    checker = {name for name in MODULES if name == CHECKER or name.startswith(f"{CHECKER}.")}
    reached = _reachable(checker, imports)
    return sorted(m for m in reached if any(m == c or m.startswith(f"{c}.") for c in CHECKED))


def test_the_damage_checker_shares_nothing_with_what_it_checks() -> None:
    assert f"{CHECKER}.tokens" in MODULES  # the rule below must see the checker
    assert _shared_with_the_checked(IMPORTS) == []


def test_the_sharing_rule_sees_an_import_through_another_module(tmp_path: Path) -> None:
    """The check itself: the checker importing a helper that imports the placeholder grammar is caught."""
    (tmp_path / "a.py").write_text("from pipeline import model\n")
    (tmp_path / "b.py").write_text("def f():\n    from pipeline.placeholders import grammar\n")
    extra = [*_imports("pipeline.damage.tokens", tmp_path / "a.py"), *_imports("pipeline.model", tmp_path / "b.py")]
    assert _shared_with_the_checked([*IMPORTS, *extra]) == ["pipeline.placeholders.grammar"]


# Issue 38: the run as data, the cache read in one place, one-way folders, one front door per decision.

#: The functions that decide what is loaded: the only ones that import inside themselves (a deferred
#: import elsewhere would spread that decision through every module again). Each loads one thing,
#: when a run or a command shows it needs it.
FRONT_DOORS = {
    "pipeline.__main__:main": "the command line, where a Ctrl-C while it loads is caught",
    "pipeline.cli:build_parser": "a command's parser module, by the command's name",
    "pipeline.cli:handler": "a command's handler module when it runs",
    "pipeline.run.orchestrate:run_translate": "the run's stages and connections, once there is work",
    "pipeline.run.orchestrate:translate_catalogs": "the same, in the caller's event loop",
    "pipeline.connect:open_client": "the client (httpx) once a request is needed; the local service if named",
    "pipeline.connect:prepare": "the TLS roots' loader, once a run with an https service has a unit to translate",
    "pipeline.client.tls:roots": "certifi, for an https client whose roots no variable names",
    "pipeline.catalogs:read_catalog": "a catalog format's reader (lxml for XLIFF), by the file's suffix",
    "pipeline.catalogs.po_scan.polib_file:polib_file": "polib's reading of a catalog, which only a review asks for",
    "pipeline.catalogs.po_scan.entry:polib_key": "polib, where a key holds an escape it may read otherwise",
    "pipeline.catalogs.merge:_fails_new_flags": "the format grammars, for an entry whose flags the template changed",
    "pipeline.catalogs.similar:_rapidfuzz": "rapidfuzz, when a merge looks for the entry most like a new one",
    "pipeline.run.catalog_lock:one_catalog_awaited": "asyncio, for the review server's wait (a merge waits without it)",
    "pipeline.catalog_paths:_git_files": "git's listing (subprocess), inside a work tree only",
    "pipeline.cache:open_shared": "Redis (an extra), when a shared cache is configured",
    "pipeline.resources.attach:_sync_glossary": "the glossary's sync, when a target of the run has a glossary",
    "pipeline.resources.attach:_sync_styles": "the style lists' sync, when a target of the run has style rules",
    "pipeline.config:user_cache_home": "the user's folders (platformdirs), where the file names none",
    "pipeline.config.lines:did_you_mean": "difflib, for a configuration key that is unknown",
    "pipeline.locales:cldr": "CLDR (babel), when a code is checked or named, or a plural rule looked up",
    "pipeline.placeholders.grammars:grammar": "a format's grammar module, for the first text whose flags name it",
    "pipeline.placeholders.grammars.positional:_xml_problem": "lxml, for a kde-kuit-format string with markup",
    "pipeline.distribution:requirements": "the installed metadata, only to say how to install an extra",
    "pipeline.service.engine.detect:_load": "the language detector's model, at the first detection",
    "pipeline.service.engine.tm_match:_rapidfuzz": "rapidfuzz, at the first fuzzy memory match",
    "pipeline.service.store.memories:load_memory": "the memory files' readers (lxml, polib), with the first file",
    "pipeline.service.documents.formats:_module": "a document format's module, when a document of it comes",
    "pipeline.service.app:group_routes": "a route group's module (api/), at the first request under its paths",
    "pipeline.service.app:_open_documents": "the document jobs' worker, with a data directory or the first document",
    "pipeline.service.app:fault_book": "the scripted failures, for an app started with test faults",
    "pipeline.service.store.resources:_glossary_store": "the glossary store, at an in-memory app's first glossary use",
    "pipeline.service.store.resources:_style_store": "the style list store, at an in-memory app's first style list use",
}


def _deferred_loads() -> dict[str, list[int]]:
    """Per ``module:function``, the lines where it imports (an import statement, or importlib.import_module)."""
    found: dict[str, list[int]] = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for sub in ast.walk(node):
                dynamic = isinstance(sub, ast.Call) and ast.unparse(sub.func) in (
                    "importlib.import_module",
                    "__import__",
                )
                if isinstance(sub, (ast.Import, ast.ImportFrom)) or (dynamic and isinstance(sub, ast.Call)):
                    found.setdefault(f"{name}:{node.name}", []).append(sub.lineno)
    return found


def test_only_the_front_doors_import_inside_a_function() -> None:
    loads = _deferred_loads()
    assert sorted(set(loads) - set(FRONT_DOORS)) == []
    assert sorted(set(FRONT_DOORS) - set(loads)) == []  # no stale door: each still decides something


def test_no_package_loads_its_names_lazily_and_only_the_process_entry_tunes_sys_modules() -> None:
    lazy = [name for name, path in MODULES.items() if re.search(r"^def __getattr__", path.read_text(), re.M)]
    assert lazy == []
    tuned = [name for name, path in MODULES.items() if "sys.modules.setdefault(" in path.read_text()]
    assert tuned == ["pipeline.cli"]  # run(): the process never loads httpx's own command line


def _top(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_no_two_top_level_folders_or_modules_import_each_other() -> None:
    edges = {(_top(imp.importer), _top(imp.target)) for imp in IMPORTS if _top(imp.importer) != _top(imp.target)}
    assert sorted(f"{a} <-> {b}" for a, b in edges if (b, a) in edges and a < b) == []


def test_the_cache_is_read_by_one_module_of_the_run() -> None:
    readers = {
        name
        for name, path in MODULES.items()
        if not name.startswith("pipeline.cache") and re.search(r"\.get_many\(|\.cache\.get\(", path.read_text())
    }
    assert readers == {"pipeline.run.orchestrate.judge"}


#: The records a run's stages share: immutable (a frozen dataclass or a NamedTuple), made at once, never filled later.
RUN_CONTEXT = {"pipeline.run.records": "RunInputs", "pipeline.run.orchestrate.context": "RunContext"}
#: The objects a run writes through (the ledger, its connections): none of their fields starts empty to be set later.
RUN_OWNERS = {"pipeline.run.ledger": "Ledger", "pipeline.run.orchestrate.context": "Connections"}


def _class(module: str, name: str) -> ast.ClassDef:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def test_the_runs_context_is_frozen_and_no_field_of_it_is_filled_in_later() -> None:
    for module, name in RUN_CONTEXT.items():
        cls = _class(module, name)
        frozen = "dataclass(frozen=True)" in [ast.unparse(d) for d in cls.decorator_list]
        assert frozen or [ast.unparse(b) for b in cls.bases] == ["NamedTuple"], f"{module}.{name}"
    for module, name in RUN_OWNERS.items():
        cls = _class(module, name)
        methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        init = next(m for m in methods if m.name == "__init__")
        empty = {
            target.attr
            for node in ast.walk(init)
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Attribute)
            and (
                (isinstance(node.value, ast.Constant) and node.value.value is None)
                or (isinstance(node, ast.AnnAssign) and "None" in ast.unparse(node.annotation))
            )
        }
        assert empty == set(), f"{module}.{name} starts with {sorted(empty)} empty"


def test_nothing_in_the_run_asserts_that_a_field_was_filled_in() -> None:
    found = [
        f"{name}:{n}"
        for name, path in MODULES.items()
        if name.startswith("pipeline.run")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"assert (self\.)?(run|self)\.\w+ is not None", line)
    ]
    assert found == []


def test_the_architecture_checks_of_issue_38_see_what_they_look_for(tmp_path: Path) -> None:
    """The checks themselves: a deferred import, a two-way pair and an empty field are each found."""
    (tmp_path / "a.py").write_text("def f():\n    import json\n")
    tree = ast.parse((tmp_path / "a.py").read_text())
    assert any(isinstance(n, ast.Import) for n in ast.walk(tree.body[0]))
    pairs = {("pipeline.config", "pipeline.resources"), ("pipeline.resources", "pipeline.config")}
    assert sorted(f"{a} <-> {b}" for a, b in pairs if (b, a) in pairs and a < b) == [
        "pipeline.config <-> pipeline.resources"
    ]
    assert "pipeline.run.orchestrate.work:translate" not in FRONT_DOORS  # the work module is loaded, not loading


# Issue 37: records are NamedTuples. Python 3.11 builds a frozen dataclass's methods with exec (0.5 ms a
# class, a NamedTuple 0.05 ms; a run imports most records) and its __init__ sets each field through
# object.__setattr__. A frozen dataclass stays only where a NamedTuple would change what the record does.
_HIDDEN = "a field kept out of repr (a secret, or a document's bytes)"
_VALIDATES = "__post_init__ checks or coerces its fields, for every caller"
_MUTABLE_DEFAULT = "a fresh dict or list per record by default: a NamedTuple's default is one object all would share"
_INDEX = "a field named index or count, which would shadow the tuple method of that name"
FROZEN_DATACLASSES = {
    "pipeline.model.Issue": _VALIDATES,
    "pipeline.protocol.Dictionary": "subclassed by resources.glossary_files.Dictionary, which adds cached properties",
    "pipeline.catalog_paths.Found": _MUTABLE_DEFAULT,
    "pipeline.catalogs.keyed.KeyedSources": _MUTABLE_DEFAULT,
    "pipeline.client.api_data.DocumentHandle": _HIDDEN,
    "pipeline.client.api_data.TranslatedDocument": _HIDDEN,
    "pipeline.client.api_data.GlossaryDictionary": _HIDDEN,
    "pipeline.client.api_data.DeveloperKey": _HIDDEN,
    "pipeline.client.retry.RetryPolicy": _VALIDATES,
    "pipeline.config.ServiceSettings": _VALIDATES,
    "pipeline.damage.icu.Construct": _MUTABLE_DEFAULT,
    "pipeline.review.session.Entry": _INDEX,
    "pipeline.service.config.MemorySpec": _VALIDATES,
    "pipeline.service.config.AccountSpec": _VALIDATES,
    "pipeline.service.config.ServiceConfig": _VALIDATES,
    "pipeline.service.engine.tm_match.MemoryIndex": "fields worked out in __post_init__ from the others",
}


def _frozen_dataclasses(modules: dict[str, Path]) -> set[str]:
    """``module.Class`` of every class decorated ``@dataclass(frozen=True, ...)`` in ``modules``."""
    return {
        f"{name}.{node.name}"
        for name, path in modules.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if isinstance(node, ast.ClassDef)
        and any(
            isinstance(d, ast.Call)
            and ast.unparse(d.func) in ("dataclass", "dataclasses.dataclass")
            and any(k.arg == "frozen" and ast.unparse(k.value) == "True" for k in d.keywords)
            for d in node.decorator_list
        )
    }


def test_records_are_named_tuples_but_the_frozen_dataclasses_listed_with_their_reason() -> None:
    found = _frozen_dataclasses(MODULES)
    assert sorted(found - set(FROZEN_DATACLASSES)) == []
    assert sorted(set(FROZEN_DATACLASSES) - found) == []  # no stale entry: each is still a dataclass


def test_the_record_check_sees_a_frozen_dataclass(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "import dataclasses\nfrom dataclasses import dataclass\n\n@dataclass(frozen=True, slots=True)\nclass A:\n"
        "    x: int\n\n@dataclasses.dataclass(frozen=True)\nclass B:\n    x: int\n\n@dataclass\nclass C:\n    x: int\n"
    )
    assert _frozen_dataclasses({"m": tmp_path / "a.py"}) == {"m.A", "m.B"}
