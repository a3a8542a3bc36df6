"""Client-side checks of the service's limits and rules, run before anything is sent.

Each check raises :class:`~pipeline.errors.ClientLimitError` with a message that names the limit,
so a caller learns what to change without spending a request (or characters) on it.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from datetime import date

from pipeline import protocol
from pipeline.errors import ClientLimitError


def check_choice(name: str, value: str | None, allowed: Collection[str]) -> None:
    """``value`` is None or one of ``allowed``."""
    if value is not None and value not in allowed:
        raise ClientLimitError(f"{name}={value!r} is not one of {', '.join(allowed)}")


def check_range(name: str, value: int | None, low: int, high: int) -> None:
    """``value`` is None or within ``low..high``."""
    if value is not None and not low <= value <= high:
        raise ClientLimitError(f"{name}={value} is outside {low}..{high}")


def check_tm_threshold(value: int | None) -> None:
    """``translation_memory_threshold`` is None or a percentage."""
    check_range("translation_memory_threshold", value, protocol.TM_THRESHOLD_MIN, protocol.TM_THRESHOLD_MAX)


def check_length(name: str, value: str, limit: int) -> None:
    """``value`` has at most ``limit`` characters."""
    if len(value) > limit:
        raise ClientLimitError(f"{name} has {len(value)} characters; the limit is {limit}")


def check_strings(name: str, values: Sequence[str]) -> None:
    """``values`` is a sequence of strings, not one string (``list("keep")`` would send four items)."""
    if isinstance(values, str):
        raise TypeError(f"{name} must be a sequence of strings, not a single string")


def check_texts(texts: Sequence[str], limit: int | None = None) -> None:
    """At least one text and, with ``limit``, at most that many."""
    check_strings("texts", texts)
    if not texts:
        raise ClientLimitError("at least one text is required")
    if limit is not None and len(texts) > limit:
        raise ClientLimitError(f"{len(texts)} texts in one request; the limit is {limit}")


def check_body_size(what: str, size: int, limit: int) -> None:
    """An encoded body of ``size`` bytes fits ``limit``."""
    if size > limit:
        raise ClientLimitError(f"{what} body is {size} bytes; the limit is {limit} bytes ({limit // 1024} KiB)")


def check_custom_instructions(instructions: Sequence[str]) -> None:
    """At most 10 ``custom_instructions`` on a translation, 300 characters each."""
    if len(instructions) > protocol.MAX_CUSTOM_INSTRUCTIONS:
        raise ClientLimitError(
            f"{len(instructions)} custom_instructions; the limit is {protocol.MAX_CUSTOM_INSTRUCTIONS}"
        )
    for number, instruction in enumerate(instructions, 1):
        check_length(f"custom_instructions[{number}]", instruction, protocol.MAX_CUSTOM_INSTRUCTION_CHARS)


def check_translate_combinations(params: dict[str, object]) -> None:
    """The option combinations that the spec's translation rules 4 to 6 reject."""
    if params.get("model_type") == "latency_optimized":
        if params.get("tag_handling_version") == "v2":
            raise ClientLimitError("tag_handling_version=v2 cannot be combined with model_type=latency_optimized")
        for name in ("style_id", "custom_instructions", "translation_memory_id"):
            if name in params:
                raise ClientLimitError(f"{name} cannot be combined with model_type=latency_optimized")
    check_glossary_source(params.get("glossary_id"), params.get("source_lang"))


def check_glossary_source(glossary_id: object, source_lang: object) -> None:
    """A glossary needs an explicit ``source_lang`` (translation and document upload alike)."""
    if glossary_id is not None and source_lang is None:
        raise ClientLimitError("glossary_id requires source_lang")


def check_write_options(writing_style: str | None, tone: str | None) -> None:
    """``writing_style`` and ``tone`` exclude each other, unless one of them is ``default`` (as the service
    and its official clients accept)."""
    if writing_style not in (None, "default") and tone not in (None, "default"):
        raise ClientLimitError("writing_style and tone cannot be sent in the same request")


def check_date_range(start: date | str, end: date | str) -> None:
    """An analytics range is ordered and at most 366 days long (checked when given as dates)."""
    if isinstance(start, date) and isinstance(end, date):
        if end < start:
            raise ClientLimitError(f"end_date {end} is before start_date {start}")
        days = (end - start).days
        if days > protocol.MAX_ANALYTICS_RANGE_DAYS:
            raise ClientLimitError(
                f"analytics range is {days} days; the limit is {protocol.MAX_ANALYTICS_RANGE_DAYS} days"
            )


