"""The reference of every key (``docs/configuration.md``) and the keys ``pipeline init`` writes, both made
from :data:`pipeline.config.keys.KEYS`.

``python -m pipeline.config.reference > docs/configuration.md`` writes the document again after a
key changed; a test keeps the two equal.
"""

from __future__ import annotations

import textwrap

from pipeline.config.keys import KEYS, SECTIONS, Key, Section

__all__ = ["COLUMN", "WIDTH", "init_key", "init_keys", "reference"]

#: Where the comments of the reference start, and where its lines end.
COLUMN, WIDTH = 35, 110

#: How each section is written in the reference.
_HEADERS = {
    "": "",
    "locale": "[locale_defaults]",
    "locales": "[locales.de]",
    "style": "[locales.de.style]",
    "instruction": "[[locales.de.style.instructions]]",
}
#: Keys of these sections are written under another's header: [locales.<code>] takes [locale_defaults]'.
_KEYS_OF = {"locale_defaults": "locale", "locales": "(none: the keys of [locale_defaults])"}

_INTRO = """# Configuration

`pipeline.toml` in the project's folder (or `[tool.pipeline]` in `pyproject.toml`, or `--config
FILE`). Every key is optional; paths are relative to the file's folder. The environment
(`PIPELINE_SERVICE_URL`, `PIPELINE_CACHE_URL`; the service key only ever from `PIPELINE_AUTH_KEY`)
wins over the file, and the command line over both. A value a run cannot use (a wrong type, a
range, a glob that names no file, a URL the client would refuse) stops every command at once with
one line naming the file and the key (exit 2).

This page is made from the table of keys in `pipeline/config/keys.py` (`python -m
pipeline.config.reference > docs/configuration.md`); `pipeline init` writes its commented
`pipeline.toml` from the same table.
"""


def reference() -> str:
    """``docs/configuration.md``: every key of the file, section by section, with its example and what it does."""
    lines = [_INTRO, "```toml"]
    for section in SECTIONS:
        block = _section(section)
        if block:
            lines += [*block, ""]
    return "\n".join(lines).rstrip("\n") + "\n```\n"


def _section(section: Section) -> list[str]:
    name = _KEYS_OF.get(section.name, section.name)
    header = _HEADERS.get(section.name, f"[{section.name}]")
    lines = _line(header, section.doc) if header else []
    for key in KEYS:
        if key.section == name:
            lines += _line(f"{key.name} = {key.example}", key.doc)
    return lines


def _line(code: str, comment: str) -> list[str]:
    """``code``, and ``comment`` wrapped beside it from :data:`COLUMN` (below it when ``code`` reaches there)."""
    if not comment:
        return [code]
    wrapped = textwrap.wrap(comment, WIDTH - COLUMN - 2, break_on_hyphens=False)
    pad = " " * COLUMN
    if len(code) < COLUMN - 1:
        first, rest = f"{code.ljust(COLUMN)}# {wrapped[0]}", wrapped[1:]
        return [first, *(f"{pad}# {text}" for text in rest)]
    return [code, *(f"{pad}# {text}" for text in wrapped)]


def init_key(key: Key, value: str | None = None) -> list[str]:
    """One key as ``pipeline init`` writes it: its documentation as comments, then the key with ``value`` (its
    example by default), commented out unless the table says init sets it."""
    lines = [f"# {text}" for text in textwrap.wrap(key.doc, WIDTH - 2, break_on_hyphens=False)]
    return [*lines, f"{'' if key.init == 'set' else '# '}{key.name} = {key.example if value is None else value}"]


def init_keys(section: str) -> list[Key]:
    """The keys of ``section`` that ``pipeline init`` writes or comments out, in the table's order."""
    return [key for key in KEYS if key.section == section and key.init]


if __name__ == "__main__":  # pragma: no cover - the document's own command (see the module docstring)
    print(reference(), end="")
