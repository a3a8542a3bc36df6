"""Reuse of reviewed translations and length limits, on real catalogs; prints JSON.

Reuse. Three published projects with several catalogs per language (Django: core, JavaScript
and each contrib app; Wagtail: admin, core and each contrib module; WordPress's language packs
from Debian's source package: admin, network admin, front end and city names), five languages.
Every third reviewed entry is blanked (bench/harness/sources.py), so an entry blanked in one catalog
may still be reviewed in another. Each project is translated three times from the same blanked
tree and the same (empty) cache, with the embedded service: without reuse, with reuse of the
project's own catalogs, and with a compendium built with ``msgcat --use-first`` from the other
projects' catalogs of the language (Django's and Wagtail's, unblanked). Per language: the
characters billed by each run. Every reused unit's origin is checked: the origin file must hold
the same msgctxt and msgid, reviewed (not fuzzy), with the very translation written. For Django
also: a run with nothing new (it must not index anything), then two runs that each add one string
per language (the first indexes the settled siblings and keeps what it found in the cache folder,
the second reads that).

Near matches (not a feature: measured to decide whether to make one). For the blanked entries no
exact match filled, the most similar reviewed source (difflib ratio, msgmerge's measure, >= 0.8
and >= 0.9) in the language's catalogs and compendium: how many have one, and how close its
translation is to the human translation that was blanked (ratio >= 0.9: a reviewer keeps it
almost as is).

Length limits. XLIFF files made from Django admin's sources: 1.2 with ``maxwidth`` and
``size-unit="char"`` (German, French, Polish), 2.0 with ``slr:sizeRestriction`` (Japanese), on
every other unit, at 80% of the source's length (the pseudo engine keeps a text's length, so
those limits are exceeded the way a German UI string exceeds English's). Translated twice
(``over_length`` review, then refuse): units with a limit, over it at first, asked again, within it
in the end, still over (each must carry a review note and a report warning: never silently),
refused. Polish takes no custom instructions (spec rule 8): nothing is asked again there.

Skipped (prints {"skipped": ...}) unless BENCH_REAL=1 or --run: it downloads ~40 MB (pip, apt-get
source) and takes minutes.
Usage: BENCH_REAL=1 python -m bench.acceptance.reuse_and_length [--cache DIR] [--languages de,fr,pl,ja,ru]
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import replace
from html import unescape
from pathlib import Path, PurePosixPath
from typing import Any
from xml.sax.saxutils import escape

import polib

from bench.harness.sources import (
    PROJECTS,
    FetchError,
    Project,
    blank_tree,
    extract,
    fetch,
    fetch_all,
    is_filled,
    read_member,
)
from pipeline import locales
from pipeline.catalogs import read_catalog
from pipeline.config import load_settings
from pipeline.limits import limit_of
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import RunReport

LANGUAGES = ("de", "fr", "pl", "ja", "ru")
CONFIG = 'catalogs = ["{glob}"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n[translate]\n'
SHARE = 0.8  # length limit: this share of the source's length
NEAR = (0.8, 0.9)


def log(message: str) -> None:
    """Progress goes to stderr; stdout carries the one JSON document."""
    print(f"[reuse_and_length] {message}", file=sys.stderr, flush=True)


def translate(root: Path, glob: str, extra: str = "") -> tuple[RunReport, float]:
    """``pipeline translate`` in-process on ``root`` with the embedded service; the report and the seconds taken."""
    (root / "pipeline.toml").write_text(CONFIG.format(glob=glob) + extra, encoding="utf-8")
    started = time.perf_counter()
    report = run_translate(load_settings(root / "pipeline.toml"), RunOptions(), log=lambda m: None)
    return report, round(time.perf_counter() - started, 2)


def billed_by_language(report: RunReport) -> dict[str, int]:
    """Billed characters per target language."""
    billed: Counter[str] = Counter()
    for catalog in report.catalogs:
        billed[catalog.target_lang] += catalog.counters.billed_characters
    return dict(sorted(billed.items()))


def catalogs_of(tree: Path, language: str) -> list[Path]:
    """The catalogs under ``tree`` the service translates into ``language``'s language (by their paths)."""
    wanted = locales.service_target(language)
    return sorted(p for p in tree.rglob("*.po") if locales.service_target(locales.locale_from_path(p) or "") == wanted)


