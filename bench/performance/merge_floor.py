"""The merge rows' floor on this machine: what ``refresh --merge-only`` of one catalog costs at least, layer by layer.

``python -m bench.performance.merge_floor [--projects sphinx,netbox,gcc] [--change little,much]
[--rounds N] [--instructions]`` builds each merge row's workload (:func:`bench.performance.merge.changed`:
a published catalog and its own template changed a little or much) and runs, each in a fresh process
of the venv installed as users install it (:mod:`bench.harness.installed`), round after round:

- ``python_c_pass``: the interpreter alone;
- ``floor``: the interpreter, the template and the catalog read by the pipeline's PO reader, and the
  catalog written back atomically as a merge writes it (:func:`pipeline.files.swap.write_over`): what
  a merge of that catalog cannot go below without another reader or another way of writing;
- ``merge``: the floor's reading, the merge itself (:func:`pipeline.catalogs.merge.merge_read`: the
  matching, fuzzy matching included, and the new text) and writing its result: the library's work
  with nothing of the command around it;
- ``stdlib_imports``: the interpreter and the modules of the standard library the whole command imports (and
  the interpreter's own start-up modules), no work;
- ``foreign_imports``: those and the third-party modules it imports (rapidfuzz, where the template adds
  messages to match), no work: ``imports`` less these is what importing the pipeline's own modules costs;
- ``imports``: the interpreter and every module the whole command imports, and no work;
- ``command``: ``pipeline refresh --merge-only --quiet``, as the row runs it (the configuration, the
  catalogs' discovery, the lock, the journal, the state saved);
- ``msgmerge``: ``msgmerge --previous``, as the row runs it.

Each figure is the median over ``--rounds`` of the process's CPU (user + system) and wall seconds;
with ``--instructions``, one more run of each under ``valgrind --tool=cachegrind`` counts its
instructions (deterministic where wall and CPU are noise). The load average is printed beside.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness.installed import python as installed_python
from bench.harness.process import fresh_env, load_average, require
from bench.harness.workloads import catalog_path, corpus_project, template, write_config
from bench.performance.merge import LITTLE, MUCH, PROJECTS, changed

ROUNDS = 5
CHANGES = {"little": LITTLE, "much": MUCH}

#: Each layer's program (``python -c``), given the template and the catalog as arguments.
_FLOOR = """
import sys
from pathlib import Path
from pipeline.catalogs.po import read_po_text
from pipeline.files.swap import write_over
template, catalog = Path(sys.argv[1]), Path(sys.argv[2])
read_po_text(template)
read, _ = read_po_text(catalog)
write_over(catalog, read.raw + b"\\n", read.raw)
"""
_MERGE = """
import sys
from pathlib import Path
from pipeline.catalogs.merge import merge_read, read_template
from pipeline.files.swap import write_over
template, catalog = Path(sys.argv[1]), Path(sys.argv[2])
raw = catalog.read_bytes()
result = merge_read(catalog, raw, read_template(template))
write_over(catalog, result.data, raw)
"""
_IMPORTS = """
import importlib, sys
for name in sys.argv[3:]:
    try:
        importlib.import_module(name)
    except ImportError:  # made by another module, not importable by name (typing.io, cython_runtime)
        pass
"""
#: The modules a whole command imported, printed by the command run in this process.
_MODULES = """
import sys
sys.argv = ["pipeline", "refresh", "--merge-only", "--quiet"]
from pipeline.cli import main
try:
    main()
finally:
    print(" ".join(sorted(sys.modules)), file=sys.__stderr__)
"""


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of ``argv`` run to its end in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _instructions(argv: list[str], cwd: Path, env: dict[str, str]) -> int:
    """Instructions ``argv`` executes (cachegrind's ``I refs``), in millions."""
    with tempfile.NamedTemporaryFile() as out:
        done = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out.name}", *argv],
            cwd=cwd,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from cachegrind: {done.stderr[-500:]}")
    return round(int(found.group(1).replace(",", "")) / 1e6)


