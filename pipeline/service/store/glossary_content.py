"""Glossary dictionaries as text: reading ``tsv``/``csv`` entries against every content rule.

One line holds one entry: source phrase, separator, target phrase (a tab for ``tsv``, a comma for
``csv``). Lines are split on line feed only (a trailing carriage return is dropped, so CRLF text
reads the same); empty lines are skipped. CSV follows the usual conventions, read one line at a
time: fields may be enclosed in double quotes, ``""`` inside an enclosed field is a quote, commas
inside quotes are text. A CSV line may carry a source and a target language after the phrases;
when they differ from the dictionary's pair (compared as base languages, any case) the entry is
ignored. A quoted field cannot span lines, since no phrase may hold a line break. A byte order
mark (U+FEFF) before the first line, which a spreadsheet's export read as text keeps, is dropped.

Every broken rule is a :class:`ContentError` whose message names the dictionary and the line:
wrong number of fields, invalid CSV, an empty phrase, a C0/C1 control character (tab and line feed
included) or Unicode newline inside a phrase, leading or trailing Unicode whitespace, a phrase over
1024 UTF-8 bytes, a source phrase given twice. The dictionary itself must hold at most 10 MB
(10,000,000 UTF-8 bytes) of entries text and at least one entry.

Stored and returned dictionaries are TSV (:func:`to_tsv`), which the rules make unambiguous.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Iterable, Iterator

from pipeline.patterns import lazy_regex
from pipeline.protocol import (
    MAX_GLOSSARY_DICTIONARY_BYTES,
    MAX_GLOSSARY_NAME_BYTES,
    MAX_GLOSSARY_PHRASE_BYTES,
    Dictionary,
)
from pipeline.service import languages
from pipeline.service.echo import echo

ENTRY_FORMATS = ("tsv", "csv")
#: C0 and C1 control characters (Unicode category Cc: tab, line feed, CR, NEL included) and the
#: Unicode line and paragraph separators.
_FORBIDDEN = lazy_regex("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class ContentError(ValueError):
    """A dictionary or name breaks a glossary content rule; the message says where and which."""


@functools.cache
def _glossary_codes() -> frozenset[str]:
    return frozenset(x.language.code.lower() for x in languages.resource_entries("glossary"))


def glossary_language(code: object, field: str) -> str:
    """The lower-case base code of a glossary language; ContentError when it is not one."""
    if not isinstance(code, str) or not code.strip():
        raise ContentError(f"'{field}' is required and must be a language code")
    lang = languages.find(code)
    if lang is None:
        raise ContentError(f"{field} {echo(code)} is not a supported glossary language")
    if lang.code.lower() not in _glossary_codes():
        raise ContentError(
            f"{field} {echo(code)} is not a glossary language: glossaries use base languages "
            f"({lang.base!r}) and apply to all of its variants"
        )
    return lang.base


def check_name(name: object) -> str:
    """A glossary name: a non-empty string of at most 1024 UTF-8 bytes."""
    if not isinstance(name, str) or not name.strip():
        raise ContentError("'name' is required and must be a non-empty string")
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_GLOSSARY_NAME_BYTES:
        raise ContentError(f"glossary name is {size} UTF-8 bytes; at most {MAX_GLOSSARY_NAME_BYTES} are allowed")
    return name


def phrase_problem(phrase: str) -> str | None:
    """What is wrong with one source or target phrase, or None when it is valid."""
    if not phrase:
        return "empty phrase"
    bad = _FORBIDDEN().search(phrase)
    if bad is not None:
        return f"control character or line break U+{ord(bad.group()):04X} in {echo(phrase)}"
    if phrase != phrase.strip():
        return f"leading or trailing whitespace in {echo(phrase)}"
    size = len(phrase.encode("utf-8", "surrogatepass"))
    if size > MAX_GLOSSARY_PHRASE_BYTES:
        return f"phrase is {size} UTF-8 bytes; at most {MAX_GLOSSARY_PHRASE_BYTES} are allowed"
    return None


def _lines(entries: str) -> Iterator[tuple[int, str]]:
    # A byte order mark at the start marks the file the entries were read from, not a phrase.
    for number, line in enumerate(entries.removeprefix("\ufeff").split("\n"), 1):
        line = line.removesuffix("\r")
        if line:
            yield number, line


def _csv_fields(line: str, where: str) -> list[str]:
    try:
        rows = list(csv.reader([line], strict=True))
    except csv.Error as exc:
        raise ContentError(f"{where}: invalid CSV ({exc})") from None
    return rows[0] if rows else []


def _same_base(code: str, base: str) -> bool:
    return languages.base_of(code) == base


def parse_dictionary(source_lang: str, target_lang: str, entries: object, entries_format: object) -> Dictionary:
    """Read one dictionary's entries text; ContentError naming the line on the first broken rule."""
    label = f"dictionary {source_lang}->{target_lang}"
    if entries_format not in ENTRY_FORMATS:
        raise ContentError(f"{label}: 'entries_format' must be one of {', '.join(ENTRY_FORMATS)}")
    if not isinstance(entries, str):
        raise ContentError(f"{label}: 'entries' is required and must be a string")
    size = len(entries.encode("utf-8", "surrogatepass"))
    if size > MAX_GLOSSARY_DICTIONARY_BYTES:
        raise ContentError(
            f"{label}: entries are {size} bytes; a dictionary may hold at most {MAX_GLOSSARY_DICTIONARY_BYTES} bytes"
        )
    pairs: list[tuple[str, str]] = []
    first_line: dict[str, int] = {}
    for number, line in _lines(entries):
        where = f"{label}, line {number}"
        if entries_format == "tsv":
            fields = line.split("\t")
            if len(fields) != 2:
                raise ContentError(
                    f"{where}: expected a source and a target phrase separated by one tab, found {len(fields)} fields"
                )
        else:
            fields = _csv_fields(line, where)
            if len(fields) not in (2, 4):
                raise ContentError(
                    f"{where}: expected source phrase, target phrase and optionally source and target "
                    f"language, found {len(fields)} fields"
                )
            if len(fields) == 4 and not (_same_base(fields[2], source_lang) and _same_base(fields[3], target_lang)):
                continue
        source, target = fields[0], fields[1]
        for side, phrase in (("source", source), ("target", target)):
            problem = phrase_problem(phrase)
            if problem is not None:
                raise ContentError(f"{where}: {side} phrase: {problem}")
        if source in first_line:
            raise ContentError(
                f"{where}: duplicate source phrase {echo(source)} (already on line {first_line[source]})"
            )
        first_line[source] = number
        pairs.append((source, target))
    if not pairs:
        raise ContentError(f"{label}: no entries; a dictionary needs at least one entry")
    return Dictionary(source_lang, target_lang, tuple(pairs))


def merge(existing: Iterable[tuple[str, str]], update: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """``existing`` with each source phrase of ``update`` replaced or added (new ones at the end)."""
    merged = dict(existing)
    merged.update(update)
    return tuple(merged.items())


def to_tsv(entries: Iterable[tuple[str, str]]) -> str:
    """Entries as TSV text, one ``source<TAB>target`` line each, newline-terminated."""
    return "".join(f"{source}\t{target}\n" for source, target in entries)


def from_tsv(text: str) -> tuple[tuple[str, str], ...]:
    """Entries of TSV text written by :func:`to_tsv` (valid by construction)."""
    pairs = []
    for line in text.split("\n"):
        if line:
            source, _, target = line.partition("\t")
            pairs.append((source, target))
    return tuple(pairs)


def check_size(label: str, tsv: str) -> None:
    """ContentError when a dictionary's stored (TSV) text is over the 10 MB limit (after a merge)."""
    size = len(tsv.encode("utf-8", "surrogatepass"))
    if size > MAX_GLOSSARY_DICTIONARY_BYTES:
        raise ContentError(
            f"{label}: the merged dictionary would be {size} bytes; "
            f"at most {MAX_GLOSSARY_DICTIONARY_BYTES} bytes are allowed"
        )