def compendium(trees: list[Path], language: str, out: Path) -> int:
    """``msgcat --use-first`` of the ``language`` catalogs under ``trees`` into ``out``; its reviewed entries."""
    paths = sorted(str(p) for tree in trees for p in catalogs_of(tree, language))
    out.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["msgcat", "--use-first", "-o", str(out), *paths], capture_output=True, text=True)
    if done.returncode != 0:
        raise FetchError(f"msgcat: {done.stderr.strip()[:300]}")
    return sum(1 for e in polib.pofile(str(out)) if is_filled(e) and not e.fuzzy and not e.obsolete)


def verify_origins(root: Path, before: Path, report: RunReport) -> dict[str, Any]:
    """Every reused unit: its origin holds the same entry, reviewed, with the translation written.

    ``before`` holds the catalogs as the run read them (the lines the report names are theirs).
    """
    ok, failed = 0, []
    examples: list[dict[str, Any]] = []
    for reused in report.reused:
        read = {u.line: u for u in read_catalog(before / reused.catalog).units}[reused.line]
        written = {(u.context, u.sources): u for u in read_catalog(root / reused.catalog).units}[
            read.context, read.sources
        ]
        origin_file, _, _ = reused.origin.rpartition(":")
        origin = {(u.context, u.sources): u for u in read_catalog(root / origin_file).units}.get(
            (read.context, read.sources)
        )
        if origin is None or origin.state.value != "translated" or origin.targets != written.targets:
            failed.append(f"{reused.catalog}:{reused.line} <- {reused.origin}")
            continue
        ok += 1
        if len(examples) < 3:
            examples.append(
                {"unit": f"{reused.catalog}:{reused.line}", "origin": reused.origin, "text": written.targets}
            )
    return {"verified": ok, "failed_count": len(failed), "failed": failed[:5], "examples": examples}


def near_matches(original: Path, blanked: Path, filled: Path, comp: dict[str, Path]) -> dict[str, Any]:
    """For blanked entries reuse did not fill: the nearest reviewed source, and how close its translation is."""
    out: dict[str, dict[str, Any]] = {}
    for lang in sorted(comp):
        reviewed: dict[str, str] = {}
        for path in [*catalogs_of(blanked, lang), comp[lang]]:
            for e in polib.pofile(str(path)):
                if e.msgstr and not e.fuzzy and not e.obsolete and not e.msgid_plural:
                    reviewed.setdefault(e.msgid, e.msgstr)
        truth: dict[str, str] = {}
        for path in catalogs_of(original, lang):
            after = {e.msgid: e for e in polib.pofile(str(filled / path.relative_to(original)))}
            for e in polib.pofile(str(path)):
                now = after.get(e.msgid)
                reused = now is not None and any("reused from" in line for line in now.tcomment.splitlines())
                if e.msgstr and not e.msgid_plural and not e.fuzzy and e.msgid not in reviewed and not reused:
                    truth[e.msgid] = e.msgstr
        started = time.perf_counter()
        found: dict[float, list[float]] = {threshold: [] for threshold in NEAR}
        sources = list(reviewed)
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        for msgid, human in truth.items():
            best, ratio = None, min(NEAR) - 1e-9
            matcher.set_seq2(msgid)  # difflib caches what it learns of the second sequence
            for other in sources:
                if abs(len(other) - len(msgid)) > len(msgid) * 0.5:
                    continue  # a ratio >= 0.8 needs lengths within a factor of 1.5 of each other
                matcher.set_seq1(other)
                if matcher.real_quick_ratio() <= ratio or matcher.quick_ratio() <= ratio:
                    continue
                score = matcher.ratio()
                if score > ratio:
                    best, ratio = other, score
            for threshold in NEAR:
                if best is not None and ratio >= threshold:
                    closeness = difflib.SequenceMatcher(None, reviewed[best], human, autojunk=False).ratio()
                    found[threshold].append(closeness)
        out[lang] = {
            "blanked_without_exact_match": len(truth),
            "seconds": round(time.perf_counter() - started, 2),
            **{
                f"near_{threshold}": {
                    "have_one": len(scores),
                    "translation_close_0.9": sum(1 for s in scores if s >= 0.9),
                    "mean_translation_ratio": round(sum(scores) / len(scores), 3) if scores else None,
                }
                for threshold, scores in found.items()
            },
        }
    return out


