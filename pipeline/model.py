"""Small records of what a run finds out, which every run needs: issues, their severity and cause, counters.

The records of the text itself (segments, their protected form and placeholders, the options that
change a translation) are :mod:`pipeline.segments`'s: a run with nothing new never creates them
(each record class costs a fresh process its creation).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, replace

#: Version of the protected form (:class:`pipeline.segments.Protected`, made by :mod:`pipeline.placeholders.protect`),
#: part of every cache key and run fingerprint: bump it when the protected form of any text changes.
#: Kept here, so that a run with nothing to translate can check its fingerprints without loading the
#: segment records or the placeholder grammars.
SCHEME_VERSION = "x-tags/8"  # 8: e2fsck's %Iu %Dn and @-abbreviations, brace sets of options


class Severity(enum.StrEnum):
    """How much an :class:`Issue` matters; the values are what the reports print."""

    ERROR = "error"  # counts as failed: the run exits 1, the catalog is not settled
    WARNING = "warning"  # written, but worth a look (an approximate plural, a feature left out)
    SKIPPED = "skipped"  # deliberately left for a human (a partial plural, a template)


class Cause(enum.Enum):
    """Why an error lasts: a rerun with the same inputs cannot change it, so the catalog is settled with it."""

    INPUT = "input"  # the catalog (or the settings) must change first
    LANGUAGE = "language"  # the service does not offer the language, until its language list changes


class Alert(str):
    """A progress message a user must see even with ``--quiet`` (the CLI's quiet log still prints it).

    A plain ``str`` to every other receiver of a run's log.
    """

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Issue:
    """A per-segment or per-catalog problem: reported, never raised."""

    catalog: str
    reason: str
    line: int | None = None
    target_lang: str | None = None
    severity: Severity = Severity.ERROR
    cause: Cause | None = None  # set when the problem lasts whatever the run does (see Cause)

    def __post_init__(self) -> None:
        # Replayed notices come back from state.json as plain strings: one type from here on.
        object.__setattr__(self, "severity", Severity(self.severity))
        if self.cause is not None:
            object.__setattr__(self, "cause", Cause(self.cause))

    def where(self) -> str:
        """``path:line`` (or just the path) for messages."""
        return f"{self.catalog}:{self.line}" if self.line else self.catalog


#: Lines named of a problem said once for many entries of a catalog (:func:`said_once`).
SHOWN_LINES = 3


def said_once(issues: Iterable[Issue]) -> list[Issue]:
    """``issues`` as people read them: a problem many entries of one catalog share (the same reason, severity
    and language) said once, at its first line, with how many entries and their first lines.

    A catalog whose header lacks a plural rule, or says another nplurals than its entries have,
    otherwise fills a screen with one line per entry. The report's JSON keeps one issue per entry.
    """
    groups: dict[tuple[str, str, Severity, str | None], list[Issue]] = {}
    for issue in issues:
        groups.setdefault((issue.catalog, issue.reason, issue.severity, issue.target_lang), []).append(issue)
    said: list[Issue] = []
    for same in groups.values():
        if len(same) == 1:
            said.append(same[0])
            continue
        lines = sorted({i.line for i in same if i.line})
        if len(lines) < 2:
            said.append(same[0])
            continue
        shown = ", ".join(map(str, lines[:SHOWN_LINES])) + (", …" if len(lines) > SHOWN_LINES else "")
        said.append(replace(same[0], reason=f"{same[0].reason} ({len(same)} entries: lines {shown})", line=lines[0]))
    return said


@dataclass(slots=True)
class Counters:
    """Per-catalog (and total) tallies shown in the report."""

    billed_characters: int = 0
    characters_saved: int = 0
    requests: int = 0
    segments_translated: int = 0  # translated by the service and written
    # Translated by the service (and billed) but not written: the catalog's write failed (a full disk),
    # it changed during the run, or the run wrote nothing. Cached (RunReport.translations_cached).
    segments_not_written: int = 0
    segments_from_cache: int = 0
    segments_copied: int = 0
    segments_failed: int = 0
    segments_skipped: int = 0
    # A reviewed translation of the same entry elsewhere (a sibling catalog, a compendium), written at
    # no cost; the characters its texts would have been billed.
    segments_reused: int = 0
    characters_reused: int = 0
    # Length limits: segments sent again asking for at most N characters; units written over their
    # limit all the same (marked for review) or, as configured, left untranslated.
    length_retried: int = 0
    length_over: int = 0
    length_refused: int = 0
    # Units marked for review once the run is done (fuzzy in PO, needs-review in XLIFF): what
    # `pipeline review` lists.
    awaiting_review: int = 0

    def add(self, other: Counters) -> None:
        """Add ``other``'s tallies to this one."""
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))
