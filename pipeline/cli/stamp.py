"""Writing the no-op stamp that :mod:`pipeline.cli.noop` checks: after a ``translate`` run that was a complete no-op.

The stamp claims that a regular run, started again with the same arguments, folder and
environment, would do nothing and print nothing, as long as every catalog's bytes still hash as
``state.json`` records them (which :mod:`pipeline.cli.noop` checks: the same test as the regular
run's skip). It is written only when this module finds that claim in the run state itself, after
the run, rather than trusting what the run saw: every catalog the discovery finds now is settled
with the current settings, with no language list to look up again; the run's issues are only
the warnings those catalogs were settled with (repeated by every run that skips them, in the
report alone: ``--quiet`` prints errors only, and a stamp needs ``--quiet`` and no error); the
terminology needs no sync; and the folders the discovery looks into did not change meanwhile, nor
within two seconds before (see :data:`pipeline.cli.noop.RACY_NS`).
Anything else (an error, a file gone, a folder too large to watch) means no stamp: the next run
takes the regular path, which is always right.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pipeline.catalog_paths import display_path, find_catalogs
from pipeline.cli.noop import (
    RACY_NS,
    STAMP_VERSION,
    code_signature,
    environment_signature,
    file_digest,
    folder_entries,
    folder_signature,
    stamp_path,
    writable,
)
from pipeline.config import CONFIG_NAME, Settings
from pipeline.model import Severity
from pipeline.resources import synced
from pipeline.run.records import RunReport
from pipeline.run.state import STATE_NAME, RunState, settings_hash
from pipeline.version import __version__

__all__ = ["MAX_FOLDERS", "write_stamp"]

#: Folders a stamp may watch: a project whose globs look into more (``**`` over a virtualenv)
#: gets no stamp, since checking them all would cost what the stamp saves.
MAX_FOLDERS = 5000
_GLOB_CHARS = frozenset("*?[")


def write_stamp(
    argv: Sequence[str],
    args: argparse.Namespace,
    settings: Settings,
    reload: Callable[[], Settings],
    paths: Sequence[Path],
    report: RunReport,
    report_folder: Path,
) -> bool:
    """Write the stamp when the run just finished (``report``, written to ``report_folder``) was a complete no-op.

    ``settings`` are the run's; ``reload`` builds them again from the config file and command line
    as they are now. Returns whether a stamp was written. Never raises: a stamp is an optimisation.
    """
    if not (
        args.quiet
        and not args.dry_run
        and not args.frozen
        and report.exit_code == 0
        and not any(issue.severity is Severity.ERROR for issue in report.issues)  # printed even with --quiet
        and report.stopped is None
        and report.would_send is None
        and report.totals.requests == 0
        and settings.cache_dir is not None
    ):
        return False
    if "@" in os.environ.get("PIPELINE_SERVICE_URL", ""):  # a URL with credentials: not even hashed into a stamp
        return False
    try:
        stamp = _stamp(list(argv), args, settings, reload, paths, report, report_folder)
        if stamp is None:
            return False
        _write(Path(stamp_path(os.getcwd())), json.dumps(stamp, ensure_ascii=False, separators=(",", ":")))
        return True
    except Exception:  # a folder it cannot write, a config gone bad meanwhile: the run itself succeeded
        return False


def _write(path: Path, text: str) -> None:
    """Write the stamp atomically, readable by its owner alone. Not synced to the disk: a stamp a
    crash loses or truncates is not valid JSON, or missing, and the next run takes the regular path."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8", "surrogateescape"))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _stamp(
    argv: list[str],
    args: argparse.Namespace,
    settings: Settings,
    reload: Callable[[], Settings],
    paths: Sequence[Path],
    report: RunReport,
    report_folder: Path,
) -> dict | None:
    assert settings.cache_dir is not None
    cwd = os.getcwd()
    configs = (
        [os.path.join(cwd, args.config)]
        if args.config
        else [os.path.join(cwd, CONFIG_NAME), os.path.join(cwd, "pyproject.toml")]
    )
    state_file = settings.cache_dir / STATE_NAME
    files = [
        *configs,
        *map(str, synced.glossary_files(settings)),
        str(state_file),
        str(settings.cache_dir / synced.RECORD_NAME),
        str(report_folder / "report.json"),
        str(report_folder / "report.md"),
    ]
    # Hashed first and again last: what is recorded is what everything between saw. The config's
    # bytes must also still make the run's settings (the run read it before any of this).
    digests = [[p, file_digest(p)] for p in files]
    real = [[p, os.path.realpath(p)] for p in [cwd, *configs]]
    if reload() != settings:
        return None
    written = time.time_ns()  # before any look: a change after it has a later mtime (noop.RACY_NS)
    folders = _folders(settings, paths)
    if folders is None or any(
        signature is not None and signature[0] > written - RACY_NS for signature in folders.values()
    ):
        return None  # changed within a clock tick of this look: the next no-op, later, writes the stamp
    found = find_catalogs(settings, paths)
    if found.refused or len(found.paths) != report.unchanged_catalogs:
        return None
    state = RunState(settings.cache_dir)
    fingerprint = settings_hash(settings)
    catalogs = []
    notices = 0
    for path in found.paths:  # the regular run skips it while its bytes hash as recorded: noop checks that
        record = state.settled_record(display_path(settings, path))
        if record is None or record.settings != fingerprint or record.languages is not None:
            return None  # languages: settled while a list seen at most a day ago says the same
        notices += len(record.notices)
        if os.path.realpath(path) != str(path) or not writable(str(path)):
            return None
        catalogs.append([str(path), record.sha256])
    if notices != len(report.issues):
        return None  # the run's warnings must all be the settled catalogs' notices, which every skip repeats
    if not settings.service.embedded and synced.SyncRecord(settings.cache_dir).needs_sync(
        report.service, synced.fingerprint(settings)
    ):
        return None
    # Listed once, between the two looks: the same times in both mean these entries all along.
    entries = [
        [folder, signature, None if signature is None else folder_entries(folder)]
        for folder, signature in sorted(folders.items())
    ]
    if _folders(settings, paths) != folders:
        return None  # a catalog added or removed while this looked: the discovery may have missed it
    if [[p, file_digest(p)] for p in files] != digests or [[p, os.path.realpath(p)] for p in [cwd, *configs]] != real:
        return None  # another run saved its state or report meanwhile, or a file was edited
    return {
        "version": STAMP_VERSION,
        "pipeline": __version__,
        "written_ns": written,
        "argv": argv,
        "cwd": cwd,
        "env": environment_signature(),
        "code": code_signature(),
        "real": real,
        "folders": entries,
        "files": digests,
        "catalogs": catalogs,
    }