def compendia(work: Path, project: str) -> str:
    """The configuration line naming the compendia of ``project``."""
    return f'compendia = ["{(work / "compendia").as_posix()}/{project}-from-others.*.po"]\n'


def new_string(root: Path, lang: str, into: str) -> bool:
    """Append to the ``into`` catalog of ``lang`` an entry another catalog of the language has reviewed."""
    paths = sorted(root.rglob(f"locale/{lang}/LC_MESSAGES/*.po"))
    target = next(p for p in paths if p.as_posix().endswith(into))
    have = {e.msgid for e in polib.pofile(str(target))}
    for path in paths:
        for e in polib.pofile(str(path)):
            if (
                e.msgid
                and e.msgid not in have
                and not e.msgid_plural
                and not e.msgctxt
                and is_filled(e)
                and not e.fuzzy
            ):
                target.write_text(target.read_text("utf-8") + f'\nmsgid {json.dumps(e.msgid)}\nmsgstr ""\n', "utf-8")
                return True
    return False


def incremental(root: Path, glob: str, extra: str, languages: tuple[str, ...]) -> dict[str, Any]:
    """After a full run: a run with nothing new, then two runs that each add one string per language.

    The first of those parses the settled siblings to index them (and keeps what it found in the
    cache folder); the second reads that instead of parsing them again.
    """
    noop, _ = translate(root, glob, extra)
    out: dict[str, Any] = {
        "noop": {"unchanged_catalogs": noop.unchanged_catalogs, "reuse_ran": "reuse" in noop.timings}
    }
    for label, into in (
        ("first_new_string", "conf/locale/{lang}/LC_MESSAGES/django.po"),
        ("second_new_string", "contrib/admin/locale/{lang}/LC_MESSAGES/djangojs.po"),
    ):
        added = sum(new_string(root, lang, into.format(lang=lang)) for lang in languages)
        report, seconds = translate(root, glob, extra)
        out[label] = {
            "strings_added": added,
            "reused": len(report.reused),
            "billed": report.totals.billed_characters,
            "reuse_seconds": report.timings.get("reuse"),
            "scan_seconds": report.timings.get("scan"),
            "seconds": seconds,
        }
    return out


def reuse_bench(project: str, base: Path, others: list[Path], work: Path, languages: tuple[str, ...]) -> dict[str, Any]:
    """The three runs of one project, from the same blanked tree ``base`` and an empty cache each; the
    compendium is ``msgcat`` of the (unblanked) ``others``."""
    comps = {lang: work / "compendia" / f"{project}-from-others.{lang}.po" for lang in languages}
    sizes = {lang: compendium(others, lang, path) for lang, path in comps.items()}
    runs: dict[str, dict[str, Any]] = {}
    kept: dict[str, Path] = {}
    for label, extra in (
        ("no_reuse", "reuse = false\n"),
        ("reuse", ""),
        ("reuse_and_compendium", compendia(work, project)),
    ):
        root = work / "runs" / project / label
        shutil.copytree(base, root / project)
        report, seconds = translate(root, f"{project}/**/*.po", extra)
        kept[label] = root
        runs[label] = {
            "billed": billed_by_language(report),
            "reused_units": len(report.reused),
            "characters_reused": report.totals.characters_reused,
            "seconds": seconds,
            "timings": report.timings,
            "exit_code": report.exit_code,
        }
        if report.reused:
            runs[label]["origins"] = verify_origins(root, base.parent, report)
            runs[label]["from_compendium"] = sum(1 for r in report.reused if "/compendia/" in r.origin)
    per_language = {}
    for lang in sorted(runs["no_reuse"]["billed"]):
        without = runs["no_reuse"]["billed"][lang]
        row = {"no_reuse": without}
        for label in ("reuse", "reuse_and_compendium"):
            billed = runs[label]["billed"].get(lang, 0)
            row[label] = billed
            row[f"{label}_saved_pct"] = round(100 * (without - billed) / without, 1) if without else 0.0
        per_language[lang] = row
    return {
        "catalogs_per_language": {lang: len(catalogs_of(base, lang)) for lang in languages},
        "compendium_reviewed_entries": sizes,
        "billed_per_language": per_language,
        "runs": runs,
        "_trees": kept,
    }


