"""The no-op stamp: a ``pipeline translate`` with nothing to do, proved so without starting a run.

A regular run that was a complete no-op (every catalog settled and unchanged, nothing printed)
leaves a *stamp* (:mod:`pipeline.cli.stamp` writes it): everything that run's outcome depended
on, as it stood then. The next process checks the stamp with :func:`settled` before importing
anything heavy; when every input is provably unchanged it exits 0 at once, printing nothing (as
the stamped run did), taking no lock and writing nothing: the last report stays, and describes
exactly this state. On any doubt, or any exception here, the regular path runs: this check can
never fail a run.

The stamp must be the user's own and private (mode 0600, in a folder only they can write) and
must watch at least one catalog and folder. What must match (else the regular path runs): the
stamp's format and the package's version, the
code's files (size and mtime), the Python running it, the argument list exactly, the working
folder, the environment the settings read (:func:`environment_signature`: secrets only as set or
not), the config file candidates' bytes (SHA-256) and where they resolve to, every catalog's
bytes (SHA-256, never trusted to an mtime), real path and writability, every folder the catalog
discovery could look into (the same folder, by inode, with the same times, or else the same
entries: names, kinds and link targets), the glossary files', the run state's (``state.json``,
``synced.json``) and the report files' bytes. A folder changed within :data:`RACY_NS` before the
stamp's look at it makes the stamp untrusted: an entry added and removed again in that clock tick
would leave its times as they were, so that look proves nothing (:mod:`pipeline.cli.stamp` writes
no such stamp; the next no-op, later, will).

Light to import: standard modules only, and not ``pathlib``; ``hashlib`` and ``json`` only once
a stamp is there to check.
"""

from __future__ import annotations

import os
import stat
import sys

from pipeline.version import __version__

STAMP_VERSION = 1
STAMP_FOLDER = "noop"  # of <user cache folder>/pipeline
MAX_STAMP_BYTES = 4 * 2**20  # a larger stamp is not ours: not read
RACY_NS = 2_000_000_000  # FAT keeps mtimes to 2 s
#: Variables the settings and the translate command read whose values go into the signature. Every
#: other PIPELINE_* variable (PIPELINE_AUTH_KEY, PIPELINE_CACHE_URL: secrets) counts as set or not.
PLAIN_VARIABLES = (
    "PIPELINE_SERVICE_URL",
    "XDG_CACHE_HOME",
    "HOME",
    "LOCALAPPDATA",
    "USERPROFILE",
    "TERM",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "PYTHONUTF8",
    "PYTHONIOENCODING",
)
CACHE_URL_SCHEMES = ("redis", "rediss", "unix")  # as pipeline.config.CACHE_URL_SCHEMES


def settled(argv: list[str]) -> bool:
    """Whether the stamp proves that ``pipeline <argv>`` would do nothing and print nothing; False on any doubt."""
    try:
        return _settled(argv)
    except Exception:  # a damaged stamp, a file gone meanwhile, anything: the regular path decides
        return False


def user_cache_home(environ: dict[str, str] | os._Environ[str] | None = None) -> str:
    """As :func:`pipeline.config.user_cache_home`, without ``pathlib``."""
    environ = os.environ if environ is None else environ
    configured = environ.get("XDG_CACHE_HOME")
    if configured and os.path.isabs(configured):
        return configured
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~"), "Library", "Caches")
    if os.name == "nt":
        return environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
    return os.path.join(os.path.expanduser("~"), ".cache")