class _TooMany(Exception):
    pass


def _folders(settings: Settings, paths: Sequence[Path]) -> dict[str, list[int] | None] | None:
    """Every folder the catalog discovery could look into, with its signature; None when there are too many.

    Each glob is followed part by part as pathlib does, from the settings' root, a superset where
    that is simpler: a wildcard part reaches every subfolder (not only those its pattern matches),
    ``**`` every folder below (following links, each real folder once). A part named in full adds
    that folder (or that it is missing); the folder a glob lists adds its entries. For PATHs: a
    folder given and every folder below it, the folder of a file given.
    """
    seen: dict[str, list[int] | None] = {}

    def add(folder: str) -> bool:
        if folder not in seen:
            seen[folder] = folder_signature(folder)
            if len(seen) > MAX_FOLDERS:
                raise _TooMany
        return seen[folder] is not None

    root = str(settings.root)
    try:
        if paths:
            for path in paths:
                absolute = os.path.abspath(path)
                if os.path.isdir(absolute):
                    _select(absolute, ["**", "*"], add)
                else:
                    add(os.path.dirname(absolute))
        else:
            for pattern in settings.catalogs:
                _select(root, _parts(pattern), add)
        for pattern in settings.exclude:  # a link an exclude matches leaves out the catalog it reaches
            _select(root, _parts(pattern), add)
    except _TooMany:
        return None
    return seen


def _parts(pattern: str) -> list[str]:
    return [part for part in pattern.replace(os.sep, "/").split("/") if part not in ("", ".")]


def _select(folder: str, parts: list[str], add: Callable[[str], bool]) -> None:
    """Add the folders a glob's ``parts`` look into from ``folder`` (an OSError listing one: no stamp)."""
    if not parts:
        add(folder)
        return
    part, rest = parts[0], parts[1:]
    if part == "**":
        for below in _below(folder, add):
            if rest:
                _select(below, rest, add)
    elif _GLOB_CHARS & set(part):
        if add(folder) and rest:
            for sub in _subfolders(folder):
                _select(sub, rest, add)
    elif rest:
        child = os.path.join(folder, part)
        if add(child):
            _select(child, rest, add)
    else:
        add(folder)  # a file named in full: whether it is there is its folder's entry


def _below(folder: str, add: Callable[[str], bool]) -> list[str]:
    """``folder`` and every folder below it, following links, each real folder once (a link back up ends there)."""
    found: list[str] = []
    visited: set[tuple[int, int]] = set()
    pending = [folder]
    while pending:
        current = pending.pop()
        if not add(current):
            continue
        st = os.stat(current)
        if (st.st_dev, st.st_ino) in visited:
            continue
        visited.add((st.st_dev, st.st_ino))
        found.append(current)
        pending.extend(_subfolders(current))
    return found


def _subfolders(folder: str) -> list[str]:
    with os.scandir(folder) as entries:
        return [entry.path for entry in entries if entry.is_dir()]
