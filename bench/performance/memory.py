"""Issue 37 row 6: peak memory against the catalog's size, as the whole command.

A project's messages repeated (each copy's messages prefixed with its number, so all are distinct)
into one German catalog of about 1 MB and one of about 10 MB, each translated from scratch by
``pipeline translate`` (embedded, a fresh process); beside each, a process that only parses it with
polib. The figure is the slope of peak RSS between the two sizes (MiB per MiB of catalog) over
polib's slope. Target: <= 2x.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polib

from bench.harness.process import pipeline_argv, python_argv, timed
from bench.harness.rows import Row, Target, main
from bench.harness.workloads import catalog_path, read_report, template, write_config

SIZES_MIB = (1, 10)


def repeated(project: str, path: Path, mib: float) -> int:
    """Write ``project``'s messages, repeated, into one German catalog of about ``mib`` MiB; its entries."""
    source = template(project)
    unique = {(e.msgctxt, e.msgid): e for domain in source.domains for e in source.entries(domain)}
    entries = list(unique.values())  # a message in two of the project's catalogs once: one catalog now
    catalog = polib.POFile()
    catalog.metadata = {"Content-Type": "text/plain; charset=UTF-8", "Language": "de"}
    copy_bytes = len(str(_copy(entries, 0)).encode("utf-8"))
    for copy in range(max(1, round(mib * 2**20 / copy_bytes))):
        catalog.extend(_copy(entries, copy))
    path.parent.mkdir(parents=True, exist_ok=True)
    catalog.save(str(path))
    return len(catalog)


def _copy(entries: list[polib.POEntry], copy: int) -> polib.POFile:
    """The entries untranslated, their sources prefixed with ``copy`` (so every copy is new)."""
    out = polib.POFile()
    for entry in entries:
        clone = polib.POEntry(msgctxt=entry.msgctxt, msgid=f"{copy}: {entry.msgid}", flags=list(entry.flags))
        if entry.msgid_plural:
            clone.msgid_plural = f"{copy}: {entry.msgid_plural}"
            clone.msgstr_plural = {0: "", 1: ""}
        out.append(clone)
    return out


def measure(project: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """Peak RSS of the whole command and of a polib parse, for each size; the slopes."""
    sizes: dict[str, dict[str, Any]] = {}
    for mib in SIZES_MIB:
        folder = root / f"{mib}mib"
        path = catalog_path(folder, "messages", "de")
        entries = repeated(project, path, mib)
        pristine = root / f"{mib}mib.po"  # outside the project: not a catalog of the run
        pristine.write_bytes(path.read_bytes())
        write_config(folder)
        parse = timed(python_argv("-c", "import polib, sys; polib.pofile(sys.argv[1])", str(pristine)), root, env)
        run = timed(pipeline_argv("translate", "--quiet"), folder, env)
        if parse.exit_code:
            raise RuntimeError(f"{project}, {mib} MiB: polib could not parse {pristine}")
        totals = read_report(folder)["totals"]  # exit 1 (some segments failed) still measures the memory
        sizes[f"{mib}_mib"] = {
            "entries": entries,
            "catalog_mib": round(pristine.stat().st_size / 2**20, 2),
            "polib_parse": parse.as_json(),
            "whole_command": run.as_json(),
            "segments_translated": totals["segments_translated"],
            "segments_failed": totals["segments_failed"],
        }
    small, large = (sizes[f"{mib}_mib"] for mib in SIZES_MIB)
    grown = large["catalog_mib"] - small["catalog_mib"]
    polib_slope = (large["polib_parse"]["peak_rss_mib"] - small["polib_parse"]["peak_rss_mib"]) / grown
    if polib_slope <= 0:
        raise RuntimeError(f"{project}: polib's peak did not grow with the catalog: {sizes}")
    run_slope = (large["whole_command"]["peak_rss_mib"] - small["whole_command"]["peak_rss_mib"]) / grown
    return {
        **sizes,
        "polib_slope_mib_per_mib": round(polib_slope, 2),
        "whole_command_slope_mib_per_mib": round(run_slope, 2),
        "slope_vs_polib": round(run_slope / polib_slope, 2),
    }


ROW = Row(
    name="memory",
    what="peak RSS slope of pipeline translate (embedded) between a 1 MB and a 10 MB catalog, over polib's",
    projects=("gcc", "netbox", "wordpress"),
    targets=(Target("slope_vs_polib", 2),),
    measure=measure,
)

if __name__ == "__main__":
    main("bench.performance.memory", ROW)
