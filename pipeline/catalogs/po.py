"""Gettext PO catalogs: read into units, write translations back touching only their lines.

One pass reads a catalog (:mod:`pipeline.catalogs.po_scan`): a strict line scanner checks the
syntax (what gettext and polib refuse, and what polib lets through: ``msgstr x"``, comments inside
an entry, a msgid without msgstr), reads each entry's strings as polib does and records the exact
lines write-back may touch: its ``msgstr`` block and its ``#,`` flags line. polib's own entries,
which msgmerge-style merging works on (:attr:`PoCatalog.entries`), are parsed only when asked for,
and matched with the scanner's entry by entry: if they ever disagree the catalog is refused
rather than risked.

Write-back works on the original bytes: every line that does not belong to a translated entry's
``msgstr`` block or flags line is copied as it was (wrapping, comments, order, obsolete entries,
line endings, charset, missing final newline). Line endings may be LF, CRLF or, from old Mac tools,
a lone CR, which msgfmt reads as a blank: a comment written into such a file ends with CRLF, since
msgfmt runs a comment on to a line feed.

Untrusted input, refused as ``msgfmt --check`` refuses it (each a :class:`CatalogError` with the
line, so nothing of the catalog is sent): a byte-order mark, an escape gettext does not know
(``\\q``, ``\\u00e9``), the same msgctxt+msgid twice (obsolete entries included), a plural rule that
divides by zero, picks a form the catalog does not have or claims more forms than any language has. A
catalog without a header entry is read as msgfmt (without ``--check``) reads it, with gettext's defaults.
The charset is the one the header entry's Content-Type names (nothing else in the file counts), and
only an ASCII-compatible text encoding is accepted: a codec that adds a BOM, escapes or transforms text
would corrupt the file on write-back.
"""

from __future__ import annotations

import codecs
import copy
import heapq
import re
from array import array
from collections.abc import Iterator, Mapping
from itertools import chain, compress, islice, repeat
from operator import is_
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pipeline.catalogs import po_review
from pipeline.catalogs.base import Reviewed, Unit, UnitState
from pipeline.catalogs.po_header import (
    HEADERLESS_ERROR,
    UNFILLED_ERROR,
    encoding_of,
    field_line,
    filled_plural_line,
    headerless_rule,
    latin1_doubts,
    plural_header,
)
from pipeline.catalogs.po_lines import Lines, TextLines, as_read, decoded, offsets
from pipeline.catalogs.po_scan import Entry, fields, metadata, scan
from pipeline.catalogs.po_scan.msgfmt_rules import refuse_duplicates, refuse_misnumbered_forms
from pipeline.catalogs.po_scan.polib_file import polib_file
from pipeline.catalogs.po_strings import WRAP_WIDTH, format_field, wrap_width_of
from pipeline.catalogs.po_units import PoUnits
from pipeline.errors import CatalogError
from pipeline.files.untrusted import read_regular
from pipeline.patterns import lazy_regex
from pipeline.plural_rules import PluralRule

if TYPE_CHECKING:
    import polib

# A plural form's keyword, where its lines start (obsolete entries are never written into).
_FORM_LINE = lazy_regex(r"[ \t]*msgstr[ \t]*\[")
#: NUL ends a string in a compiled catalog; every other control character is written as an escape.
_UNWRITABLE = re.compile(r"\x00")


class PoRead(NamedTuple):
    """What reading a PO file found: its bytes, charset, header fields, entries and plural rule."""

    path: Path
    raw: bytes
    starts: array[int]  # where each line of ``raw`` starts, and where the last ends
    encoding: str
    metadata: Mapping[str, str]
    spans: list[Entry]
    plural: PluralRule | None
    is_template: bool
    warnings: tuple[str, ...] = ()  # about the file as a whole, reported without a line
    #: Where a Plural-Forms line goes when the header lacks one and plural translations are written
    #: with CLDR's rule: without it the catalog would stop compiling.
    plural_header_at: int | None = None
    #: The line (1-based) of a Plural-Forms a template left unfilled (``nplurals=INTEGER;``), which msgfmt
    #: refuses: write-back puts :attr:`plural`'s rule in its place.
    plural_unfilled_line: int | None = None
    #: (line, reason) of what ``msgfmt --check`` refuses in the header (its line: None where there is none).
    header_error: tuple[int | None, str] | None = None


