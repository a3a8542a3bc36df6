"""Agreement with GNU gettext on real projects' catalogs, pristine and machine-translated; prints JSON.

Thirteen published projects (see PROJECTS: GNU tools and GNOME from Debian source packages for c,
gcc-internal, gfc-internal, sh and javascript formats and gettext's own examples of every other
format; Django, Wagtail and Sphinx wheels for python and python-brace; phpMyAdmin and WordPress's
language packs for php; Symfony's and an Angular library's XLIFF).

Pristine: ``pipeline check --skip-fuzzy`` over every catalog the project ships, against ``msgfmt -c``
on each PO catalog. Per project: entries msgfmt rejects; check errors shared with msgfmt or not;
entries msgfmt rejects that check passes (target 0); warnings. Every check error msgfmt does not
share is listed (file:line, source, translation, reasons) under ``check_errors_not_shared``.

Translated: a few languages per project, every third translated entry blanked, then ``pipeline
translate`` against ``pipeline serve --test-faults`` on 127.0.0.1, once clean and once behind each
tag-damaging fault (a loopback proxy adds ``X-Test-Fault: mangle=MODE``). Per project and run: the
entries filled and their ratio to the clean run (target >= 0.99), written entries ``msgfmt -c
--use-fuzzy`` rejects where the pristine entry passed (target 0), written entries ``pipeline check``
finds an error in, and refusals by rule (from the run's report).

Skipped (prints {"skipped": ...}) unless BENCH_REAL=1 or --run: it downloads ~150 MB (gcc's source
is most of it) and runs for several minutes.
Usage: BENCH_REAL=1 python -m bench.acceptance.gettext_agreement [--cache DIR] [--keep DIR] [--projects gcc,django]
       [--modes move,drop,...] [--every N] [--no-translate]
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polib

from bench.acceptance.xliff_units import blank_units, read_units
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
from bench.harness.sources import (
    BLANK_EVERY,
    FetchError,
    Key,
    Project,
    blank_tree,
    extract,
    fetch_all,
    is_filled,
    key_of,
)

PROJECTS = (
    Project(
        "gcc",
        "deb-src",
        "gcc-12",
        ("*/gcc/po/{lang}.po", "*/libcpp/po/{lang}.po"),
        ("de", "ru"),
        nested="*/gcc-*-dfsg.tar.xz",
        why="gcc-internal-format, gfc-internal-format, c-format: the compiler's and its preprocessor's catalogs",
    ),
    Project("coreutils", "deb-src", "coreutils", "*/po/{lang}.po", ("de", "pl"), why="c-format"),
    Project("bash", "deb-src", "bash", "*/po/{lang}.po", ("de", "ru"), why="c-format, en@quot and en@boldquot"),
    Project("grub", "deb-src", "grub2", "grub-*/po/{lang}.po", ("de", "uk"), why="c-format, sh-format"),
    Project(
        "gettext",
        "deb-src",
        "gettext",
        ("*/gettext-tools/po/{lang}.po", "*/gettext-runtime/po/{lang}.po", "*/gettext-tools/examples/*/po/{lang}.po"),
        ("de", "ru"),
        why="c-format, sh-format; the hello-* examples: java, csharp, lisp, scheme, elisp, librep, perl, php, "
        "tcl, ycp, smalltalk, awk, pascal, qt, kde, boost, objc, python",
    ),
    Project("phpmyadmin", "deb-src", "phpmyadmin", "phpMyAdmin-*/po/{lang}.po", ("de", "ru"), why="php-format"),
    Project(
        "wordpress",
        "deb-src",
        "wordpress",
        ("debian/languages/*-{lang}.po", "debian/languages/{lang}.po"),
        ("de_DE", "ru_RU"),
        why="php-format; a blog engine's language packs (core, admin, themes)",
    ),
    Project("gnome-shell", "deb-src", "gnome-shell", "*/po/{lang}.po", ("de", "ru"), why="javascript-format, c-format"),
    Project(
        "symfony",
        "deb-src",
        "symfony",
        "*/src/Symfony/*/Resources/translations/*.{lang}.xlf",
        ("de", "ru"),
        why="XLIFF 1.2 validator and security messages with %placeholders% and {{ vars }}",
    ),
    Project(
        "django", "pip", "django", "django/*locale/{lang}/LC_MESSAGES/*.po", ("de", "ru"), why="python-format, brace"
    ),
    Project("wagtail", "pip", "wagtail", "wagtail/*locale/{lang}/LC_MESSAGES/*.po", ("fr", "pl"), why="python, HTML"),
    Project("sphinx", "pip", "sphinx", "sphinx/locale/{lang}/LC_MESSAGES/sphinx.po", ("fr", "ja"), why="python"),
    Project(
        "sbb-angular",
        "npm",
        "@sbb-esta/angular",
        ("package/i18n/xlf/messages.{lang}.xlf", "package/i18n/xlf2/messages.{lang}.xlf"),
        ("de-CH", "fr-CH"),
        why="Angular XLIFF 1.2 and 2.0 with <x id=PH/> interpolations",
    ),
)
#: The format an unflagged entry of each project's PO catalogs is written in: an error msgfmt does not
#: share is asked again of msgfmt with that flag added (its own verdict on the placeholders), and the
#: listing says so. Catalogs of Debian's GNU tools carry c-format where xgettext saw a directive, and
#: WordPress's language packs carry no flags at all.
LANGUAGE_FORMAT = {
    "gcc": "c-format",
    "coreutils": "c-format",
    "bash": "c-format",
    "grub": "c-format",
    "gettext": "c-format",
    "phpmyadmin": "php-format",
    "wordpress": "php-format",
    "gnome-shell": "javascript-format",
    "django": "python-format",
    "wagtail": "python-format",
    "sphinx": "python-format",
}
#: Every mode damages every text of a request, except "any/2" (every second text). "any" damages a
#: text under every recovery scheme (code-like words in plain text too), so with every text hit
#: nothing can be recovered: its fill is no target, only that nothing broken is written.
MODES = ("move", "drop", "duplicate", "swap", "attribute", "glue", "any", "any/2")
UNRECOVERABLE = frozenset({"mangle=any"})
TARGET_FILL_RATIO = 0.99
CONFIG = """\
source_lang = "en"
catalogs = ["**/*.po", "**/*.xlf"]
[service]
url = "{url}"
[cache]
dir = ".pipeline-cache"
[report]
dir = "report"
"""
_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<reason>.*)$")
_WARNING = "warning: "
#: Refusal reasons by the rule they break, first match wins (the report's issues carry text, not rules).
_RULES = (
    ("language", re.compile(r"does not offer target language")),
    ("skipped", re.compile(r"fuzzy marking is off")),
    ("plural", re.compile(r"plural form|Plural-Forms|nplurals")),
    ("argument", re.compile(r"format|argument|directive|conversion", re.I)),
    ("icu", re.compile(r"\bICU\b")),
    ("markup", re.compile(r"markup|tags? |HTML|XML|inline", re.I)),
    ("whitespace", re.compile(r"newline|whitespace")),
    ("control", re.compile(r"character U\+")),
    ("storage", re.compile(r"cannot hold|charset|encod", re.I)),
    ("placeholder", re.compile(r"placeholder|missing|not in the source|order", re.I)),
    ("empty", re.compile(r"empty")),
)


def log(message: str) -> None:
    """Progress goes to stderr; stdout carries the one JSON document."""
    print(f"[gettext_agreement] {message}", file=sys.stderr, flush=True)


@dataclass
class Tree:
    """One catalog of a translate tree: which entries the runs should fill, and which failed msgfmt before."""

    path: str  # relative to the tree's root, starting with the project's name
    project: str
    blanked: set[Key] = field(default_factory=set)
    untranslated: set[Key] = field(default_factory=set)  # blanked + empty in the published catalog
    input_rejected: set[Key] = field(default_factory=set)  # msgfmt -c --use-fuzzy rejects it unblanked
    error: str | None = None


# --- entries, lines and verdicts ----------------------------------------------------------------


def entry_index(path: Path) -> tuple[list[int], list[Key]]:
    """First line of each entry (PO) or unit (XLIFF) and its key, in file order."""
    if path.suffix == ".po":
        return line_keys(path)
    units = read_units(path)
    return [u.line for u in units], [u.key for u in units]


def entry_texts(path: Path) -> dict[Key, tuple[str, str]]:
    """(source, translation) per key, plural forms joined with ' | '."""
    if path.suffix != ".po":
        return {u.key: (u.source, u.target or "") for u in read_units(path)}
    found = {}
    for entry in polib.pofile(str(path)):
        if entry.msgid_plural:
            source = f"{entry.msgid} | {entry.msgid_plural}"
            target = " | ".join(entry.msgstr_plural[i] for i in sorted(entry.msgstr_plural))
        else:
            source, target = entry.msgid, entry.msgstr
        found[key_of(entry)] = (source, target)
    return found


def filled_keys(path: Path) -> set[Key]:
    """Keys of the entries (units) whose every form has a translation."""
    if path.suffix == ".po":
        return {key_of(e) for e in polib.pofile(str(path)) if not e.obsolete and is_filled(e)}
    return {u.key for u in read_units(path) if (u.target or "").strip()}


def msgfmt_lines(path: Path, use_fuzzy: bool) -> list[tuple[int, str]]:
    """(line, message) of each error ``msgfmt -c`` reports in a PO catalog (its warnings left out).

    A message msgfmt splits over two lines ("nplurals = 2..." at the header, "...but some messages
    have 3 plural forms" at an entry) counts once, at the entry.
    """
    argv = ["msgfmt", "-c", *(["--use-fuzzy"] if use_fuzzy else []), "-o", os.devnull, str(path)]
    proc = subprocess.run(argv, capture_output=True, text=True, errors="replace")
    found: list[tuple[int, str]] = []
    opened = ""
    for line in proc.stderr.splitlines():
        match = _LINE.match(line)
        if not match or match["reason"].startswith(_WARNING):
            continue
        reason = match["reason"]
        if reason.endswith("...") and not reason.startswith("..."):
            opened = reason
            continue
        found.append((int(match["line"]), f"{opened} {reason}" if opened else reason))
        opened = ""
    return found


#: msgfmt reports a Plural-Forms header that disagrees with the entries once per catalog; we report
#: each entry with another number of forms. Such an error of ours is shared where msgfmt said so.
_MSGFMT_NPLURALS = re.compile(r"nplurals = \d+\.\.\. \.\.\.but some messages have")
_OURS_NPLURALS = re.compile(r"plural forms, but the catalog's plural rule has")


def by_key(index: tuple[list[int], list[Key]], lines: Sequence[tuple[int | None, str]]) -> dict[Key | None, list[str]]:
    """Reasons per entry key (None: the header or the whole catalog)."""
    found: dict[Key | None, list[str]] = {}
    for line, reason in lines:
        found.setdefault(entry_at(index, line) if line else None, []).append(reason)
    return found


def check_lines(root: Path, fuzzy: bool) -> dict[str, list[tuple[int | None, str, bool]]]:
    """(line, reason, is_error) per catalog (relative to ``root``) from ``pipeline check``."""
    argv = [pipeline_exe(), "check", *([] if fuzzy else ["--skip-fuzzy"])]
    proc = subprocess.run(argv, cwd=root, capture_output=True, text=True)
    found: dict[str, list[tuple[int | None, str, bool]]] = {}
    for line in proc.stdout.splitlines():
        match = _LINE.match(line)
        name, where, reason = (
            (match["file"], int(match["line"]), match["reason"])
            if match
            else (line.partition(": ")[0], None, line.partition(": ")[2])
        )
        reason = reason.removeprefix("fuzzy entry: ")
        is_error = not reason.startswith(_WARNING)
        found.setdefault(relative_to_root(root, name), []).append((where, reason.removeprefix(_WARNING), is_error))
    return found


def rule_of(reason: str) -> str:
    """The rule a refusal's reason names (see _RULES)."""
    return next((rule for rule, pattern in _RULES if pattern.search(reason)), "other")


def _kind(reason: str) -> str:
    """A reason without its quoted specifics, so that equal causes count together."""
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", reason)[:100]


# --- fetching --------------------------------------------------------------------------------


def prepare(
    projects: list[Project], cache: Path, work: Path, translate: bool
) -> tuple[list[dict[str, Any]], list[Tree]]:
    """Fetch every project; extract all its catalogs (pristine) and, to translate, a few languages, blanked."""
    records, trees = [], []
    for project in projects:
        record: dict[str, Any] = {
            "project": project.name,
            "package": f"{project.kind}:{project.package}",
            "why": project.why,
        }
        records.append(record)
        try:
            archives = fetch_all(project, cache, log)
            record["archives"] = [a.name for a in archives]
            log(f"{project.name}: extracting")
            pristine = extract(project, archives, work / "pristine" / project.name, ("*",))
            record["catalogs"] = len(pristine)
            if translate:
                chosen = extract(project, archives, work / "base" / project.name)
                trees.extend(blank(work / "base", work / "pristine", project.name, chosen))
        except Exception as exc:  # noqa: BLE001 - whatever broke (a 404, a truncated download), the others go on
            record["error"] = str(exc) if isinstance(exc, FetchError) else f"{type(exc).__name__}: {exc}"[:400]
            log(f"{project.name}: {record['error']}")
    return records, trees


def blank(base: Path, pristine: Path, project: str, paths: list[Path]) -> list[Tree]:
    """Blank every third translated entry of the chosen catalogs; note which ones msgfmt rejected before."""
    trees = []
    counter = 0
    for path in paths:
        relative = path.relative_to(base).as_posix()
        tree = Tree(relative, project)
        trees.append(tree)
        if path.suffix == ".po":
            (catalog,) = blank_tree(base, [path], counter)
            counter += catalog.translated_before
            tree.blanked, tree.untranslated, tree.error = catalog.blanked, catalog.untranslated, catalog.error
            if shutil.which("msgfmt") and not tree.error:
                index = line_keys(pristine / relative)
                tree.input_rejected = {k for k in by_key(index, msgfmt_lines(pristine / relative, True)) if k}
        else:
            counter, tree.blanked, empty = blank_units(path, BLANK_EVERY, counter)
            tree.untranslated = tree.blanked | empty
    return trees


# --- pristine agreement -------------------------------------------------------------------------


def pristine_agreement(root: Path, project: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``pipeline check --skip-fuzzy`` against ``msgfmt -c`` on one project's pristine catalogs."""
    (root / "pipeline.toml").write_text(CONFIG.format(url="embedded"))
    log(f"{project}: pipeline check --skip-fuzzy and msgfmt -c")
    checked = check_lines(root, fuzzy=False)
    figures: Counter[str] = Counter()
    warnings: Counter[str] = Counter()
    unshared: list[dict[str, Any]] = []
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".po", ".xlf") and p.is_file()):
        relative = path.relative_to(root).as_posix()
        figures["catalogs"] += 1
        try:
            index = entry_index(path)
        except Exception as exc:  # noqa: BLE001 - a catalog our reader or polib refuses is counted, not fatal
            figures["unreadable"] += 1
            unshared.append({"where": relative, "unreadable": f"{type(exc).__name__}: {exc}"[:200]})
            continue
        figures["entries"] += len(index[1])
        lines = checked.get(relative, [])
        errors = by_key(index, [(line, reason) for line, reason, is_error in lines if is_error])
        warnings.update(_kind(reason) for _, reason, is_error in lines if not is_error)
        rejected = by_key(index, msgfmt_lines(path, False)) if path.suffix == ".po" else {}
        if any(_MSGFMT_NPLURALS.search(r) for reasons in rejected.values() for r in reasons):
            rejected.update({k: v for k, v in errors.items() if any(_OURS_NPLURALS.search(r) for r in v)})
        figures["msgfmt_rejects"] += len(rejected)
        figures["check_errors"] += len(errors)
        figures["shared"] += len(set(errors) & set(rejected))
        missed = set(rejected) - set(errors)
        figures["msgfmt_rejects_check_passes"] += len(missed)
        texts = entry_texts(path) if set(errors) - set(rejected) or missed else {}
        alone = set(errors) - set(rejected)
        flagged = _rejected_once_flagged(path, alone, LANGUAGE_FORMAT.get(project)) if alone else {}
        for key in sorted(alone, key=lambda k: _line_of(index, k)):
            figures["not_shared"] += 1
            item = _listing(relative, index, key, texts, errors[key])
            if key in flagged:
                figures["not_shared_msgfmt_rejects_once_flagged"] += 1
                item["msgfmt_once_flagged"] = flagged[key]
            unshared.append(item)
        for key in sorted(missed, key=lambda k: _line_of(index, k)):
            unshared.append({**_listing(relative, index, key, texts, rejected[key]), "missed": True})
    figures["warnings"] = sum(warnings.values())
    result: dict[str, Any] = dict(figures)
    if warnings:
        result["warnings_by_kind"] = dict(warnings.most_common(8))
    return result, unshared


