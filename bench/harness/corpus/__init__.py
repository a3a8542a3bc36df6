"""Published projects' catalogs for the benches: a declarative list, fetched by script into a cache.

Each :class:`Project` names one published source and the catalogs taken from it. Kinds:

- ``pip``: a wheel, ``pip download --no-deps --only-binary=:all:``;
- ``apt``: a Debian binary package, ``apt-get download``;
- ``deb-src``: a Debian source package, ``apt-get source --download-only`` through a private sources
  list in the cache (the system's apt configuration is not touched); only the catalogs are extracted;
- ``npm``: ``npm pack``;
- ``github``: a public repository no package ships, read from the bare snapshot the ``fetch`` tool leaves
  under ``/work/.mirror/OWNER+NAME/`` (or ``$PIPELINE_BENCH_MIRRORS``); ``git archive`` of its HEAD is
  kept in the cache. A missing snapshot is reported (the bench says which ``fetch`` to run) and skipped.

The cache is ``$PIPELINE_BENCH_CORPUS`` or the user's cache folder (``pipeline-bench/harness/corpus`` in
platformdirs' ``user_cache_path``), outside the repository: downloads go to ``CACHE/downloads/NAME/`` and
each project's extracted catalogs to ``CACHE/trees/NAME/`` (pristine; benches copy before they change
anything). ``python -m bench.harness.corpus`` fetches them and prints what it has as JSON.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from bench.harness.sources import FetchError, Project, extract, fetch_all

__all__ = ["PROJECTS", "CorpusProject", "FetchError", "cache_dir", "tree"]

DEFAULT_MIRRORS = Path("/work/.mirror")
_GITHUB_PREFIX = "repo/"  # the top folder of a snapshot's archive, left out of the tree


@dataclass(frozen=True)
class CorpusProject:
    """One published project: where it comes from, which catalogs, and what kind of software it is."""

    name: str
    category: str  # "KDE application", "compiler", ... (what the acceptance list asks for)
    kind: str  # pip, apt, deb-src, npm, github
    package: str  # the registry's name, or OWNER/NAME for github
    patterns: tuple[str, ...]  # fnmatch patterns of archive members; "{lang}" is each language
    languages: tuple[str, ...]
    why: str = ""
    nested: str = ""  # a tarball inside the archive whose members are searched too (gcc's)
    source_language: str = ""  # key-based XLIFF: the pattern's language whose file holds the texts

    def as_source(self) -> Project:
        """The same project in the terms of ``bench.harness.sources`` (download and extraction)."""
        strip = _GITHUB_PREFIX if self.kind == "github" else ""
        return Project(self.name, self.kind, self.package, self.patterns, self.languages, strip, self.why, self.nested)


PROJECTS = (
    CorpusProject(
        "okular",
        "KDE application",
        "deb-src",
        "okular",
        ("*/po/{lang}/okular*.po",),
        ("de", "ru"),
        why="kde-format %1, KUIT (<filename>, <application>), rich text; the issue's KDE document viewer",
    ),
    CorpusProject(
        "kcoreaddons",
        "Qt library (_qt.po)",
        "deb-src",
        "kcoreaddons",
        ("*/poqm/{lang}/kcoreaddons5_qt.po",),
        ("ar", "pl"),
        why="qt-format with %n/%Ln plurals, <qt> rich text; Arabic has six forms",
    ),
    CorpusProject(
        "gcc",
        "compiler",
        "deb-src",
        "gcc-12",
        ("*/gcc/po/{lang}.po", "*/libcpp/po/{lang}.po"),
        ("de",),
        why="gcc-internal-format %qs %<...%>, unflagged options -ffixed-line-length, !$OMP directives",
        nested="*/gcc-*-dfsg.tar.xz",
    ),
    CorpusProject(
        "gnome-shell", "GNOME app", "deb-src", "gnome-shell", ("*/po/{lang}.po",), ("ru",), why="c-format, markup"
    ),
    CorpusProject(
        "nautilus",
        "GNOME app",
        "deb-src",
        "nautilus",
        ("*/po/{lang}.po",),
        ("de",),
        why="c-format, file names and paths, markup",
    ),
    CorpusProject(
        "gnome-control-center",
        "GNOME app",
        "deb-src",
        "gnome-control-center",
        ("*/po/{lang}.po",),
        ("pl",),
        why="Pango markup <b>, <a href>, %s",
    ),
    CorpusProject(
        "django",
        "Django (framework)",
        "pip",
        "django",
        ("django/*locale/{lang}/LC_MESSAGES/*.po",),
        ("fr",),
        why='python-format; <a href="https://docs.djangoproject.com/en/%(version)s/...">',
    ),
    CorpusProject(
        "django-allauth",
        "Django app",
        "pip",
        "django-allauth",
        ("allauth/locale/{lang}/LC_MESSAGES/django.po",),
        ("de", "ru"),
        why="the issue's login library: placeholders inside href attributes",
    ),
    CorpusProject(
        "pretix",
        "Django app",
        "pip",
        "pretix",
        ("pretix/locale/{lang}/LC_MESSAGES/django.po",),
        ("de",),
        why="a ticket shop: HTML with placeholders in attributes, {brace} fields, strftime",
    ),
    CorpusProject(
        "netbox",
        "Django app",
        "github",
        "netbox-community/netbox",
        ("repo/netbox/translations/{lang}/LC_MESSAGES/django.po",),
        ("de",),
        why="network inventory: {brace} fields in python-format entries, code identifiers",
    ),
    CorpusProject(
        "flask-admin",
        "Flask app",
        "pip",
        "flask-admin",
        ("flask_admin/translations/{lang}/LC_MESSAGES/admin.po",),
        ("de", "ru"),
        why="Flask-Babel catalogs: python-format, %(name)s inside HTML",
    ),
    CorpusProject(
        "indico",
        "Flask app",
        "pip",
        "indico",
        ("indico/translations/{lang}/LC_MESSAGES/messages.po",),
        ("fr_FR",),
        why="the issue's conference system: {event_title} brace fields in python-format entries",
    ),
    CorpusProject(
        "phpmyadmin", "PHP app", "deb-src", "phpmyadmin", ("phpMyAdmin-*/po/{lang}.po",), ("ru",), why="php-format"
    ),
    CorpusProject(
        "wordpress",
        "PHP app (WordPress)",
        "deb-src",
        "wordpress",
        ("debian/languages/*-{lang}.po", "debian/languages/{lang}.po"),
        ("de_DE",),
        why="unflagged php-format, HTML with %s in href, $VAR-free; core, admin and bundled themes",
    ),
    CorpusProject(
        "symfony-demo",
        "Symfony app (ICU XLIFF)",
        "github",
        "symfony/demo",
        ("repo/translations/*.{lang}.xlf",),
        ("fr", "en"),
        why="key-based XLIFF, messages+intl-icu with {id, number} and plurals; texts in the .en.xlf files",
        source_language="en",
    ),
    CorpusProject(
        "symfony",
        "PHP library (XLIFF)",
        "deb-src",
        "symfony",
        ("*/src/Symfony/Component/Validator/Resources/translations/*.{lang}.xlf",),
        ("ru",),
        why="XLIFF 1.2 validator messages with {{ value }} and %count% placeholders",
    ),
    CorpusProject(
        "orcid-angular",
        "Angular app (ICU XLIFF)",
        "github",
        "ORCID/orcid-angular",
        ("repo/src/locale/messages.{lang}.xlf",),
        ("fr",),
        why='Angular XLIFF 1.2: <x id="INTERPOLATION"/> and ICU plural/select',
    ),
    CorpusProject(
        "dpkg",
        "Perl tool",
        "deb-src",
        "dpkg",
        ("*/scripts/po/{lang}.po",),
        ("de",),
        why="dpkg-dev's Perl scripts: perl-format, option names, file paths, $VARS",
    ),
    CorpusProject(
        "po4a",
        "Perl tool (po4a)",
        "github",
        "mquinson/po4a",
        ("repo/po/bin/{lang}.po",),
        ("de",),
        why="po4a's own messages: a Perl program's %s, options, module names (Locale::Po4a::...), file names",
    ),
    CorpusProject(
        "sphinx",
        "Python tool (Sphinx)",
        "pip",
        "sphinx",
        ("sphinx/locale/{lang}/LC_MESSAGES/sphinx.po",),
        ("pl",),
        why="reST, backquoted code, option names, python-format",
    ),
    CorpusProject(
        "wagtail",
        "Django CMS (Wagtail)",
        "pip",
        "wagtail",
        ("wagtail/*locale/{lang}/LC_MESSAGES/django.po",),
        ("ar",),
        why="HTML with attributes, python-format; Arabic six forms",
    ),
    CorpusProject(
        "plone",
        "Zope/Plone",
        "pip",
        "plone.app.locales",
        ("plone/app/locales/locales/{lang}/LC_MESSAGES/plone.po",),
        ("de",),
        why="unflagged ${name} variables and HTML",
    ),
    CorpusProject(
        "coreutils", "C tool (GNU)", "deb-src", "coreutils", ("*/po/{lang}.po",), ("pl",), why="c-format, --options"
    ),
    CorpusProject(
        "git", "C tool (git)", "deb-src", "git", ("*/po/{lang}.po",), ("de",), why="c-format, options, $VARS, paths"
    ),
    CorpusProject(
        "gettext-examples",
        "gettext's examples (every format)",
        "apt",
        "gettext-doc",
        ("usr/share/doc/gettext/examples/*/po/{lang}.po",),
        ("de",),
        why="c, qt, kde, java, csharp, lisp, perl-brace, python-brace, ycp ... formats",
    ),
)


def cache_dir() -> Path:
    """Where downloads and extracted trees live: ``$PIPELINE_BENCH_CORPUS``, else the user's cache folder."""
    override = os.environ.get("PIPELINE_BENCH_CORPUS")
    return Path(override) if override else platformdirs.user_cache_path("pipeline-bench") / "corpus"


