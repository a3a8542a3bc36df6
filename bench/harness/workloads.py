"""Workloads made from published projects: their catalogs as templates, written as a project in N languages.

A :class:`Template` is a corpus project's catalogs (``bench.harness.corpus``) with every translation
blanked, obsolete entries dropped and fuzzy marks removed: what the project's maintainers would extract
as POT files. :func:`write_project` lays them out as a gettext project in the languages asked for
(``locale/<lang>/LC_MESSAGES/<domain>.po`` with ``locale/<domain>.pot``, what ``pipeline refresh``
finds by itself), with a ``pipeline.toml`` for the service given. Nothing here is timed.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

import polib

from bench.harness.corpus import PROJECTS, CorpusProject, cache_dir, tree

#: Six languages of different plural kinds (the issue's "6 languages"); then enough for the wider rows.
SIX = ("de", "fr", "es", "pl", "ja", "pt_BR")
TEN = (*SIX, "it", "nl", "ru", "uk")
#: Target languages of the service with a plain code, for rows that want many catalogs of one template.
MANY = (
    "ar", "bg", "cs", "da", "de", "el", "es", "et", "fi", "fr", "he", "hu", "id", "it", "ja", "ko", "lt", "lv",
    "nb", "nl", "pl", "ro", "ru", "sk", "sl", "sv", "th", "tr", "uk", "vi", "af", "an", "as", "az", "ba", "be",
    "bn", "br", "bs", "ca", "cy", "eo", "eu", "fa", "ga", "gl", "gn", "gu", "ha", "hi", "hr", "ht", "hy", "ig",
    "is", "jv", "ka", "kk", "ky", "la", "lb", "ln", "mg", "mi", "mk", "ml", "mn", "mr", "ms", "mt", "my", "ne",
)  # fmt: skip
#: Path parts that say where catalogs live, not what they hold: left out of a domain's name.
_LAYOUT_PARTS = {"locale", "locales", "LC_MESSAGES", "po", "poqm", "translations", "languages", "src"}


@dataclass(frozen=True)
class Template:
    """A published project's catalogs as templates, by domain (a name unique within the project)."""

    project: str
    category: str
    domains: dict[str, str]  # domain -> the POT text
    published: dict[str, Path]  # domain -> the published catalog it was made from (in the corpus cache)

    def entries(self, domain: str) -> polib.POFile:
        """A fresh, mutable copy of one domain's template."""
        return polib.pofile(self.domains[domain])

    def largest(self) -> Template:
        """The same project reduced to its largest domain (by the template's size)."""
        domain = max(self.domains, key=lambda d: len(self.domains[d]))
        return Template(self.project, self.category, {domain: self.domains[domain]}, {domain: self.published[domain]})

    @property
    def domain(self) -> str:
        """The first domain (the only one of a :meth:`largest` template)."""
        return next(iter(self.domains))

    @property
    def messages(self) -> int:
        """Entries over every domain (a plural entry is one)."""
        return sum(len(self.entries(d)) for d in self.domains)


def corpus_project(name: str) -> CorpusProject:
    """The corpus project called ``name``."""
    for project in PROJECTS:
        if project.name == name:
            return project
    raise KeyError(f"no corpus project {name!r}: see python -m bench.harness.corpus")


@cache
def template(name: str) -> Template:
    """The corpus project ``name`` as templates (fetched into the corpus cache on first use)."""
    project = corpus_project(name)
    folder = tree(project, cache_dir(), lambda message: print(f"[corpus] {message}", file=sys.stderr, flush=True))
    domains: dict[str, str] = {}
    published: dict[str, Path] = {}
    for path in sorted(folder.rglob("*.po")):
        domain = _domain(PurePosixPath(path.relative_to(folder).as_posix()), project)
        while domain in domains:
            domain += "_"
        domains[domain] = _blanked(polib.pofile(str(path)))
        published[domain] = path
    return Template(project.name, project.category, domains, published)


def _domain(relative: PurePosixPath, project: CorpusProject) -> str:
    """A short name for one catalog of ``project``: its path without the language and layout folders."""
    languages = set(project.languages)
    stem = relative.stem
    for lang in languages:
        stem = re.sub(rf"(^|[-_.]){re.escape(lang)}$", "", stem)
    parts = [p for p in relative.parent.parts if p not in languages and p not in _LAYOUT_PARTS]
    name = "-".join([*parts, stem] if stem else parts)
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or project.name


def _blanked(catalog: polib.POFile) -> str:
    """The catalog as its template: translations, obsolete entries, fuzzy marks and the language removed."""
    template = polib.POFile(wrapwidth=catalog.wrapwidth)
    template.metadata = {
        "Project-Id-Version": catalog.metadata.get("Project-Id-Version", ""),
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
    }
    for entry in catalog:
        if entry.obsolete or not entry.msgid:
            continue
        entry.msgstr = ""
        if entry.msgid_plural:
            entry.msgstr_plural = {0: "", 1: ""}
        entry.flags = [f for f in entry.flags if f != "fuzzy"]
        entry.previous_msgid = entry.previous_msgid_plural = entry.previous_msgctxt = None
        template.append(entry)
    return str(template)


def catalog_path(root: Path, domain: str, lang: str) -> Path:
    """Where a language's catalog of ``domain`` lives in a project written by :func:`write_project`."""
    return root / "locale" / lang / "LC_MESSAGES" / f"{domain}.po"


def write_project(
    root: Path, template: Template, langs: tuple[str, ...], url: str = "embedded", concurrency: int = 16
) -> dict[str, int]:
    """The template's domains as untranslated catalogs of ``langs`` under ``root``, and its config; counts."""
    segments = 0
    for domain in template.domains:
        write_template(root / "locale" / f"{domain}.pot", template.entries(domain))
        for lang in langs:
            catalog = template.entries(domain)
            catalog.metadata["Language"] = lang
            path = catalog_path(root, domain, lang)
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog.save(str(path))
        segments += sum(2 if e.msgid_plural else 1 for e in template.entries(domain)) * len(langs)
    write_config(root, url, concurrency)
    return {
        "domains": len(template.domains),
        "messages_per_language": template.messages,
        "languages": len(langs),
        "catalogs": len(template.domains) * len(langs),
        "source_segments": segments,
    }


def write_template(path: Path, template: polib.POFile) -> None:
    """Save one POT file (its folder made first)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    template.save(str(path))


def write_config(root: Path, url: str = "embedded", concurrency: int = 16) -> None:
    """A ``pipeline.toml`` for every catalog under ``root``: the service, a local cache, the report in ``report/``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pipeline.toml").write_text(
        f'catalogs = ["**/*.po"]\n[service]\nurl = "{url}"\nconcurrency = {concurrency}\n'
        '[cache]\ndir = ".cache"\n[report]\ndir = "report"\n',
        encoding="utf-8",
    )


def add_string(path: Path, text: str) -> None:
    """Append one new untranslated entry to a catalog, as a developer's new string merged in would be."""
    with path.open("a", encoding="utf-8") as out:
        out.write(f'\nmsgid "{text}"\nmsgstr ""\n')


def read_report(root: Path) -> dict[str, Any]:
    """The report of the last run in ``root`` (written by :func:`write_config`'s ``[report] dir``)."""
    report: dict[str, Any] = json.loads((root / "report" / "report.json").read_text(encoding="utf-8"))
    return report


def worst(figures: dict[str, float], higher_is_worse: bool = True) -> dict[str, Any]:
    """Which project's figure is the worst, and the figure."""
    name = (max if higher_is_worse else min)(figures, key=lambda k: figures[k])
    return {"project": name, "value": round(figures[name], 3)}