class PoCatalog:
    """A parsed PO file and everything needed to write translations back into it."""

    format = "po"

    def __init__(self, read: PoRead) -> None:
        self.path = read.path
        self.encoding = read.encoding
        self.warnings = read.warnings
        self.is_template = read.is_template
        self.plural = read.plural
        # The file's bytes (the very object read: a run holds one copy) and where each line starts
        # (and where the last ends): a bytes object per line would cost more than the text itself.
        self._raw = read.raw
        self._starts = read.starts
        self._newline = (_terminator(self._line(0)).decode() if len(read.starts) > 1 else "") or "\n"  # one line: LF
        # A comment line written into a file of lone CRs ends with CRLF: msgfmt runs a comment on to a line feed.
        self._comment_end = "\r\n" if self._newline == "\r" else self._newline
        self.metadata: Mapping[str, str] = dict(read.metadata)
        self.units = PoUnits(read.spans, read.plural)
        # Per unit, the lines write-back touches (:data:`_WHERE` ints each): the scanner's records,
        # strings and all, are dropped once read. What polib's entries need besides the units is
        # kept for the few entries that have it.
        # Each is made a field at a time over the records, the loops in C.
        spans = read.spans
        where = list(chain.from_iterable(map(_WHERE_OF, spans)))
        for k in compress(range(1, len(where), _WHERE), map(is_, islice(where, 1, None, _WHERE), repeat(None))):
            where[k] = -1  # no flags line
        self._where = array(offsets(len(read.raw)), where)
        keys = list(map(_POLIB_KEY, spans))
        self._polib_keys = {i: keys[i] for i in compress(range(len(spans)), keys)}
        self._plural_strings = {
            i: dict(spans[i].msgstr_plural)
            for i in compress(range(len(spans)), map(_FORMS, spans))
            if spans[i].msgstr_plural != dict(enumerate(self.units[i].targets))
        }
        self._entries: tuple[polib.POEntry, ...] | None = None
        self._plural_header_at = read.plural_header_at
        #: (line, reason) of what msgfmt refuses in the header, which ``pipeline check`` reports as an error.
        self.header_error = read.header_error
        self._unfilled_line = read.plural_unfilled_line
        if read.plural_unfilled_line is not None:
            self.header_error = (read.plural_unfilled_line, UNFILLED_ERROR)

    def miscounted_forms(self) -> dict[int, tuple[int, int]]:
        """Per live plural unit whose entry has more or fewer forms than the header's nplurals: the line of
        its first form (1-based, where msgfmt says it) and its number of forms. ``msgfmt --check`` refuses a
        catalog with such an entry translated (fuzzy ones only with ``--use-fuzzy``); a run writes nplurals
        forms into an untranslated one."""
        if self.plural is None:
            return {}
        nplurals, units = self.plural.nplurals, self.units
        found: dict[int, tuple[int, int]] = {}
        for position in range(len(units)):
            if not units.plural_at(position) or units.state_of(position) is UnitState.OBSOLETE:
                continue
            # A unit has its entry's forms, or nplurals where it had fewer: those are kept as read.
            read = self._plural_strings.get(position)
            count = len(read) if read is not None else len(units[position].targets)
            if count != nplurals:
                found[position] = (self._span(position).msgstr_start + 1, count)
        return found

    def positions(self, *states: UnitState) -> list[int]:
        """The positions of the units in any of ``states``, in file order (read from the units' state column)."""
        return self.units.positions(*states)

    def flags_of(self, position: int) -> tuple[str, ...]:
        """The flags of the unit at ``position`` (read from the flags column)."""
        return self.units.flags_of(position)

    def with_units(self, units: PoUnits) -> PoCatalog:
        """This catalog with ``units`` in place of its own (their sources another text: a template's Defaults)."""
        catalog = copy.copy(self)
        catalog.units = units
        return catalog

    @property
    def entries(self) -> tuple[polib.POEntry, ...]:
        """polib's entries (what msgmerge-style merging works on), parsed on first use and matched with the units.

        Raises :class:`CatalogError` when polib reads the file otherwise than the scanner did.
        """
        if self._entries is None:
            # The text already read, never the path: the file may have changed or vanished since.
            pofile = polib_file(self.path, self.raw.decode(self.encoding), self.encoding)
            _match(self.path, pofile, self)
            self._entries = tuple(pofile)
        return self._entries

    @property
    def raw(self) -> bytes:
        """The file's bytes as they were read."""
        return self._raw

    @property
    def language(self) -> str | None:
        """The ``Language`` header, when present and not empty."""
        return (self.metadata.get("Language") or "").strip() or None

    def write_problem(self, text: str, index: int | None = None) -> str | None:
        """Why ``text`` cannot be written faithfully into this catalog, or None when it can (any unit alike)."""
        control = _UNWRITABLE.search(text)
        if control:
            return f"translation contains the control character U+{ord(control.group()):04X}"
        try:
            text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            bad = exc.object[exc.start]
            return (
                f"translation has {bad!r} (U+{ord(bad):04X}), which charset {self.encoding} cannot hold; convert "
                f"the catalog: msgconv --to-code=UTF-8"
            )
        return None

    def render(
        self,
        translations: Mapping[int, tuple[str, ...]],
        mark_fuzzy: bool = True,
        review: Mapping[int, str] | None = None,
    ) -> bytes:
        """The file's bytes with ``translations`` (unit index -> msgstr forms) written in.

        The units ``review`` names (unit index -> note) are marked fuzzy whatever ``mark_fuzzy``
        says, with the note as a translator comment (``# note``) above the entry.
        """
        out = bytearray()
        for piece in self.render_pieces(translations, mark_fuzzy, review):
            out += piece
        return bytes(out)

    def render_pieces(
        self,
        translations: Mapping[int, tuple[str, ...]],
        mark_fuzzy: bool = True,
        review: Mapping[int, str] | None = None,
    ) -> Iterator[bytes | memoryview]:
        """:meth:`render`'s bytes in pieces, made as they are taken: the lines between two edits, an edit."""
        units = self.units
        for index, forms in translations.items():  # all checked before anything is rendered
            if units.state_of(index) is UnitState.OBSOLETE:
                raise ValueError(f"unit {index} of {self.path} cannot take a translation")
            if len(forms) != (nforms := units.nforms_of(index)):
                raise ValueError(f"unit {index} of {self.path} needs {nforms} forms, got {len(forms)}")
        # Each unit's edits are made as the copy reaches them (units are in file order), never all at once.
        edits = heapq.merge(
            self._unit_edits(translations, mark_fuzzy, review or {}),
            self._header_edits(translations),
            key=lambda edit: edit[:2],  # the unit's edits first where both insert at one line
        )
        return self._pieces(edits)

    def _pieces(self, edits: Iterator[_Edit]) -> Iterator[bytes | memoryview]:
        # The file's lines between the edits are views of its bytes, not copies.
        raw = memoryview(self._raw)
        starts = self._starts
        last = len(starts) - 1
        i = 0
        for at, _, end, data in edits:
            if at < i or at >= last:
                continue  # inside a block replaced already, or past the end: never reached line by line
            yield raw[starts[i] : starts[at]]
            yield data
            i = end
        yield raw[starts[i] : starts[last]]

    def _unit_edits(
        self, translations: Mapping[int, tuple[str, ...]], mark_fuzzy: bool, review: Mapping[int, str]
    ) -> Iterator[_Edit]:
        """The edits that write ``translations`` in, in the file's order: a unit's comment, its flags, its msgstr."""
        comment_end = self._comment_end.encode(self.encoding)
        units = self.units
        lined = self._raw.replace(b"\r", b"\n") if self._newline == "\r" else self._raw  # its lines, as it wraps them
        width = wrap_width_of(lined, self.encoding) if translations else WRAP_WIDTH
        for index in sorted(translations):
            forms, span = translations[index], self._span(index)
            if index in review:  # before a "#, fuzzy" inserted at the same line: comments come first
                yield (span.first, 0, span.first, self._encoded([f"# {self._comment(review[index])}"], comment_end))
            if (mark_fuzzy or index in review) and "fuzzy" not in units.flags_of(index):
                if span.flags_line is not None:
                    flags_text = self._text(span.flags_line).strip()[2:]
                    line = self._encoded([f"#, fuzzy,{flags_text}"], _terminator(self._line(span.flags_line)))
                    yield (span.flags_line, 1, span.flags_line + 1, line)
                else:
                    yield (span.insert_flags_at, 0, span.insert_flags_at, self._encoded(["#, fuzzy"], comment_end))
            if units.plural_at(index):
                lines = [ln for i, form in enumerate(forms) for ln in format_field(f"msgstr[{i}]", form, width)]
            else:
                lines = format_field("msgstr", forms[0], width)
            block = self._encoded(lines, _terminator(self._line(span.msgstr_end - 1)))
            yield (span.msgstr_start, 1, span.msgstr_end, block)

    def _header_edits(self, translations: Mapping[int, tuple[str, ...]]) -> list[_Edit]:
        """The Plural-Forms line a header without one gets when plural translations are written, or the
        rule an unfilled one gets whenever anything is written (msgfmt refuses the catalog as it is)."""
        unfilled = self._unfilled_line - 1 if self._unfilled_line is not None else None
        if unfilled is not None and translations and self.plural is not None:
            line = filled_plural_line(self._text(unfilled), self.plural)
            return [(unfilled, 1, unfilled + 1, self._encoded([line], _terminator(self._line(unfilled))))]
        at = self._plural_header_at
        if at is None or self.plural is None or not any(map(self.units.plural_at, translations)):
            return []
        rule = f'"Plural-Forms: nplurals={self.plural.nplurals}; plural={self.plural.expression};\\n"'
        return [
            (at, 0, at, self._encoded([rule], self._newline.encode(self.encoding))),
            *self._emptied_slots(translations),
        ]

    def _emptied_slots(self, translations: Mapping[int, tuple[str, ...]]) -> list[_Edit]:
        """The empty forms after the last of nplurals in the translated entries a run leaves as they are, removed
        where the rule's header line is added: msgfmt --check counts an entry's forms, empty ones too, against
        it (msgmerge gave teslamate's Korean entries two slots, and its translators filled the one Korean has)."""
        edits: list[_Edit] = []
        nplurals, units = self.plural.nplurals if self.plural else 2, self.units
        for position, (_, count) in self.miscounted_forms().items():
            targets = units[position].targets
            if position in translations or count <= nplurals or not targets[0] or any(targets[nplurals:]):
                continue
            span = self._span(position)
            keywords = [i for i in range(span.msgstr_start, span.msgstr_end) if _FORM_LINE().match(self._text(i))]
            edits.append((keywords[nplurals], 1, span.msgstr_end, b""))
        return edits

    def _encoded(self, lines: list[str], terminator: bytes) -> bytes:
        """``lines`` in the file's charset and newlines, the last ended by ``terminator``."""
        return self._newline.join(lines).encode(self.encoding) + terminator

    def _comment(self, note: str) -> str:
        """``note`` as one comment line this catalog's charset holds: controls and what it cannot hold escaped."""
        flat = _UNWRITABLE.sub(" ", note.replace("\r", " ").replace("\n", " "))
        return flat.encode(self.encoding, "backslashreplace").decode(self.encoding)

    def render_reviewed(self, decisions: Mapping[int, Reviewed]) -> bytes:
        """The file's bytes with a reviewer's ``decisions`` written in (:mod:`pipeline.catalogs.po_review`)."""
        return po_review.render_reviewed(
            self._raw, self._starts, self.encoding, self.entry_lines(), self.units, decisions
        )

    def entry_lines(self) -> list[tuple[int, int]]:
        """Per unit, the 0-based ``[first, end)`` range of its lines (first comment to last msgstr line)."""
        where = self._where
        return [(where[i], where[i + _WHERE - 1]) for i in range(0, len(where), _WHERE)]

    def _span(self, index: int) -> _Span:
        """Where unit ``index`` lives in the file."""
        first, flags_line, insert_at, msgstr_start, msgstr_end = self._where[index * _WHERE : (index + 1) * _WHERE]
        return _Span(first, None if flags_line < 0 else flags_line, insert_at, msgstr_start, msgstr_end)

    def polib_strings(self, index: int) -> tuple[str | None, str, bool, str, str, dict[int, str]]:
        """Unit ``index`` as polib's entry should read: (msgctxt, msgid) as polib reads them, obsolete,
        and the strings as msgfmt reads them: msgid_plural, msgstr, msgstr_plural."""
        unit = self.units[index]
        msgctxt, msgid = self._polib_keys.get(index) or (unit.context, msgid_of(unit))
        obsolete = unit.state is UnitState.OBSOLETE
        if not unit.plural:
            return msgctxt, msgid, obsolete, "", unit.targets[0], {}
        plural = self._plural_strings.get(index) or dict(enumerate(unit.targets))
        return msgctxt, msgid, obsolete, unit.sources[1], "", plural

    def _text(self, index: int) -> str:
        return self._line(index).decode(self.encoding)

    def _line(self, index: int) -> bytes:
        return self._raw[self._starts[index] : self._starts[index + 1]]


