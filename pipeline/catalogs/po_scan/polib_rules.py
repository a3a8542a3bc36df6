"""polib's grammar beside the scanner's: a catalog a run reads is one ``pipeline refresh`` reads alike.

``pipeline refresh`` merges polib's entries, so whatever polib refuses is refused when the catalog
is read (:class:`PolibRules`); a property test compares the two readers on generated catalogs.
"""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.catalogs.po_scan.entry import Entry
from pipeline.catalogs.po_strings import flags_in
from pipeline.errors import CatalogError

#: A plural form's keyword with blanks before its bracket, which polib is given without them.
_SPACED_FORM = re.compile(r"msgstr[ \t]+\[")
#: The comment lines polib moves to from any state, by their marker (when words follow it).
_COMMENT_SYMBOLS = {"#:": "oc", "#,": "fl", "#.": "gc"}
#: A comment marker with its words right after it ("#,fuzzy", "#.note", "#note", "#~msgid"): msgfmt's lexer
#: reads the marker's kind from its characters alone, polib splits the line at blanks and refuses it.
_UNSPACED_MARKER = re.compile(r"\A([ \t]*)(\#~(?=[^ \t|\r\n])|\#[,.:](?=[^ \t\r\n])|\#(?=[^ \t,.:|~\#\r\n]))")
#: A keyword alone on its line, its strings on the next ones (msgfmt reads the tokens after it wherever they
#: are); polib wants one on the keyword's line. A previous string's keyword too ("#| msgid").
_BARE_KEYWORD = re.compile(
    r"\A([ \t]*(?:\#~?[ \t]*\|[ \t]*|\#~[ \t]*)?"
    r"(?:msgctxt|msgid_plural|msgid|msgstr(?:[ \t]*\[[ \t]*\d+[ \t]*\])?))[ \t]*(\r?\n?)\Z"
)
#: A keyword and its string without a blank between them (``msgid"x"``), which polib splits at blanks.
_UNSPACED_KEYWORD = re.compile(
    r'\A([ \t]*(?:\#~?[ \t]*\|[ \t]*|\#~[ \t]*)?(?:msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?))(?=")'
)
#: A line's strings from its first quote, two or more (``msgid "a" "b"``), and the line's end: polib reads one
#: string a line, msgfmt's lexer any number.
_SEVERAL_STRINGS = re.compile(r'("(?:[^"\\]|\\.)*"(?:[ \t\f\v]*"(?:[^"\\]|\\.)*")+)([ \t\f\v\r\n]*)\Z')
#: What one string holds, escapes as written.
_CONTENT = re.compile(r'"((?:[^"\\]|\\.)*)"')


#: A flags line: its marker, its flags, its line end.
_FLAGS_LINE = re.compile(r"\A([ \t]*\#,)(.*?)(\r?\n?)\Z", re.DOTALL)


def polib_line(line: str) -> str:
    """``line`` as polib is given it, meaning what msgfmt reads: a marker's words set apart from it, flags split at
    blanks as well as commas (polib splits them at commas alone), a keyword whose strings start on the next line
    given an empty one (``msgid ""``), a keyword set apart from its string (``msgid"x"``), and the strings of a
    line joined in one (``msgid "a" "b"`` is ``msgid "ab"``)."""
    if "#" in line[:3] or line.lstrip(" \t#~")[:3] == "msg":
        line = _UNSPACED_MARKER.sub(r"\1\2 ", line, count=1)
        line = _BARE_KEYWORD.sub(r'\1 ""\2', line, count=1)
        line = _UNSPACED_KEYWORD.sub(r"\1 ", line, count=1)
        if (flags := _FLAGS_LINE.match(line)) is not None and (read := flags_in(flags[2])):
            line = f"{flags[1]} {', '.join(read)}{flags[3]}"
    if line.count('"') > 2 and (several := _SEVERAL_STRINGS.match(line, line.index('"'))) is not None:
        line = f'{line[: several.start()]}"{"".join(_CONTENT.findall(several[1]))}"{several[2]}'
    return line


class PolibRules:
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
                elif (
                    line[0] == "m"
                    and (space := line.find(" ")) > 0
                    and (symbol := self._KEYWORDS.get(line[:space]))
                    and line[space:].lstrip()[:1] != "["
                ):
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

    def may_start_entry(self) -> bool:
        """Whether every line of a well-formed entry may come next (the fast path reads one only then)."""
        # An entry's first line (a comment, msgctxt or msgid) may follow each of msgctxt's states.
        return self._refused is not None or self._state in self._FROM["ct"]

    def entry_read(self, last_line: int, plural: bool) -> None:
        """The fast path read a well-formed entry that ends at ``last_line``: move as its lines would have.

        Every line of such an entry is a move polib makes from where it was (:meth:`may_start_entry`),
        so only where the entry leaves it counts: after its msgstr or last msgstr[N], with a keyword or
        a string as its last token, not a comment marker (all that :meth:`refusal` asks of it).
        """
        if self._refused is None:
            self._state = "mx" if plural else "ms"
            self._last_token, self._last_line = "msgstr", last_line

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
        line = polib_line(line)
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
        if _SPACED_FORM.match(line):  # "msgstr [0]": polib is given it as "msgstr[0]" (polib_file._polib_text)
            return "mx"
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
