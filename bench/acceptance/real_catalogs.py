"""Real projects' catalogs, part blanked, translated clean and behind a tag-mangling engine; prints JSON.

Catalogs come from published packages (see bench/harness/sources.py: Django, Sphinx and Wagtail wheels,
GNU gettext's examples from Debian), a few languages each. Every third translated, non-fuzzy entry is
blanked, then ``pipeline translate`` runs against ``pipeline serve --test-faults`` on 127.0.0.1: once
clean, and once per mangle mode behind a loopback proxy that adds ``X-Test-Fault: mangle=MODE`` (with
``every=N`` when ``--every N`` is given and the service understands it). Only the CLI is used, in
subprocesses, so the bench does not depend on the package's module layout.

Per catalog and run: blanked, filled (the blanked entries that now have a translation), refused (still
empty, with the report's reasons), broken (written entries that ``pipeline check`` (fuzzy included) or
``msgfmt --check --use-fuzzy`` rejects), and the flags seen. Summary: the fill ratio of each mangled run
against the clean run (target >= 0.97 when every second text is damaged), broken in total (target 0),
and the no-op run (fresh process) against a bare polib parse of the same catalogs and ``python -c pass``.

Skipped (prints {"skipped": ...}) unless BENCH_REAL=1 or --run: it downloads ~25 MB and takes minutes.
Usage: BENCH_REAL=1 python -m bench.acceptance.real_catalogs [--cache DIR] [--modes move,drop] [--every 2]
       [--projects django,sphinx] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import polib

from bench.harness.faultproxy import FaultProxy
from bench.harness.serve import (
    SERVE_KEY,
    Service,
    commit,
    entry_at,
    fault_headers,
    line_keys,
    pipeline_exe,
    relative_to_root,
    render,
)
from bench.harness.sources import PROJECTS, Catalog, FetchError, Key, blank_tree, extract, fetch, is_filled, key_of

MODES = ("move", "drop", "duplicate", "attribute")
TARGET_FILL_RATIO = 0.97
EXAMPLES = {"broken": 8, "refused": 5}  # examples kept per run, one per distinct reason
CONFIG = """\
source_lang = "en"
catalogs = ["**/*.po"]
[service]
url = "{url}"
[cache]
dir = ".pipeline-cache"
[report]
dir = "report"
"""
PARSE = "import sys, polib\nfor path in sys.argv[1:]:\n    polib.pofile(path)\n"
_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<reason>.*)$")


def log(message: str) -> None:
    """Progress goes to stderr; stdout carries the one JSON document."""
    print(f"[real_catalogs] {message}", file=sys.stderr, flush=True)


def check_supports_fuzzy() -> list[str]:
    """``--include-fuzzy`` when ``pipeline check`` has it (it may become the default)."""
    help_text = subprocess.run([pipeline_exe(), "check", "--help"], capture_output=True, text=True).stdout
    return ["--include-fuzzy"] if "--include-fuzzy" in help_text else []


def problems(root: Path, catalogs: list[Catalog], check_args: list[str]) -> dict[str, list[tuple[int | None, str]]]:
    """(line, reason) per catalog from ``pipeline check`` and ``msgfmt --check --use-fuzzy``."""
    found: dict[str, list[tuple[int | None, str]]] = {c.path: [] for c in catalogs}
    proc = subprocess.run([pipeline_exe(), "check", "-q", *check_args], cwd=root, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        match = _LINE.match(line)
        name, where, reason = (
            (match["file"], int(match["line"]), match["reason"])
            if match
            else (line.partition(": ")[0], None, line.partition(": ")[2])
        )
        relative = relative_to_root(root, name)
        if relative in found:
            found[relative].append((where, f"check: {reason}"))
    if shutil.which("msgfmt"):
        for catalog in catalogs:
            run = subprocess.run(
                ["msgfmt", "--check", "--use-fuzzy", "-o", os.devnull, catalog.path],
                cwd=root,
                capture_output=True,
                text=True,
                errors="replace",
            )
            for line in run.stderr.splitlines():
                match = _LINE.match(line)
                if match:
                    found[catalog.path].append((int(match["line"]), f"msgfmt: {match['reason']}"))
    return found


def report_issues(root: Path, report: dict[str, Any]) -> dict[str, list[tuple[int | None, str]]]:
    """(line, reason) of the report's error issues per catalog."""
    found: dict[str, list[tuple[int | None, str]]] = {}
    for issue in report.get("issues", []):
        if issue.get("severity", "error") == "error" and issue.get("catalog"):
            where = (issue.get("line"), issue.get("reason", ""))
            found.setdefault(relative_to_root(root, issue["catalog"]), []).append(where)
    return found


