"""The PO reader's one pass: each entry's strings, and the exact lines write-back may touch.

A strict line scanner reads every line once. It checks the syntax (``msgstr x"``, comments inside
an entry, a msgid without msgstr, escapes gettext does not know), collects each entry's strings
as polib reads them (unescaped, ``#,`` flags split at commas, ``#.`` comments joined) and records
where the entry lives: its ``msgstr`` block and its ``#,`` flags line.

It also refuses whatever polib refuses (:class:`_PolibRules`: a comment marker without a space, a
broken ``#|`` line, a keyword where polib's state machine has no transition), so that a catalog a
run reads is one that ``pipeline refresh``, which merges polib's entries, reads alike; a property
test compares the two readers on generated catalogs. (A run used to parse every catalog twice,
with polib and with this scanner, and match the two entry by entry: a third of a run's reading.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import polib

from pipeline.errors import CatalogError

_KEYWORD = re.compile(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s*(.*)$")
# A quoted string: plain characters, or a backslash and the character it escapes (written unrolled,
# runs of plain characters at a time: an alternation tried per character costs 2-4x on every line).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
# What gettext reads after a backslash: its named escapes, octal and hex numbers. Anything else
# (\q, \u00e9, \?) is an "invalid control sequence" to msgfmt.
_ESCAPE = re.compile(r"\\(?:[ntrabfv\\\"]|[0-7]{1,3}|x[0-9A-Fa-f]+)")
_BAD_ESCAPE = 'an escape sequence gettext does not know (it reads \\n \\t \\r \\" \\\\, octal and \\x hex)'
# A lowercase word of at most 16 letters, alone before a space or a quote: a misspelt keyword.
_KEYWORD_LIKE = re.compile(r"[a-z_]{1,16}(?:\[\d{1,2}\])?(?=[\s\"]|$)")


class Entry(NamedTuple):
    """One entry as read: its strings, and where it lives in the file (0-based line indexes).

    A named tuple rather than a frozen dataclass: one is made per entry of every catalog a run
    reads, and a frozen dataclass sets each of its 16 fields through ``object.__setattr__``.
    """

    first: int
    msgid_line: int
    flags_line: int | None
    insert_flags_at: int
    msgstr_start: int
    msgstr_end: int  # exclusive
    obsolete: bool
    msgctxt: str | None
    msgid: str
    msgid_plural: str
    msgstr: str
    msgstr_plural: dict[int, str]
    flags: tuple[str, ...]
    comment: str  # the ``#.`` lines
    #: (msgctxt, msgid) as polib reads them, where that differs (an escape polib does not know: \\a,
    #: octal, hex); the strings above are msgfmt's reading.
    polib_key: tuple[str | None, str] | None = None


@dataclass
class _Open:
    """The entry being read."""

    first: int
    obsolete: bool = False
    msgid_line: int | None = None
    flags_line: int | None = None
    insert_at: int | None = None
    msgstr_start: int | None = None
    msgstr_end: int | None = None
    strings: dict[str, list[str]] = field(default_factory=dict)  # keyword -> its quoted strings
    flags: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    plural_forms: list[str] = field(default_factory=list)  # the msgstr[N] keywords, in the file's order


@dataclass(frozen=True, slots=True)
class Scanned:
    """Every entry of a file (the header entry included), and what polib refuses in it, if anything.

    The scanner's own refusals are raised at once; polib's are kept for the reader to raise after
    its other checks, in the order the two parsers used to run.
    """

    entries: list[Entry]
    polib_refusal: CatalogError | None


def scan(path: Path, lines: list[str]) -> Scanned:
    """Check the syntax line by line and read every entry."""
    return _Scanner(path).read(lines)


class _Scanner:
    """The scan's state: the entries read, the one being read, and where in an entry the last line was."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: list[Entry] = []
        self.entry: _Open | None = None
        self.state: str | None = None  # None, "comment", "msgctxt", "msgid", "msgid_plural", "msgstr"
        self.key = ""  # the keyword whose strings continuation lines extend
        self.rules = _PolibRules(path)

    def read(self, lines: list[str]) -> Scanned:
        """Every entry of ``lines``; a :class:`CatalogError` at the first line gettext would refuse."""
        rules, keyword_of = self.rules.line, _KEYWORD.match  # looked up once: this loop runs for every line
        for i, line in enumerate(lines):
            s = line.strip()
            if not s:
                continue
            rules(i, s)
            obsolete = s[0] == "#" and s.startswith("#~")
            if obsolete:
                s = s[2:].strip()
                if not s or s[0] == "|":
                    continue
            first = s[0]
            if first == "#":
                self._comment(i, s)
            elif first == '"':
                self._continuation(i, s)
            elif (keyword := keyword_of(s)) is not None:
                self._keyword(i, keyword.group(1), keyword.group(2).rstrip(), obsolete)
            else:
                raise self._fail(i, f"unrecognised line{_excerpt(s)}: not a comment, keyword or quoted string")
        if self.state in ("msgctxt", "msgid", "msgid_plural"):
            raise self._fail(len(lines) - 1, "the file ends inside an entry, before its msgstr")
        self._close()
        return Scanned(self.entries, self.rules.refusal(self.entries))

    def _fail(self, i: int, reason: str) -> CatalogError:
        return CatalogError(str(self.path), reason, i + 1)

    def _comment(self, i: int, s: str) -> None:
        if self.state in ("msgctxt", "msgid", "msgid_plural"):
            raise self._fail(i, "comment inside an entry, before its msgstr")
        if self.state == "msgstr" or self.entry is None:
            self._close()
            self.entry = _Open(i)
        entry = self.entry
        self.state = "comment"
        if s.startswith("#,"):
            if entry.flags_line is None:
                entry.flags_line = i
            if len(s.split(None, 1)) > 1:  # polib reads flags from "#, a, b" (a bare "#," has none)
                entry.flags.extend(flag.strip() for flag in s[3:].split(","))
        elif s.startswith("#.") and len(s.split(None, 1)) > 1:
            entry.comments.append(s[3:])
        if not s.startswith("#|"):
            entry.insert_at = i + 1

    def _keyword(self, i: int, name: str, rest: str, obsolete: bool) -> None:
        base = "msgstr" if name.startswith("msgstr") else name
        if base in ("msgctxt", "msgid"):
            self._entry_start(i, base, obsolete)
        elif base == "msgid_plural":
            if self.state != "msgid":
                raise self._fail(i, "msgid_plural without msgid")
        else:
            self._msgstr(i, name)
        if not _STRING.fullmatch(rest):
            raise self._fail(i, f"{name} is not followed by a properly quoted string")
        if "\\" in rest and "\\" in _ESCAPE.sub("", rest):
            raise self._fail(i, _BAD_ESCAPE)
        assert self.entry is not None
        self.state, self.key = base, name
        strings = self.entry.strings
        if name in strings:
            strings[name].append(rest)
        else:
            strings[name] = [rest]
            if name[-1] == "]":
                self.entry.plural_forms.append(name)

    def _entry_start(self, i: int, base: str, obsolete: bool) -> None:
        """A msgctxt or msgid: a new entry after a msgstr, checked against where the last line was."""
        if self.state == "msgstr" or self.entry is None:
            self._close()
            self.entry = _Open(i, obsolete)
        if base == "msgid" and self.state not in (None, "comment", "msgctxt", "msgstr"):
            raise self._fail(i, "msgid where a msgstr was expected")
        if base == "msgctxt" and self.state not in (None, "comment", "msgstr"):
            raise self._fail(i, "msgctxt in the middle of an entry")
        self.entry.obsolete = obsolete
        if base == "msgid":
            self.entry.msgid_line = i

    def _msgstr(self, i: int, name: str) -> None:
        if self.state not in ("msgid", "msgid_plural", "msgstr"):
            raise self._fail(i, "msgstr without msgid")
        if name != "msgstr" and len(name) > len("msgstr[0]"):
            raise self._fail(i, f"{name}: no language has that many plural forms")
        entry = self.entry
        assert entry is not None
        if name != "msgstr" and name in entry.strings:  # polib would keep the second, we join them
            raise self._fail(i, f"{name} a second time in one entry")
        if entry.msgstr_start is None:
            entry.msgstr_start = i
        entry.msgstr_end = i + 1

    def _continuation(self, i: int, s: str) -> None:
        if self.state in (None, "comment"):
            raise self._fail(i, "string continuation outside an entry")
        if not _STRING.fullmatch(s):
            raise self._fail(i, "continuation line is not a properly quoted string")
        if "\\" in s and "\\" in _ESCAPE.sub("", s):
            raise self._fail(i, _BAD_ESCAPE)
        assert self.entry is not None
        self.entry.strings.setdefault(self.key, []).append(s)
        if self.state == "msgstr":
            self.entry.msgstr_end = i + 1

    def _close(self) -> None:
        """Record the entry being read (trailing comments after the last entry are no entry)."""
        entry, self.entry = self.entry, None
        if entry is None or entry.msgid_line is None:
            return
        if entry.msgstr_start is None or entry.msgstr_end is None:
            raise self._fail(entry.msgid_line, "msgid without msgstr")
        strings = entry.strings
        plural = entry.plural_forms
        self.entries.append(
            Entry(
                first=entry.first,
                msgid_line=entry.msgid_line,
                flags_line=entry.flags_line,
                insert_flags_at=entry.insert_at if entry.insert_at is not None else entry.first,
                msgstr_start=entry.msgstr_start,
                msgstr_end=entry.msgstr_end,
                obsolete=entry.obsolete,
                msgctxt=_join(strings["msgctxt"]) if "msgctxt" in strings else None,
                msgid=_join(strings.get("msgid", [])),
                msgid_plural=_join(strings.get("msgid_plural", [])),
                msgstr=_join(strings.get("msgstr", [])),
                msgstr_plural={int(name[7:-1]): _join(strings[name]) for name in plural} if plural else {},
                flags=tuple(entry.flags),
                comment="\n".join(entry.comments),
                polib_key=_polib_key(strings),
            )
        )


