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
from pipeline.catalogs.po_strings import flags_in, format_field

#: How a reviewer's note starts, as a translator comment: ``# review: wrong term for "file"``.
NOTE_PREFIX = "review: "
#: How the notes a run writes for the reviewer start (``# pipeline: reused from ...``).
RUN_NOTE_PREFIX = "pipeline: "
_KEYWORDS = ("msgctxt", "msgid")


def render_reviewed(
    raw: bytes,
    starts: Sequence[int],
    encoding: str,
    ranges: Sequence[tuple[int, int]],
    units: Sequence[Unit],
    decisions: Mapping[int, Reviewed],
) -> bytes:
    """``raw`` with ``decisions`` (unit index -> decision) written in; ``starts``: where each of its lines starts
    (and where the last ends), as the reader split them; ``ranges`` gives each unit's lines."""
    for index, decision in decisions.items():
        unit = units[index]
        if decision.targets is not None and len(decision.targets) != unit.nforms:
            raise ValueError(f"unit {index} needs {unit.nforms} forms, got {len(decision.targets)}")
        if decision.note is not None and not decision.pending:
            raise ValueError("a note goes with an entry kept for review")
    newline = (_end(raw[starts[0] : starts[1]].decode(encoding)) if len(starts) > 1 else "") or "\n"
    out: list[bytes] = []
    at = 0
    for index in sorted(decisions, key=lambda i: ranges[i][0]):
        first, end = ranges[index]
        out.append(raw[starts[at] : starts[first]])
        block = [raw[starts[i] : starts[i + 1]].decode(encoding) for i in range(first, end)]
        entry = _entry(block, units[index], decisions[index], newline, encoding)
        out.append(entry.encode(encoding))
        at = end
    out.append(raw[starts[at] :])
    return b"".join(out)


def _entry(block: list[str], unit: Unit, decision: Reviewed, newline: str, encoding: str) -> str:
    """One entry's lines (each with its line end) as the decision leaves them."""
    msgstr_at = next(i for i, line in enumerate(block) if line.lstrip().startswith("msgstr"))
    head: list[str] = []
    if decision.note is not None:
        end = "\r\n" if newline == "\r" else newline  # lone CRs: CRLF, as msgfmt runs a comment on to a line feed
        head.append(f"# {NOTE_PREFIX}{_comment(decision.note, encoding)}{end}")
    in_comments = True
    for line in block[:msgstr_at]:
        text = line.strip()
        if in_comments and text.startswith(_KEYWORDS):
            in_comments = False
        if not in_comments or decision.pending:
            head.append(line)
        elif text.startswith("#,"):
            flags = flags_in(text[2:])
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
    """The line end ``line`` has: CRLF, LF, a lone CR (old Mac line endings), or none (the last line of a file
    without a final newline)."""
    if line.endswith("\r\n"):
        return "\r\n"
    return line[-1] if line.endswith(("\n", "\r")) else ""


def _comment(note: str, encoding: str) -> str:
    """``note`` as one comment line that ``encoding`` holds: line breaks and NUL as spaces, the rest escaped."""
    flat = " ".join(note.replace("\x00", " ").split())
    return flat.encode(encoding, "backslashreplace").decode(encoding)
