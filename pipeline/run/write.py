"""Writing: put the admitted translations into their catalogs, atomically, unless one changed meanwhile.

Catalogs are written a few at a time (:func:`pipeline.formats.atomic_write_all`): every atomic
write waits for the disk (fsync), and those waits overlap instead of queueing, while no more than a
few rendered catalogs are held in memory at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pipeline.config import Settings
from pipeline.formats import atomic_write_all
from pipeline.run.records import ScannedCatalog

__all__ = ["snapshot", "write_catalogs"]

CHANGED = ("not written: the catalog was changed or removed during the run; "
           "run again (the translations are cached)")
AT_ONCE = 8  # catalogs rendered and written together


def snapshot(path: Path) -> bytes | None:
    """The bytes of ``path`` now, or None when it cannot be read."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def write_catalogs(settings: Settings, jobs: Sequence[tuple[ScannedCatalog, dict[int, tuple[str, ...]], bytes | None]]
                   ) -> list[tuple[bytes | None, str | None]]:
    """Write each catalog's admitted translations, every other unit untouched; per job, in order, the
    bytes written (None when nothing was) and why it was not written (None when it was or had nothing).

    A job is a scanned catalog, the translations the gate admitted (unit index -> forms) and the
    catalog's bytes before it was parsed: a file that no longer has them (saved by a translator,
    removed, switched by a checkout while the requests were out) is left alone.
    """
    results: list[tuple[bytes | None, str | None]] = [(None, None)] * len(jobs)
    for start in range(0, len(jobs), AT_ONCE):
        ready: list[tuple[int, Path, bytes]] = []
        for n in range(start, min(start + AT_ONCE, len(jobs))):
            s, translations, read = jobs[n]
            if not translations:
                continue
            data = s.catalog.render(translations, mark_fuzzy=settings.mark_fuzzy)
            if read is None or snapshot(s.path) != read:
                results[n] = (None, CHANGED)
                continue
            ready.append((n, s.path, data))
        errors = atomic_write_all([(path, data) for _, path, data in ready])
        for (n, _, data), error in zip(ready, errors):
            results[n] = (data, None) if error is None else (None, f"cannot write the catalog: {error.strerror}")
    return results
