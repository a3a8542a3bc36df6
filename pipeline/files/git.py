"""Asking git which files it sees in a work tree, run so that nothing the repository's own configuration names starts.

Discovery (:mod:`pipeline.catalog_paths`) and ``pipeline init`` take the project's files as git
sees them. Git honours the repository's own ``.git/config``, and a project that came as an
archive, a shared folder or a CI cache can name a program there (``core.fsmonitor`` runs at every
``ls-files``); git itself guards against that only by the folder's owner (``safe.directory``).
Every git started here is given configuration on its command line, which wins over every file and
the environment, so that no such program starts, and none of the environment's variables that
name one. Loaded only inside a work tree (:func:`pipeline.files.untrusted.work_tree`).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

from pipeline.files.untrusted import work_tree

__all__ = ["git_files"]


def git_files(top: Path, skip: Callable[[str], bool]) -> list[str] | None:
    """The files git sees under ``top`` (tracked, or untracked and not ignored), ``/``-separated and
    relative to it; None outside a work tree.

    Also None when git is missing or fails, or sees nothing there (a folder git ignores, given on
    the command line): the caller walks the folders then. A repository inside (a submodule, or one
    git lists as an untracked folder) is listed by its own git, and walked where that fails: its
    files are the project's as much as those of a folder walked outside git. No folder whose name
    ``skip`` refuses is entered (nor any below it) for that.
    """
    found = work_tree(top)
    if found is None:
        return None  # not a work tree: spawn no git
    return _repository_files(top, found, skip, nested=False)


#: Configuration given on git's command line, which wins over every file's and the environment's:
#: no program the repository's own configuration names is ever started. ``ls-files`` reads the
#: index and the folders only; of the programs git can be told to start, ``core.fsmonitor`` runs
#: there, and the others are named here too, so that no later change of the command starts one:
#: hooks (an empty folder), pager, editor, external diff, and every transport (with it ssh,
#: proxies, askpass and credential helpers). Filter and diff drivers run only on file contents,
#: which ``ls-files`` never converts nor compares.
_GIT_SAFETY = (
    "core.fsmonitor=false",
    "core.useBuiltinFSMonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.editor=:",
    "sequence.editor=:",
    "diff.external=",
    "core.askPass=",
    "core.sshCommand=",
    "core.gitProxy=",
    "credential.helper=",
    "core.alternateRefsCommand=",
    "protocol.allow=never",
)
#: Variables of the environment that name a program git would start (or where it finds its own).
_PROGRAM_VARIABLES = frozenset(
    {
        "GIT_EXTERNAL_DIFF",
        "GIT_PAGER",
        "PAGER",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "VISUAL",
        "EDITOR",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_PROXY_COMMAND",
        "GIT_EXEC_PATH",
    }
)
#: Variables that name a repository (``git rev-parse --local-env-vars``): a repository inside the
#: work tree is asked with none of them, as git asks a submodule.
_REPOSITORY_VARIABLES = frozenset(
    {
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_CONFIG",
        "GIT_OBJECT_DIRECTORY",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_IMPLICIT_WORK_TREE",
        "GIT_GRAFT_FILE",
        "GIT_INDEX_FILE",
        "GIT_NO_REPLACE_OBJECTS",
        "GIT_REPLACE_REF_BASE",
        "GIT_PREFIX",
        "GIT_INTERNAL_SUPER_PREFIX",
        "GIT_SHALLOW_FILE",
        "GIT_COMMON_DIR",
    }
)
_GITLINK = b"160000 "  # the mode of a submodule's entry in ``ls-files --stage``


def _git(top: Path, *args: str, nested: bool) -> bytes | None:
    """The output of ``git -C top <args>``, run as :data:`_GIT_SAFETY` says; None when git fails."""
    drop = _PROGRAM_VARIABLES | _REPOSITORY_VARIABLES if nested else _PROGRAM_VARIABLES
    env = {name: value for name, value in os.environ.items() if name not in drop}
    safety = [arg for setting in _GIT_SAFETY for arg in ("-c", setting)]
    command = ["git", "--no-pager", *safety, "-C", os.fsdecode(top), *args]
    try:
        done = subprocess.run(command, capture_output=True, timeout=120, check=False, stdin=subprocess.DEVNULL, env=env)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _repository_files(top: Path, work_tree: Path, skip: Callable[[str], bool], nested: bool) -> list[str] | None:
    """The files of the repository whose work tree (``work_tree``) holds ``top``, under ``top``, those of
    repositories inside too."""
    out = _git(top, "ls-files", "-z", "--cached", "--others", "--exclude-standard", nested=nested)
    if not out:
        return None
    names = {os.fsdecode(name) for name in out.split(b"\0") if name}
    inner = {name for name in names if name.endswith("/")}  # a repository git does not enter
    if (work_tree / ".gitmodules").exists():  # submodules are listed as files: their entries' mode says
        staged = _git(top, "ls-files", "-z", "--stage", nested=nested) or b""
        inner |= {
            os.fsdecode(entry.partition(b"\t")[2]) + "/" for entry in staged.split(b"\0") if entry.startswith(_GITLINK)
        }
    names -= {folder.rstrip("/") for folder in inner}
    for folder in sorted(inner):
        if not os.path.lexists(top / folder / ".git") or any(skip(part) for part in folder.rstrip("/").split("/")):
            continue  # a submodule not checked out; an installed package's clone
        listed = _repository_files(top / folder, top / folder, skip, nested=True)
        names.update(folder + name for name in (listed if listed is not None else _every_file(top / folder, skip)))
    return sorted(names)


def _every_file(top: Path, skip: Callable[[str], bool]) -> Iterator[str]:
    """Every file below ``top`` (relative, ``/``-separated), but in folders ``skip`` refuses."""
    for folder, folders, files in os.walk(top):
        folders[:] = [name for name in folders if not skip(name)]
        relative = os.path.relpath(folder, top)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        yield from (prefix + name for name in files)