XLIFF_12 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="admin" source-language="en" target-language="{lang}" datatype="plaintext"><body>
{body}</body></file>
</xliff>
"""
XLIFF_2 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0"
       xmlns:slr="urn:oasis:names:tc:xliff:sizerestriction:2.0" srcLang="en" trgLang="{lang}">
<file id="admin">
{body}</file>
</xliff>
"""


def xliff_files(source_tree: Path, out: Path, languages: tuple[str, ...]) -> dict[str, int]:
    """XLIFF files of Django admin's sources with length limits on every other unit; units limited per file."""
    po = next(source_tree.rglob("contrib/admin/locale/de/LC_MESSAGES/django.po"))
    sources = [e.msgid for e in polib.pofile(str(po)) if e.msgid and not e.msgid_plural and not e.obsolete]
    limits = [max(3, math.ceil(len(text) * SHARE)) if n % 2 == 0 else None for n, text in enumerate(sources)]
    out.mkdir(parents=True, exist_ok=True)
    for lang in languages:
        units = []
        for n, (text, limit) in enumerate(zip(sources, limits, strict=True)):
            if lang == "ja":  # XLIFF 2: the size restriction module, in code points (its standard profile)
                restriction = f' slr:sizeRestriction="{limit}"' if limit else ""
                units.append(f'<unit id="u{n}"{restriction}><segment><source>{escape(text)}</source></segment></unit>')
            else:
                width = f' maxwidth="{limit}" size-unit="char"' if limit else ""
                units.append(f'<trans-unit id="u{n}"{width}>\n  <source>{escape(text)}</source>\n</trans-unit>')
        template = XLIFF_2 if lang == "ja" else XLIFF_12
        (out / f"admin.{lang}.xlf").write_text(template.format(lang=lang, body="\n".join(units) + "\n"), "utf-8")
    return dict.fromkeys(languages, sum(1 for limit in limits if limit))


def length_bench(source_tree: Path, work: Path) -> dict[str, Any]:
    """Translate the XLIFF files with limits, marking for review then refusing; check nothing is over silently."""
    languages = ("de", "fr", "pl", "ja")
    out: dict[str, dict[str, Any]] = {}
    for label, extra in (("review", ""), ("refuse", 'over_length = "refuse"\n')):
        root = work / "xliff" / label
        limited = xliff_files(source_tree, root / "xliff", languages)
        lines = {lang: [u.line for u in read_catalog(root / f"xliff/admin.{lang}.xlf").units] for lang in languages}
        report, seconds = translate(root, "xliff/*.xlf", extra)
        warned = {(i.catalog, i.line) for i in report.issues if "over the limit" in i.reason}
        for lang in languages:
            display = f"xliff/admin.{lang}.xlf"
            within = over_noted = silent = 0
            for unit, line in zip(read_catalog(root / display).units, lines[lang], strict=True):
                limit = limit_of(unit.flags)
                if limit is None or not unit.targets[0]:
                    continue
                if limit.problem(unescape(unit.targets[0])) is None:
                    within += 1
                elif (display, line) in warned and (lang == "ja" or "pipeline: the translation has" in unit.notes):
                    over_noted += 1  # XLIFF 2 keeps notes per unit: the report's warning is the note there
                else:
                    silent += 1
            counters = next(c.counters for c in report.catalogs if c.path == display)
            out.setdefault(lang, {})[label] = {
                "units_with_limit": limited[lang],
                "asked_again": counters.length_retried,
                "within_limit": within,
                "over_marked_for_review": counters.length_over,
                "over_with_note_and_warning": over_noted,
                "refused": counters.length_refused,
                "over_silently": silent,
                "billed": counters.billed_characters,
            }
        out.setdefault("_seconds", {})[label] = seconds
    return out


