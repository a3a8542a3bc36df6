"""Real catalogs from published packages: download (cached), extract, and blank part of them.

Each project is one package of a registry the machine reaches (PyPI wheels through ``pip download``,
Debian binary packages through ``apt-get download``); only the catalogs of a few languages are taken,
so a run stays short. Third-party catalogs live in temporary folders and the cache, never in the repo.
"""

from __future__ import annotations

import fnmatch
import io
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath

import polib

#: Every third translated, non-fuzzy entry of a project (counted across its catalogs in path order) is
#: blanked: small catalogs (two entries) then still get their share.
BLANK_EVERY = 3


@dataclass(frozen=True)
class Project:
    """A published package and which of its catalogs the bench takes."""

    name: str
    kind: str  # "pip" (a wheel from PyPI) or "apt" (a Debian binary package)
    package: str
    pattern: str  # fnmatch pattern of archive members; "{lang}" is each language
    languages: tuple[str, ...]  # chosen for several plural-form types (2, 3-4, 6 forms, 1 form)
    strip: str = ""  # member prefix left out of the project tree
    why: str = ""


PROJECTS = (
    Project(
        "django",
        "pip",
        "django",
        "django/*locale/{lang}/LC_MESSAGES/*.po",
        ("de", "ru", "ar"),
        why="python-format and python-brace-format, plurals, djangojs catalogs",
    ),
    Project(
        "sphinx",
        "pip",
        "sphinx",
        "sphinx/locale/{lang}/LC_MESSAGES/sphinx.po",
        ("fr", "pl", "ja"),
        why="long catalogs of reST and python-format messages; Japanese has one plural form",
    ),
    Project(
        "wagtail",
        "pip",
        "wagtail",
        "wagtail/*locale/{lang}/LC_MESSAGES/*.po",
        ("fr", "pl", "ar"),
        why="a large Django project with HTML in messages",
    ),
    Project(
        "gettext-examples",
        "apt",
        "gettext-doc",
        "usr/share/doc/gettext/examples/*/po/{lang}.po",
        ("de", "ru", "ga"),
        strip="usr/share/doc/gettext/examples/",
        why="GNU gettext's hello-* examples: c-format, java-format, csharp-format, qt-format, sh-format, "
        "... ; Irish (5 forms) is not offered by the service, so its catalogs test refusal",
    ),
)


class FetchError(Exception):
    """A project could not be downloaded or unpacked (the bench reports it and goes on)."""


def fetch(project: Project, cache: Path, log: Callable[[str], None]) -> Path:
    """The project's package file, from ``cache`` when an earlier run downloaded it."""
    folder = cache / project.name
    found = _archives(folder)
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    if project.kind == "pip":
        argv = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--quiet",
            "--disable-pip-version-check",
            "-d",
            str(folder),
            project.package,
        ]
    elif project.kind == "apt":
        if shutil.which("apt-get") is None:
            raise FetchError("apt-get is not installed")
        argv = ["apt-get", "download", "-q", project.package]
    else:
        raise FetchError(f"unknown kind {project.kind!r}")
    log(f"downloading {project.package} ({project.kind})")
    try:
        proc = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FetchError(f"{argv[0]}: {exc}") from None
    found = _archives(folder)
    if proc.returncode != 0 or not found:
        tail = " ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise FetchError(f"{' '.join(argv[:3])} exited {proc.returncode}: {tail[:400]}")
    return found[0]


def _archives(folder: Path) -> list[Path]:
    return (
        sorted(p for p in folder.glob("*") if p.suffix in (".whl", ".deb") and p.is_file()) if folder.is_dir() else []
    )


def extract(project: Project, archive: Path, dest: Path) -> list[Path]:
    """Write the project's chosen catalogs under ``dest``; their paths, by language, then path.

    By language first because blanking counts entries across catalogs: in path order, the
    two-entry catalogs of three languages (de, ga, ru, de, ga, ru, ...) line up with "every
    third" so that one language is never blanked and the others always at the same entry.
    """
    patterns = [project.pattern.format(lang=lang) for lang in project.languages]
    written = []
    for name, data in _members(archive):
        name = name.removeprefix("./")
        matched = [i for i, pattern in enumerate(patterns) if fnmatch.fnmatchcase(name, pattern)]
        if not matched:
            continue
        relative = PurePosixPath(name.removeprefix(project.strip))
        if relative.is_absolute() or ".." in relative.parts:
            continue  # a hostile member name never escapes the tree
        target = dest.joinpath(*relative.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data())
        written.append((matched[0], target))
    if not written:
        raise FetchError(f"{archive.name} has no member matching {patterns}")
    return [path for _, path in sorted(written)]


