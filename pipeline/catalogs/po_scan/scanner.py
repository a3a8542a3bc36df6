"""The scan: every line checked and read, or a well-formed entry at a time where the fast path matches one."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from pipeline.catalogs.po_scan import blocks
from pipeline.catalogs.po_scan.entry import Entry, Scanned, polib_key
from pipeline.catalogs.po_scan.polib_rules import PolibRules
from pipeline.catalogs.po_strings import flags_in, unescape
from pipeline.errors import CatalogError
from pipeline.patterns import lazy_regex

_KEYWORD = re.compile(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s*(.*)$")
# A plural form's number with blanks around it (``msgstr[ 0 ]``, ``msgstr [0]``), after "msgstr": msgfmt's
# lexer skips the blanks between its tokens (and reads ``msgstr[01]`` as form 1: the number as a number).
_SPACED_FORM = lazy_regex(r"\[[ \t]*(\d+)[ \t]*\]\s*(.*)$")
# A quoted string: plain characters, or a backslash and the character it escapes (written unrolled,
# runs of plain characters at a time: an alternation tried per character costs 2-4x on every line).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
# The strings of a line: msgfmt's lexer reads any number of them, blanks or nothing between them (``msgid "a" "b"``).
_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"(?:[ \t\f\v]*"[^"\\]*(?:\\.[^"\\]*)*")*')
# What gettext reads after a backslash: its named escapes, octal and hex numbers. Anything else
# (\q, \u00e9, \?) is an "invalid control sequence" to msgfmt.
_ESCAPE = re.compile(r"\\(?:[ntrabfv\\\"]|[0-7]{1,3}|x[0-9A-Fa-f]+)")
# A quote that no quote closes: a string left open at the end of its line (after the line's closed ones).
_OPEN_STRING = re.compile(r'(?:"[^"\\]*(?:\\.[^"\\]*)*"[ \t\f\v]*)*"[^"\\]*(?:\\.[^"\\]*)*\\?')
# A previous string's string line ("#| ..." or "#~| ..." and a quote), which a previous keyword alone awaits.
_PREVIOUS_STRING = re.compile(r'#~?[ \t]*\|[ \t]*"')
_BAD_ESCAPE = 'an escape sequence gettext does not know (it reads \\n \\t \\r \\" \\\\, octal and \\x hex)'
# A lowercase word of at most 16 letters, alone before a space or a quote: a misspelt keyword.
_KEYWORD_LIKE = re.compile(r"[a-z_]{1,16}(?:\[\d{1,2}\])?(?=[\s\"]|$)")


#: The previous string's keywords that may follow each (None: the first), as msgfmt's grammar orders them.
_PREVIOUS_ORDER: dict[str | None, tuple[str, ...]] = {
    None: ("msgctxt", "msgid"),
    "msgctxt": ("msgid",),
    "msgid": ("msgid_plural",),
    "msgid_plural": (),
}


#: Where the scanner is inside an entry's keywords and strings.
_KEYWORD_STATES = ("msgctxt", "msgid", "msgid_plural", "msgstr")


class _Open:
    """The entry being read."""

    # A plain class: a dataclass is built with exec when the module loads, for a helper never compared.
    __slots__ = (
        "first",
        "obsolete",
        "msgid_line",
        "flags_line",
        "insert_at",
        "msgstr_start",
        "msgstr_end",
        "strings",
        "flags",
        "comments",
        "plural_forms",
    )

    def __init__(self, first: int, obsolete: bool = False) -> None:
        self.first = first
        self.obsolete = obsolete
        self.msgid_line: int | None = None
        self.flags_line: int | None = None
        self.insert_at: int | None = None
        self.msgstr_start: int | None = None
        self.msgstr_end: int | None = None
        self.strings: dict[str, list[str]] = {}  # keyword -> its quoted strings
        self.flags: list[str] = []
        self.comments: list[str] = []
        self.plural_forms: list[str] = []  # the msgstr[N] keywords, in the file's order


def scan(path: Path, text: str, lines: Sequence[str], ended: bool = True) -> Scanned:
    """Check the syntax line by line and read every entry: ``text`` is the file's, each line ended by a
    newline, and ``lines`` the same lines without their newlines (:func:`pipeline.catalogs.po_lines.decoded`);
    ``ended``: whether the file's last line ends with a newline."""
    return _Scanner(path, ended).read(text, lines)


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