def measure(project: str, change: str, root: Path, rounds: int, instructions: bool) -> dict[str, Any]:
    """The layers of ``project``'s merge workload (``change``: little or much) under ``root``."""
    source = template(project).largest()
    domain, lang = source.domain, corpus_project(project).languages[0]
    published = source.published[domain]
    pot = root / "locale" / f"{domain}.pot"
    pot.parent.mkdir(parents=True)
    changed(source.entries(domain), *CHANGES[change]).save(str(pot))
    target = catalog_path(root, domain, lang)
    target.parent.mkdir(parents=True)
    write_config(root)
    env = fresh_env(root)
    python = str(installed_python())
    shutil.copy(published, target)
    modules = subprocess.run(
        [python, "-c", _MODULES], cwd=root, env=env, check=True, capture_output=True, text=True
    ).stderr.split()
    ours = [name for name in modules if name == "pipeline" or name.startswith("pipeline.")]
    foreign = [name for name in modules if name not in ours]
    stdlib = [name for name in foreign if name.partition(".")[0] in sys.stdlib_module_names]
    layers = {
        "python_c_pass": [python, "-c", "pass"],
        "floor": [python, "-c", _FLOOR, str(pot), str(target)],
        "merge": [python, "-c", _MERGE, str(pot), str(target)],
        "stdlib_imports": [python, "-c", _IMPORTS, str(pot), str(target), *stdlib],
        "foreign_imports": [python, "-c", _IMPORTS, str(pot), str(target), *foreign],
        "imports": [python, "-c", _IMPORTS, str(pot), str(target), *modules],
        "command": [str(Path(python).with_name("pipeline")), "refresh", "--merge-only", "--quiet"],
        "msgmerge": ["msgmerge", "--previous", "--quiet", "-o", str(root / "msgmerge.out"), str(published), str(pot)],
    }
    for argv in layers.values():  # the bytecode written once, before anything is measured
        shutil.copy(published, target)
        _run(argv, root, env)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in layers}
    for _ in range(rounds):  # the layers in turn, round after round: a load that comes and goes meets each
        for name, argv in layers.items():
            shutil.copy(published, target)  # each merges the published catalog, as the row does
            runs[name].append(_run(argv, root, env))
    figures: dict[str, Any] = {
        name: {
            "wall_seconds": round(statistics.median(w for w, _ in times), 4),
            "cpu_seconds": round(statistics.median(c for _, c in times), 4),
        }
        for name, times in runs.items()
    }
    if instructions:
        for name, argv in layers.items():
            shutil.copy(published, target)
            figures[name]["instructions_millions"] = _instructions(argv, root, env)
    msgmerge = figures["msgmerge"]
    return {
        "project": project,
        "change": change,
        "catalog_mib": round(published.stat().st_size / 2**20, 2),
        "modules": len(modules),
        "our_modules": len(ours),
        **figures,
        "floor_vs_msgmerge": round(figures["floor"]["wall_seconds"] / msgmerge["wall_seconds"], 2),
        "floor_vs_msgmerge_cpu": round(figures["floor"]["cpu_seconds"] / msgmerge["cpu_seconds"], 2),
        "command_vs_msgmerge": round(figures["command"]["wall_seconds"] / msgmerge["wall_seconds"], 2),
        "command_vs_msgmerge_cpu": round(figures["command"]["cpu_seconds"] / msgmerge["cpu_seconds"], 2),
        "load_average": load_average(),
    }


def main() -> int:
    """Print one JSON object per project and change."""
    parser = argparse.ArgumentParser(prog="python -m bench.performance.merge_floor", description=__doc__)
    parser.add_argument("--projects", default=",".join(PROJECTS), help="comma-separated corpus projects")
    parser.add_argument("--change", default="little,much", help="little, much or both (comma-separated)")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--instructions", action="store_true", help="count instructions with cachegrind too")
    args = parser.parse_args()
    require("msgmerge", *(["valgrind"] if args.instructions else []))
    with tempfile.TemporaryDirectory(prefix="merge-floor-") as work:
        for project in args.projects.split(","):
            for change in args.change.split(","):
                root = Path(work) / f"{project}-{change}"
                print(json.dumps(measure(project, change, root, args.rounds, args.instructions)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
