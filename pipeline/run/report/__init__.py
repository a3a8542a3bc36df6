"""The run's last stage: its exit code (:func:`exit_code`), and its ``report.json`` and ``report.md``.

``report.json`` is for tools, ``report.md`` for people and CI job summaries.

``report.md`` is GitHub-flavoured Markdown meant to be appended to ``$GITHUB_STEP_SUMMARY`` as is:
a result line, a per-language table, the catalogs (folded when many), and the failed and
skipped segments with ``file:line`` and reason (capped; ``report.json`` always has them all).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.errors import ExitCode
from pipeline.files.atomic import atomic_write
from pipeline.files.lockfile import report_lock_path, state_lock
from pipeline.files.own import REPORT_SETTING, check_ours, json_first
from pipeline.model import Counters, Severity, said_once
from pipeline.run.records import RunReport, StopReason

if TYPE_CHECKING:
    from pipeline.run.quota import Allowance, UsageRecord
    from pipeline.run.window import DryRunEstimate

SCHEMA_VERSION = 1
REPORT_FILES = ("report.json", "report.md")
MD_ISSUE_ROWS = 100  # a job summary has a size limit (1 MiB on GitHub); report.json has every issue
MD_OPEN_CATALOGS = 20  # more catalogs than this are folded into a <details> block


_STOP_CODES = {
    StopReason.BUDGET: ExitCode.QUOTA,
    StopReason.QUOTA: ExitCode.QUOTA,
    StopReason.SERVICE: ExitCode.UNAVAILABLE,
    StopReason.INTERRUPTED: ExitCode.INTERRUPTED,
    StopReason.TERMINATED: ExitCode.TERMINATED,
    StopReason.FAILED: ExitCode.PARTIAL,
    StopReason.LOCKED: ExitCode.LOCKED,
}


def exit_code(report: RunReport, frozen: bool = False) -> int:
    """The exit status of a finished run: its stop's, 1 for errors, 5 for a check (``frozen``) with work to do."""
    if report.stopped is not None:
        return _STOP_CODES[report.stopped.reason]
    if any(i.severity is Severity.ERROR for i in report.issues):
        return ExitCode.PARTIAL  # an unreadable catalog comes first: translating would not fix it
    if frozen and report.would_write:
        return ExitCode.PENDING
    return ExitCode.OK


def work_lines(report: RunReport) -> list[str]:
    """One line per catalog a real run would change (dry run), for people and CI logs."""
    return [
        f"{w.path}\t{w.target_lang}\t{w.segments} segments\t{w.characters} characters"
        for w in sorted(report.would_write, key=lambda w: w.path)
    ]


def usage_line(report: RunReport) -> str | None:
    """The account's usage before (and after) the run, in one line; None when it was not read."""
    usage = report.usage
    if usage is None or usage.before is None:
        return usage.note if usage is not None else None
    line = f"usage before the run: {_usage(usage.before)}"
    if usage.after is not None:
        line += f"; after: {_usage(usage.after)}"
    return line


def _usage(a: Allowance) -> str:
    limits = [f"account {a.account_count}" + (f" of {a.account_limit}" if a.account_limit is not None else "")]
    if a.key_count is not None:
        limits.append(f"key {a.key_count}" + (f" of {a.key_limit}" if a.key_limit is not None else ""))
    left = f", {a.left} characters left" if a.left is not None else ", no limit"
    return ", ".join(limits) + left


def fallback_note(would_send: DryRunEstimate) -> str:
    """The dry-run estimate's note on plural fallbacks a second round may add (sent only when a number fails)."""
    n = would_send.fallback_texts
    return f", plus up to {n} plural fallback texts if representative numbers do not come back" if n else ""


def reuse_and_length(t: Counters) -> str:
    """What reuse and length limits did, for the one-line summary: empty when they did nothing."""
    parts = []
    if t.segments_reused:
        parts.append(f"{t.segments_reused} reused ({t.characters_reused} characters not billed)")
    if t.length_retried or t.length_over or t.length_refused:
        parts.append(
            f"length limits: {t.length_retried} asked again, {t.length_over} still over (marked for review), "
            f"{t.length_refused} refused"
        )
    return "".join(f"; {part}" for part in parts)


def not_written_note(report: RunReport) -> str:
    """What the service translated that no catalog got (a full disk, a catalog changed meanwhile), for the one-line
    summary, and what a run again pays for it: empty when every translation was written."""
    n = report.totals.segments_not_written
    return f"; {n} {_not_written(report)}" if n else ""


def _not_written(report: RunReport) -> str:
    if report.translations_cached:
        return "translated but not written (cached: a run again pays nothing for them)"
    return "translated but not written (not cached either: a run again pays for them)"


def awaiting_note(t: Counters) -> str:
    """How many units await review (for the one-line summary): empty when none does."""
    return f"; {t.awaiting_review} awaiting review (pipeline review)" if t.awaiting_review else ""


