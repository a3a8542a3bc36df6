"""Whether a run can keep its cache folder: the translation cache, the run state and the catalog locks live there.

Asked once, before anything uses the folder (``translate``'s start, ``refresh``'s merge): a folder that
cannot be made or written in is said once, with what moves it, and the run goes on without one, as with
``[cache] dir = ""``. Without this, each of the three said the same failure in its own words.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from pipeline.config import Settings

#: What a run without its cache folder goes without, and what names another folder.
NO_CACHE_FOLDER = (
    "warning: cannot use the cache folder {folder} ({reason}): this run keeps no translation cache, run state "
    "or catalog locks; [cache] dir in the config (or translate's --cache-dir) names another folder (unset, it is "
    "under the user's cache folder: $XDG_CACHE_HOME, else ~/.cache)"
)


def usable(settings: Settings, log: Callable[[str], None]) -> Settings:
    """``settings``, or without their cache folder when it cannot be made or written there: said once, saying
    what moves it, where the cache, the run state and the locks would each say the failure in their words."""
    folder = settings.cache_dir
    reason = None if folder is None else _cannot_write(folder)
    if reason is None:
        return settings
    log(NO_CACHE_FOLDER.format(folder=folder, reason=reason))
    return settings._replace(cache_dir=None)


def _cannot_write(folder: Path) -> str | None:
    """Why ``folder`` cannot be made or written in (the system's words), or None; nothing is created."""
    path = folder
    while True:
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            if path.parent == path:
                return None
            path = path.parent  # made by the first write: what counts is the nearest folder that exists
            continue
        except OSError as exc:  # a file on the way (ENOTDIR), a folder this user may not look into (EACCES)
            return exc.strerror or str(exc)
        if not stat.S_ISDIR(mode):
            return os.strerror(errno.ENOTDIR)
        return None if os.access(path, os.W_OK | os.X_OK) else os.strerror(errno.EACCES)