def _members(archive: Path) -> Iterator[tuple[str, Callable[[], bytes]]]:
    """(name, read) pairs of the regular files of a wheel or a Debian package."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                if not info.is_dir():
                    yield info.filename, partial(zf.read, info)
        return
    if shutil.which("dpkg-deb") is None:
        raise FetchError("dpkg-deb is not installed (needed to unpack a .deb)")
    proc = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(archive)], capture_output=True, timeout=300)
    if proc.returncode != 0:
        raise FetchError(f"dpkg-deb: {proc.stderr.decode(errors='replace').strip()[:300]}")
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tf:
        for member in tf.getmembers():
            if member.isfile():
                yield member.name, partial(_read, tf, member)


def _read(tf: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    handle = tf.extractfile(member)  # None only for non-files, which the caller skips
    return handle.read() if handle else b""


Key = tuple[str | None, str]  # (msgctxt, msgid): one entry of a catalog


@dataclass
class Catalog:
    """One catalog of the tree: what it held before the runs, and which entries a run should fill."""

    path: str  # relative to the project tree
    lang: str = ""
    entries: int = 0
    translated_before: int = 0
    fuzzy: int = 0
    flags: Counter = field(default_factory=Counter)
    blanked: set[Key] = field(default_factory=set)
    untranslated: set[Key] = field(default_factory=set)  # empty before the run: blanked + already empty
    error: str | None = None


def key_of(entry: polib.POEntry) -> Key:
    """The identity of an entry within its catalog."""
    return (entry.msgctxt, entry.msgid)


def is_filled(entry: polib.POEntry) -> bool:
    """Whether every form of the entry has a translation."""
    if entry.msgid_plural:
        return bool(entry.msgstr_plural) and all(entry.msgstr_plural.values())
    return bool(entry.msgstr)


def blank_tree(root: Path, paths: list[Path], counter: int = 0) -> list[Catalog]:
    """Clear the msgstr of every BLANK_EVERY-th translated non-fuzzy entry, editing only those lines."""
    catalogs = []
    for path in paths:
        catalog = Catalog(path.relative_to(root).as_posix())
        catalogs.append(catalog)
        try:
            po = polib.pofile(str(path))
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            catalog.error = f"polib cannot read it: {exc}"[:300]
            continue
        catalog.lang = po.metadata.get("Language", "")
        lines = path.read_bytes().split(b"\n")
        edits: dict[int, bytes | None] = {}
        for entry in (e for e in po if not e.obsolete):
            catalog.entries += 1
            catalog.flags.update(f for f in entry.flags if f != "fuzzy")
            if entry.fuzzy:
                catalog.fuzzy += 1
            if not is_filled(entry):
                catalog.untranslated.add(key_of(entry))
                continue
            if entry.fuzzy:
                continue
            catalog.translated_before += 1
            counter += 1
            if counter % BLANK_EVERY == 0 and _blank_lines(lines, entry.linenum - 1, edits):
                catalog.blanked.add(key_of(entry))
        if edits:
            kept = [edits.get(i, line) for i, line in enumerate(lines)]
            path.write_bytes(b"\n".join(line for line in kept if line is not None))
        catalog.untranslated |= catalog.blanked
    return catalogs


_MSGSTR = re.compile(rb"^(msgstr(?:\[\d+\])?)\s")


def _blank_lines(lines: list[bytes], msgid_index: int, edits: dict[int, bytes | None]) -> bool:
    """Record edits that empty every msgstr of the entry whose msgid is on ``lines[msgid_index]``.

    Works on bytes so that any ASCII-compatible charset stays as it was; continuation lines of a
    msgstr are removed, the keyword line becomes ``msgstr ""`` (``msgstr[N] ""``).
    """
    i = msgid_index
    while i < len(lines) and not lines[i].startswith(b"msgstr"):
        if not lines[i].strip():
            return False  # the entry ended before a msgstr: not what polib said; leave it
        i += 1
    found = False
    while i < len(lines):
        line = lines[i]
        end = b"\r" if line.endswith(b"\r") else b""
        match = _MSGSTR.match(line)
        if match:
            edits[i] = match.group(1) + b' ""' + end
            found = True
        elif line.lstrip().startswith(b'"'):
            edits[i] = None
        else:
            break
        i += 1
    return found