#: (first line, 0 to insert before it or 1 to replace, end line, the new bytes): one change to a file.
_Edit = tuple[int, int, int, bytes]


class _Span(NamedTuple):
    """Where a unit lives in the file (0-based line indexes), as :class:`~pipeline.catalogs.po_scan.Entry` has it."""

    first: int
    flags_line: int | None
    insert_flags_at: int
    msgstr_start: int
    msgstr_end: int  # exclusive


_WHERE = len(_Span._fields)
#: An entry's :class:`_Span`, its flags line None where it has none (-1 in :attr:`PoCatalog._where`).
_WHERE_OF = fields(*_Span._fields)
_POLIB_KEY, _FORMS = fields("polib_key"), fields("msgstr_plural")


def _terminator(raw_line: bytes) -> bytes:
    """How ``raw_line`` ends: CRLF, LF, a lone CR (old Mac line endings), or not at all (a file's last line)."""
    if raw_line.endswith(b"\r\n"):
        return b"\r\n"
    return raw_line[-1:] if raw_line.endswith((b"\n", b"\r")) else b""


def read_po(path: Path, raw: bytes | None = None) -> PoCatalog:
    """Parse ``path`` (or ``raw``, its bytes as already read or converted); raises :class:`CatalogError`
    with the line of the first problem."""
    return PoCatalog(read_po_file(path, raw))