def _languages(report: RunReport) -> dict[str, tuple[Counters, int]]:
    """Per target language: summed counters and number of catalogs."""
    totals: dict[str, Counters] = defaultdict(Counters)
    catalogs: dict[str, int] = defaultdict(int)
    for cat in report.catalogs:
        totals[cat.target_lang].add(cat.counters)
        catalogs[cat.target_lang] += 1
    return {lang: (totals[lang], catalogs[lang]) for lang in sorted(totals)}


def to_json(report: RunReport) -> dict[str, Any]:
    """The report as plain JSON data (schema in the README)."""
    return {
        "schema": SCHEMA_VERSION,
        "service": report.service,
        "dry_run": report.dry_run,
        "exit_code": report.exit_code,
        "stopped": str(report.stopped) if report.stopped is not None else None,
        "budget": report.budget,
        "remaining": report.remaining._asdict() if report.remaining is not None else None,
        "duration_seconds": report.duration_seconds,
        "timings": report.timings,
        "context_requests": report.context_requests,
        "unchanged_catalogs": report.unchanged_catalogs,
        "translations_cached": report.translations_cached,
        "totals": _counts(report.totals),
        "languages": {lang: {**_counts(c), "catalogs": n} for lang, (c, n) in _languages(report).items()},
        "catalogs": [
            {
                "path": c.path,
                "target_lang": c.target_lang,
                "written": c.written,
                "unchanged": c.unchanged,
                **_counts(c.counters),
            }
            for c in sorted(report.catalogs, key=lambda c: c.path)
        ],
        "would_send": report.would_send._asdict() if report.would_send is not None else None,
        # Per language: segments each recovery scheme got past the gate, and the characters retries cost.
        "recovery": {lang: asdict(r) for lang, r in sorted(report.recovery.items())},
        # Every unit written from a reviewed translation elsewhere, and where that was ("path:line").
        "reused": [r._asdict() for r in report.reused],
        "would_write": [w._asdict() for w in report.would_write] if report.dry_run else None,
        "usage": _usage_json(report.usage),
        "issues": [
            {
                "catalog": i.catalog,
                "line": i.line,
                "target_lang": i.target_lang,
                "severity": i.severity,
                "reason": i.reason,
            }
            for i in report.issues
        ],
    }


def _counts(counters: Counters) -> dict[str, int]:
    # Not asdict(), which deep-copies every value: for the counters of every catalog that was a quarter
    # of the time a run with nothing new spends writing its report.
    return {name: getattr(counters, name) for name in counters.__slots__}


def _usage_json(usage: UsageRecord | None) -> dict[str, Any] | None:
    if usage is None:
        return None
    return {
        "before": usage.before.to_json() if usage.before is not None else None,
        "after": usage.after.to_json() if usage.after is not None else None,
        "note": usage.note,
    }


def _result(report: RunReport) -> str:
    failed = sum(1 for i in report.issues if i.severity is Severity.ERROR)
    if report.stopped:
        return f"**Stopped early:** {_md(str(report.stopped))}. Everything translated before that was saved."
    if failed:
        return f"**Done with problems:** {failed} issue(s) need attention (listed below); everything else was written."
    return "**Done.**"