WORDPRESS = {"de": "de_DE", "fr": "fr_FR", "pl": "pl_PL", "ja": "ja", "ru": "ru_RU"}


def wordpress(languages: tuple[str, ...], cache: Path, dest: Path) -> list[Path]:
    """WordPress's language packs (admin, network admin, front end, cities) from Debian's source package."""
    source = Project("wordpress-debian", "deb-src", "wordpress", "debian/languages/*.po", ())
    tarballs = [p for p in fetch_all(source, cache, log) if ".debian.tar." in p.name]
    if not tarballs:
        raise FetchError("apt-get source wordpress found nothing")
    wanted = {WORDPRESS[lang] for lang in languages if lang in WORDPRESS}
    out = []
    with tarfile.open(tarballs[0]) as tar:
        for member in tar.getmembers():
            name = PurePosixPath(member.name)
            locale = name.stem.rsplit("-", 1)[-1]
            if (
                member.isfile()
                and name.parent.as_posix() == "debian/languages"
                and name.suffix == ".po"
                and locale in wanted
            ):
                target = dest / "wp-content" / "languages" / name.name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(read_member(tar, member))
                out.append(target)
    return sorted(out)


def main() -> int:
    """Fetch, blank, translate, compare; print the JSON document."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run even without BENCH_REAL=1")
    parser.add_argument("--cache", type=Path, help="keep downloaded packages here (default: a temporary folder)")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    args = parser.parse_args()
    if not (args.run or os.environ.get("BENCH_REAL") == "1"):
        print(json.dumps({"skipped": "set BENCH_REAL=1 (or pass --run): downloads ~30 MB"}))
        return 0
    if shutil.which("msgcat") is None:
        print(json.dumps({"skipped": "GNU msgcat is not installed (apt-get install gettext)"}))
        return 0
    languages = tuple(args.languages.split(","))
    doc: dict[str, Any] = {"languages": list(languages)}
    with tempfile.TemporaryDirectory(prefix="reuse-bench-") as tmp:
        work = Path(tmp)
        cache = args.cache or work / "downloads"
        trees, originals = {}, {}
        for name in ("django", "wagtail", "wordpress"):
            if name == "wordpress":
                paths = wordpress(languages, cache, work / "original" / name)
            else:
                project = replace(next(p for p in PROJECTS if p.name == name), languages=languages)
                paths = extract(project, fetch(project, cache, log), work / "original" / name)
            originals[name] = work / "original" / name
            shutil.copytree(originals[name], work / "blanked" / name)
            blanked = blank_tree(work / "blanked", [work / "blanked" / p.relative_to(work / "original") for p in paths])
            trees[name] = work / "blanked" / name
            doc.setdefault("blanked", {})[name] = sum(len(c.blanked) for c in blanked)
            log(f"{name}: {len(paths)} catalogs, {doc['blanked'][name]} entries blanked")
        for name in trees:
            log(f"{name}: three runs")
            # The compendium: the other projects' reviewed translations (WordPress's packs name their
            # languages de_DE, which the service translates as it translates de).
            others = [originals[other] for other in originals if other not in (name, "wordpress")]
            result = reuse_bench(name, trees[name], others, work, languages)
            kept = result.pop("_trees")
            comps = {lang: work / "compendia" / f"{name}-from-others.{lang}.po" for lang in languages}
            result["near_matches"] = near_matches(
                originals[name], trees[name], kept["reuse_and_compendium"] / name, comps
            )
            if name == "django":
                log("django: incremental runs")
                glob = f"{name}/**/*.po"
                result["incremental"] = incremental(
                    kept["reuse_and_compendium"], glob, compendia(work, name), languages
                )
            doc.setdefault("reuse", {})[name] = result
        log("length limits")
        doc["length"] = length_bench(originals["django"], work)
    print(json.dumps(doc, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
