"""``report.json`` (for tools) and ``report.md`` (for people, and CI job summaries) of a run."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path

from pipeline.formats import atomic_write
from pipeline.model import Counters
from pipeline.run import RunReport

SCHEMA_VERSION = 1


def to_json(report: RunReport) -> dict:
    """The report as plain JSON data (schema in the README)."""
    languages: dict[str, Counters] = defaultdict(Counters)
    for cat in report.catalogs:
        languages[cat.target_lang].add(cat.counters)
    return {
        "schema": SCHEMA_VERSION,
        "service": report.service,
        "dry_run": report.dry_run,
        "exit_code": report.exit_code,
        "stopped": report.stopped,
        "duration_seconds": report.duration_seconds,
        "totals": asdict(report.totals),
        "languages": {lang: asdict(c) for lang, c in sorted(languages.items())},
        "catalogs": [
            {"path": c.path, "target_lang": c.target_lang, "written": c.written, **asdict(c.counters)}
            for c in sorted(report.catalogs, key=lambda c: c.path)
        ],
        "would_send": report.would_send or None,
        "issues": [
            {"catalog": i.catalog, "line": i.line, "target_lang": i.target_lang, "severity": i.severity,
             "reason": i.reason}
            for i in report.issues
        ],
    }


def to_markdown(report: RunReport) -> str:
    """A short Markdown summary, suitable for a CI job summary as is."""
    t = report.totals
    title = "Translation dry run" if report.dry_run else "Translation run"
    lines = [f"## {title}", ""]
    if report.stopped:
        lines += [f"**Stopped early:** {report.stopped}. Everything translated before that was saved.", ""]
    if report.dry_run and report.would_send:
        w = report.would_send
        lines += [f"Would send {w['segments']} segments ({w['texts']} unique texts) in {w['requests']} requests, "
                  f"about {w['characters']} billed characters.", ""]
    lines += [
        f"{t.segments_translated} segments translated, {t.segments_from_cache} from cache, "
        f"{t.segments_copied} copied, {t.segments_failed} failed, {t.segments_skipped} skipped; "
        f"{t.billed_characters} characters billed in {t.requests} requests "
        f"({t.characters_saved} saved by the cache) in {report.duration_seconds:.1f} s.",
        "",
        "| catalog | language | translated | cached | copied | failed | skipped | billed chars |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in sorted(report.catalogs, key=lambda c: c.path):
        k = c.counters
        lines.append(f"| `{c.path}` | {c.target_lang} | {k.segments_translated} | {k.segments_from_cache} | "
                     f"{k.segments_copied} | {k.segments_failed} | {k.segments_skipped} | {k.billed_characters} |")
    problems = [i for i in report.issues if i.severity != "skipped"]
    if problems or any(i.severity == "skipped" for i in report.issues):
        lines += ["", "### Issues", ""]
        for i in report.issues:
            lines.append(f"- `{i.where()}` ({i.severity}{', ' + i.target_lang if i.target_lang else ''}): "
                         f"{_md(i.reason)}")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_reports(report: RunReport, directory: Path) -> tuple[Path, Path]:
    """Write ``report.json`` and ``report.md`` into ``directory`` (created if missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    json_path, md_path = directory / "report.json", directory / "report.md"
    atomic_write(json_path, (json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    atomic_write(md_path, to_markdown(report).encode("utf-8"))
    return json_path, md_path