def metadata(header: str) -> dict[str, str]:
    """The header entry's fields, as polib reads them.

    ``Name: value`` lines; a line without a colon continues the last.
    """
    fields: dict[str, str] = {}
    key = None
    for line in header.splitlines():
        name, colon, value = line.partition(":")
        if colon:
            key, fields[name] = name, value.strip()
        elif key is not None:
            fields[key] += "\n" + line.strip()
    return fields


def _excerpt(line: str) -> str:
    """A misspelt keyword worth quoting (`` 'msgstrr'``), else nothing: the line may be a secret's.

    A file that is no catalog at all (an ``.env`` linked or named as one) must not have its
    content copied into errors, reports and CI summaries.
    """
    word = _KEYWORD_LIKE.match(line)
    return f" {word.group()!r}" if word else ""


def _join(quoted: list[str]) -> str:
    joined = quoted[0][1:-1] if len(quoted) == 1 else "".join(q[1:-1] for q in quoted)
    return unescape(joined) if "\\" in joined else joined  # it changes nothing but escapes


def _polib_key(strings: dict[str, list[str]]) -> tuple[str | None, str] | None:
    """(msgctxt, msgid) as polib reads them, when that is not as msgfmt does; else None."""
    if "\\" not in "".join(strings.get("msgid", ())) and "\\" not in "".join(strings.get("msgctxt", ())):
        return None
    ours = (_join(strings["msgctxt"]) if "msgctxt" in strings else None, _join(strings.get("msgid", [])))
    theirs = (_polib_join(strings["msgctxt"]) if "msgctxt" in strings else None, _polib_join(strings.get("msgid", [])))
    return theirs if theirs != ours else None


