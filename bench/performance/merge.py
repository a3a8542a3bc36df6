"""Issue 37 row 5: ``pipeline refresh --merge-only`` against ``msgmerge``, as whole commands.

A published catalog (each project's largest, as fetched) is merged with its own template changed a
little (1 message in 100 edited, 1 in 100 added, 1 in 200 removed) or much (1 in 4 edited, 1 in 10
added, 1 in 10 removed; an edit appends words, so fuzzy matching finds the old message). Each
command is a fresh process, ``msgmerge --previous`` first, then ``pipeline refresh --merge-only`` on
a fresh copy of the catalog; RUNS pairs, the median ratio of wall times (CPU beside it).
Targets: <= 1.5x msgmerge where the template changed little, <= 1x where it changed much.
"""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path
from typing import Any

import polib

from bench.harness.process import Timed, pipeline_argv, require, timed
from bench.harness.rows import Row, Target, main
from bench.harness.workloads import catalog_path, corpus_project, template, write_config

RUNS = 3
#: (edit one in, add one in, remove one in)
LITTLE, MUCH = (100, 100, 200), (4, 10, 10)


def changed(source: polib.POFile, edit: int, add: int, remove: int) -> polib.POFile:
    """``source`` (a template) with 1 message in ``edit`` edited, 1 in ``add`` added, 1 in ``remove`` removed."""
    out = polib.POFile(wrapwidth=source.wrapwidth)
    out.metadata = dict(source.metadata)
    for i, entry in enumerate(source, start=1):
        if i % remove == 0:
            continue
        if i % edit == 0:
            entry.msgid += " (changed in this release)"
            if entry.msgid_plural:
                entry.msgid_plural += " (changed in this release)"
        out.append(entry)
        if i % add == 0:
            out.append(polib.POEntry(msgid=f"A message added in this release, number {i}", msgstr=""))
    return out


def measure(project: str, root: Path, env: dict[str, str], change: tuple[int, int, int]) -> dict[str, Any]:
    """RUNS pairs of msgmerge and ``refresh --merge-only`` on ``project``'s catalog and changed template."""
    require("msgmerge")
    source = template(project).largest()
    domain, lang = source.domain, corpus_project(project).languages[0]
    published = source.published[domain]
    pot = root / "locale" / f"{domain}.pot"
    pot.parent.mkdir(parents=True)
    changed(source.entries(domain), *change).save(str(pot))
    target = catalog_path(root, domain, lang)
    target.parent.mkdir(parents=True)
    write_config(root)
    merged = root / "msgmerge.out"  # not a ``*.po``: not one of the catalogs ``refresh`` merges
    msgmerge = ["msgmerge", "--previous", "--quiet", "-o", str(merged), str(published), str(pot)]
    refresh = pipeline_argv("refresh", "--merge-only", "--quiet")
    pairs: list[tuple[Timed, Timed]] = []
    for _ in range(RUNS):
        shutil.copy(published, target)
        pairs.append((timed(msgmerge, root, env), timed(refresh, root, env)))
    return {
        "catalog_mib": round(published.stat().st_size / 2**20, 2),
        "template_messages": len(polib.pofile(str(pot))),
        "vs_msgmerge": round(statistics.median(p.wall_seconds / m.wall_seconds for m, p in pairs), 2),
        "vs_msgmerge_cpu": round(statistics.median(p.cpu_seconds / m.cpu_seconds for m, p in pairs), 2),
        "msgmerge_seconds": round(statistics.median(m.wall_seconds for m, _ in pairs), 3),
        "refresh_seconds": round(statistics.median(p.wall_seconds for _, p in pairs), 3),
        "refresh_peak_rss_mib": round(max(p.peak_rss_mib for _, p in pairs), 1),
        "ratios": [round(p.wall_seconds / m.wall_seconds, 2) for m, p in pairs],
    }


def measure_little(project: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """The template changed a little."""
    return measure(project, root, env, LITTLE)


def measure_much(project: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """The template changed much."""
    return measure(project, root, env, MUCH)


PROJECTS = ("sphinx", "netbox", "gcc")
LITTLE_ROW = Row(
    name="merge_little",
    what="refresh --merge-only vs msgmerge --previous, a published catalog whose template changed little",
    projects=PROJECTS,
    targets=(Target("vs_msgmerge", 1.5),),
    measure=measure_little,
)
MUCH_ROW = Row(
    name="merge_much",
    what="refresh --merge-only vs msgmerge --previous, a published catalog whose template changed much",
    projects=PROJECTS,
    targets=(Target("vs_msgmerge", 1.0),),
    measure=measure_much,
)

if __name__ == "__main__":
    main("bench.performance.merge", LITTLE_ROW, MUCH_ROW)
