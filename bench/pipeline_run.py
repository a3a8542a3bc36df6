"""End-to-end figures of `pipeline translate` with the embedded service, printed as JSON.

A generated corpus (CATALOGS catalogs x MESSAGES messages, placeholders and plurals included)
is translated from scratch, then translated again (a no-op: nothing left untranslated, so every
catalog is skipped unread, see pipeline/state.py) and, for comparison, merely parsed with polib.
The no-op is measured twice: in this process, and as a fresh process calling the library's
``run_translate`` (against ``python -c pass``, both with a bytecode cache as an installed package
has, even where PYTHONDONTWRITEBYTECODE is set), which also reports whether the no-op path
imported any of the run machinery (it must not). The command's no-op, as a fresh process, is
bench/noop.py's subject. Figures:
segments per second end to end, requests sent vs the lower bound, billed characters vs the
characters of the unique texts, peak memory (RSS).
Usage: python bench/pipeline_run.py [CATALOGS] [MESSAGES]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polib

from pipeline.config import ServiceSettings, Settings
from pipeline.run.orchestrate import RunOptions, run_translate

LANGS = ["de", "fr", "pl", "ja", "pt_BR"]
HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {lang}\\n"\n'
    '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
)


def corpus(root: Path, catalogs: int, messages: int) -> None:
    for c in range(catalogs):
        lang = LANGS[c % len(LANGS)]
        entries = []
        for m in range(messages):
            if m % 10 == 0:
                entries.append(
                    f'#, python-format\nmsgid "%(count)d file in folder {m}"\n'
                    f'msgid_plural "%(count)d files in folder {m}"\nmsgstr[0] ""\nmsgstr[1] ""\n'
                )
            elif m % 3 == 0:
                entries.append(
                    f'#, python-brace-format\nmsgid "Hello {{user}}, message {m} of catalog {c}"\nmsgstr ""\n'
                )
            else:
                entries.append(f'msgid "Plain <b>sentence</b> number {m} in catalog {c // len(LANGS)}."\nmsgstr ""\n')
        path = root / f"cat{c:04d}" / lang / "LC_MESSAGES" / "messages.po"
        path.parent.mkdir(parents=True)
        path.write_text(HEADER.format(lang=lang) + "\n".join(entries), encoding="utf-8")


FRESH_NOOP = """
import json, sys, time
from pathlib import Path
from pipeline.config import ServiceSettings, Settings
from pipeline.run.orchestrate import RunOptions, run_translate
root = Path(sys.argv[1])
settings = Settings(root=root, catalogs=("*/*/LC_MESSAGES/*.po",), service=ServiceSettings(url="embedded"),
                    cache_dir=root / ".cache")
report = run_translate(settings, RunOptions(), log=lambda m: None)
heavy = ("asyncio", "httpx", "starlette", "diskcache", "polib", "lxml", "pipeline.run.plan",
         "pipeline.placeholders.protect")
print(json.dumps({"unchanged": report.unchanged_catalogs, "requests": report.totals.requests,
                  "heavy_imports": sorted(m for m in heavy if m in sys.modules)}))
"""


def bytecode_env(pycache: Path) -> dict[str, str]:
    """The environment of a fresh process that caches bytecode (in ``pycache``), as an installed package has."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(pycache)}


def wall(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Best of five wall-clock times of a process (after one run that fills the bytecode cache), and its output."""
    subprocess.run(argv, check=True, capture_output=True, env=env)
    best, out = float("inf"), ""
    for _ in range(5):
        started = time.perf_counter()
        out = subprocess.run(argv, check=True, capture_output=True, text=True, env=env).stdout
        best = min(best, time.perf_counter() - started)
    return best, out


def main() -> None:
    catalogs = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    messages = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        corpus(root, catalogs, messages)
        settings = Settings(
            root=root,
            catalogs=("*/*/LC_MESSAGES/*.po",),
            service=ServiceSettings(url="embedded"),
            cache_dir=root / ".cache",
        )
        dry = run_translate(settings, RunOptions(dry_run=True, use_cache=False), log=lambda m: None)
        started = time.perf_counter()
        first = run_translate(settings, RunOptions(), log=lambda m: None)
        translate_s = time.perf_counter() - started
        started = time.perf_counter()
        noop = run_translate(settings, RunOptions(), log=lambda m: None)
        noop_s = time.perf_counter() - started
        started = time.perf_counter()
        for path in root.glob("*/*/LC_MESSAGES/*.po"):
            polib.pofile(str(path))
        parse_s = time.perf_counter() - started
        env = bytecode_env(Path(tmp) / "pycache")
        fresh_s, fresh_out = wall([sys.executable, "-c", FRESH_NOOP, str(root)], env)
        python_s, _ = wall([sys.executable, "-c", "pass"], env)
        fresh = json.loads(fresh_out)
    segments = first.totals.segments_translated + first.totals.segments_copied
    print(
        json.dumps(
            {
                "catalogs": catalogs,
                "messages_per_catalog": messages,
                "segments": segments,
                "exit_code": first.exit_code,
                "translate_seconds": round(translate_s, 3),
                "segments_per_second": round(segments / translate_s, 1),
                "requests_sent": first.totals.requests,
                "requests_lower_bound": dry.would_send.requests_lower_bound,
                "billed_characters": first.totals.billed_characters,
                "unique_text_characters": dry.would_send.characters,
                "noop_run_seconds": round(noop_s, 3),
                "noop_requests": noop.totals.requests,
                "polib_parse_seconds": round(parse_s, 3),
                "noop_vs_parse": round(noop_s / parse_s, 2),
                "noop_catalogs_skipped_unread": noop.unchanged_catalogs,
                "noop_library_fresh_process_seconds": round(fresh_s, 3),
                "python_startup_seconds": round(python_s, 3),
                "noop_library_fresh_vs_python": round(fresh_s / python_s, 2),
                "noop_fresh_process_skipped": fresh["unchanged"],
                "noop_heavy_imports": fresh["heavy_imports"],
                "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
