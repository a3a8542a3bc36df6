"""The damage bench's results as Markdown: tables per project and mode, and every damaged example.

``python -m bench.acceptance.damage.findings RESULT.json EXAMPLES.jsonl > findings.md`` (the files
``python -m bench.acceptance.damage --examples`` writes). Under a fault mode, only the damage an entry did not
have in the clean run is listed: the rest is the same unprotected code, listed once under ``clean``.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

EXAMPLES_PER_GROUP = 6


def tables(result: dict[str, Any]) -> list[str]:
    """The per-mode totals, and the clean run and each fault mode per project."""
    runs = result["runs"]
    lines = ["## Totals per run", ""]
    lines += [
        "| run | asked | written | fill % | damaged entries | tokens changed | by kind | glued | msgfmt rejected |"
    ]
    lines += ["| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |"]
    for mode, run in runs.items():
        t = run["total"]
        kinds = ", ".join(f"{k} {n}" for k, n in t["tokens_changed"].items())
        row = [mode, t["asked"], t["written"], t["fill_pct"], t["damaged_entries"], t["tokens_changed_total"]]
        lines.append("| " + " | ".join(str(x) for x in [*row, kinds, t.get("glued", 0), t["msgfmt_rejected"]]) + " |")
    modes = list(runs)
    lines += ["", "## Tokens changed per project (glued apart), fill % and msgfmt rejections", ""]
    lines += ["| project | kind | asked | " + " | ".join(modes) + " |", "| --- | --- | ---: |" + " ---: |" * len(modes)]
    for name, about in result["projects"].items():
        if "asked" not in about:
            lines.append(f"| {name} | {about['category']} | fetch failed: {about.get('error', '')[:80]} |")
            continue
        cells = []
        for mode in modes:
            row = runs[mode]["per_project"].get(name, {})
            changed = sum(row.get("tokens_changed", {}).values())
            cells.append(f"{changed} ({row.get('glued', 0)}) · {row.get('fill_pct')} · {row.get('msgfmt_rejected')}")
        lines.append(f"| {name} | {about['category']} | {about['asked']} | " + " | ".join(cells) + " |")
    return lines


def examples(rows: list[dict[str, Any]]) -> list[str]:
    """Damaged entries, clean run first, then what each fault mode added to an entry, grouped by kind and project."""
    clean = {(r["project"], r["catalog"], r["source"]): r["damage"] for r in rows if r["mode"] == "clean"}
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        before = list(clean.get((row["project"], row["catalog"], row["source"]), [])) if row["mode"] != "clean" else []
        for damage in row["damage"]:
            if damage in before:
                before.remove(damage)  # the clean run's damage, listed once under clean
                continue
            kind = f"{damage['kind']} (glued)" if damage["change"] == "glued" else damage["kind"]
            groups[(row["mode"], kind, row["project"])].append({**row, "one": damage})
    lines = ["## Damaged entries", ""]
    for (mode, kind, project), items in sorted(groups.items(), key=lambda g: (g[0][0] != "clean", g[0])):
        lines.append(f"### {mode} · {kind} · {project} ({len(items)} tokens)")
        lines.append("")
        for item in items[:EXAMPLES_PER_GROUP]:
            one = item["one"]
            became = f" → `{one['became']}`" if one["became"] else ""
            lines.append(f"- {one['change']} `{one['token']}`{became} in {item['catalog']}")
            lines.append(f"  - source: `{_short(item['source'])}`")
            lines.append(f"  - written: `{_short(item['translation'])}`")
        lines.append("")
    return lines


def _short(text: str, limit: int = 220) -> str:
    flat = text.replace("\n", "⏎").replace("`", "ˋ")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def main() -> int:
    result = json.loads(Path(sys.argv[1]).read_text())
    rows = [json.loads(line) for line in Path(sys.argv[2]).read_text().splitlines() if line.strip()]
    print("\n".join([*tables(result), "", *examples(rows)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
