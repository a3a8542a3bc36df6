"""The open windows' decisions, which the :class:`~pipeline.run.ledger.Ledger` alone writes: translations and notes.

Everything here is keyed by catalog (or by segment, whose key names its catalog), and a catalog
belongs to one window: two windows (one being written while the next sends) share these, and each
window lets go of its own catalogs' once written.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, MutableMapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # records of a run with work: a run with nothing new loads none of them
    from pipeline.segments import SegmentKey

__all__ = ["Decisions", "Translations"]


class Translations(MutableMapping["SegmentKey", str]):
    """Verified translations by segment, kept by catalog and unit rather than by :class:`SegmentKey`.

    A window holds one per segment until its catalogs are written. As a dict keyed by
    :class:`SegmentKey` a segment cost about 130 bytes besides its text (the key record, its int, the
    entry: 18 MiB for a 10 MB catalog). Here a catalog's form-0 texts are a list indexed by unit (8
    bytes a unit up to the last one translated, None where there is none); other forms (a plural's
    number sentences) are in a dict keyed by (unit, form). Letting a catalog go is dropping them
    (:meth:`release`).
    """

    __slots__ = ("_first", "_others", "_key")

    def __init__(self) -> None:
        self._first: dict[str, list[str | None]] = {}  # catalog -> by unit index: the text of its form 0, or None
        self._others: dict[str, dict[tuple[int, int], str]] = {}  # catalog -> (unit, form) -> text
        # The key record's class, taken from the first key stored: iteration makes keys again (nothing on a
        # run's path iterates; this module is loaded by runs with nothing new, which never load the records).
        self._key: Callable[[str, int, int], SegmentKey] | None = None

    def get(self, key: SegmentKey, default: str | None = None) -> str | None:  # type: ignore[override]
        catalog, unit, form = key
        if form == 0:
            firsts = self._first.get(catalog)
            text = firsts[unit] if firsts is not None and 0 <= unit < len(firsts) else None
            return default if text is None else text
        others = self._others.get(catalog)
        return default if others is None else others.get((unit, form), default)

    def __getitem__(self, key: SegmentKey) -> str:
        text = self.get(key)
        if text is None:
            raise KeyError(key)
        return text

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None  # type: ignore[arg-type]

    def __setitem__(self, key: SegmentKey, text: str) -> None:
        catalog, unit, form = key
        if self._key is None:
            self._key = type(key)
        if form != 0:
            self._others.setdefault(catalog, {})[unit, form] = text
            return
        if unit < 0:
            raise KeyError(key)
        firsts = self._first.setdefault(catalog, [])
        if unit >= len(firsts):
            firsts.extend([None] * (unit + 1 - len(firsts)))
        firsts[unit] = text

    def __delitem__(self, key: SegmentKey) -> None:
        catalog, unit, form = key
        if form != 0:
            del self._others[catalog][unit, form]
            return
        self[key]  # noqa: B018 - a KeyError when there is none
        self._first[catalog][unit] = None

    def __iter__(self) -> Iterator[SegmentKey]:
        key = self._key
        if key is None:
            return
        for catalog, firsts in self._first.items():
            for unit, text in enumerate(firsts):
                if text is not None:
                    yield key(catalog, unit, 0)
        for catalog, others in self._others.items():
            for unit, form in others:
                yield key(catalog, unit, form)

    def __len__(self) -> int:
        firsts = sum(len(texts) - texts.count(None) for texts in self._first.values())
        return firsts + sum(map(len, self._others.values()))

    def release(self, catalogs: Collection[str]) -> None:
        """Forget every translation of ``catalogs``."""
        for name in catalogs:
            self._first.pop(name, None)
            self._others.pop(name, None)


class Decisions:
    """The open windows' translations and what goes with them, by segment or catalog: written by the ledger alone."""

    __slots__ = ("asked", "done", "notes", "retried", "review", "reused", "withheld")

    def __init__(self) -> None:
        self.done = Translations()  # segment -> verified translation
        # Translated by the service in this run (not the cache); read only to honour a reviewer's rejection, so
        # a run with none keeps no entry per segment (None; see Ledger.keep_asked).
        self.asked: set[SegmentKey] | None = set()
        self.notes: dict[SegmentKey, str] = {}  # segment -> why it needs a reviewer's eye
        # Written marked for review whatever mark_fuzzy says, with a note in the file: catalog -> unit -> note.
        self.review: dict[str, dict[int, str]] = {}
        self.reused: dict[str, set[int]] = {}  # catalog -> units written from a reviewed translation
        self.retried: dict[SegmentKey, str] = {}  # sent again for its length limit -> first answer
        self.withheld: dict[str, int] = {}  # catalog -> units left untranslated: a reviewer rejected the text