def to_markdown(report: RunReport) -> str:
    """GitHub-flavoured Markdown summary, suitable for a CI job summary as is."""
    t = report.totals
    title = "Translation dry run" if report.dry_run else "Translation run"
    lines = [f"## {title}", "", _result(report), ""]
    if report.remaining is not None:
        r = report.remaining
        lines += [
            f"Left for the next run: {r.segments} segments ({r.texts} unique texts, {r.characters} characters).",
            "",
        ]
    if report.dry_run and report.would_send is not None:
        w = report.would_send
        lines += [
            f"Would send {w.segments} segments ({w.texts} unique texts) in {w.requests} requests "
            f"(lower bound {w.requests_lower_bound}), about {w.characters} billed characters"
            f"{fallback_note(w)}.",
            "",
        ]
    budget = f" of a budget of {report.budget}" if report.budget is not None else ""
    context = (
        f" ({report.context_requests} of them because requests are grouped by context)"
        if report.context_requests
        else ""
    )
    lines += [
        f"{t.billed_characters} characters billed{budget}, {t.characters_saved} saved by the cache; "
        f"{t.requests} requests{context}; {report.duration_seconds:.1f} s.",
        "",
    ]
    if t.segments_not_written:
        lines += [f"{t.segments_not_written} segments were {_not_written(report)}.", ""]
    if report.unchanged_catalogs:
        lines += [f"{report.unchanged_catalogs} catalog(s) unchanged since a run that finished them: not read.", ""]
    if t.awaiting_review:
        lines += [f"{t.awaiting_review} entries await review (fuzzy, needs-review): `pipeline review` shows them.", ""]
    usage = usage_line(report)
    if usage:
        lines += [_md(usage[0].upper() + usage[1:]) + ".", ""]
    lines += [
        "| language | catalogs | translated | from cache | copied | failed | skipped | billed chars | saved chars |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for lang, (c, n) in _languages(report).items():
        lines.append(_row(lang, n, c))
    lines.append(_row("**total**", len(report.catalogs), t))
    lines += _recovery(report)
    lines += _reuse_and_length(report)
    lines += _catalogs(report)
    lines += _issues(report)
    return "\n".join(lines) + "\n"


def _recovery(report: RunReport) -> list[str]:
    """One line per language whose damaged placeholders were recovered by sending them another way."""
    if not report.recovery:
        return []
    lines = ["", "Recovered after the engine damaged placeholders (retries cost the characters shown):", ""]
    for lang, r in sorted(report.recovery.items()):
        schemes = ", ".join(f"{n} by {name}" for name, n in sorted(r.segments.items())) or "none"
        lines.append(f"- {lang}: {schemes}; {r.characters} characters")
    return lines


def _reuse_and_length(report: RunReport) -> list[str]:
    """Per language: what reviewed translations elsewhere saved, and what length limits did; the reused units."""
    lines = []
    for lang, (c, _) in _languages(report).items():
        said = reuse_and_length(c)
        if said:
            lines.append(f"- {lang}: {said.removeprefix('; ')}")
    if not lines:
        return []
    lines = ["", "Reused reviewed translations, and length limits:", "", *lines]
    if report.reused:
        lines += ["", "| unit | language | reused from |", "|---|---|---|"]
        lines += [
            f"| `{_md(r.catalog)}:{r.line}` | {r.target_lang} | `{_md(r.origin)}` |"
            for r in report.reused[:MD_ISSUE_ROWS]
        ]
        if len(report.reused) > MD_ISSUE_ROWS:
            lines += ["", f"... and {len(report.reused) - MD_ISSUE_ROWS} more in report.json."]
    return lines


def _row(name: str, catalogs: int, c: Counters) -> str:
    return (
        f"| {name} | {catalogs} | {c.segments_translated} | {c.segments_from_cache} | {c.segments_copied} | "
        f"{c.segments_failed} | {c.segments_skipped} | {c.billed_characters} | {c.characters_saved} |"
    )


def _catalogs(report: RunReport) -> list[str]:
    shown = sorted((c for c in report.catalogs if not c.unchanged), key=lambda c: c.path)
    if not shown:
        return []
    table = [
        "| catalog | language | translated | cached | copied | failed | skipped | billed chars |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in shown:
        k = c.counters
        table.append(
            f"| `{_md(c.path)}` | {c.target_lang} | {k.segments_translated} | {k.segments_from_cache} | "
            f"{k.segments_copied} | {k.segments_failed} | {k.segments_skipped} | {k.billed_characters} |"
        )
    if len(shown) <= MD_OPEN_CATALOGS:
        return ["", "### Catalogs", "", *table]
    return ["", f"<details><summary>Catalogs ({len(shown)})</summary>", "", *table, "", "</details>"]


def _issues(report: RunReport) -> list[str]:
    if not report.issues:
        return []
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.SKIPPED: 2}
    issues = sorted(said_once(report.issues), key=lambda i: (order.get(i.severity, 3), i.catalog, i.line or 0))
    lines = [
        "",
        f"### Failed and skipped segments ({len(report.issues)})",
        "",
        "| where | language | severity | reason |",
        "|---|---|---|---|",
    ]
    for i in issues[:MD_ISSUE_ROWS]:
        lines.append(f"| `{_md(i.where())}` | {i.target_lang or ''} | {i.severity} | {_md(i.reason)} |")
    if len(issues) > MD_ISSUE_ROWS:
        lines += ["", f"... and {len(issues) - MD_ISSUE_ROWS} more in report.json."]
    return lines


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("`", "'")


def write_reports(report: RunReport, directory: Path) -> tuple[Path, Path]:
    """Write ``report.json`` and ``report.md`` into ``directory`` (created if missing), under the folder's report lock
    (:func:`report_lock_path`): a run killed while writing them leaves temporary files that the next taker of the
    lock removes (:func:`state_lock`)."""
    directory.mkdir(parents=True, exist_ok=True)
    json_path, md_path = (directory / name for name in REPORT_FILES)
    data = (json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    markdown = to_markdown(report).encode("utf-8")
    with state_lock(report_lock_path(directory)):
        # [report] dir may name any folder: neither is written unless both are ours (or missing).
        check_ours(json_path, json_first("schema"), REPORT_SETTING)
        check_ours(md_path, (b"## Translation",), REPORT_SETTING)
        atomic_write(json_path, data, durable=False)  # written again by every run: see atomic_write
        atomic_write(md_path, markdown, durable=False)
    return json_path, md_path
