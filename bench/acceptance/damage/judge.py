"""Judging what a run wrote: the independent checker per entry, GNU msgfmt per catalog."""

from __future__ import annotations

import bisect
import os
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polib

from bench.acceptance.damage.sample import Asked, Key
from pipeline.damage import Change, Damage, check, check_plural

_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<reason>.*)$")


@dataclass
class Verdict:
    """One project's figures after one run."""

    asked: int = 0
    written: int = 0
    damaged_entries: int = 0
    tokens: Counter[str] = field(default_factory=Counter[str])  # kind -> tokens changed, missing or added
    glued: int = 0  # directives kept whole with a letter glued on (reported apart: the code is intact)
    changes: Counter[str] = field(default_factory=Counter[str])  # changed / missing / added
    msgfmt_rejected: int = 0
    msgfmt_reasons: Counter[str] = field(default_factory=Counter[str])
    examples: list[dict[str, Any]] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        """The row the bench prints."""
        fill = 100.0 * self.written / self.asked if self.asked else 100.0
        row: dict[str, Any] = {"asked": self.asked, "written": self.written, "fill_pct": round(fill, 2)}
        row["damaged_entries"] = self.damaged_entries
        row["tokens_changed"] = dict(sorted(self.tokens.items()))
        row["glued"] = self.glued
        row["msgfmt_rejected"] = self.msgfmt_rejected
        if self.msgfmt_reasons:
            row["msgfmt_reasons"] = dict(self.msgfmt_reasons.most_common(4))
        return row


def judge(root: Path, asked: list[Asked], written: dict[Key, tuple[str, ...]]) -> Verdict:
    """Check every written entry of one project's tree (``root``) after a run."""
    verdict = Verdict(asked=len(asked), written=len(written))
    for item in asked:
        forms = written.get(item.key)
        if forms is None:
            continue
        found = damage(item.sources, forms)
        if not found:
            continue
        broken = [d for d in found if d.change is not Change.GLUED]
        verdict.glued += len(found) - len(broken)
        verdict.damaged_entries += bool(broken)
        verdict.tokens.update(d.kind.value for d in broken)
        verdict.changes.update(d.change.value for d in found)
        verdict.examples.append(
            {
                "catalog": item.key[0],
                "source": " | ".join(item.sources),
                "translation": " | ".join(forms),
                "damage": [
                    {"kind": d.kind.value, "token": d.token, "change": d.change.value, "became": d.became}
                    for d in found
                ],
            }
        )
    for relative, keys in _by_catalog(written).items():
        if relative.endswith(".po"):
            reasons = msgfmt_rejections(root, relative, keys)
            verdict.msgfmt_rejected += len(reasons)
            verdict.msgfmt_reasons.update(re.sub(r"'[^']*'|\d+", "…", r)[:100] for r in reasons.values())
    return verdict


def damage(sources: tuple[str, ...], forms: tuple[str, ...]) -> list[Damage]:
    """What the checker finds in one entry (a plural entry form by form)."""
    if len(sources) > 1 or len(forms) > 1:
        return check_plural(sources, forms)
    return check(sources[0], forms[0])


def _by_catalog(written: dict[Key, tuple[str, ...]]) -> dict[str, set[Key]]:
    found: dict[str, set[Key]] = {}
    for key in written:
        found.setdefault(key[0], set()).add(key)
    return found


def msgfmt_rejections(root: Path, relative: str, keys: set[Key]) -> dict[Key, str]:
    """The first reason ``msgfmt --check --use-fuzzy`` gives for each of ``keys`` it rejects in one catalog."""
    path = root / relative
    if shutil.which("msgfmt") is None:
        return {}
    proc = subprocess.run(
        ["msgfmt", "--check", "--use-fuzzy", "-o", os.devnull, str(path)],
        capture_output=True,
        text=True,
        errors="replace",
        env={**os.environ, "LC_ALL": "C"},
    )
    starts, index = _entry_starts(path, relative)
    found: dict[Key, str] = {}
    for line in proc.stderr.splitlines():
        match = _LINE.match(line)
        if not match or "warning:" in match["reason"]:
            continue
        at = bisect.bisect_right(starts, int(match["line"])) - 1
        if at >= 0 and index[at] in keys:
            found.setdefault(index[at], match["reason"])
    return found


def _entry_starts(path: Path, relative: str) -> tuple[list[int], list[Key]]:
    """First line of each entry's block (comments included) and its key, in file order."""
    keys: list[Key] = []
    starts = []
    lines = path.read_bytes().split(b"\n")
    for entry in polib.pofile(str(path)):
        start = entry.linenum
        while start > 1 and lines[start - 2].strip():
            start -= 1
        starts.append(start)
        keys.append((relative, entry.msgctxt, entry.msgid))
    return starts, keys