def read_po_file(path: Path, raw: bytes | None = None) -> PoRead:
    """What :func:`read_po` reads, checked alike, before it becomes a catalog: the scanner's entries
    (the header's left out), which a merge compares and copies without the catalog's units."""
    return read_po_text(path, raw)[0]


def read_po_text(path: Path, raw: bytes | None = None) -> tuple[PoRead, TextLines]:
    """:func:`read_po_file`'s reading, and the file's lines as it decoded them (without their newlines).

    A merge copies a catalog's lines as text: it takes the ones that were checked instead of decoding
    the file a second time. A run neither keeps them (its catalogs hold their bytes alone) nor splits them.
    """
    try:
        raw = read_regular(path) if raw is None else raw
    except OSError as exc:
        raise CatalogError(str(path), f"cannot read: {exc.strerror}") from None
    if raw.startswith(codecs.BOM_UTF8):
        raise CatalogError(
            str(path), "the file starts with a byte-order mark (BOM), which gettext refuses; save it without one", 1
        )
    reading = as_read(path, raw)  # old Mac line endings (lone CRs) read as LF, written back as they were
    raw_lines = Lines(reading)
    encoding, warnings = encoding_of(path, reading, raw_lines)
    text, lines = decoded(path, raw_lines, encoding)
    scanned = scan(path, text, lines, reading.endswith(b"\n"))
    spans = scanned.entries
    refuse_duplicates(path, spans)
    refuse_misnumbered_forms(path, spans, lines)
    if scanned.polib_refusal is not None:
        raise scanned.polib_refusal
    # polib takes the first live entry with an empty msgid as the header, whatever its context.
    header = next((i for i, s in enumerate(spans) if s.msgid == "" and not s.obsolete), None)
    if header is not None and spans[header].msgctxt is not None:
        raise CatalogError(str(path), "entry could not be located for faithful write-back", spans[header].first + 1)
    fields = metadata(spans[header].msgstr) if header is not None else {}
    is_template = path.suffix.lower() == ".pot"
    headerless = not fields and not is_template  # none, or an empty msgstr: msgfmt reads either with its defaults
    header_lines = (spans[header].msgstr_start, spans[header].msgstr_end) if header is not None else (0, 0)
    header_line = spans[header].msgid_line + 1 if header is not None else None
    # Where a Plural-Forms line can go: after the header's last line, when its text ends a line.
    add_at = header_lines[1] if header is not None and spans[header].msgstr.endswith("\n") else None
    if header is not None:
        spans = spans[:header] + spans[header + 1 :]
    live_plurals = [s for s in compress(spans, map(_FORMS, spans)) if not s.obsolete]  # msgid_plural "" too
    forms = frozenset((_forms_written(s), len(s.msgstr_plural)) for s in live_plurals if any(s.msgstr_plural.values()))
    plural_line = field_line(raw_lines, header_lines, b"Plural-Forms")
    if headerless:
        rule = headerless_rule(path, bool(live_plurals), encoding)
        warnings = ()  # the rule's one warning says what the charset is read as
    else:
        rule = plural_header(path, fields, plural_line, add_at, bool(live_plurals), forms)
    read = PoRead(
        path,
        raw,
        raw_lines.starts,
        encoding,
        fields,
        spans,
        rule.rule,
        is_template,
        (*warnings, *rule.warnings, *latin1_doubts(raw, encoding)),
        rule.add_at,
        rule.unfilled_line,
        (header_line, HEADERLESS_ERROR) if headerless else None,
    )
    return read, lines