def _rejected_once_flagged(path: Path, keys: set[Key | None], flag: str | None) -> dict[Key | None, str]:
    """Of ``keys``, the unflagged entries msgfmt rejects once ``flag`` is added to them: (key -> its message)."""
    if path.suffix != ".po" or flag is None:
        return {}
    po = polib.pofile(str(path))
    chosen = [e for e in po if key_of(e) in keys and not any(f.endswith("-format") for f in e.flags)]
    if not chosen:
        return {}
    single = polib.POFile()
    single.metadata = po.metadata
    for entry in chosen:
        entry.flags.append(flag)
        single.append(entry)
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.po"
        single.save(str(probe))
        lines = msgfmt_lines(probe, False)
        index = line_keys(probe)
    return {k: reasons[0] for k, reasons in by_key(index, lines).items() if k in keys}


#: What kind of mismatch an error msgfmt does not share is, first match wins (see kind_of).
_KINDS: tuple[tuple[str, Callable[[dict[str, Any], str], bool]], ...] = (
    ("msgfmt rejects it once flagged", lambda item, why: bool(item.get("msgfmt_once_flagged"))),
    ("HTML nesting broken", lambda item, why: "not balanced" in why),
    ("plural form empty", lambda item, why: "is empty" in why),
    ("bidi override added", lambda item, why: "U+202E" in why or "U+202D" in why),
    ("{{ var }} missing or changed", lambda item, why: "'{{" in why),
    ("%name% missing or changed", lambda item, why: re.search(r"'%[A-Za-z_][\w.-]*%'", why) is not None),
    ("{name} missing or changed", lambda item, why: re.search(r"'\{[^'{}]*\}'", why) is not None),
    ("markup carrying a value lost or changed", lambda item, why: "markup" in why),
    ("printf conversion added, missing or changed", lambda item, why: "'%" in why),
)