# --- Style rules ----------------------------------------------------------------------------


def check_style_name(name: str) -> None:
    """A style rule list name: non-empty, at most 1024 characters."""
    if not name:
        raise ClientLimitError("a style rule list needs a name")
    check_length("style rule list name", name, protocol.MAX_STYLE_LIST_NAME_CHARS)


def check_custom_instruction(label: str, prompt: str) -> None:
    """A style rule list's custom instruction: label up to 100, prompt up to 300 characters."""
    if not label or not prompt:
        raise ClientLimitError("a custom instruction needs a label and a prompt")
    check_length("custom instruction label", label, protocol.MAX_STYLE_INSTRUCTION_LABEL_CHARS)
    check_length("custom instruction prompt", prompt, protocol.MAX_STYLE_INSTRUCTION_PROMPT_CHARS)


# --- Glossaries -----------------------------------------------------------------------------

_NEWLINES = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def check_glossary_name(name: str) -> None:
    """A glossary name: non-empty, at most 1024 UTF-8 bytes."""
    if not name:
        raise ClientLimitError("a glossary needs a name")
    size = len(name.encode("utf-8"))
    if size > protocol.MAX_GLOSSARY_NAME_BYTES:
        raise ClientLimitError(f"glossary name is {size} bytes; the limit is {protocol.MAX_GLOSSARY_NAME_BYTES}")


def check_glossary_phrase(phrase: str, where: str) -> None:
    """One source or target phrase against the spec's glossary content rules."""
    if not phrase:
        raise ClientLimitError(f"{where}: empty phrase")
    if phrase != phrase.strip():
        raise ClientLimitError(f"{where}: leading or trailing whitespace in {phrase!r}")
    for char in phrase:
        if char in _NEWLINES or unicodedata.category(char) == "Cc":
            raise ClientLimitError(f"{where}: control character U+{ord(char):04X} in {phrase!r}")
    size = len(phrase.encode("utf-8"))
    if size > protocol.MAX_GLOSSARY_PHRASE_BYTES:
        raise ClientLimitError(f"{where}: phrase is {size} bytes; the limit is {protocol.MAX_GLOSSARY_PHRASE_BYTES}")


def parse_entries(entries: str, entries_format: str, source_lang: str, target_lang: str) -> list[tuple[str, str]]:
    """The (source, target) pairs of a dictionary's entries text, checked against the content rules.

    CSV lines naming another language pair in their third and fourth fields are skipped, as the
    service ignores them. Empty lines are skipped.
    """
    check_choice("entries_format", entries_format, ("tsv", "csv"))
    size = len(entries.encode("utf-8"))
    if size > protocol.MAX_GLOSSARY_DICTIONARY_BYTES:
        raise ClientLimitError(
            f"{source_lang}->{target_lang} dictionary is {size} bytes; "
            f"the limit is {protocol.MAX_GLOSSARY_DICTIONARY_BYTES}"
        )
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    pair = (source_lang.lower(), target_lang.lower())
    for number, fields in _entry_rows(entries, entries_format):
        where = f"{source_lang}->{target_lang} entry line {number}"
        if len(fields) not in ((2, 4) if entries_format == "csv" else (2,)):
            raise ClientLimitError(f"{where}: expected a source and a target phrase, found {len(fields)} fields")
        if len(fields) == 4 and (fields[2].lower(), fields[3].lower()) != pair:
            continue
        source, target = fields[0], fields[1]
        check_glossary_phrase(source, f"{where} (source)")
        check_glossary_phrase(target, f"{where} (target)")
        if source in seen:
            raise ClientLimitError(f"{where}: duplicate source entry {source!r}")
        seen.add(source)
        pairs.append((source, target))
    if not pairs:
        raise ClientLimitError(f"{source_lang}->{target_lang} dictionary has no entries")
    return pairs


def _entry_rows(entries: str, entries_format: str) -> Iterable[tuple[int, list[str]]]:
    """(line number, fields) for each non-empty line."""
    lines = entries.split("\n")
    for number, line in enumerate(lines, 1):
        line = line.removesuffix("\r")
        if not line:
            continue
        if entries_format == "tsv":
            yield number, line.split("\t")
        else:
            try:
                yield number, next(csv.reader(io.StringIO(line), strict=True))
            except csv.Error as exc:
                raise ClientLimitError(f"entry line {number}: invalid CSV ({exc})") from None


def format_entries(pairs: Iterable[tuple[str, str]]) -> str:
    """TSV entries text for ``pairs`` (the format the service returns)."""
    return "".join(f"{source}\t{target}\n" for source, target in pairs)
