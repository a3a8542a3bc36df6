"""Which files a run works on, and how reports name them.

Kept apart from :mod:`pipeline.run.scan` (which parses) so that finding the catalogs imports no parser.

A catalog reached through a symbolic link that leaves the project (the config file's folder and
the paths given on the command line) is neither read nor written unless
``Settings.follow_symlinks_outside`` allows it: a ``de.po`` linked to ``~/.ssh/config`` or to
another project's catalog must not be rewritten, nor have its content quoted in a report.
"""

import functools
import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pipeline import locales
from pipeline.config import Settings
from pipeline.files.untrusted import work_tree
from pipeline.model import Issue, Severity

CATALOG_SUFFIXES = (".po", ".xlf", ".xliff")
#: Folders no search enters, whatever the patterns say below their literal part: installed
#: packages and tools' state, never the project's own catalogs. A folder holding ``pyvenv.cfg``
#: (a virtual environment, whatever its name) is left out as well, and so is every hidden folder.
NOT_THE_PROJECTS = frozenset({"node_modules", "site-packages", "__pycache__"})
VENV_MARKER = "pyvenv.cfg"
OUTSIDE_LINK = (
    "is a symbolic link to {target}, outside the project: neither read nor written "
    "(pass --follow-symlinks-outside to allow it)"
)
FOLDER = "is a folder named like a catalog: not read"
LINK_LOOP = "is a symbolic link that leads back to itself: neither read nor written"
DANGLING_LINK = "is a symbolic link to {target}, which does not exist: not read"
READ_ONLY = "is read-only: left alone (nothing sent for it, nothing written)"


@dataclass(frozen=True)
class Found:
    """The catalogs of a run, and what was refused: links out of the project, folders named like catalogs."""

    paths: list[Path]
    refused: list[Issue] = field(default_factory=list)
    read_only: list[Path] = field(default_factory=list)  # refused as read-only (``writing``), each also in ``refused``


def find_catalogs(settings: Settings, paths: Sequence[Path] = (), writing: bool = True) -> Found:
    """The catalog files of the run: the given paths (files or folders) or the configured globs.

    A file given is taken as it is (nothing is walked for it); a folder given, or the configured
    globs, are searched among the files of the project (:func:`project_files`). ``writing``: the
    command writes catalogs, so a read-only one is refused before anything is sent for it (a
    rename would replace it anyway: permissions guard the file, not its folder).
    """
    roots = [settings.root.resolve(), *(p.resolve() for p in paths if p.is_dir())]
    candidates: set[Path] = set()
    if paths:
        for path in paths:
            if path.is_dir():
                every = tuple(f"**/*{suffix}" for suffix in CATALOG_SUFFIXES)
                candidates.update(path / name for name in project_files(path, every, ignore_case=True))
            else:
                candidates.add(path)  # a missing or odd file is reported when it is read
    else:
        candidates.update(settings.root / name for name in project_files(settings.root, settings.catalogs))
    excluded = _Patterns(settings.exclude)
    found: set[Path] = set()
    refused: list[Issue] = []
    read_only_found: list[Path] = []
    folders: dict[str, str] = {}
    for candidate in sorted(candidates):
        try:
            real = _resolve(candidate, folders)
        except (OSError, RuntimeError):  # a loop of links: RuntimeError up to Python 3.12, then OSError (ELOOP)
            if not excluded.match_any(settings.root, candidate, candidate):
                refused.append(Issue(display_path(settings.root, Path(os.path.abspath(candidate))), LINK_LOOP))
            continue
        if excluded.match_any(settings.root, candidate, real):
            continue
        if os.path.islink(candidate) and not os.path.exists(candidate):  # named as the user wrote it, not its target
            target = printable(os.readlink(candidate))
            refused.append(
                Issue(
                    display_path(settings.root, Path(os.path.abspath(candidate))), DANGLING_LINK.format(target=target)
                )
            )
            continue
        if candidate.is_dir():
            if candidate.suffix.lower() in CATALOG_SUFFIXES:  # other folders a glob matches are just folders
                refused.append(
                    Issue(
                        display_path(settings.root, Path(os.path.abspath(candidate))), FOLDER, severity=Severity.WARNING
                    )
                )
            continue
        if not settings.follow_symlinks_outside and _leaves(candidate, real, roots):
            refused.append(
                Issue(display_path(settings.root, Path(os.path.abspath(candidate))), OUTSIDE_LINK.format(target=real))
            )
            continue
        if writing and read_only(real):
            refused.append(Issue(display_path(settings.root, Path(os.path.abspath(candidate))), READ_ONLY))
            read_only_found.append(real)
            continue
        found.add(real)
    return Found(sorted(found), refused, read_only_found)