def kind_of(item: dict[str, Any]) -> str:
    """The kind of an unshared error, for the summary by kind."""
    why = " ".join(item.get("why", []))
    return next((name for name, test in _KINDS if test(item, why)), "other")


def _line_of(index: tuple[list[int], list[Key]], key: Key | None) -> int:
    return index[0][index[1].index(key)] if key in index[1] else 0


def _listing(
    relative: str,
    index: tuple[list[int], list[Key]],
    key: Key | None,
    texts: dict[Key, tuple[str, str]],
    reasons: list[str],
) -> dict[str, Any]:
    source, target = texts.get(key, ("", "")) if key else ("(header)", "")
    return {
        "where": f"{relative}:{_line_of(index, key)}",
        "source": source[:160],
        "translation": target[:160],
        "why": list(dict.fromkeys(reasons))[:3],
    }


# --- translate runs -----------------------------------------------------------------------------


def run_once(label: str, base: Path, dest: Path, url: str, trees: list[Tree]) -> dict[str, dict[str, Any]]:
    """Translate a fresh copy of the blanked tree through ``url``; figures per project."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(base, dest)
    (dest / "pipeline.toml").write_text(CONFIG.format(url=url))
    env = {k: v for k, v in os.environ.items() if k != "PIPELINE_SERVICE_URL"}
    env["PIPELINE_AUTH_KEY"] = SERVE_KEY
    log(f"{label}: pipeline translate ({len(trees)} catalogs)")
    started = time.perf_counter()
    proc = subprocess.run([pipeline_exe(), "translate", "-q"], cwd=dest, env=env, capture_output=True, text=True)
    log(f"{label}: exit {proc.returncode} in {time.perf_counter() - started:.0f}s; checking")
    report_path = dest / "report" / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    checked = check_lines(dest, fuzzy=True)
    per_project: dict[str, dict[str, Any]] = {}
    for tree in trees:
        figures = per_project.setdefault(tree.project, {"exit_code": proc.returncode, "examples": []})
        if tree.error:
            continue
        _evaluate(dest, tree, checked.get(tree.path, []), figures)
    for issue in report.get("issues", []):
        if issue.get("severity", "error") != "error":
            continue
        project = relative_to_root(dest, issue.get("catalog", "")).partition("/")[0]
        if project in per_project:
            rules = per_project[project].setdefault("refused_by_rule", Counter())
            rules[rule_of(issue.get("reason", ""))] += 1
    if proc.returncode not in (0, 1):
        for figures in per_project.values():
            figures["stderr"] = proc.stderr.strip()[-400:]
    return per_project


def _evaluate(dest: Path, tree: Tree, checked: list[tuple[int | None, str, bool]], figures: dict[str, Any]) -> None:
    """Add one catalog's filled, refused and broken entries to its project's figures."""
    path = dest / tree.path
    try:
        index = entry_index(path)
        written = filled_keys(path) & tree.untranslated
    except Exception as exc:  # noqa: BLE001 - a catalog the run made unreadable is the worst finding
        figures["unreadable_after"] = figures.get("unreadable_after", 0) + 1
        figures["examples"].append({"catalog": tree.path, "unreadable": str(exc)[:200]})
        return
    figures["blanked"] = figures.get("blanked", 0) + len(tree.blanked)
    figures["filled"] = figures.get("filled", 0) + len(written & tree.blanked)
    figures["written"] = figures.get("written", 0) + len(written)
    errors = by_key(index, [(line, reason) for line, reason, is_error in checked if is_error])
    broken_check = written & set(errors)
    figures["check_errors_written"] = figures.get("check_errors_written", 0) + len(broken_check)
    broken: dict[Key | None, list[str]] = {}
    if path.suffix == ".po" and shutil.which("msgfmt"):
        rejected = by_key(index, msgfmt_lines(path, True))
        broken = {k: v for k, v in rejected.items() if k in written and k not in tree.input_rejected}
        passed_before = len([k for k in rejected if k in written and k in tree.input_rejected])
        figures["msgfmt_rejects_written"] = figures.get("msgfmt_rejects_written", 0) + len(broken)
        figures["msgfmt_rejects_written_input_failed"] = figures.get("msgfmt_rejects_written_input_failed", 0) + (
            passed_before
        )
    if (broken or broken_check) and len(figures["examples"]) < 6:
        texts = entry_texts(path)
        for key in list(broken or broken_check)[:2]:
            figures["examples"].append(_listing(tree.path, index, key, texts, broken.get(key) or errors.get(key, [])))


def translate_runs(
    work: Path, trees: list[Tree], modes: list[str], every: int | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The clean run and one per fault mode; (figures per run per project, what the fault probes found)."""
    runs: dict[str, dict[str, dict[str, Any]]] = {}
    with Service(work) as service:
        headers, faults = fault_headers(service.url, modes, every)
        runs["clean"] = run_once("clean", work / "base", work / "clean", service.url, trees)
        for mode, header in headers.items():
            label = f"mangle={mode}"
            with FaultProxy(service.url, header) as proxy:
                runs[label] = run_once(label, work / "base", work / label.replace("/", "-every-"), proxy.url, trees)
                faults.setdefault("proxied_requests", {})[label] = proxy.requests
    return runs, faults