def _forms_written(span: Entry) -> int:
    """The forms of a plural entry up to its last non-empty one: msgmerge gives a catalog without a rule two
    slots, and a Korean translator fills the one Korean has (the empty slot after it goes where the rule's
    header line is added: :meth:`PoCatalog._emptied_slots`)."""
    return 1 + max(i for i, text in span.msgstr_plural.items() if text)


def msgid_of(unit: Unit) -> str:
    """The msgid of ``unit`` as written (its source, but for a Zope message id whose Default is the source)."""
    return unit.sources[0] if unit.key is None else unit.key


def _match(path: Path, pofile: polib.POFile, catalog: PoCatalog) -> None:
    """Refuse the file unless polib's entries and the scanner's units agree one to one; then give polib's
    entries the scanner's strings, which are msgfmt's reading (polib leaves ``\\x41`` as it is)."""
    entries = list(pofile)
    units = catalog.units
    for entry, unit in zip(entries, units, strict=False):
        msgctxt, msgid, obsolete, *_ = catalog.polib_strings(unit.position)
        if (entry.msgid, entry.msgctxt, bool(entry.obsolete)) != (msgid, msgctxt, obsolete):
            first = catalog._span(unit.position).first
            raise CatalogError(str(path), "entry could not be located for faithful write-back", first + 1)
    if len(entries) != len(units):
        raise CatalogError(str(path), f"parsers disagree on the number of entries ({len(entries)} vs {len(units)})")
    for entry, unit in zip(entries, units, strict=True):
        _, _, _, msgid_plural, msgstr, msgstr_plural = catalog.polib_strings(unit.position)
        entry.msgctxt, entry.msgid, entry.msgid_plural = unit.context, msgid_of(unit), msgid_plural
        if unit.plural:  # msgid_plural "" too
            entry.msgstr_plural = msgstr_plural
        else:
            entry.msgstr = msgstr
