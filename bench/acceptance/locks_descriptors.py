"""Many catalogs under a low descriptor limit, printed as JSON (issue 24, item 1).

A run locks each window's catalogs (one descriptor a lock) and lets them go once the window is
written, so its descriptors stay bounded whatever the number of catalogs. For each case, a
project of one-entry German catalogs is translated by ``pipeline translate --quiet`` (embedded
service) in a process whose ``RLIMIT_NOFILE`` is the case's limit, then run again (nothing to do).
Printed per case: exit codes, wall seconds, and the most descriptors the process had open
(sampled from /proc every 10 ms; Linux only, else null).

Usage: python -m bench.acceptance.locks_descriptors [CATALOGS:LIMIT ...]   (default: 300:256 1500:1024 10000:1024)
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CATALOG = (
    'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    'msgid "Hello {n}"\nmsgstr ""\n'
)
CONFIG = (
    'catalogs = ["locale/*/*.po"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n[report]\ndir = "report"\n'
)


def project(root: Path, count: int) -> None:
    for n in range(count):
        path = root / "locale" / f"c{n:05d}" / "de.po"
        path.parent.mkdir(parents=True)
        path.write_text(CATALOG.replace("{n}", str(n)), encoding="utf-8")
    (root / "pipeline.toml").write_text(CONFIG, encoding="utf-8")


def translate(root: Path, limit: int) -> dict[str, object]:
    """One ``pipeline translate --quiet`` under ``limit`` descriptors: exit code, seconds, most descriptors open."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "translate", "--quiet"],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit)),
    )
    peak = [0]
    sampling = threading.Thread(target=_sample, args=(process, peak), daemon=True)
    sampling.start()
    _, err = process.communicate()
    sampling.join()
    return {
        "exit_code": process.returncode,
        "seconds": round(time.perf_counter() - started, 2),
        "most_descriptors_open": peak[0] or None,
        "too_many_open_files": b"Too many open files" in err,
    }


def _sample(process: subprocess.Popen[bytes], peak: list[int]) -> None:
    folder = f"/proc/{process.pid}/fd"
    while process.poll() is None:
        try:
            peak[0] = max(peak[0], len(os.listdir(folder)))
        except OSError:
            return
        time.sleep(0.01)


def main() -> None:
    cases = sys.argv[1:] or ["300:256", "1500:1024", "10000:1024"]
    figures = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            count, limit = (int(part) for part in case.split(":"))
            root = Path(tmp) / f"{count}-{limit}"
            project(root, count)
            figures.append(
                {"catalogs": count, "limit": limit, "first": translate(root, limit), "again": translate(root, limit)}
            )
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