def _contents(quoted: list[str]) -> str:
    """What the quoted strings of one keyword hold, joined, escapes as written."""
    return quoted[0][1:-1] if len(quoted) == 1 else "".join(q[1:-1] for q in quoted)


class _Scanner:
    """The scan's state: the entries read, the one being read, and where in an entry the last line was."""

    def __init__(self, path: Path, ended: bool = True) -> None:
        self.path = path
        self.entries: list[Entry] = []
        self.entry: _Open | None = None
        self.state: str | None = None  # None, "comment", "msgctxt", "msgid", "msgid_plural", "msgstr"
        self.key = ""  # the keyword whose strings continuation lines extend
        # The last previous string's keyword ("#| msgid ..."), until the msgctxt or msgid it precedes, and
        # whether it was an obsolete entry's ("#~| msgid ..."): msgfmt's grammar checked in order.
        self.previous: str | None = None
        self.previous_obsolete = False
        self.interrupted: int | None = None  # a comment's line between the previous strings and their msgid
        # A keyword whose strings start on the next line ("msgid" alone, as msgfmt's lexer reads it), until its
        # first string: its line and name.
        self.bare: tuple[int, str] | None = None
        self.bare_comment: int | None = None  # a comment's line after it, which msgfmt skips
        self.bare_previous: tuple[int, str] | None = None  # the same of a previous string's keyword ("#| msgid")
        self.rules = PolibRules(path)
        self.count = 0  # the lines of the text being read
        self.ended = ended  # whether the file's last line ends with a newline
        self._flags: dict[str, tuple[str, ...]] = {}  # each distinct flags line's, split
        self._block = blocks.BLOCK  # the fast path's pattern for the text being read (blocks.pattern)

    def read(self, text: str, lines: Sequence[str]) -> Scanned:
        """Every entry of ``text`` (``lines``); a :class:`CatalogError` at the first line gettext would refuse."""
        count = self.count = len(lines)
        fast = text.count("\n") == count  # the fast path counts lines by newlines
        self._block = blocks.pattern(text)
        i, at = 0, 0  # the line read next, and where it starts in ``text``
        while i < count:
            if (
                fast
                and self.state in (None, "msgstr")
                and self.previous is None
                and self.bare is None
                and self.rules.may_start_entry()
            ):
                i, at = self._entries(text, i, at)
                if i == count:
                    break
            self._line(i, lines[i])
            i, at = i + 1, at + len(lines[i]) + 1
        if self.bare is not None or self.bare_previous is not None:
            raise self._without_string(count)  # msgfmt's end of file: the line after the last one
        if self.state in ("msgid", "msgid_plural"):
            raise self._missing_msgstr()
        if self.state == "msgctxt":
            raise self._fail(count - 1, "the file ends inside an entry, before its msgstr")
        if self.previous is not None:
            raise self._fail(count - 1, "the file ends after previous strings (#|), before their entry's msgid")
        self._close()
        return Scanned(self.entries, self.rules.refusal(self.entries))

    def _entries(self, text: str, i: int, at: int) -> tuple[int, int]:
        """The fast path: the well-formed entries that follow each other from line ``i`` (at ``at`` in
        ``text``) on; the line, and its place, where the strict path goes on."""
        before = len(self.entries)
        match, entry, flags = self._block.match, blocks.entry, self._flags  # looked up once: a loop per entry
        while (found := match(text, at)) is not None and (read := entry(i, found, flags)) is not None:
            if self.entry is not None:
                self._close()  # the entry the strict path was reading: its last line came before this one
            self.entries.append(read[0])
            i, at = i + read[1], found.end()
        if len(self.entries) > before:  # the state the last entry's last line leaves the scanner and polib in
            last = self.entries[-1]
            self.state = "msgstr"
            self.key = f"msgstr[{next(reversed(last.msgstr_plural))}]" if last.msgstr_plural else "msgstr"
            self.rules.entry_read(last.msgstr_end - 1, plural=bool(last.msgstr_plural))
        return i, at

    def _line(self, i: int, line: str) -> None:
        """The strict path: one line, checked and read."""
        s = line.strip()
        if not s:
            return
        self.rules.line(i, s)
        if self.bare_previous is not None and not _PREVIOUS_STRING.match(s):
            raise self._without_string(i)
        obsolete = s[0] == "#" and s.startswith("#~")
        if obsolete:
            s = s[2:].strip()
            if not s:
                return
            if s[0] == "|":  # "#~| msgid ...": an obsolete entry's previous string, which opens no entry
                if self.state in ("msgid", "msgid_plural"):
                    word = s[1:].split(None, 1)[0] if s[1:].strip() else '"'
                    if word[0] != '"' and word not in _PREVIOUS_ORDER:  # msgfmt meets the keyword first
                        raise self._fail(i, f"unrecognised previous string{_excerpt(s[1:].strip())}")
                    raise self._missing_msgstr()
                self._previous(i, s[1:].strip(), obsolete=True)
                return
        first = s[0]
        if self.bare is not None and first != '"':
            if first == "#" and not obsolete:  # msgfmt's lexer skips it: the next token's line is named
                self.bare_comment = i
                return
            raise self._without_string(i)
        if first == "#":
            self._comment(i, s)
        elif first == '"':
            self._continuation(i, s, obsolete)
        elif (keyword := _KEYWORD.match(s)) is not None:
            name, rest = keyword.group(1), keyword.group(2).rstrip()
            if name == "msgstr" and rest[:1] == "[" and (spaced := _SPACED_FORM().match(rest)):
                name, rest = f"msgstr[{int(spaced[1])}]", spaced[2]
            self._keyword(i, name, rest, obsolete)
        else:
            raise self._fail(i, f"unrecognised line{_excerpt(s)}: not a comment, keyword or quoted string")

    def _same_obsolete(self, i: int, obsolete: bool) -> None:
        """Refuse a line of an entry's keywords and strings that is "#~" where the entry's first is not, or
        the other way round (msgfmt: "inconsistent use of #~")."""
        if self.entry is not None and self.state in _KEYWORD_STATES and obsolete != self.entry.obsolete:
            line, entry = ("with", "a live") if obsolete else ("without", "an obsolete")
            raise self._fail(i, f"a line {line} #~ in {entry} entry, which msgfmt refuses (inconsistent use of #~)")

    def _fail(self, i: int, reason: str) -> CatalogError:
        return CatalogError(str(self.path), reason, i + 1)

    def _unquoted(self, i: int, string: str, reason: str) -> CatalogError:
        """A string that is not properly quoted (``string``: what follows its keyword, or the line).

        One left open (a quote, then no closing one before the line ends) is named where msgfmt names it:
        at the next line, where its lexer is when it meets the line's end ("end-of-line within string").
        """
        if _OPEN_STRING.fullmatch(string) and (i + 1 < self.count or self.ended):
            return self._fail(i + 1, f"a string not closed on line {i + 1}, which msgfmt refuses")
        return self._fail(i, reason)

    def _without_string(self, i: int) -> CatalogError:
        """A keyword alone on its line (its strings may follow on the next ones) that no string follows."""
        line, keyword = self.bare if self.bare is not None else self.bare_previous or (0, "")
        return self._fail(i, f"{keyword} without a string after it (line {line + 1}), which msgfmt refuses")

    def _missing_msgstr(self) -> CatalogError:
        """An entry that ends before its msgstr, at its msgid's line, as msgfmt reports it."""
        assert self.entry is not None and self.entry.msgid_line is not None
        keyword = "msgstr[]" if self.state == "msgid_plural" else "msgstr"
        return self._fail(self.entry.msgid_line, f"missing '{keyword}' section: the entry ends before its {keyword}")

    def _comment(self, i: int, s: str) -> None:
        if self.state in ("msgid", "msgid_plural"):
            raise self._missing_msgstr()
        if self.state == "msgctxt":
            raise self._fail(i, "comment inside an entry, before its msgstr")
        if self.state == "msgstr" or self.entry is None:
            self._close()
            self.entry = _Open(i)
        entry = self.entry
        self.state = "comment"
        previous = s.startswith("#|")
        if previous:
            self._previous(i, s[2:].strip(), obsolete=False)
        elif self.previous is not None and self.interrupted is None:
            self.interrupted = i  # refused at the line msgfmt names, the msgctxt or msgid after it
        # A marker may have its words right after it ("#,fuzzy", "#.note"), as msgfmt reads them.
        if s.startswith("#,"):
            if entry.flags_line is None:
                entry.flags_line = i
            entry.flags.extend(flags_in(s[2:]))
        elif s.startswith("#.") and s[2:].strip():
            entry.comments.append(s[3:] if s[2] in " \t" else s[2:])
        if not previous:
            entry.insert_at = i + 1

    def _previous(self, i: int, rest: str, obsolete: bool) -> None:
        """A previous string's line (``rest``: after its "#|" or "#~|"), checked as msgfmt's grammar has them:
        ``#| msgctxt``, ``#| msgid``, ``#| msgid_plural`` in that order, each a quoted string and its lines."""
        if not rest:
            return  # a bare "#|" or "#~|", which msgfmt reads as nothing
        if self.previous is not None and obsolete != self.previous_obsolete:
            raise self._fail(i, "#| and #~| previous strings mixed (msgfmt: inconsistent use of #~)")
        if rest[0] == '"':
            if self.previous is None:
                raise self._fail(i, "a previous string's line (#|) without a #| msgid before it")
            string, self.bare_previous = rest, None
        else:
            keyword, string = (*rest.split(None, 1), "")[:2]
            if keyword not in _PREVIOUS_ORDER:
                raise self._fail(
                    i, f"unrecognised previous string{_excerpt(rest)}: not #| msgctxt, msgid or msgid_plural"
                )
            if keyword not in _PREVIOUS_ORDER[self.previous]:
                raise self._fail(i, f"#| {keyword} out of msgfmt's order (#| msgctxt, #| msgid, #| msgid_plural)")
            self.previous, string = keyword, string.strip()
            if not string:  # its strings on the next "#|" lines, as msgfmt's lexer reads them
                self.bare_previous = (i, f"#| {keyword}")
                self.previous_obsolete = obsolete
                return
        if not _STRINGS.fullmatch(string):
            raise self._unquoted(i, string, "a previous string (#|) that is not a properly quoted string")
        if "\\" in string and "\\" in _ESCAPE.sub("", string):
            raise self._fail(i, _BAD_ESCAPE)
        self.previous_obsolete = obsolete

    def _keyword(self, i: int, name: str, rest: str, obsolete: bool) -> None:
        if name[-1] == "]" and len(name) != len("msgstr[0]"):  # msgstr[01]: the form's number as msgfmt reads it
            name = f"msgstr[{int(name[7:-1])}]"
        base = "msgstr" if name.startswith("msgstr") else name
        if base != "msgctxt" and (base != "msgid" or self.state == "msgctxt"):  # a line of the entry's keywords
            self._same_obsolete(i, obsolete)
        if base in ("msgctxt", "msgid"):
            self._entry_start(i, base, obsolete)
        elif base == "msgid_plural":
            if self.state == "msgid_plural":  # a second one: msgfmt's grammar wants the forms
                raise self._missing_msgstr()
            if self.state != "msgid":
                raise self._fail(i, "msgid_plural without msgid")
        else:
            self._msgstr(i, name)
        if not rest:  # its strings on the next lines, which msgfmt's lexer reads as the keyword's
            self.bare = (i, name)
        elif not _STRINGS.fullmatch(rest):
            raise self._unquoted(i, rest, f"{name} is not followed by a properly quoted string")
        elif "\\" in rest and "\\" in _ESCAPE.sub("", rest):
            raise self._fail(i, _BAD_ESCAPE)
        assert self.entry is not None
        self.state, self.key = base, name
        strings = self.entry.strings
        quoted = ([rest] if rest[-1] == '"' and rest.count('"') == 2 else _STRING.findall(rest)) if rest else []
        if name in strings:
            strings[name].extend(quoted)
        else:
            strings[name] = quoted
            if name[-1] == "]":
                self.entry.plural_forms.append(name)

    def _entry_start(self, i: int, base: str, obsolete: bool) -> None:
        """A msgctxt or msgid: a new entry after a msgstr, checked against where the last line was."""
        if self.previous is not None:  # the entry the previous strings (#|) were written for
            if self.interrupted is not None:
                reason = f"a comment (line {self.interrupted + 1}) between previous strings (#|) and their msgid"
                raise self._fail(i, reason + ", which msgfmt refuses")
            if self.previous == "msgctxt":
                raise self._fail(i, "#| msgctxt without a #| msgid after it, which msgfmt refuses")
            if obsolete != self.previous_obsolete:
                raise self._fail(i, "#| and #~| previous strings mixed (msgfmt: inconsistent use of #~)")
            self.previous = None
        if self.state == "msgstr" or self.entry is None:
            self._close()
            self.entry = _Open(i, obsolete)
        if self.state in ("msgid", "msgid_plural"):
            raise self._missing_msgstr()
        if base == "msgid" and self.state not in (None, "comment", "msgctxt", "msgstr"):
            raise self._fail(i, "msgid where a msgstr was expected")
        if base == "msgctxt" and self.state not in (None, "comment", "msgstr"):
            raise self._fail(i, "msgctxt in the middle of an entry")
        self.entry.obsolete = obsolete
        if base == "msgid":
            self.entry.msgid_line = i

    def _msgstr(self, i: int, name: str) -> None:
        if self.previous is not None:
            raise self._fail(i, f"{name} after previous strings (#|), before their entry's msgid")
        if self.state not in ("msgid", "msgid_plural", "msgstr"):
            raise self._fail(i, "msgstr without msgid")
        if name != "msgstr" and len(name) > len("msgstr[0]"):
            raise self._fail(i, f"{name}: no language has that many plural forms")
        entry = self.entry
        assert entry is not None
        if "msgstr" in entry.strings:  # msgfmt's syntax error, at this line
            raise self._fail(i, f"{name} after the entry's msgstr, which msgfmt refuses")
        if name != "msgstr" and name in entry.strings:  # polib would keep the second, we join them
            raise self._fail(i, f"{name} a second time in one entry")
        if name not in ("msgstr", "msgstr[0]") and self.state == "msgid":  # msgfmt names this line first
            raise self._fail(i, f"{name} as an entry's first plural form, which msgfmt refuses (nonzero index)")
        if entry.msgstr_start is None:
            entry.msgstr_start = i
        entry.msgstr_end = i + 1

    def _continuation(self, i: int, s: str, obsolete: bool) -> None:
        if self.previous is not None:
            raise self._fail(i, "a string after previous strings (#|), before their entry's msgid")
        self._same_obsolete(i, obsolete)
        if self.state in (None, "comment"):
            raise self._fail(i, "string continuation outside an entry")
        if not _STRINGS.fullmatch(s):
            raise self._unquoted(i, s, "continuation line is not a properly quoted string")
        if "\\" in s and "\\" in _ESCAPE.sub("", s):
            raise self._fail(i, _BAD_ESCAPE)
        assert self.entry is not None
        if self.bare_comment is not None:  # it would be lost from the entry's strings when they are written
            raise self._fail(self.bare_comment, "a comment between a keyword and its string")
        self.bare = None
        self.entry.strings.setdefault(self.key, []).extend([s] if s.count('"') == 2 else _STRING.findall(s))
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
        raw_ctxt = _contents(strings["msgctxt"]) if "msgctxt" in strings else None
        raw_id = _contents(strings.get("msgid", []))
        self.entries.append(
            Entry(
                first=entry.first,
                msgid_line=entry.msgid_line,
                flags_line=entry.flags_line,
                insert_flags_at=entry.insert_at if entry.insert_at is not None else entry.first,
                msgstr_start=entry.msgstr_start,
                msgstr_end=entry.msgstr_end,
                obsolete=entry.obsolete,
                msgctxt=unescape(raw_ctxt) if raw_ctxt is not None else None,
                msgid=unescape(raw_id),
                msgid_plural=unescape(_contents(strings.get("msgid_plural", []))),
                msgstr=unescape(_contents(strings.get("msgstr", []))),
                msgstr_plural={int(name[7:-1]): unescape(_contents(strings[name])) for name in plural}
                if plural
                else {},
                flags=tuple(entry.flags),
                comment="\n".join(entry.comments),
                polib_key=polib_key(raw_ctxt, raw_id),
            )
        )