def mirrors_dir() -> Path:
    """Where the ``fetch`` tool leaves bare snapshots of GitHub repositories."""
    return Path(os.environ.get("PIPELINE_BENCH_MIRRORS") or DEFAULT_MIRRORS)


def tree(project: CorpusProject, cache: Path, log: Callable[[str], None]) -> Path:
    """The folder holding the project's chosen catalogs (pristine), fetched and extracted on first use."""
    folder = cache / "trees" / project.name
    done = folder / ".complete"
    if done.is_file():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    archives = _github_archive(project, cache, log) if project.kind == "github" else None
    source = project.as_source()
    extract(source, archives or fetch_all(source, cache / "downloads", log), folder)
    done.write_text("")
    return folder


def _github_archive(project: CorpusProject, cache: Path, log: Callable[[str], None]) -> list[Path]:
    """A tarball of the snapshot's HEAD in the cache (made once from the bare mirror)."""
    target = cache / "downloads" / project.name / f"{project.package.replace('/', '+')}.tar.gz"
    if target.is_file():
        return [target]
    git_dir = mirrors_dir() / project.package.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        raise FetchError(f"no snapshot at {git_dir}: run the fetch tool on github:{project.package}")
    target.parent.mkdir(parents=True, exist_ok=True)
    log(f"git archive {project.package}")
    partial = target.with_suffix(".part")
    # Only the catalogs' paths: a snapshot may lack its largest files, which a whole archive would need.
    paths = [f":(glob){p.removeprefix(_GITHUB_PREFIX).replace('{lang}', '*')}" for p in project.patterns]
    argv = ["git", "--git-dir", str(git_dir), "archive", "--format=tar.gz", f"--prefix={_GITHUB_PREFIX}", "HEAD"]
    argv += paths
    with partial.open("wb") as out:
        proc = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE, timeout=600)
    if proc.returncode != 0:
        partial.unlink(missing_ok=True)
        raise FetchError(f"git archive {project.package}: {proc.stderr.decode(errors='replace').strip()[-300:]}")
    partial.replace(target)
    return [target]