def where_searched(settings: Settings, paths: Sequence[Path] = ()) -> str:
    """Where :func:`find_catalogs` looked, for a run that found nothing: ``no .po, .xlf or .xliff file in DIR``
    (with ``paths``, the folders among them: a file given was found, and a run says why it was left out)."""
    every = tuple(f"**/*{suffix}" for suffix in CATALOG_SUFFIXES)
    if paths:
        return "; ".join(f"no .po, .xlf or .xliff file in {printable(str(p))}" for p in paths if p.is_dir())
    top = printable(str(settings.root))
    if tuple(settings.catalogs) == every:
        said = f"no .po, .xlf or .xliff file in {top}"
    else:
        said = f"no file in {top} matches catalogs = [{', '.join(repr(p) for p in settings.catalogs)}]"
    return said + (", among the files git does not ignore" if work_tree(settings.root) is not None else "")


def project_files(top: Path, patterns: Sequence[str], ignore_case: bool = False) -> list[str]:
    """The files under ``top`` that one of ``patterns`` (globs, ``**`` for any folders) matches, as
    ``/``-separated paths relative to ``top``, among the files that are the project's own.

    Inside a git work tree those are the files git sees: tracked, or untracked and not ignored
    (``git ls-files``, run once), a repository's inside (a submodule, a clone) as its own git sees
    them. Elsewhere the folders a pattern can reach are walked. Either way nothing is taken from
    below a hidden folder, a virtual environment (a folder holding ``pyvenv.cfg``),
    ``node_modules`` or ``site-packages``, unless the pattern's literal part (the folders before
    its first wildcard) names it. A pattern without a wildcard names one file, taken when it
    exists, whatever git says. A pattern that starts above ``top`` (``../shared/*.po``) is searched
    from the folder it names, as the files git (or a walk) sees there.
    """
    compiled = _Patterns(patterns, ignore_case)
    names = {p.text for p in compiled.patterns if p.literal and os.path.lexists(top / p.text)}
    wild = [p for p in compiled.patterns if not p.literal]
    for pattern in (p for p in wild if p.parts[0] == ".."):
        ups = next(i for i, part in enumerate(pattern.parts) if part != "..")
        above = "/".join(pattern.parts[:ups])
        rest = "/".join(pattern.parts[ups:])
        names.update(f"{above}/{name}" for name in project_files((top / above).resolve(), [rest], ignore_case))
    inside = _Patterns([p.text for p in wild if p.parts[0] != ".."], ignore_case)
    if not inside.patterns:
        return sorted(names)
    listed = _git_files(top)
    if listed is None:
        names.update(_walk(top, inside))
    else:
        venvs = {n.rpartition("/")[0] for n in listed if n == VENV_MARKER or n.endswith("/" + VENV_MARKER)}
        names.update(n for n in listed if inside.match_project(n, venvs) and os.path.lexists(top / n))
    return sorted(names)


