"""How many files this process may have open at once: what a run (its catalog locks) and ``pipeline serve``
(its connections) size themselves by."""

from __future__ import annotations

import sys

if sys.platform != "win32":
    import resource

__all__ = ["soft_limit"]


def soft_limit() -> int | None:
    """The soft limit of open file descriptors (``ulimit -n``); None where there is none, or none to read (Windows)."""
    if sys.platform == "win32":
        return None
    try:
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (OSError, ValueError):
        return None
    return None if limit == resource.RLIM_INFINITY else limit