def _polib_join(quoted: list[str]) -> str:
    """The string as polib reads it: polib knows ``\\n \\t \\r \\v \\b \\f \\\\ \\"`` only."""
    joined = "".join(q[1:-1] for q in quoted)
    return polib.unescape(joined) if "\\" in joined else joined


_NAMED = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\", '"': '"'}
_READ_ESCAPE = re.compile(r"\\(?:([ntrabfv\\\"])|([0-7]{1,3})|x([0-9A-Fa-f]+))")


def unescape(text: str) -> str:
    """A PO string's content as msgfmt reads it: named escapes, octal (up to three digits) and hex numbers.

    A number is one byte (hex digits are read as long as they last, as C does, the value kept to a
    byte); bytes above 127 that follow each other are decoded together as UTF-8 (``\\303\\251`` is é),
    falling back to Latin-1.
    """
    out: list[str] = []
    pending = bytearray()
    last = 0
    for m in _READ_ESCAPE.finditer(text):
        if m.start() != last or m.group(1) is not None:
            _flush(pending, out)
        out.append(text[last : m.start()])
        last = m.end()
        named, octal, hexa = m.groups()
        if named is not None:
            out.append(_NAMED[named])
            continue
        value = (int(octal, 8) if octal else int(hexa, 16)) & 0xFF
        if value < 0x80:
            _flush(pending, out)
            out.append(chr(value))
        else:
            pending.append(value)
    _flush(pending, out)
    out.append(text[last:])
    return "".join(out)


