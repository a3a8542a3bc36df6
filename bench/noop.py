"""A no-op run (everything already translated) as a fresh process and in-process; prints JSON.

On the workload of bench/latency_bound.py (78 Django catalogs, six languages), translated once,
then ``pipeline translate`` again with nothing new: compared with ``python -c pass``
and with parsing the same catalogs with polib in-process (target <= 1x). Fresh processes
may cache bytecode (in a temporary folder), as an installed package has, even where
PYTHONDONTWRITEBYTECODE is set. Figures are the median of RUNS runs after one that fills the cache;
a fresh process and ``python -c pass`` run in turns, and the ratio is the median of each turn's.
Target: the fresh process at most 4x ``python -c pass``, also when the project is a git work tree
(discovery then runs ``git ls-files`` once).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _workload import write_corpus  # noqa: E402

RUNS = 11
CONFIG = 'catalogs = ["src/**/*.po"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n'
IN_PROCESS = """
import sys, time, polib
from pathlib import Path
from pipeline.config import load_settings
from pipeline.run.orchestrate import RunOptions, run_translate
paths = sorted(Path("src").glob("**/*.po"))
started = time.perf_counter()
report = run_translate(load_settings(Path("pipeline.toml")), RunOptions(), log=lambda m: None)
noop = time.perf_counter() - started
started = time.perf_counter()
for path in paths:
    polib.pofile(str(path))
parse = time.perf_counter() - started
print(noop, parse, report.unchanged_catalogs, report.totals.requests)
"""


def paired_seconds(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """Median wall-clock seconds of ``python -c pass`` and of a fresh ``argv`` process, run in turns, and
    the median of each turn's ratio; after one run of each that fills the bytecode cache.

    In turns, so that the load of a shared machine weighs on both alike: measured one block after
    the other, a change of load between the blocks moved the ratio by half a point.
    """
    python = [sys.executable, "-c", "pass"]
    for command in (python, argv):
        subprocess.run(command, cwd=cwd, check=True, capture_output=True, env=env)
    pairs = []
    for _ in range(RUNS):
        pair = []
        for command in (python, argv):
            started = time.perf_counter()
            subprocess.run(command, cwd=cwd, check=True, capture_output=True, env=env)
            pair.append(time.perf_counter() - started)
        pairs.append(pair)
    return (
        statistics.median(p[0] for p in pairs),
        statistics.median(p[1] for p in pairs),
        statistics.median(p[1] / p[0] for p in pairs),
    )


def main() -> None:
    """Run the measurements and print them."""
    with tempfile.TemporaryDirectory(prefix="noop-bench-") as tmp:
        work = Path(tmp)
        workload = write_corpus(work / "src")
        (work / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        env["XDG_CACHE_HOME"] = str(work / "xdg")  # the report: not in the real ~/.cache
        pipeline = [sys.executable, "-m", "pipeline", "translate", "--quiet"]
        subprocess.run(pipeline, cwd=work, check=True, capture_output=True, env=env)  # the real run
        python_s, fresh_s, fresh_ratio = paired_seconds(pipeline, work, env)
        git_s = git_ratio = None
        if shutil.which("git"):  # the same project as a git work tree: discovery asks git ls-files
            (work / ".gitignore").write_text(".cache/\npycache/\nxdg/\n", encoding="utf-8")
            for argv in (["git", "init", "-q"], ["git", "add", "-A"]):
                subprocess.run(argv, cwd=work, check=True, capture_output=True, env=env)
            _, git_s, git_ratio = paired_seconds(pipeline, work, env)
        rows = []
        for _ in range(RUNS):
            out = subprocess.run(
                [sys.executable, "-c", IN_PROCESS], cwd=work, check=True, capture_output=True, text=True, env=env
            ).stdout.split()
            rows.append((float(out[0]), float(out[1]), int(out[2]), int(out[3])))
        noop_s = statistics.median(r[0] for r in rows)
        parse_s = statistics.median(r[1] for r in rows)
    print(
        json.dumps(
            {
                "catalogs": workload["catalogs"],
                "runs_per_figure": RUNS,
                "python_c_pass_seconds": round(python_s, 4),
                "load_average": round(os.getloadavg()[0], 2),
                "noop_fresh_process_seconds": round(fresh_s, 4),
                "noop_fresh_vs_python": round(fresh_ratio, 2),
                "noop_fresh_in_git_work_tree_seconds": None if git_s is None else round(git_s, 4),
                "noop_fresh_in_git_work_tree_vs_python": None if git_ratio is None else round(git_ratio, 2),
                "noop_in_process_seconds": round(noop_s, 4),
                "polib_parse_in_process_seconds": round(parse_s, 4),
                "noop_in_process_vs_parse": round(noop_s / parse_s, 3),
                "noop_fresh_vs_parse": round(fresh_s / parse_s, 2),
                "catalogs_skipped_unread": rows[-1][2],
                "noop_requests": rows[-1][3],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
