"""Writing: put the admitted translations into their catalog, atomically, unless it changed meanwhile."""

from __future__ import annotations

from pathlib import Path

from pipeline.config import Settings
from pipeline.formats import atomic_write
from pipeline.model import Issue
from pipeline.run.records import CatalogReport, RunReport, ScannedCatalog

__all__ = ["snapshot", "write_catalog"]


def snapshot(path: Path) -> bytes | None:
    """The bytes of ``path`` now, or None when it cannot be read."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def write_catalog(settings: Settings, s: ScannedCatalog, translations: dict[int, tuple[str, ...]],
                  report: RunReport, cat: CatalogReport, read: bytes | None) -> tuple[dict[int, tuple[str, ...]],
                                                                                   bytes | None]:
    """Write ``translations`` (admitted by the gate) into ``s``; leave every other unit untouched.

    ``read`` is the catalog's bytes before it was parsed: a file that no longer has them (saved by
    a translator, removed, switched by a checkout while the requests were out) is left alone.
    Returns the units written (index -> forms) and the bytes written, or ``({}, None)``.
    """
    if not translations:
        return {}, None
    data = s.catalog.render(translations, mark_fuzzy=settings.mark_fuzzy)
    if read is None or snapshot(s.path) != read:
        report.issues.append(Issue(s.display, "not written: the catalog was changed or removed during the run; "
                                   "run again (the translations are cached)", None, s.target_lang))
        return {}, None
    try:
        atomic_write(s.path, data)
        cat.written = True
    except OSError as exc:
        report.issues.append(Issue(s.display, f"cannot write the catalog: {exc.strerror}", None, s.target_lang))
        return {}, None
    return translations, data
