"""Issue 35's acceptance bench: code damage in what ``pipeline translate`` writes, on published projects.

For each project of ``bench.harness.corpus`` (25 of them: a KDE application, a Qt library's ``_qt.po``, gcc,
GNOME apps, Django and Flask apps, PHP apps, Symfony and Angular apps with ICU XLIFF, a Perl tool, ...)
a sample of translated entries is blanked (``--sample``, default 40 per project; see
``bench/acceptance/damage/sample.py``) and the entries already empty are asked too. Then ``pipeline translate``
runs once over all projects (one tree, a fresh process): ``clean`` with the embedded service, and once
per tag-mangling mode against ``pipeline serve --test-faults`` behind a loopback proxy adding
``X-Test-Fault: mangle=MODE`` to every request (every text damaged; ``any`` every second text, as
with every text hit nothing under it can be recovered).

After each run, per project: entries asked and written (fill = written / asked), code-like tokens the
independent checker (``pipeline.damage``) finds changed, missing or added in written entries, by kind,
and written entries ``msgfmt --check --use-fuzzy`` rejects. Every damaged entry goes to
``--examples`` (JSON lines: mode, project, catalog, source, translation, tokens).

Skipped (prints {"skipped": ...}) unless BENCH_REAL=1 or --run. The corpus is fetched on first use
into ``$PIPELINE_BENCH_CORPUS`` (default /work/corpus/bench); GitHub projects need the ``fetch`` tool's
snapshots (see bench/harness/corpus). Usage, from the repository's root:

    python -m bench.acceptance.damage --run [--sample 40] [--modes clean,move,...] [--projects gcc,okular]
        [--pipeline PATH/TO/pipeline] [--work DIR] [--examples FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.acceptance.damage.judge import Verdict, judge
from bench.acceptance.damage.sample import Asked, choose_and_blank, written
from bench.harness.corpus import PROJECTS, CorpusProject, FetchError, cache_dir, tree
from bench.harness.faultproxy import FaultProxy
from bench.harness.serve import SERVE_KEY, Service, commit, pipeline_exe, render

MODES = ("clean", "move", "drop", "duplicate", "swap", "attribute", "glue", "any")
EVERY = {"any": 2}  # modes that damage only every Nth text of a request
CONFIG = """\
source_lang = "en"
catalogs = ["**/*.po", "**/*.xlf"]
[service]
url = "{url}"
[cache]
dir = ".pipeline-cache"
[report]
dir = ".pipeline-report"
"""


def log(message: str) -> None:
    """Progress goes to stderr; stdout carries the one JSON document."""
    print(f"[damage] {message}", file=sys.stderr, flush=True)


def prepare(projects: list[CorpusProject], base: Path, size: int) -> tuple[dict[str, list[Asked]], dict[str, str]]:
    """Copy each project's pristine catalogs under ``base/NAME`` and blank its sample; what is asked per project."""
    asked: dict[str, list[Asked]] = {}
    failed: dict[str, str] = {}
    for project in projects:
        try:
            pristine = tree(project, cache_dir(), log)
        except FetchError as exc:
            failed[project.name] = str(exc)
            continue
        dest = base / project.name
        shutil.copytree(pristine, dest, ignore=shutil.ignore_patterns(".complete"))
        asked[project.name] = choose_and_blank(dest, size, project.source_language)
    return asked, failed


def translate(base: Path, dest: Path, url: str, exe: str) -> dict[str, Any]:
    """``pipeline translate`` over a fresh copy of ``base``; exit status, seconds and the report's totals."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(base, dest)
    (dest / "pipeline.toml").write_text(CONFIG.format(url=url))
    env = {k: v for k, v in os.environ.items() if k != "PIPELINE_SERVICE_URL"}
    env["PIPELINE_AUTH_KEY"] = SERVE_KEY
    started = time.perf_counter()
    proc = subprocess.run([exe, "translate", "-q"], cwd=dest, env=env, capture_output=True, text=True)
    run: dict[str, Any] = {"exit_code": proc.returncode, "seconds": round(time.perf_counter() - started, 1)}
    report_path = dest / ".pipeline-report" / "report.json"
    if report_path.is_file():
        report = json.loads(report_path.read_text())
        run["report_totals"] = {k: v for k, v in report.get("totals", {}).items() if isinstance(v, int) and v}
    else:
        run["stderr"] = proc.stderr.strip()[-600:]
    return run


def evaluate(dest: Path, asked: dict[str, list[Asked]]) -> dict[str, Verdict]:
    """Each project's verdict on what the run wrote."""
    return {name: judge(dest / name, items, written(dest / name, items)) for name, items in asked.items()}


