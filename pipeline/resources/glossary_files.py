"""Glossary files of the repository: read, checked against the service's content rules, merged.

Two shapes are accepted (see docs/glossaries-and-style.md):

- a file per language pair, listed under ``[locales.<code>] glossaries`` (or the defaults):
  ``.tsv`` lines ``source<TAB>target``; ``.csv`` lines ``source,target`` with standard quoting and
  an optional ``source_lang,target_lang`` pair after them (lines of another pair are ignored, as
  the service ignores them);
- a multilingual ``.csv`` listed under ``[resources] multilingual_glossaries``: a header row of
  locale codes, the source language's among them, then one term per row; an empty cell means
  "no entry for that language".

Every phrase is checked with the client's own rules (:mod:`pipeline.client.limits`) before
anything is sent; errors name the file and line. Empty lines are skipped.
"""

import csv
import functools
import hashlib
from pathlib import Path
from typing import NamedTuple

from pipeline import protocol
from pipeline.client import limits
from pipeline.errors import ClientLimitError, ConfigError
from pipeline.files.untrusted import read_regular
from pipeline.locales import base_language

#: The largest glossary file read: what a dictionary may hold on the service (10 MB), with room for a
#: CSV's quotes and several language pairs; a larger file (a link to /dev/zero) is not read.
GLOSSARY_FILE_BYTES = 64 * 1024 * 1024


class Entry(NamedTuple):
    """One source phrase and its target phrase, with where it was read."""

    source: str
    target: str
    where: str  # "path:line"


class Dictionary(protocol.Dictionary):
    """The entries of one language pair (base languages: glossaries apply to every variant)."""

    def tsv(self) -> str:
        """The entries as the service's ``tsv`` format."""
        return limits.format_entries(self.entries)

    @functools.cached_property  # asked for every segment's cache key
    def content_hash(self) -> str:
        """12 hex digits naming this pair's content (sorted, so reordering a file changes nothing)."""
        return _digest(self.source_lang, self.target_lang, *(f"{s}\t{t}" for s, t in sorted(self.entries)))

    @functools.cached_property
    def _folded(self) -> tuple[tuple[str, tuple[str, str]], ...]:
        return tuple((source.casefold(), (source, target)) for source, target in self.entries)

    def matched_hash(self, text: str) -> str | None:
        """Hash of the entries whose source phrase occurs in ``text`` (case-insensitively), or None.

        A substring test, so a change to "file" also counts for "files" and "profile": a segment
        may be translated again without need, never kept stale because of an inflection that
        extends the phrase.
        """
        folded = text.casefold()
        matched = sorted(entry for key, entry in self._folded if key in folded)
        return _digest(self.source_lang, self.target_lang, *(f"{s}\t{t}" for s, t in matched)) if matched else None


def _digest(*parts: str) -> str:
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:12]


def read_pair_file(path: Path, display: str, source: str, target: str) -> list[Entry]:
    """The entries of a one-pair ``.tsv`` or ``.csv`` file for ``source -> target`` (base codes)."""
    fmt = _format(path, display)
    entries: list[Entry] = []
    first_line: dict[str, int] = {}
    for number, fields in _rows(path, display, fmt):
        where = f"{display}:{number}"
        if len(fields) not in ((2, 4) if fmt == "csv" else (2,)):
            expected = (
                "2 fields (source, target) or 4 (with source_lang, target_lang)"
                if fmt == "csv"
                else "2 tab-separated fields (source, target)"
            )
            raise ConfigError(f"{where}: expected {expected}, found {len(fields)}")
        if len(fields) == 4 and (base_language(fields[2]), base_language(fields[3])) != (source, target):
            continue
        entries.append(_entry(fields[0], fields[1], where, first_line, number))
    return entries


def read_multilingual(path: Path, display: str, source: str) -> dict[str, list[Entry]]:
    """Target base code -> entries, from a CSV whose header row names the languages."""
    if _format(path, display) != "csv":
        raise ConfigError(f"{display}: a multilingual glossary must be a .csv file")
    rows = iter(_rows(path, display, "csv"))
    header_row = next(rows, None)
    if header_row is None:
        raise ConfigError(f"{display}: empty file; the first row must name the languages (e.g. en,de,fr)")
    header_line, header = header_row
    bases = [base_language(code.strip()) if code.strip() else "" for code in header]
    if bases.count(source) != 1:
        raise ConfigError(
            f"{display}:{header_line}: the header row must have exactly one column for the source "
            f"language {source!r}, found {bases.count(source)}"
        )
    columns: dict[str, int] = {}
    for index, (code, base) in enumerate(zip(header, bases, strict=True)):
        if not base or not base.isalpha():
            raise ConfigError(f"{display}:{header_line}: column {index + 1} ({code!r}) is not a language code")
        if base in columns:
            raise ConfigError(
                f"{display}:{header_line}: columns {header[columns[base]]!r} and {code!r} both map to "
                f"the {base!r} dictionary (glossaries apply to a base language)"
            )
        columns[base] = index
    source_index = columns.pop(source)
    out: dict[str, list[Entry]] = {base: [] for base in columns}
    first_line: dict[str, dict[str, int]] = {base: {} for base in columns}
    for number, fields in rows:
        where = f"{display}:{number}"
        if len(fields) != len(header):
            raise ConfigError(f"{where}: expected {len(header)} fields as in the header row, found {len(fields)}")
        if not any(fields):
            continue
        for base, index in columns.items():
            if fields[index]:
                out[base].append(_entry(fields[source_index], fields[index], where, first_line[base], number))
    return out


def merge(sources: list[list[Entry]]) -> tuple[tuple[str, str], ...]:
    """One pair's entries from several files in order; a later file's phrase replaces an earlier one's."""
    merged: dict[str, str] = {}
    for entries in sources:
        for entry in entries:
            merged.pop(entry.source, None)
            merged[entry.source] = entry.target
    return tuple(merged.items())


def _entry(source: str, target: str, where: str, first_line: dict[str, int], number: int) -> Entry:
    try:
        limits.check_glossary_phrase(source, f"{where} (source)")
        limits.check_glossary_phrase(target, f"{where} (target)")
    except ClientLimitError as exc:
        raise ConfigError(str(exc)) from None
    if source in first_line:
        raise ConfigError(
            f"{where}: duplicate source entry {source!r} (first on line {first_line[source]}); "
            f"the service refuses duplicates"
        )
    first_line[source] = number
    return Entry(source, target, where)


def _format(path: Path, display: str) -> str:
    suffix = path.suffix.lower()
    if suffix not in (".tsv", ".csv"):
        raise ConfigError(f"{display}: a glossary file must end in .tsv or .csv")
    return suffix[1:]


def _rows(path: Path, display: str, fmt: str) -> list[tuple[int, list[str]]]:
    """(line number, fields) of each non-empty line; a quoted field may not span lines."""
    try:
        data = read_regular(path, GLOSSARY_FILE_BYTES)
        text = data.decode("utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(f"{display}: glossary file not found") from None
    except OSError as exc:
        raise ConfigError(f"{display}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        bad = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{display}:{bad}: not valid UTF-8") from None
    rows = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if not line:
            continue
        if fmt == "tsv":
            rows.append((number, line.split("\t")))
            continue
        try:
            rows.append((number, next(csv.reader([line], strict=True))))
        except csv.Error as exc:
            raise ConfigError(f"{display}:{number}: invalid CSV ({exc})") from None
    return rows
