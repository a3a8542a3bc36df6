"""What the pre-commit hooks cost when there is nothing new to translate; prints JSON.

Compared, as median wall-clock milliseconds of fresh processes (what pre-commit starts):
``python -c pass``; parsing the staged catalogs with polib; ``pipeline check`` on them; and
``pipeline translate`` on them once everything was translated by a first run (the no-op hook run).
The catalogs are a copy of sample_locales/ (7 catalogs), translated by the embedded service.
Every process may cache bytecode (in a temporary folder), as an installed package has, even where
PYTHONDONTWRITEBYTECODE is set; without it each run would also compile the package's modules.
Every process runs as users install the package (bench.harness.installed).
The report and the run state go to a temporary user cache folder.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.harness.process import pipeline_argv, python_argv

ROOT = Path(__file__).resolve().parents[2]
RUNS = 7
CONFIG = """\
source_lang = "en"
catalogs = ["*/LC_MESSAGES/*.po"]
[service]
url = "embedded"
[cache]
dir = ".pipeline-cache"
[report]
dir = "build/pipeline-report"
"""


def _median_ms(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    subprocess.run(argv, cwd=cwd, check=True, capture_output=True, env=env)  # fills the bytecode cache
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(argv, cwd=cwd, check=True, capture_output=True, env=env)
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 1)


def main() -> None:
    """Run the measurements and print them."""
    with tempfile.TemporaryDirectory(prefix="precommit-bench-") as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "sample_locales", work, dirs_exist_ok=True)
        (work / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
        catalogs = sorted(str(p.relative_to(work)) for p in work.glob("*/LC_MESSAGES/*.po"))
        pipeline = pipeline_argv()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["XDG_CACHE_HOME"] = tmp + "-xdg"  # the report: not in the real ~/.cache
        started = time.perf_counter()
        subprocess.run(
            [*pipeline, "translate", "--quiet", *catalogs], cwd=work, check=True, capture_output=True, env=env
        )
        first_ms = round((time.perf_counter() - started) * 1000, 1)
        parse = "import sys, polib\nfor p in sys.argv[1:]: polib.pofile(p)"
        env["PYTHONPYCACHEPREFIX"] = tmp + "-pycache"
        figures = {
            "catalogs": len(catalogs),
            "runs_per_figure": RUNS,
            "python_c_pass_ms": _median_ms(python_argv(), work, env),
            "polib_parse_catalogs_ms": _median_ms(python_argv("-c", parse, *catalogs), work, env),
            "check_hook_ms": _median_ms([*pipeline, "check", "--quiet", *catalogs], work, env),
            "translate_hook_noop_ms": _median_ms([*pipeline, "translate", "--quiet", *catalogs], work, env),
            "translate_first_run_ms": first_ms,
        }
        figures["noop_vs_python"] = round(figures["translate_hook_noop_ms"] / figures["python_c_pass_ms"], 2)
        figures["noop_vs_polib_parse"] = round(
            figures["translate_hook_noop_ms"] / figures["polib_parse_catalogs_ms"], 2
        )
        shutil.rmtree(env["PYTHONPYCACHEPREFIX"], ignore_errors=True)
        shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)
        unchanged = subprocess.run(
            ["git", "diff", "--no-index", "--quiet", str(ROOT / "sample_locales"), str(work)], capture_output=True
        ).returncode
        figures["first_run_changed_catalogs"] = unchanged != 0
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