class _Pattern(NamedTuple):
    text: str
    parts: tuple[str, ...]
    prefix: int  # leading folders without a wildcard: searched even when hidden or a venv
    regex: re.Pattern[str]

    @property
    def literal(self) -> bool:
        return self.prefix == len(self.parts)

    @property
    def depth(self) -> int | None:
        """How many folders below the literal part a match lies at most (None: any, ``**``)."""
        return None if "**" in self.parts else len(self.parts) - self.prefix - 1


class _Patterns:
    """Globs as pathlib reads them (``*``, ``?``, ``[...]`` within a name; ``**`` for any folders)."""

    def __init__(self, patterns: Sequence[str], ignore_case: bool = False) -> None:
        self.patterns = [_compile(p, ignore_case) for p in patterns if p.strip("/")]

    def match_project(self, name: str, venvs: set[str]) -> bool:
        """Whether a pattern matches ``name`` with no folder of another's on the way."""
        for pattern in self.patterns:
            if not pattern.literal and pattern.regex.match(name):
                folders = name.split("/")[:-1]
                if not any(
                    _not_the_projects(folder) or "/".join(folders[: i + 1]) in venvs
                    for i, folder in enumerate(folders)
                    if i >= pattern.prefix
                ):
                    return True
        return False

    def match_any(self, root: Path, *paths: Path) -> bool:
        """Whether a pattern matches one of ``paths`` (relative to ``root``; those outside never match)."""
        if not self.patterns:
            return False
        for path in paths:
            try:
                name = Path(os.path.abspath(path)).relative_to(root).as_posix()
            except ValueError:
                continue
            if any(p.regex.match(name) for p in self.patterns):
                return True
        return False


def _not_the_projects(folder: str) -> bool:
    return folder.startswith(".") or folder in NOT_THE_PROJECTS


@functools.lru_cache(maxsize=256)
def _compile(pattern: str, ignore_case: bool) -> _Pattern:
    parts = tuple(p for p in pattern.replace("\\", "/").split("/") if p not in ("", "."))
    prefix = next((i for i, part in enumerate(parts) if _WILDCARD.search(part)), len(parts))
    if ".." in parts[:prefix]:  # "a/../../shared/*.po" is "../shared/*.po"
        literal = posixpath.normpath("/".join(parts[:prefix])).split("/")
        parts = (*(part for part in literal if part != "."), *parts[prefix:])
        prefix = next((i for i, part in enumerate(parts) if _WILDCARD.search(part)), len(parts))
    regex = ""
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            regex += "(?:[^/]+/)*[^/]+" if last else "(?:[^/]+/)*"
        else:
            regex += _name_regex(part) + ("" if last else "/")
    flags = re.IGNORECASE if ignore_case else 0
    try:
        compiled = re.compile(regex + r"\Z", flags)
    except re.error:  # an empty range ([z-a]), which the configuration refuses: no name matches it
        compiled = re.compile(r"(?!)")
    return _Pattern("/".join(parts), parts, prefix, compiled)


_WILDCARD = re.compile(r"[*?[]")


