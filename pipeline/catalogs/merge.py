"""Update a PO catalog from its POT template with ``msgmerge --previous`` semantics, editing in place.

Matching, as msgmerge does it:

- a template entry whose (msgctxt, msgid, msgid_plural) is in the catalog keeps that entry, with its
  translation, translator comments and fuzzy flag; an obsolete (``#~``) entry that matches comes back;
- otherwise the most similar translated entry (live or obsolete, any msgctxt) whose msgid is at least
  as alike as msgmerge's threshold (:mod:`pipeline.catalogs.similar`) lends its translation: the new
  entry is marked fuzzy and records the previous msgctxt/msgid/msgid_plural in ``#|`` lines, and the
  lending entry is used up;
- otherwise the template entry is added untranslated;
- a catalog entry nothing uses becomes obsolete when it has a translation, and goes when it has none;
- a kept entry becomes fuzzy, with its own msgid as the previous one, where the template turns on a
  format its translation does not satisfy as ``msgfmt -c`` judges it (``#, python-brace-format``
  added, ``{default.__name__}`` missing), or widens its ``range:``: a catalog that compiled before
  the merge compiles after it;
- unlike msgmerge, so does one whose Zope Default text the template changed (:mod:`.po_scan.defaults`).

Unlike msgmerge, the file is not re-serialized: header, untouched entries, wrapping, order and line
endings stay byte for byte. Kept entries get the template's ``#.``, ``#:`` and format flags, their lines
rewritten only when those changed; new and changed entries go after the entry that precedes them in
the template; newly obsolete ones go to the end. A second merge with the same template changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from pipeline.catalogs.po import PoRead, read_po_text
from pipeline.catalogs.po_lines import lone_crs
from pipeline.catalogs.po_scan import Entry
from pipeline.catalogs.po_scan.defaults import default_changed
from pipeline.catalogs.po_strings import WRAP_WIDTH, format_field
from pipeline.catalogs.similar import Lenders
from pipeline.errors import CatalogError
from pipeline.plural_rules import PluralRule

_POT_DATE = re.compile(r'^(\s*"POT-Creation-Date:\s*)([^"\\]*)(\\n")')
_TEMPLATE_COMMENT = ("#.", "#:", "#,", "#|")
_KEYWORD_START = re.compile(r"\s*(?:#~\s*)?(msgctxt|msgid)\b")


class MergeResult(NamedTuple):
    """What a merge did to one catalog; ``data`` is the new file, equal to the old one when nothing changed."""

    data: bytes
    changed: bool
    added: int = 0
    fuzzy: int = 0
    obsoleted: int = 0
    revived: int = 0
    removed: int = 0


class _Block(NamedTuple):
    """One entry of the output, and the lines before it: the file's lines ``start`` to ``end`` (copied as they
    are: the lines before the entry, and the entry itself where the merge leaves it as it is), then
    ``lines``, made by the merge; and the template position it serves (None: obsolete).

    An entry left as it is is a range of the file, never a list of its lines: most entries of a merge
    stay as they are, and the ranges of neighbours are copied as one.
    """

    position: int | None
    start: int
    end: int
    lines: Sequence[str] = ()


#: An entry's ``#:`` lines, stripped: its references as written, parsed only where they are compared
#: with others that are written differently, or written anew (:func:`_occurrences`).
References = tuple[str, ...]


class Template(NamedTuple):
    """A template as merges use it: its live entries (the scanner's: msgfmt's reading of the strings), its
    lines (where each entry's comments are read from when they are compared) and its header fields; read
    once for all its catalogs."""

    entries: tuple[Entry, ...]
    lines: list[str]  # each with its newline, as :func:`_terminated_lines` gives them
    metadata: dict[str, str]


def read_template(path: Path, raw: bytes | None = None) -> Template:
    """The template at ``path`` (or ``raw``, its bytes), read by the strict reader: a broken one is refused
    with its line."""
    template, lines = read_po_text(path, raw)
    live = tuple(e for e in template.spans if not e.obsolete)
    return Template(live, _terminated_lines(template, lines), dict(template.metadata))


def merge(catalog_path: Path, template_path: Path) -> MergeResult:
    """The catalog at ``catalog_path`` updated from ``template_path``; nothing is written."""
    return merge_read(catalog_path, None, read_template(template_path))


def merge_read(catalog_path: Path, raw: bytes | None, template: Template) -> MergeResult:
    """The catalog at ``catalog_path`` (or ``raw``, its bytes as read) updated from ``template``."""
    catalog, lines = read_po_text(catalog_path, raw)  # the strict reader: refused with its line
    # Each file is read and decoded once: what is merged is what was checked.
    return _Merger(catalog, template, _terminated_lines(catalog, lines)).run(catalog.raw)


def _terminated_lines(read: PoRead, lines: Sequence[str]) -> list[str]:
    """The file's ``lines`` as the reader decoded and numbered them, each with its newline again: a line
    ends after a LF only (a lone CR is inside a line, as msgfmt reads it), or in a file of old Mac line
    endings after its lone CR, and the last one has none where the file ends without one."""
    if lone_crs(read.raw):  # the reader read each lone CR as a LF, at the same offsets
        raw, starts = read.raw, read.starts
        terminated = [line + chr(raw[starts[i + 1] - 1]) for i, line in enumerate(lines)]
    else:
        terminated = [line + "\n" for line in lines]
    if terminated and not read.raw.endswith((b"\n", b"\r")):
        terminated[-1] = lines[-1]
    return terminated


def _references(entry: Entry, lines: list[str]) -> References:
    """The entry's ``#:`` lines (``lines``: those of its file)."""
    return tuple([text for line in lines[entry.first : entry.msgid_line] if (text := line.strip()).startswith("#:")])


def _occurrences(references: References) -> tuple[tuple[str, str], ...]:
    """The references of an entry's ``#:`` lines (``file:line``, or a name without a line), as polib reads them."""
    found: list[tuple[str, str]] = []
    for text in references:
        for ref in text[2:].split():  # "#:file:1" too, as msgfmt reads it
            name, colon, number = ref.rpartition(":")
            found.append((name, number) if colon and number.isdigit() else (ref, ""))
    return tuple(found)


def _plural(entry: Entry) -> bool:
    """Whether ``entry`` is a plural entry: a msgid_plural, ``msgid_plural ""`` too (forms), as msgfmt reads it."""
    return bool(entry.msgid_plural or entry.msgstr_plural)


def _key(entry: Entry) -> tuple[str | None, str, str | None]:
    # _plural(entry), written out: this runs for every entry of both files
    return entry.msgctxt, entry.msgid, entry.msgid_plural if entry.msgid_plural or entry.msgstr_plural else None


def _translated(entry: Entry) -> bool:
    return bool(entry.msgstr or any(entry.msgstr_plural.values()))


class _Merger:
    def __init__(self, catalog: PoRead, template: Template, lines: list[str]) -> None:
        self.catalog, self.entries, self.lines = catalog, catalog.spans, lines
        self.template, self.template_lines = template.entries, template.lines
        self.template_metadata = template.metadata
        self.newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
        # A file of old Mac line endings: the merge's lines end with a lone CR too, but a comment's with
        # CRLF, as a run writes them there (msgfmt runs a comment, and a "#~" line, on to a line feed).
        self.comment_newline = self.newline
        if lone_crs(catalog.raw):
            self.newline, self.comment_newline = "\r", "\r\n"
        self.final_newline = not lines or lines[-1].endswith(("\n", "\r"))
        if not self.final_newline and self.entries and self.entries[-1].msgstr_end == len(lines):
            # The last entry's last line: wherever the entry goes, a line follows it (the file's missing
            # newline is taken off the whole text again at the end). Every other line of an entry
            # has its newline, so entries are copied as they are, and new lines end as they are made.
            lines[-1] += self.newline
        self.nplurals = catalog.plural.nplurals if catalog.plural else 2
        self.flagged_fuzzy = 0  # kept entries made fuzzy by a format or range the template added

    def run(self, raw: bytes) -> MergeResult:
        live: dict[tuple[str | None, str, str | None], int] = {}
        dead: dict[tuple[str | None, str, str | None], int] = {}
        for i, e in enumerate(self.entries):
            (dead if e.obsolete else live)[_key(e)] = i
        serves: dict[int, int] = {}  # catalog entry -> template position it keeps serving as is
        revived: dict[int, int] = {}  # template position -> obsolete entry brought back
        unmatched: list[int] = []
        for pos, t in enumerate(self.template):
            key = _key(t)
            if key in live:
                serves[live[key]] = pos
            elif key in dead:
                revived[pos] = dead[key]
            else:
                unmatched.append(pos)
        fuzzy: dict[int, int] = {}  # template position -> catalog entry lending its translation
        if unmatched:  # the lenders, sorted, only for a template that brings new messages
            lenders = [i for i, e in enumerate(self.entries) if _translated(e)]
            sources = Lenders([self.entries[i].msgid for i in lenders])
            for pos in unmatched:
                best = sources.most_similar(self.template[pos].msgid)
                if best is not None:
                    fuzzy[pos] = lenders[best]
        used = set(serves) | set(revived.values()) | set(fuzzy.values())
        in_place = {}  # a live entry lending to exactly one new entry is replaced where it stands
        lent: dict[int, list[int]] = {}
        for pos, i in fuzzy.items():
            lent.setdefault(i, []).append(pos)
        for i, positions in lent.items():
            if len(positions) == 1 and i not in serves and not self.entries[i].obsolete:
                in_place[i] = positions[0]
        blocks = self._existing_blocks(serves, in_place, used)
        new_blocks = [(pos, self._fuzzy_lines(pos, fuzzy[pos])) for pos in fuzzy if pos not in in_place.values()]
        new_blocks += [(pos, self._revived_lines(pos, i)) for pos, i in revived.items()]
        new_blocks += [(pos, self._new_lines(pos)) for pos in unmatched if pos not in fuzzy]
        blocks = _placed(blocks, [_Block(pos, 0, 0, [self.newline, *lines]) for pos, lines in sorted(new_blocks)])
        unused = [i for i, e in enumerate(self.entries) if not e.obsolete and i not in used]
        obsoleted = [i for i in unused if _translated(self.entries[i])]
        blocks += [_Block(None, 0, 0, [self.newline, *self._obsolete_lines(i)]) for i in obsoleted]
        data = self._render([*blocks, self.tail])
        return MergeResult(
            data,
            data != raw,
            added=len(unmatched) - len(fuzzy),
            fuzzy=len(fuzzy) + self.flagged_fuzzy,
            obsoleted=len(obsoleted),
            revived=len(revived),
            removed=len(unused) - len(obsoleted),
        )

    def _existing_blocks(self, serves: dict[int, int], in_place: dict[int, int], used: set[int]) -> list[_Block]:
        """The catalog's entries that stay where they are, each with the lines before it."""
        blocks: list[_Block] = []
        previous_end = self._header_end()
        serving, replacing = serves.get, in_place.get
        for i, entry in enumerate(self.entries):
            start, first, previous_end = previous_end, entry.first, entry.msgstr_end
            if (pos := serving(i)) is not None:
                lines = self._kept_lines(i, pos)
                blocks.append(_Block(pos, start, previous_end) if lines is None else _Block(pos, start, first, lines))
            elif (pos := replacing(i)) is not None:
                blocks.append(_Block(pos, start, first, self._fuzzy_lines(pos, i)))
            elif entry.obsolete and i not in used:
                blocks.append(_Block(None, start, previous_end))
        self.tail = _Block(None, previous_end, len(self.lines))  # what follows the last entry
        return blocks

    def _header_end(self) -> int:
        """Where the header entry ends; the blank lines after it belong to the first entry."""
        end = self.entries[0].first if self.entries else len(self.lines)
        while end > 0 and not self.lines[end - 1].strip():
            end -= 1
        return end

    def _render(self, blocks: list[_Block]) -> bytes:
        out = self._header()
        lines = self.lines
        start = end = 0  # the file's lines not copied yet: neighbours in the file are copied as one range
        for block in blocks:
            if block.start != end:
                out.extend(lines[start:end])
                start = block.start
            end = block.end
            if block.lines:
                out.extend(lines[start:end])
                out.extend(block.lines)
                start = end
        out.extend(lines[start:end])
        text = "".join(out)
        if not self.final_newline:
            text = text.rstrip("\r\n")  # keep a missing final newline missing
        try:
            return text.encode(self.catalog.encoding)
        except UnicodeEncodeError as exc:
            raise CatalogError(
                str(self.catalog.path),
                f"the template has {exc.object[exc.start : exc.end]!r}, which "
                f"charset {self.catalog.encoding} cannot hold",
            ) from None

    def _header(self) -> list[str]:
        header = self.lines[: self._header_end()]
        date = self.template_metadata.get("POT-Creation-Date")
        if not date:
            return list(header)
        return [_POT_DATE.sub(lambda m: f"{m.group(1)}{date}{m.group(3)}", ln, count=1) for ln in header]

    # -- entry lines -------------------------------------------------------------------------------

    def _kept_lines(self, i: int, pos: int) -> list[str] | None:
        """An entry the template keeps: None where it stays as it is, else its lines with the template's comments
        and flags."""
        old, t = self.entries[i], self.template[pos]
        first = old.first
        # Comment lines written as the template's (an entry whose source did not move, or a template
        # made from this catalog) hold its comments, flags and references: nothing to read from them.
        same_lines = self.lines[first : old.msgid_line] == self.template_lines[t.first : t.msgid_line]
        if same_lines or (old.comment == t.comment and _same_formats(old, t) and self._same_references(i, pos)):
            return None
        block = self.lines[first : old.msgstr_end]
        body = next(k for k, ln in enumerate(block) if _KEYWORD_START.match(ln))
        comments = [ln for ln in block[:body] if not ln.lstrip().startswith(_TEMPLATE_COMMENT)]
        previous = [ln for ln in block[:body] if ln.lstrip().startswith("#|")]
        fuzzy = "fuzzy" in old.flags
        if not fuzzy and _translated(old) and self._fails_new_flags(old, t):
            fuzzy = True
            self.flagged_fuzzy += 1
            previous = self._previous_lines(old)
        elif not fuzzy and _translated(old) and default_changed(old.msgid, old.comment, t.comment):
            fuzzy = True  # no "#|": the previous text was no msgid
            self.flagged_fuzzy += 1
        return self._ended([*comments, *self._template_comments(pos, fuzzy), *previous, *block[body:]])

    def _same_references(self, i: int, pos: int) -> bool:
        """Whether catalog entry ``i`` has the references of template entry ``pos`` (lines written alike
        have; lines written otherwise may have them all the same)."""
        ours, theirs = _references(self.entries[i], self.lines), _references(self.template[pos], self.template_lines)
        return ours == theirs or _occurrences(ours) == _occurrences(theirs)

    def _template_comments(self, pos: int, fuzzy: bool) -> list[str]:
        """The ``#.``, ``#:`` and ``#,`` lines of template entry ``pos`` (with ``fuzzy`` among its flags)."""
        t = self.template[pos]
        lines = [f"#. {ln}".rstrip() for ln in t.comment.split("\n")] if t.comment else []
        lines += _reference_lines(_occurrences(_references(t, self.template_lines)))
        flags = (["fuzzy"] if fuzzy else []) + _format_flags(t)
        if flags:
            lines.append("#, " + ", ".join(flags))
        return lines

    def _fails_new_flags(self, old: Entry, t: Entry) -> bool:
        """msgmerge's rule: a format the template turns on that the translation does not satisfy, or a
        ``range:`` that is no longer within the old one, makes the entry need a translator's eye.

        Only a change of the flags can: the same flags turn on the same formats and the same range.
        The grammars are loaded for the first entry whose flags the template changed (most merges
        have none: they change references and comments).
        """
        if _same_formats(old, t):
            return False
        from pipeline.placeholders.grammars import check_entry, grammars_for, range_of  # the front door: formats

        newly = [g.flag for g in grammars_for(t.flags) if g not in grammars_for(old.flags)]
        often = form_of = None
        if _plural(t):
            sources: tuple[str, ...] = (t.msgid, t.msgid_plural)
            targets = [old.msgstr_plural.get(k, "") for k in range(self.nplurals)]
            often = _often(self.catalog.plural)
            form_of = self.catalog.plural.form_for if self.catalog.plural else None
        else:
            sources, targets = (t.msgid,), [old.msgstr]
        flags = [*newly, *(f for f in t.flags if f.startswith("range:"))]
        if newly and check_entry(flags, sources, targets, often, form_of):
            return True
        was, now = range_of(old.flags), range_of(t.flags)
        return was is not None and (now is None or not (was[0] <= now[0] and now[1] <= was[1]))

    def _previous_lines(self, old: Entry) -> list[str]:
        """``#|`` lines naming the entry itself, as msgmerge writes them for an entry it makes fuzzy."""
        previous: list[str] = []
        if old.msgctxt is not None:
            previous += _prefixed("#| ", format_field("msgctxt", old.msgctxt))
        previous += _prefixed("#| ", format_field("msgid", old.msgid))
        if _plural(old):
            previous += _prefixed("#| ", format_field("msgid_plural", old.msgid_plural))
        return previous

    def _ended(self, lines: list[str]) -> list[str]:
        """``lines`` each ended with the file's newline: those the merge made (the file's have theirs, but for
        a comment's lone CR, which would hide what follows it in its new place from msgfmt)."""
        if self.comment_newline == self.newline:
            return [ln if ln.endswith("\n") else ln + self.newline for ln in lines]
        return [
            ln.rstrip("\r\n") + (self.comment_newline if ln.lstrip().startswith("#") else self.newline) for ln in lines
        ]

    def _translator_comments(self, i: int) -> list[str]:
        block = self.lines[self.entries[i].first : self.entries[i].msgstr_end]
        return [
            ln
            for ln in block
            if ln.startswith("#") and not ln.startswith(_TEMPLATE_COMMENT) and not ln.startswith("#~")
        ]

    def _fuzzy_lines(self, pos: int, i: int) -> list[str]:
        """A template entry that takes the translation of a similar old entry, marked fuzzy."""
        old, t = self.entries[i], self.template[pos]
        previous = self._previous_lines(old)
        return self._ended(
            [
                *self._translator_comments(i),
                *self._template_comments(pos, True),
                *previous,
                *_source_lines(t),
                *self._target_lines(t, old),
            ]
        )

    def _revived_lines(self, pos: int, i: int) -> list[str]:
        old, t = self.entries[i], self.template[pos]
        return self._ended(
            [
                *self._translator_comments(i),
                *self._template_comments(pos, "fuzzy" in old.flags),
                *_source_lines(t),
                *self._target_lines(t, old),
            ]
        )

    def _new_lines(self, pos: int) -> list[str]:
        t = self.template[pos]
        return self._ended([*self._template_comments(pos, False), *_source_lines(t), *self._target_lines(t, None)])

    def _obsolete_lines(self, i: int) -> list[str]:
        block = self.lines[self.entries[i].first : self.entries[i].msgstr_end]
        body = next(k for k, ln in enumerate(block) if _KEYWORD_START.match(ln))
        head = [ln for ln in block[:body] if not ln.startswith(("#.", "#:"))]
        head = [f"#~| {ln[2:].lstrip()}" if ln.startswith("#|") else ln for ln in head]
        return self._ended([*head, *(f"#~ {ln}" for ln in block[body:])])  # the file's lines, ended as it ends them

    def _target_lines(self, t: Entry, old: Entry | None) -> list[str]:
        if not _plural(t):
            value = "" if old is None else (old.msgstr if not _plural(old) else old.msgstr_plural.get(0, ""))
            return format_field("msgstr", value)
        if old is None:
            forms = [""] * self.nplurals
        elif _plural(old):
            forms = [old.msgstr_plural.get(k, "") for k in range(self.nplurals)]
        else:
            forms = [old.msgstr] * self.nplurals  # as msgmerge does: every form starts from the singular
        return [ln for k, form in enumerate(forms) for ln in format_field(f"msgstr[{k}]", form)]


def _placed(blocks: list[_Block], new: list[_Block]) -> list[_Block]:
    """``blocks`` with each of ``new`` (in template order) after the last entry that comes before it in the
    template, first when none does.

    One pass over both: as the template positions of ``new`` grow, the last block before each one
    can only move down the list (one search per new block made a merge quadratic: a third of its time).
    The blocks between two places are copied as one slice.
    """
    if not new:
        return blocks
    by_position = sorted((b.position, k) for k, b in enumerate(blocks) if b.position is not None)
    after: dict[int, list[_Block]] = {}  # index of the block they follow (-1: the start) -> new blocks
    last, j = -1, 0
    for block in new:
        assert block.position is not None  # a new block is where the template has it
        while j < len(by_position) and by_position[j][0] < block.position:
            last = max(last, by_position[j][1])
            j += 1
        after.setdefault(last, []).append(block)
    placed: list[_Block] = []
    done = 0  # blocks[:done] are placed
    for k in sorted(after):
        placed += blocks[done : k + 1]
        placed += after[k]
        done = k + 1
    placed += blocks[done:]
    return placed


def _often(rule: PluralRule | None) -> tuple[bool, ...] | None:
    """Per form whether the rule picks it for 5 numbers or more in 0..1000 (msgfmt's "must keep every argument")."""
    if rule is None:
        return (False, True)
    counts = [0] * rule.nplurals
    for n in range(1001):
        form = rule.form_for(n)
        if 0 <= form < len(counts):
            counts[form] += 1
    return tuple(c >= 5 for c in counts)


def _same_formats(a: Entry, b: Entry) -> bool:
    """Whether two entries have the same flags but ``fuzzy`` (the same flags mostly: then no list is made)."""
    return a.flags == b.flags or _format_flags(a) == _format_flags(b)


def _format_flags(entry: Entry) -> list[str]:
    return [f for f in entry.flags if f != "fuzzy"]


def _reference_lines(occurrences: Sequence[tuple[str, str]]) -> list[str]:
    """``#:`` lines as xgettext writes them: references wrapped at the page width."""
    lines: list[str] = []
    current = "#:"
    for name, line in occurrences:
        ref = f"{name}:{line}" if line else name
        if len(current) + 1 + len(ref) > WRAP_WIDTH and current != "#:":
            lines.append(current)
            current = "#:"
        current += " " + ref
    if current != "#:":
        lines.append(current)
    return lines


def _source_lines(t: Entry) -> list[str]:
    lines = format_field("msgctxt", t.msgctxt) if t.msgctxt is not None else []
    lines += format_field("msgid", t.msgid)
    if _plural(t):
        lines += format_field("msgid_plural", t.msgid_plural)
    return lines


def _prefixed(prefix: str, lines: list[str]) -> list[str]:
    return [prefix + ln for ln in lines]
