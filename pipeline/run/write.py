"""Writing: put the admitted translations into their catalogs, atomically, unless one changed meanwhile.

Catalogs are written in worker threads (:class:`pipeline.files.writer.AtomicWriter`): every atomic write
waits for the disk (fsync), and those waits overlap each other and the rendering of the next
catalogs instead of queueing, with at most a few writes pending at once. A catalog's new bytes go
to its file piece by piece as they are rendered (:meth:`~pipeline.catalogs.base.Catalog.render_pieces`),
hashed on the way for its fingerprint: a large catalog's are never in memory all together.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.catalogs import Catalog, UnitState
from pipeline.files.swap import ChangedMeanwhile
from pipeline.files.untrusted import read_regular
from pipeline.files.writer import AtomicWriter
from pipeline.model import Issue
from pipeline.run.records import Fingerprint
from pipeline.run.window import ScannedCatalog, WindowFiles

if TYPE_CHECKING:
    from concurrent.futures import Future

__all__ = ["awaiting_review", "snapshot", "window_files", "write_catalogs"]

#: Whether a run again pays for what this catalog was given is the summary's to say (cached, or not: ``--no-cache``).
CHANGED = "not written: the catalog was changed or removed during the run; run again"
LINKED = "not written: the catalog was made a symbolic link during the run; run again"
LINKED_UNREAD = "not read: the catalog was made a symbolic link during the run; run again"
AT_ONCE = 8  # catalog writes pending at once


def snapshot(path: Path) -> bytes | None:
    """The bytes of ``path`` now, or None when it cannot be read; never read through a link.

    A run's catalogs are found with their links resolved (one leaving the project refused), and a
    window reads them later, after earlier windows or a wait for another run's lock: a link in a
    catalog's place now was put there since, and may lead anywhere. It is :class:`ChangedMeanwhile`
    (``linked``): neither the link nor the file it leads to is read.
    """
    try:
        return read_regular(path, follow=False)
    except OSError:
        if os.path.islink(path):
            raise ChangedMeanwhile(path, "made a symbolic link during the run") from None
        return None


def window_files(paths: list[Path], display: Callable[[Path], str]) -> tuple[WindowFiles, list[Issue]]:
    """A window's catalogs and their bytes, taken before parsing (:func:`snapshot`); a catalog made a link since the
    run found it is left out, and the issue that says so is returned."""
    snapshots: dict[Path, bytes | None] = {}
    linked: list[Issue] = []
    for path in paths:
        try:
            snapshots[path] = snapshot(path)
        except ChangedMeanwhile:
            linked.append(Issue(display(path), LINKED_UNREAD))
    return WindowFiles([path for path in paths if path in snapshots], snapshots), linked


def write_catalogs(
    mark_fuzzy: bool,
    jobs: Sequence[tuple[ScannedCatalog, Mapping[int, tuple[str, ...]], bytes | None]],
    review: Mapping[str, Mapping[int, str]] | None = None,
) -> list[tuple[Fingerprint | None, str | None]]:
    """Write each catalog's admitted translations, every other unit untouched; per job, in order, the
    fingerprint of the bytes written (None when nothing was) and why it was not written (None when it
    was or had nothing). A catalog's new bytes are held only until written.

    Every unit written is marked fuzzy with ``mark_fuzzy``; ``review`` (catalog -> unit -> note) names
    the units written marked for review with a note whatever it says (:meth:`pipeline.catalogs.base.Catalog.render`).

    A job is a scanned catalog, the translations the gate admitted (unit index -> forms) and the
    catalog's bytes before it was parsed: a file that no longer has them (saved by a translator,
    removed, switched by a checkout while the requests were out, or while it was being written)
    is left alone.
    """
    results: list[tuple[Fingerprint | None, str | None]] = [(None, None)] * len(jobs)
    started: list[tuple[int, _Hashed, Future[OSError | None]]] = []
    with AtomicWriter(AT_ONCE) as writer:
        for n, (s, translations, read) in enumerate(jobs):
            if not translations:
                continue
            if read is None:
                results[n] = (None, CHANGED)
                continue
            pieces = _Hashed(
                s.catalog.render_pieces(translations, mark_fuzzy=mark_fuzzy, review=(review or {}).get(s.display))
            )
            # The check that the file still holds ``read`` is made by the writer, in one step with the replacement.
            started.append((n, pieces, writer.submit(s.path, pieces, expected=read)))
    for n, pieces, future in started:
        error = future.result()
        if isinstance(error, ChangedMeanwhile):
            results[n] = (None, LINKED if error.linked else CHANGED + error.kept_note)
        else:
            results[n] = (
                (pieces.fingerprint(), None) if error is None else (None, f"cannot write the catalog: {error.strerror}")
            )
    return results


def awaiting_review(catalog: Catalog, written: Collection[int], mark_fuzzy: bool, review: Collection[int] = ()) -> int:
    """How many units of ``catalog`` await review once ``written`` (unit indexes) are written: those that
    did already, and those written marked for review (all with ``mark_fuzzy``, else those ``review`` names)."""
    marked = set(written) if mark_fuzzy else set(written).intersection(review)
    return len(marked.union(catalog.positions(UnitState.FUZZY)))


class _Hashed:
    """A catalog's new bytes in pieces, as the writer takes them; their size and SHA-256 counted on the way."""

    def __init__(self, pieces: Iterable[bytes | memoryview]) -> None:
        self._pieces = pieces
        self._hash = hashlib.sha256()
        self._size = 0

    def __iter__(self) -> Iterator[bytes | memoryview]:
        for piece in self._pieces:
            self._hash.update(piece)
            self._size += len(piece)
            yield piece

    def fingerprint(self) -> Fingerprint:
        """The fingerprint of the bytes taken (all of them, once the write is done)."""
        return Fingerprint(self._size, self._hash.hexdigest())