def total(verdicts: dict[str, Verdict]) -> dict[str, Any]:
    """All projects' figures added up, and the worst project's fill."""
    tokens: Counter[str] = Counter()
    for verdict in verdicts.values():
        tokens.update(verdict.tokens)
    asked = sum(v.asked for v in verdicts.values())
    wrote = sum(v.written for v in verdicts.values())
    worst = min(verdicts.items(), key=lambda item: item[1].figures()["fill_pct"]) if verdicts else None
    return {
        "asked": asked,
        "written": wrote,
        "fill_pct": round(100.0 * wrote / asked, 2) if asked else 100.0,
        "worst_fill": {worst[0]: worst[1].figures()["fill_pct"]} if worst else {},
        "damaged_entries": sum(v.damaged_entries for v in verdicts.values()),
        "tokens_changed": dict(sorted(tokens.items())),
        "tokens_changed_total": sum(tokens.values()),
        "projects_with_damage": sorted(n for n, v in verdicts.items() if v.damaged_entries),
        "glued": sum(v.glued for v in verdicts.values()),
        "msgfmt_rejected": sum(v.msgfmt_rejected for v in verdicts.values()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.acceptance.damage", description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="store_true", help="run (also BENCH_REAL=1)")
    parser.add_argument("--sample", type=int, default=40, help="entries blanked per project (default 40)")
    parser.add_argument("--modes", default=",".join(MODES), help="clean and/or mangle modes")
    parser.add_argument("--projects", help="comma-separated names (default: all)")
    parser.add_argument("--pipeline", default=pipeline_exe(), help="the pipeline command whose gate is measured")
    parser.add_argument("--work", type=Path, help="keep the trees here (default: a temporary folder)")
    parser.add_argument("--examples", type=Path, help="write every damaged entry here (JSON lines)")
    parser.add_argument(
        "--judge-only",
        action="store_true",
        help="judge the trees an earlier run left in --work again, translate nothing",
    )
    args = parser.parse_args()
    if not (args.run or os.environ.get("BENCH_REAL") == "1"):
        print(json.dumps({"skipped": "downloads published catalogs and runs for minutes: BENCH_REAL=1 or --run"}))
        return 0
    wanted = set(args.projects.split(",")) if args.projects else None
    projects = [p for p in PROJECTS if wanted is None or p.name in wanted]
    modes = [m for m in args.modes.split(",") if m]
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-damage-"))
    started = time.perf_counter()
    if args.judge_only:
        asked, failed = _load_asked(work / "asked.json", projects), dict[str, str]()
    else:
        shutil.rmtree(work / "base", ignore_errors=True)
        asked, failed = prepare(projects, work / "base", args.sample)
        _save_asked(work / "asked.json", asked)
    result: dict[str, Any] = {"commit": commit(), "pipeline": args.pipeline, "sample_per_project": args.sample}
    result["projects"] = {p.name: _describe(p, asked.get(p.name), failed.get(p.name)) for p in projects}
    runs: dict[str, Any] = {}
    examples = args.examples.open("w") if args.examples else None
    with contextlib.nullcontext(None) if args.judge_only else Service(work) as service:
        for mode in modes:
            if args.judge_only:
                run: dict[str, Any] = {"judged_again": str(work / mode)}
            else:
                assert service is not None  # made above unless judging only
                log(f"{mode}: pipeline translate over {len(asked)} projects")
                run = _translate_mode(mode, service.url, work, args.pipeline)
            verdicts = evaluate(work / mode, asked)
            run["total"] = total(verdicts)
            run["per_project"] = {name: v.figures() for name, v in verdicts.items()}
            runs[mode] = run
            log(f"{mode}: {run['total']['tokens_changed_total']} tokens changed, fill {run['total']['fill_pct']} %")
            if examples:
                for name, verdict in verdicts.items():
                    for example in verdict.examples:
                        examples.write(json.dumps({"mode": mode, "project": name, **example}, ensure_ascii=False))
                        examples.write("\n")
    if examples:
        examples.close()
    result["runs"] = runs
    result["seconds"] = round(time.perf_counter() - started, 1)
    print(render(result))
    return 0


def _translate_mode(mode: str, service_url: str, work: Path, exe: str) -> dict[str, Any]:
    """One run: the embedded service for ``clean``, else the test-fault service behind a proxy asking for ``mode``."""
    if mode == "clean":
        return translate(work / "base", work / mode, "embedded", exe)
    with FaultProxy(service_url, _fault(mode)) as proxy:
        return translate(work / "base", work / mode, proxy.url, exe)


def _save_asked(path: Path, asked: dict[str, list[Asked]]) -> None:
    rows = {name: [[list(a.key), list(a.sources), a.blanked] for a in items] for name, items in asked.items()}
    path.write_text(json.dumps(rows, ensure_ascii=False))


def _load_asked(path: Path, projects: list[CorpusProject]) -> dict[str, list[Asked]]:
    rows = json.loads(path.read_text())
    names = {p.name for p in projects}
    return {
        name: [Asked((k[0], k[1], k[2]), tuple(sources), blanked) for k, sources, blanked in items]
        for name, items in rows.items()
        if name in names
    }


def _fault(mode: str) -> str:
    every = f";every={EVERY[mode]}" if mode in EVERY else ""
    return f"mangle={mode}{every};id=bench-damage-{mode}"


def _describe(project: CorpusProject, asked: list[Asked] | None, error: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {"category": project.category, "fetched": f"{project.kind}:{project.package}"}
    if error:
        row["error"] = error
    if asked is not None:
        row["asked"] = len(asked)
        row["blanked"] = sum(a.blanked for a in asked)
        row["catalogs"] = len({a.key[0] for a in asked})
    return row


if __name__ == "__main__":
    sys.exit(main())