def summarise_runs(runs: dict[str, dict[str, dict[str, Any]]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Per project and run one compact row, and the totals against the targets."""
    clean = runs.get("clean", {})
    table: dict[str, dict[str, Any]] = {}
    totals: dict[str, Counter[str]] = {}
    for label, per_project in runs.items():
        total = totals.setdefault(label, Counter())
        for project, figures in per_project.items():
            filled, reference = figures.get("filled", 0), clean.get(project, {}).get("filled", 0)
            row = {
                "blanked": figures.get("blanked", 0),
                "filled": filled,
                "fill_vs_clean": round(filled / reference, 4) if reference else None,
                "msgfmt_rejects_written": figures.get("msgfmt_rejects_written", 0),
                "check_errors_written": figures.get("check_errors_written", 0),
                "refused_by_rule": dict(figures.get("refused_by_rule", Counter()).most_common()),
            }
            for key in ("msgfmt_rejects_written_input_failed", "unreadable_after", "stderr"):
                if figures.get(key):
                    row[key] = figures[key]
            if figures.get("examples"):
                row["examples"] = figures["examples"]
            table.setdefault(project, {})[label] = row
            for key in ("blanked", "filled", "msgfmt_rejects_written", "check_errors_written"):
                total[key] += row[key]
    reference = totals.get("clean", Counter())["filled"]
    summary = {
        label: {
            **dict(t),
            "fill_vs_clean": round(t["filled"] / reference, 4) if reference else None,
        }
        for label, t in totals.items()
    }
    summary["targets_met"] = {
        label: t["msgfmt_rejects_written"] == 0
        and (label in ("clean", *UNRECOVERABLE) or (t["filled"] / reference if reference else 0) >= TARGET_FILL_RATIO)
        for label, t in totals.items()
    }
    return table, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="store_true", help="run even without BENCH_REAL=1")
    parser.add_argument("--cache", type=Path, help="keep downloaded packages here (default: a temporary folder)")
    parser.add_argument("--keep", type=Path, help="build the trees in this folder and keep them (replaced if there)")
    parser.add_argument("--projects", default=",".join(p.name for p in PROJECTS), help="projects, comma-separated")
    parser.add_argument("--modes", default=",".join(MODES), help=f"fault modes (default: {','.join(MODES)})")
    parser.add_argument("--every", type=int, help="damage only every N-th text of a request")
    parser.add_argument("--no-translate", action="store_true", help="the pristine comparison only")
    args = parser.parse_args()
    if not (args.run or os.environ.get("BENCH_REAL") == "1"):
        print(json.dumps({"skipped": "downloads real catalogs and runs for minutes: set BENCH_REAL=1 or pass --run"}))
        return 0
    if not shutil.which("msgfmt"):
        print(json.dumps({"error": "msgfmt (GNU gettext) is not installed: nothing to agree with"}))
        return 1
    started = time.perf_counter()
    wanted = args.projects.split(",")
    projects = [p for p in PROJECTS if p.name in wanted]
    with tempfile.TemporaryDirectory(prefix="gettext-agreement-") as tmp:
        work = args.keep or Path(tmp)
        for folder in ("pristine", "base"):
            shutil.rmtree(work / folder, ignore_errors=True)
        work.mkdir(parents=True, exist_ok=True)
        records, trees = prepare(projects, args.cache or work / "downloads", work, not args.no_translate)
        version = subprocess.run(["msgfmt", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
        doc: dict[str, Any] = {"commit": commit(), "msgfmt": version}
        unshared: list[dict[str, Any]] = []
        for record in records:
            name = record["project"]
            if "error" not in record:
                record["pristine"], listed = pristine_agreement(work / "pristine" / name, name)
                unshared.extend({"project": name, **item} for item in listed)
        doc["projects"] = records
        if trees:
            runs, doc["faults"] = translate_runs(work, trees, [m for m in args.modes.split(",") if m], args.every)
            doc["translated"], doc["translated_totals"] = summarise_runs(runs)
        keys = (
            "catalogs",
            "entries",
            "msgfmt_rejects",
            "check_errors",
            "shared",
            "not_shared",
            "not_shared_msgfmt_rejects_once_flagged",
            "warnings",
        )
        doc["pristine_totals"] = {
            key: sum(r.get("pristine", {}).get(key, 0) for r in records)
            for key in (*keys, "msgfmt_rejects_check_passes")
        }
        doc["check_errors_not_shared_by_kind"] = dict(Counter(kind_of(item) for item in unshared).most_common())
        doc["check_errors_not_shared"] = [{"kind": kind_of(item), **item} for item in unshared]
        doc["seconds"] = round(time.perf_counter() - started, 1)
    print(render(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