def stamp_path(cwd: str) -> str:
    """Where the stamp of runs started in ``cwd`` lives: one per working folder, in the user's cache folder."""
    import hashlib

    digest = hashlib.sha256(cwd.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return os.path.join(user_cache_home(), "pipeline", STAMP_FOLDER, f"{digest}.json")


def remove_stamp() -> None:
    """Forget the stamp of this working folder: called by every regular run before it changes anything."""
    try:
        os.unlink(stamp_path(os.getcwd()))
    except OSError:
        pass  # none (the usual case), or the cache folder is gone: nothing to forget


def environment_signature(environ: dict[str, str] | os._Environ[str] | None = None) -> str:
    """SHA-256 over the variables a run reads; secrets count only as set or not (and the cache URL's scheme)."""
    import hashlib

    environ = os.environ if environ is None else environ
    parts = [f"{name}={environ.get(name)!r}" for name in PLAIN_VARIABLES]
    for name in sorted(n for n in environ if n.startswith("PIPELINE_") and n not in PLAIN_VARIABLES):
        value = environ[name]
        if name == "PIPELINE_CACHE_URL":  # its scheme decides whether the settings load at all
            scheme = value.split("://", 1)[0].lower() if "://" in value else ""
            parts.append(f"{name}:{'set' if scheme in CACHE_URL_SCHEMES else 'invalid'}")
        else:
            parts.append(f"{name}:{'set' if value else 'empty'}")
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def code_signature() -> str:
    """SHA-256 over the size and mtime of every module of the package: an edited install is new code."""
    import hashlib

    material = [sys.version, sys.executable, __version__]
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folders = [package]
    while folders:
        folder = folders.pop()
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    folders.append(entry.path)
                elif entry.name.endswith(".py"):
                    st = entry.stat()
                    material.append(f"{entry.path}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(material).encode("utf-8", "surrogateescape")).hexdigest()


def file_digest(path: str) -> str | None:
    """SHA-256 of a regular file's bytes; None when it is not a readable regular file."""
    import hashlib

    try:  # non-blocking: a FIFO named like a catalog must not hang the check
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return hashlib.sha256(handle.read()).hexdigest()


def folder_signature(path: str) -> list[int] | None:
    """A folder's ``[mtime_ns, ctime_ns, inode]`` (following links), or None when it is not a folder.

    An entry added or removed changes both times; setting the mtime back (``os.utime``) sets the
    ctime to now, so even a restored mtime does not hide a new catalog.
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_ino] if stat.S_ISDIR(st.st_mode) else None


def folder_entries(path: str) -> str:
    """SHA-256 over a folder's entries: each name, whether it is a folder (following links), and a link's target.

    What the discovery's globs see of a folder; not its files' times or bytes, nor the temporary
    files that came and went (a report written atomically, a lock file).
    """
    import hashlib

    items = []
    with os.scandir(path) as entries:
        for entry in entries:
            target = os.readlink(entry.path) if entry.is_symlink() else ""
            items.append(f"{entry.name}\0{'d' if entry.is_dir() else 'f'}\0{target}")
    digest = hashlib.sha256()
    for item in sorted(items):
        encoded = item.encode("utf-8", "surrogateescape")
        digest.update(b"%d:" % len(encoded) + encoded)
    return digest.hexdigest()


def writable(path: str) -> bool:
    """As :func:`pipeline.catalog_paths.read_only` (negated) for an existing file."""
    return bool(os.stat(path).st_mode & 0o222) and os.access(path, os.W_OK)


def _private(st: os.stat_result, others: int) -> bool:
    """Owned by this user, with none of the ``others`` permission bits: nobody else wrote or can write it."""
    owner = getattr(os, "geteuid", None)
    return (owner is None or st.st_uid == owner()) and not st.st_mode & others


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _pairs(value: object, second: type | tuple[type, ...]) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, list) and len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], second) for v in value
    )


def _settled(argv: list[str]) -> bool:
    if not argv or argv[0] != "translate":
        return False
    cwd = os.getcwd()
    path = stamp_path(cwd)
    try:
        handle = open(path, "rb")
    except OSError:
        return False  # no stamp: the usual case of a run with something to do
    with handle:
        if not _private(os.fstat(handle.fileno()), 0o077) or not _private(os.stat(os.path.dirname(path)), 0o022):
            return False  # written or writable by someone else: it proves nothing
        raw = handle.read(MAX_STAMP_BYTES + 1)
    if len(raw) > MAX_STAMP_BYTES:
        return False
    import json

    stamp = json.loads(raw)
    if not isinstance(stamp, dict) or stamp.get("version") != STAMP_VERSION or stamp.get("pipeline") != __version__:
        return False
    written = stamp.get("written_ns")
    if not isinstance(written, int) or isinstance(written, bool):
        return False
    if stamp.get("argv") != argv or not _strings(stamp.get("argv")) or stamp.get("cwd") != cwd:
        return False
    if stamp.get("env") != environment_signature() or stamp.get("code") != code_signature():
        return False
    real, folders, files, catalogs = (stamp.get(k) for k in ("real", "folders", "files", "catalogs"))
    if not (
        _pairs(real, str)
        and _pairs(files, (str, type(None)))
        and _pairs(catalogs, str)
        and isinstance(folders, list)
        and catalogs
        and folders
    ):
        return False  # a stamp that watches nothing proves nothing
    if any(os.path.realpath(p) != target for p, target in real):
        return False
    for entry in folders:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            return False
        recorded, now = entry[1], folder_signature(entry[0])
        if recorded is None or now is None:
            if recorded != now:
                return False
            continue
        if not (isinstance(recorded, list) and len(recorded) == 3 and isinstance(recorded[0], int)):
            return False
        if recorded[0] > written - RACY_NS:
            return False  # changed in the clock tick of the stamp's look: that look proves nothing
        if now[2] != recorded[2]:
            return False  # another folder there
        if now != recorded and folder_entries(entry[0]) != entry[2]:
            return False  # entries came or went (a temporary file that came and went changes nothing)
    if any(file_digest(p) != digest for p, digest in files):
        return False
    for p, digest in catalogs:  # as the regular run's discovery and skip decide: real path, writable, bytes
        if os.path.realpath(p) != p or not writable(p) or file_digest(p) != digest:
            return False
    return True
