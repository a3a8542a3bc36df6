"""Plain text (``txt``) and SubRip subtitles (``srt``).

Text files are translated line by line, so line breaks, blank lines and line endings stay
exactly where they were. Subtitles keep cue numbers and timings untouched; the lines of one cue
are translated together (basic ``<i>``/``<b>``/``<font>`` tags are kept). Both decode as UTF-8
unless a UTF-8 or UTF-16 byte-order mark says otherwise, and are written back the same way.
"""

from __future__ import annotations

import re

from pipeline.service.documents.base import DocumentError, Translator, decode_text, encode_text
from pipeline.service.echo import echo

_TIMING = re.compile(r"^\s*\d{1,3}:\d{2}:\d{2}[,.]\d{1,3}\s*-->\s*\d{1,3}:\d{2}:\d{2}[,.]\d{1,3}(?:\s+.*)?$")


def _lines(text: str) -> list[tuple[str, str]]:
    """(content, line ending) pairs; joining them gives ``text`` back."""
    out = []
    for line in text.splitlines(keepends=True):
        content = line.rstrip("\r\n")
        out.append((content, line[len(content) :]))
    return out


def check_txt(data: bytes) -> None:
    """Refuse text that cannot be decoded."""
    decode_text(data, "txt")


def translate_txt(data: bytes, translate: Translator) -> bytes:
    """Translate every non-blank line."""
    text, encoding, bom = decode_text(data, "txt")
    lines = _lines(text)
    wanted = [i for i, (content, _) in enumerate(lines) if content.strip()]
    done = translate([lines[i][0] for i in wanted])
    for i, translated in zip(wanted, done, strict=True):
        lines[i] = (translated, lines[i][1])
    return encode_text("".join(c + e for c, e in lines), encoding, bom)


def _cues(lines: list[tuple[str, str]]) -> list[tuple[int, int]]:
    """(first, end) line ranges of each cue's text; DocumentError naming the line otherwise."""
    cues = []
    i = 0
    while i < len(lines):
        if not lines[i][0].strip():
            i += 1
            continue
        if not lines[i][0].strip().isdigit():
            raise DocumentError(f"srt line {i + 1}: expected a cue number, found {echo(lines[i][0][:40])}")
        if i + 1 >= len(lines) or not _TIMING.match(lines[i + 1][0]):
            raise DocumentError(f"srt line {i + 2}: expected a timing line 'HH:MM:SS,mmm --> HH:MM:SS,mmm'")
        first = end = i + 2
        while end < len(lines) and lines[end][0].strip():
            end += 1
        cues.append((first, end))
        i = end
    return cues


def check_srt(data: bytes) -> None:
    """Refuse a file that is not SubRip."""
    text, _, _ = decode_text(data, "srt")
    if not _cues(_lines(text)):
        raise DocumentError("the srt file holds no subtitle cue")


def translate_srt(data: bytes, translate: Translator) -> bytes:
    """Translate the text of every cue; numbers and timings are kept."""
    text, encoding, bom = decode_text(data, "srt")
    lines = _lines(text)
    cues = [(a, b) for a, b in _cues(lines) if b > a]
    done = translate(["\n".join(lines[k][0] for k in range(a, b)) for a, b in cues], "html")
    out: list[str] = []
    position = 0
    for (first, end), translated in zip(cues, done, strict=True):
        out.extend(c + e for c, e in lines[position:first])
        ending = lines[first][1] or "\n"
        new = translated.split("\n")
        out.extend(part + (ending if k < len(new) - 1 else lines[end - 1][1]) for k, part in enumerate(new))
        position = end
    out.extend(c + e for c, e in lines[position:])
    return encode_text("".join(out), encoding, bom)