def run_once(
    label: str, base: Path, dest: Path, url: str, catalogs: list[Catalog], check_args: list[str]
) -> dict[str, Any]:
    """Translate a fresh copy of the blanked tree through ``url``; the run's figures and per-catalog results."""
    shutil.rmtree(dest, ignore_errors=True)  # a --keep folder of an earlier run
    shutil.copytree(base, dest)
    (dest / "pipeline.toml").write_text(CONFIG.format(url=url))
    env = {k: v for k, v in os.environ.items() if k != "PIPELINE_SERVICE_URL"}
    env["PIPELINE_AUTH_KEY"] = SERVE_KEY
    log(f"{label}: pipeline translate ({len(catalogs)} catalogs)")
    started = time.perf_counter()
    proc = subprocess.run([pipeline_exe(), "translate", "-q"], cwd=dest, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    report_path = dest / "report" / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    result: dict[str, Any] = {"exit_code": proc.returncode, "seconds": round(seconds, 1)}
    if proc.returncode not in (0, 1) or not report:
        result["stderr"] = proc.stderr.strip()[-600:]
    totals = report.get("totals", {})
    result["report_totals"] = {k: v for k, v in totals.items() if isinstance(v, (int, float)) and v}
    reasons = Counter(
        _reason_kind(i.get("reason", "")) for i in report.get("issues", []) if i.get("severity") == "error"
    )
    result["issue_reasons"] = dict(reasons.most_common(6))
    for key in ("recovered", "recovery", "retries"):  # recovery counters, once the run reports them
        if key in report:
            result[key] = report[key]
    log(f"{label}: exit {proc.returncode} in {seconds:.1f}s; checking")
    found = problems(dest, catalogs, check_args)
    issues = report_issues(dest, report)
    result["catalogs"] = {c.path: evaluate(base, dest, c, found[c.path], issues) for c in catalogs}
    result["examples"] = examples(result["catalogs"])
    return result


def examples(per_catalog: dict[str, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """A few broken and refused entries of a run, one per distinct reason, with their catalog."""
    chosen: dict[str, list[dict[str, Any]]] = {}
    for kind, limit in EXAMPLES.items():
        seen: set[str] = set()
        for path, figures in per_catalog.items():
            for example in figures.get("examples", {}).get(kind, []):
                reason = _reason_kind(example["why"][0])
                if reason not in seen and len(seen) < limit:
                    seen.add(reason)
                    chosen.setdefault(kind, []).append({"catalog": path, **example})
    return chosen


def _reason_kind(reason: str) -> str:
    """A reason without its quoted specifics, so that equal causes count together."""
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", reason)[:120]


def evaluate(
    base: Path,
    dest: Path,
    catalog: Catalog,
    found: list[tuple[int | None, str]],
    issues: dict[str, list[tuple[int | None, str]]],
) -> dict[str, Any]:
    """Filled, refused and broken entries of one catalog after a run."""
    try:
        po = polib.pofile(str(dest / catalog.path))
        after = line_keys(dest / catalog.path)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        return {"error": f"unreadable after the run: {exc}"[:300], "broken": len(catalog.untranslated)}
    entries = {key_of(e): e for e in po if not e.obsolete}
    written = {k for k in catalog.untranslated if k in entries and is_filled(entries[k])}
    filled = written & catalog.blanked
    refused = catalog.blanked - written
    bad: dict[Key, list[str]] = {}
    elsewhere = 0
    for line, reason in found:
        key = entry_at(after, line) if line else None
        if key in written:
            bad.setdefault(key, []).append(reason)
        else:
            elsewhere += 1
    out: dict[str, Any] = {"filled": len(filled), "refused": len(refused), "broken": len(bad)}
    if written - catalog.blanked:
        out["also_filled"] = len(written - catalog.blanked)  # empty already in the published catalog
    if elsewhere:
        out["problems_elsewhere"] = elsewhere  # in entries this run did not write (the project's own)
    if bad:
        out.setdefault("examples", {})["broken"] = [
            {"msgid": k[1][:100], "msgstr": _text(entries[k])[:100], "why": v[:2]} for k, v in bad.items()
        ]
    if refused:
        before = line_keys(base / catalog.path)
        mine = issues.get(catalog.path, [])
        why: dict[Key | None, list[str]] = {}
        for line, reason in mine:
            key = entry_at(before, line) if line else None
            why.setdefault(key, []).append(reason)
        out.setdefault("examples", {})["refused"] = [
            {"msgid": k[1][:100], "why": (why.get(k) or why.get(None) or ["(no issue in the report)"])[:2]}
            for k in sorted(refused, key=lambda k: k[1])
        ]
    return out


def _text(entry: polib.POEntry) -> str:
    return (
        entry.msgstr
        if not entry.msgid_plural
        else " | ".join(entry.msgstr_plural[i] for i in sorted(entry.msgstr_plural))
    )


def bytecode_env(pycache: Path) -> dict[str, str]:
    """A fresh process's environment that caches bytecode (as an installed package has), with the service key."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PIPELINE_SERVICE_URL")}
    return {**env, "PYTHONPYCACHEPREFIX": str(pycache), "PIPELINE_AUTH_KEY": SERVE_KEY}


def best_of(argv: list[str], cwd: Path, env: dict[str, str], times: int = 3) -> tuple[float, int]:
    """Best wall-clock seconds of ``times`` runs (after one that fills the bytecode cache), and the exit code."""
    subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    best, code = float("inf"), 0
    for _ in range(times):
        started = time.perf_counter()
        code = subprocess.run(argv, cwd=cwd, env=env, capture_output=True).returncode
        best = min(best, time.perf_counter() - started)
    return best, code


def measure_noop(tree: Path, catalogs: list[Catalog], pycache: Path, times: int) -> dict[str, Any]:
    """A second ``pipeline translate`` over a translated tree vs a polib parse of it and ``python -c pass``."""
    env = bytecode_env(pycache)
    paths = [str(tree / c.path) for c in catalogs]
    log(f"no-op: timing pipeline translate, polib parse, python -c pass (best of {times} each)")
    noop_s, noop_code = best_of([pipeline_exe(), "translate", "-q"], tree, env, times)
    parse_s, _ = best_of([sys.executable, "-c", PARSE, *paths], tree, env, times)
    pass_s, _ = best_of([sys.executable, "-c", "pass"], tree, env, times)
    report_path = tree / "report" / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    return {
        "catalogs": len(paths),
        "best_of": times,
        "noop_seconds": round(noop_s, 3),
        "noop_exit_code": noop_code,
        "noop_requests": report.get("totals", {}).get("requests"),
        "noop_unchanged_catalogs": report.get("unchanged_catalogs"),
        "polib_parse_seconds": round(parse_s, 3),
        "python_pass_seconds": round(pass_s, 3),
        "noop_vs_parse": round(noop_s / parse_s, 2),
        "noop_vs_python": round(noop_s / pass_s, 2),
        "parse_vs_python": round(parse_s / pass_s, 2),
    }


def prepare(names: list[str], cache: Path, base: Path) -> tuple[list[dict[str, Any]], dict[str, list[Catalog]]]:
    """Fetch, extract and blank every project; a project that fails is reported with its error."""
    records, catalogs = [], {}
    shutil.rmtree(base, ignore_errors=True)  # blanking twice would blank more than a third
    for project in (p for p in PROJECTS if p.name in names):
        record: dict[str, Any] = {
            "project": project.name,
            "package": f"{project.kind}:{project.package}",
            "languages": list(project.languages),
            "why": project.why,
        }
        records.append(record)
        try:
            archive = fetch(project, cache, log)
            record["archive"] = archive.name
            paths = extract(project, archive, base / project.name)
        except Exception as exc:  # noqa: BLE001 - whatever broke (a truncated download too), the others go on
            record["error"] = str(exc) if isinstance(exc, FetchError) else f"{type(exc).__name__}: {exc}"[:400]
            log(f"{project.name}: {exc}")
            continue
        catalogs[project.name] = blank_tree(base, paths)
        found = catalogs[project.name]
        record.update(
            catalogs=len(found),
            entries=sum(c.entries for c in found),
            blanked=sum(len(c.blanked) for c in found),
            empty_before=sum(len(c.untranslated - c.blanked) for c in found),
        )
        unreadable = [c.path for c in found if c.error]
        if unreadable:
            record["unreadable"] = unreadable
        log(f"{project.name}: {len(found)} catalogs, {record['blanked']} entries blanked")
    return records, catalogs


def summarise(
    labels: list[str],
    runs: dict[str, dict[str, Any]],
    records: list[dict[str, Any]],
    catalogs: dict[str, list[Catalog]],
) -> dict[str, Any]:
    """Per-project sums, per-catalog lines, fill ratios and broken totals."""
    rows: list[dict[str, Any]] = []
    totals: dict[str, Counter[str]] = {label: Counter() for label in labels}
    for record in records:
        for catalog in catalogs.get(record["project"], []):
            row = {
                "catalog": catalog.path,
                "lang": catalog.lang,
                "entries": catalog.entries,
                "blanked": len(catalog.blanked),
                "flags": dict(catalog.flags.most_common()),
            }
            if catalog.error:
                row["error"] = catalog.error
            for label in labels:
                figures = runs[label]["catalogs"].get(catalog.path, {})
                row[label] = (
                    figures["error"]
                    if "error" in figures
                    else [figures.get("filled", 0), figures.get("refused", 0), figures.get("broken", 0)]
                )
                sums = record.setdefault("runs", {}).setdefault(label, Counter())
                for key in ("filled", "refused", "broken", "also_filled"):
                    sums[key] += figures.get(key, 0)
                    totals[label][key] += figures.get(key, 0)
            rows.append(row)
        for label, sums in record.get("runs", {}).items():
            record["runs"][label] = dict(sums)
    clean = totals.get("clean", Counter())["filled"]
    summary = {
        label: {
            "filled": t["filled"],
            "refused": t["refused"],
            "broken": t["broken"],
            "fill_ratio_vs_clean": round(t["filled"] / clean, 4) if clean else None,
        }
        for label, t in totals.items()
    }
    return {"rows": rows, "summary": summary}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="store_true", help="run even without BENCH_REAL=1")
    parser.add_argument("--cache", type=Path, help="keep downloaded packages here (default: a temporary folder)")
    parser.add_argument(
        "--modes", default=",".join(MODES), help=f"mangle modes, comma-separated (default: {','.join(MODES)})"
    )
    parser.add_argument("--every", type=int, help="damage only every N-th text (when the service supports every=N)")
    parser.add_argument("--projects", default=",".join(p.name for p in PROJECTS), help="projects, comma-separated")
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs of each no-op command, best kept (default: 3)"
    )
    parser.add_argument("--keep", type=Path, help="build the trees in this folder and keep them (replaced if there)")
    args = parser.parse_args()
    if not (args.run or os.environ.get("BENCH_REAL") == "1"):
        print(json.dumps({"skipped": "downloads real catalogs and runs for minutes: set BENCH_REAL=1 or pass --run"}))
        return 0
    modes = [m for m in args.modes.split(",") if m]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="real-catalogs-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        cache = args.cache or work / "downloads"
        records, catalogs = prepare(args.projects.split(","), cache, work / "base")
        every_catalog = [c for name in catalogs for c in catalogs[name]]
        doc: dict[str, Any] = {"commit": commit(), "projects": records, "msgfmt": bool(shutil.which("msgfmt"))}
        if not every_catalog:
            doc["error"] = "no project could be fetched"
            print(render(doc))
            return 1
        check_args = check_supports_fuzzy()
        runs: dict[str, dict[str, Any]] = {}
        with Service(work) as service:
            headers, doc["faults"] = fault_headers(service.url, modes, args.every)
            runs["clean"] = run_once("clean", work / "base", work / "clean", service.url, every_catalog, check_args)
            for mode, header in headers.items():
                label = f"mangle={mode}"
                with FaultProxy(service.url, header) as proxy:
                    runs[label] = run_once(label, work / "base", work / label, proxy.url, every_catalog, check_args)
                    runs[label]["proxied_requests"] = proxy.requests
                    runs[label]["fault_header"] = header.rsplit(";id=", 1)[0]
            doc["noop"] = measure_noop(work / "clean", every_catalog, work / "pycache", args.repeat)
        labels = list(runs)
        table = summarise(labels, runs, records, catalogs)
        doc["runs"] = {label: {k: v for k, v in run.items() if k != "catalogs"} for label, run in runs.items()}
        doc["summary"] = {
            **table["summary"],
            "target_fill_ratio": TARGET_FILL_RATIO,
            "broken_total": sum(s["broken"] for s in table["summary"].values()),
            "target_broken": 0,
            "targets_met": {
                label: figures["broken"] == 0
                and (label == "clean" or (figures["fill_ratio_vs_clean"] or 0) >= TARGET_FILL_RATIO)
                for label, figures in table["summary"].items()
            },
            "noop_vs_parse": doc["noop"]["noop_vs_parse"],
            "seconds": round(time.perf_counter() - started, 1),
        }
        doc["catalogs_legend"] = "per run: [filled, refused, broken] of the blanked entries (broken: of all written)"
        doc["catalogs"] = table["rows"]
    print(render(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
