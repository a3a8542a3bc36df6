"""A reviewer's decisions written into a PO file: only the lines of the entries decided change.

Per entry, as gettext's own tools leave a reviewed entry (``msgattrib --clear-fuzzy
--clear-previous``, Poedit):

- accepted or edited: the ``fuzzy`` flag goes (the ``#,`` line with it when no other flag is
  left), and so do the previous strings (``#|``) and the notes a run wrote for the reviewer
  (``# pipeline: ...``); an edit replaces the ``msgstr`` lines;
- rejected: the same, with every ``msgstr`` emptied, so the next run translates the entry again;
- kept for another look: the entry stays fuzzy and takes the reviewer's note as a translator
  comment (``# review: ...``).

Every other line of the file, the decided entries' other comments and their ``msgid`` lines
included, is copied byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pipeline.catalogs.base import Reviewed, Unit
from pipeline.catalogs.po_lines import Lines
from pipeline.catalogs.po_strings import format_field

#: How a reviewer's note starts, as a translator comment: ``# review: wrong term for "file"``.
NOTE_PREFIX = "review: "
#: How the notes a run writes for the reviewer start (``# pipeline: reused from ...``).
RUN_NOTE_PREFIX = "pipeline: "
_KEYWORDS = ("msgctxt", "msgid")


def render_reviewed(
    raw: bytes,
    encoding: str,
    ranges: Sequence[tuple[int, int]],
    units: Sequence[Unit],
    decisions: Mapping[int, Reviewed],
) -> bytes:
    """``raw`` with ``decisions`` (unit index -> decision) written in; ``ranges`` gives each unit's lines."""
    for index, decision in decisions.items():
        unit = units[index]
        if decision.targets is not None and len(decision.targets) != unit.nforms:
            raise ValueError(f"unit {index} needs {unit.nforms} forms, got {len(decision.targets)}")
        if decision.note is not None and not decision.pending:
            raise ValueError("a note goes with an entry kept for review")
    lines = Lines(raw)
    newline = "\r\n" if len(lines) and lines[0].endswith(b"\r\n") else "\n"
    out: list[bytes] = []
    at = 0
    for index in sorted(decisions, key=lambda i: ranges[i][0]):
        first, end = ranges[index]
        out.append(raw[lines.starts[at] : lines.starts[first]])
        block = [lines[i].decode(encoding) for i in range(first, end)]
        entry = _entry(block, units[index], decisions[index], newline, encoding)
        out.append(entry.encode(encoding))
        at = end
    out.append(raw[lines.starts[at] :])
    return b"".join(out)


def _entry(block: list[str], unit: Unit, decision: Reviewed, newline: str, encoding: str) -> str:
    """One entry's lines (each with its line end) as the decision leaves them."""
    msgstr_at = next(i for i, line in enumerate(block) if line.lstrip().startswith("msgstr"))
    head: list[str] = []
    if decision.note is not None:
        head.append(f"# {NOTE_PREFIX}{_comment(decision.note, encoding)}{newline}")
    in_comments = True
    for line in block[:msgstr_at]:
        text = line.strip()
        if in_comments and text.startswith(_KEYWORDS):
            in_comments = False
        if not in_comments or decision.pending:
            head.append(line)
        elif text.startswith("#,"):
            flags = [flag.strip() for flag in text[2:].split(",") if flag.strip()]
            if "fuzzy" not in flags:
                head.append(line)
            elif len(flags) > 1:
                head.append(f"#, {', '.join(f for f in flags if f != 'fuzzy')}{_end(line)}")
        elif not (text.startswith("#|") or text.startswith(f"# {RUN_NOTE_PREFIX}")):
            head.append(line)
    if decision.targets is None:
        return "".join(head + block[msgstr_at:])
    if unit.plural:
        fields = [ln for i, form in enumerate(decision.targets) for ln in format_field(f"msgstr[{i}]", form)]
    else:
        fields = format_field("msgstr", decision.targets[0])
    return "".join(head) + newline.join(fields) + _end(block[-1])


def _end(line: str) -> str:
    """The line end ``line`` has: CRLF, LF, or none (the last line of a file without a final newline)."""
    return "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""


def _comment(note: str, encoding: str) -> str:
    """``note`` as one comment line that ``encoding`` holds: line breaks and NUL as spaces, the rest escaped."""
    flat = " ".join(note.replace("\x00", " ").split())
    return flat.encode(encoding, "backslashreplace").decode(encoding)