def _name_regex(part: str) -> str:
    """One path component's glob as a regex that never crosses a ``/``."""
    out, i = [], 0
    while i < len(part):
        char = part[i]
        end = part.find("]", _body_start(part, i)) if char == "[" else -1
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif end != -1:
            body = part[i + 1 : end]
            negate = body.startswith("!")
            body = _set_body(body[1:] if negate else body)
            # A negated set never matches "/" either; said apart, so the "/" cannot start a range with the body.
            out.append((f"(?!/)[^{body}]" if body else "[^/]") if negate else f"[{body}]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _body_start(part: str, bracket: int) -> int:
    """Where the closing ``]`` of the set opened at ``bracket`` is looked for: past a ``!`` and then a ``]``
    (a ``]`` first in the set is one of its characters, after a ``!`` too, as fnmatch reads it)."""
    start = bracket + 1
    if part.startswith("!", start):
        start += 1
    return start + 1 if part.startswith("]", start) else start


def _set_body(body: str) -> str:
    """A glob's bracket body as a regex set's: ranges kept, every other character but a letter or digit
    escaped (``[ & ~ | -`` doubled start nested sets and set operations in later Pythons, which warn
    about them today: ``[?--]`` is the range from ``?`` to ``-``, not a set difference)."""
    out, i = [], 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            out.append(f"{_in_set(body[i])}-{_in_set(body[i + 2])}")
            i += 3
        else:
            out.append(_in_set(body[i]))
            i += 1
    return "".join(out)


def _in_set(char: str) -> str:
    return char if char.isalnum() else "\\" + char


def _git_files(top: Path) -> list[str] | None:
    """The files git sees under ``top`` (see :func:`pipeline.files.git.git_files`); None outside a work tree.

    The front door of git: its module (and subprocess) is loaded inside a work tree only.
    """
    if work_tree(top) is None:
        return None
    from pipeline.files import git

    return git.git_files(top, _not_the_projects)


def _walk(top: Path, compiled: _Patterns) -> set[str]:
    """The names the patterns match under ``top``, walking only the folders each pattern can reach.

    Folders reached through a symbolic link are walked (the link is refused later if it leads out of
    the project), each linked target once: a link back up the tree is no endless loop.
    """
    names: set[str] = set()
    for pattern in compiled.patterns:
        if pattern.literal:
            continue
        prefix = "".join(f"{part}/" for part in pattern.parts[: pattern.prefix])
        stack = [(os.path.join(top, prefix), prefix, 0)]
        linked: set[str] = set()
        while stack:
            folder, relative, level = stack.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = list(listing)
            except OSError:
                continue
            if level and any(e.name == VENV_MARKER for e in entries):
                continue  # a virtual environment
            for entry in entries:
                name = relative + entry.name
                if pattern.regex.match(name):
                    names.add(name)
                if not _enters(entry, level, pattern.depth, linked):
                    continue
                stack.append((entry.path, name + "/", level + 1))
    return names


def _enters(entry: os.DirEntry[str], level: int, depth: int | None, linked: set[str]) -> bool:
    """Whether the walk goes into ``entry``: a folder of the project's, within reach, not a loop."""
    try:
        if not entry.is_dir() or _not_the_projects(entry.name) or (depth is not None and level >= depth):
            return False
        if entry.is_symlink():
            real = os.path.realpath(entry.path)
            if real in linked:
                return False
            linked.add(real)
    except OSError:
        return False
    return True


def configured_locale(settings: Settings, path: Path) -> str | None:
    """The locale ``[translate] languages`` gives the catalog at ``path``: the first glob that matches it."""
    for pattern, locale in settings.languages:
        if _Patterns((pattern,)).match_any(settings.root, path):
            return locale
    return None


def catalog_locale(settings: Settings, path: Path, language: str | None) -> str | None:
    """The locale a run translates the catalog at ``path`` into: as configured, else its own ``language``
    (with the form of address its name adds), else the one its path names; None when nothing says.

    A ``language`` that is not a locale code (``Language: Estonian``) gives way to the path's
    (``et/LC_MESSAGES``), as Django and msgfmt, which never read the header's, would have it; with no
    path's either it stays, for the run to refuse by its name. :func:`header_language_warnings`
    says so.
    """
    configured = configured_locale(settings, path)
    if configured is not None:
        return configured
    if not language:
        return locales.locale_from_path(path)
    if locales.parse_locale(language) is None:
        return locales.locale_from_path(path) or language
    return locales.refined(language, path)


def header_language_warnings(
    settings: Settings, path: Path, display: str, language: str | None, locale: str
) -> list[Issue]:
    """The warning for a catalog whose ``language`` (its header's) is not a locale code and gave way to
    the ``locale`` its path names (:func:`catalog_locale`); none for every other catalog."""
    if not language or locale == language or configured_locale(settings, path) is not None:
        return []
    if locales.parse_locale(language) is not None:
        return []
    said = f"its Language header {language!r} is not a locale code"
    return [
        Issue(display, f"{said}: translated into {locale!r}, the language its path names", severity=Severity.WARNING)
    ]


def discover(settings: Settings, paths: Sequence[Path] = ()) -> list[Path]:
    """The catalog files of the run (see :func:`find_catalogs`), without the refused links."""
    return find_catalogs(settings, paths).paths


def read_only(path: Path) -> bool:
    """Whether ``path`` is an existing file its owner (or, for root, anyone) may not write."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False  # missing: reported when it is read
    return not mode & 0o222 or not os.access(path, os.W_OK)


def _resolve(path: Path, folders: dict[str, str]) -> Path:
    """``path.resolve()``, resolving each folder on the way once (kept in ``folders``).

    A project's catalogs share most of their folders: resolved whole, each path looked at every
    folder above it again. A path that is itself a link is resolved whole, and so is every path
    on Windows, where resolving also normalises the names.
    """
    if os.name != "posix" or path.name in ("", "..") or os.path.islink(path):
        return path.resolve()
    return Path(_real_folder(os.path.dirname(path), folders), path.name)


def _real_folder(folder: str, folders: dict[str, str]) -> str:
    if folder not in folders:
        name = os.path.basename(folder)
        if name in ("", ".", "..") or os.path.islink(folder):
            folders[folder] = str(Path(folder).resolve())
        else:
            folders[folder] = os.path.join(_real_folder(os.path.dirname(folder), folders), name)
    return folders[folder]


def _leaves(path: Path, real: Path, roots: Sequence[Path]) -> bool:
    """Whether ``path`` reaches, through a symbolic link, a file outside every root."""
    if any(real.is_relative_to(root) for root in roots):
        return False
    return Path(os.path.abspath(path)) != real  # no link on the way: a file the user named, where it is


@functools.lru_cache(maxsize=16384)
def display_path(root: Path, path: Path) -> str:
    """``path`` relative to the project ``root`` where it lies inside it: how reports, messages and the run
    state name a catalog.

    A name's bytes that are not UTF-8 (a Latin-1 folder from an old zip archive) are written as
    ``\\xe9``: the name is then text every output and record can hold, where the path itself
    (``os.fsdecode``'s surrogates) cannot be printed, hashed or written as UTF-8.

    Kept for the last catalogs asked about: a run names each of its catalogs in its scan, its reuse
    index, its locks and its state, and working the name out took longer than looking it up.
    """
    try:
        name = str(path.relative_to(root))
    except ValueError:
        name = str(path)
    return printable(name)


def printable(name: str) -> str:
    """A file name as text: undecodable bytes (surrogates of ``os.fsdecode``) written as ``\\xNN``."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    return name


#: Catalog bytes a run reads at once, unless its largest catalog is bigger. A corpus larger than
#: that is worked through in windows: each is scanned, translated, written and let go before the
#: next is read, so a run's memory follows its largest catalog (or this), not the corpus. A text
#: shared by two windows is paid once: the second finds it in the cache.
WINDOW_BYTES = 2**20


def catalog_windows(paths: list[Path], budget: int | None = None) -> list[list[Path]]:
    """``paths`` in order, cut into runs whose files together stay within ``budget`` bytes (default
    :data:`WINDOW_BYTES`), or within the largest file when it is bigger."""
    sizes = []
    for path in paths:
        try:
            sizes.append(path.stat().st_size)
        except OSError:  # the scan reports it
            sizes.append(0)
    budget = max([WINDOW_BYTES if budget is None else budget, *sizes])
    windows: list[list[Path]] = []
    total = budget + 1
    for path, size in zip(paths, sizes, strict=True):
        if total + size > budget:
            windows.append([])
            total = 0
        windows[-1].append(path)
        total += size
    return windows