def _flush(pending: bytearray, out: list[str]) -> None:
    if pending:
        try:
            out.append(pending.decode("utf-8"))
        except UnicodeDecodeError:
            out.append(pending.decode("latin-1"))
        pending.clear()


#: The comment lines polib moves to from any state, by their marker (when words follow it).
_COMMENT_SYMBOLS = {"#:": "oc", "#,": "fl", "#.": "gc"}


class _PolibRules:
    """What polib refuses and the scanner would let through, refused with polib's reasons.

    polib classifies each line by its first token and walks a state machine (``st`` start, ``he``
    header comment, ``tc``/``gc``/``oc``/``fl`` comments, ``pc``/``pm``/``pp`` previous strings,
    ``ct``/``mi``/``mp``/``ms``/``mx`` keywords, ``mc`` a continuation); a line it cannot classify, or
    a transition it has not, is a syntax error. The strings themselves the scanner checks more
    strictly than polib does.
    """

    _KEYWORDS = {"msgctxt": "ct", "msgid": "mi", "msgstr": "ms", "msgid_plural": "mp"}
    _PREVIOUS = {"msgctxt": "pc", "msgid": "pm", "msgid_plural": "pp"}
    _ALL = frozenset({"st", "he", "gc", "oc", "fl", "ct", "pc", "pm", "pp", "tc", "ms", "mp", "mx", "mi"})
    # symbol -> the states it may follow
    _FROM = {
        "tc": _ALL - {"ct"},
        "gc": _ALL,
        "oc": _ALL,
        "fl": _ALL,
        "pc": _ALL,
        "pm": _ALL,
        "pp": _ALL,
        "ct": frozenset({"st", "he", "gc", "oc", "fl", "tc", "pc", "pm", "pp", "ms", "mx"}),
        "mi": frozenset({"st", "he", "gc", "oc", "fl", "ct", "tc", "pc", "pm", "pp", "ms", "mx"}),
        "mp": frozenset({"tc", "gc", "pc", "pm", "pp", "mi"}),
        "ms": frozenset({"mi", "mp", "tc"}),
        "mx": frozenset({"mi", "mx", "mp", "tc"}),
        "mc": frozenset({"ct", "mi", "mp", "ms", "mx", "pm", "pp", "pc"}),
    }

    def __init__(self, path: Path) -> None:
        self._path = path
        self._state = "st"
        self._last_token = ""  # the first token of the last line read: polib drops an entry the file ends in
        self._last_line = 0
        self._refused: CatalogError | None = None

    def line(self, i: int, line: str) -> None:
        """Read one stripped, non-empty line of the scanner's (a lone CR splits it in two for polib)."""
        if self._refused is not None:
            return
        try:
            if "\r" not in line:
                if line[0] == '"':  # a string continuation, the commonest line: its tokens are not needed
                    self._last_token, self._last_line = '"', i
                    self._move(i, "mc", line)
                elif len(line) > 2 and line[2].isspace() and (symbol := _COMMENT_SYMBOLS.get(line[:2])):
                    # "#: ...", "#, ..." or "#. ..." with words after it: a move polib makes from any state
                    self._last_token, self._last_line, self._state = line[:2], i, symbol
                elif line[0] == "m" and (space := line.find(" ")) > 0 and (symbol := self._KEYWORDS.get(line[:space])):
                    self._last_token, self._last_line = line[:space], i  # a keyword, a space, its string
                    self._move(i, symbol, line)
                else:
                    self._line(i, line)
                return
            for part in line.split("\r"):
                if part.strip():
                    self._line(i, part.strip())
        except CatalogError as exc:
            self._refused = exc

    def refusal(self, entries: list[Entry]) -> CatalogError | None:
        """The first thing polib refuses, once every line was read."""
        if (
            self._refused is None
            and entries
            and self._state in ("ms", "mx")
            and self._last_token.startswith("#")
            and entries[-1].msgstr_end <= self._last_line
        ):
            # polib keeps the entry a file ends in only when its last line is not comment-like.
            self._refused = CatalogError(
                str(self._path),
                "the last entry is followed by a line (#~|, or a bare #:, #, or #.) that makes polib drop it",
                entries[-1].msgid_line + 1,
            )
        return self._refused

    def _line(self, i: int, line: str) -> None:
        tokens = line.split(None, 2)
        self._last_token, self._last_line = tokens[0], i
        if tokens[0] == "#~|":
            return
        if tokens[0] == "#~" and len(tokens) > 1:
            line, tokens = line[3:].strip(), tokens[1:]
            self._last_token = tokens[0]
        symbol = self._symbol(i, line, tokens)
        if symbol is not None:
            self._move(i, symbol, line)

    def _move(self, i: int, symbol: str, line: str) -> None:
        """polib's transition on a line of kind ``symbol``, or its refusal."""
        if self._state not in self._FROM[symbol]:
            raise CatalogError(str(self._path), "syntax error", i + 1)
        if symbol == "mc" and self._state in ("ct", "mi", "mp", "ms", "mx") and line.startswith("#|"):
            # polib adds a "#|" line's string to the entry's own msgctxt, msgid or msgstr
            raise CatalogError(
                str(self._path), 'a "#|" string line inside an entry, which polib reads as part of its strings', i + 1
            )
        if symbol != "mc":
            self._state = "he" if symbol == "tc" and self._state in ("st", "he") else symbol

    def _symbol(self, i: int, line: str, tokens: list[str]) -> str | None:
        first = tokens[0]
        if first in self._KEYWORDS and len(tokens) > 1:
            return self._KEYWORDS[first]
        if first in ("#:", "#,", "#."):
            return None if len(tokens) <= 1 else {"#:": "oc", "#,": "fl", "#.": "gc"}[first]
        if line.startswith('"'):
            return "mc"
        if line.startswith("msgstr["):
            return "mx"
        if first == "#" or first.startswith("##"):
            return "tc"
        if first == "#|":
            if len(tokens) <= 1:
                raise CatalogError(str(self._path), "syntax error", i + 1)
            if tokens[1].startswith('"'):
                return "mc"
            if len(tokens) == 2:
                raise CatalogError(str(self._path), "invalid continuation line", i + 1)
            if tokens[1] not in self._PREVIOUS:
                raise CatalogError(str(self._path), "unknown keyword", i + 1)
            return self._PREVIOUS[tokens[1]]
        raise CatalogError(str(self._path), "syntax error", i + 1)
