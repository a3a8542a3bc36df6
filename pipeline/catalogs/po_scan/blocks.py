"""The scan's fast path: a well-formed entry, in the shape gettext writes it, read with one match.

:data:`BLOCK` accepts only lines the strict line scanner reads without complaint, and
:func:`entry` reads them alike: each line starts at its first column and ends in spaces, tabs and
a CRLF's CR at most (what the strict path strips); comments come in gettext's order, each marker
alone or followed by a space or tab; previous strings (``#|``, ``#~|``) come in msgfmt's order right
before the msgctxt or msgid; strings hold no escape but the named ones both gettext and polib know.
Anything else (octal or hex escapes, a second flags line, a blank line inside an entry, indentation, an
entry that starts with ``#~|``) is no match, and the scanner reads it line by line.

What the lines of a matched entry mean to polib needs no check: from any state an entry may follow
(:meth:`~pipeline.catalogs.po_scan.polib_rules.PolibRules.may_start_entry`), each of them is a move
polib makes.
"""

from __future__ import annotations

import re

from pipeline.catalogs.po_scan.entry import Entry, polib_key
from pipeline.catalogs.po_strings import flags_in, unescape
from pipeline.patterns import lazy_regex

# A quoted string is {S}, its content {C}: plain characters, or a backslash and one of the named
# escapes (octal and hex ones, rare, are left to the strict path). {E} ends a line (what the strict
# path strips after the string: spaces, tabs, a CRLF's CR); {O} is "#~ " where the entry is obsolete;
# {V} a "#~|" line, which does not close an entry. {L} is the rest of a line, {N} its end.
# Every repeat is possessive ("*+"): what one part of an entry takes, no later part could take (each
# starts otherwise), so sre keeps no place to step back to, line after line.
_BLOCK = r"""
    (?! {V} )  # not a "#~|" line first: the strict path reads them one by one, and a run of them
               # would be matched again from each (a catalog of such lines would take quadratic time)
    (?P<tc> (?: \# (?:[ \t]{L})? {N} )*+ )     # translator comments, "# words"
    (?P<gc> (?: \#\. (?:[ \t]{L})? {N} )*+ )   # extracted comments, "#. words"
    (?P<oc> (?: \#: (?:[ \t]{L})? {N} )*+ )    # references, "#: file:line"
    (?P<fl> \#, (?:[ \t]{L})? {N} )?          # one flags line, "#, fuzzy, c-format"
    # Previous strings in msgfmt's order ("#| msgctxt", "#| msgid", "#| msgid_plural", each with its
    # '#| "..."' lines) right before a live entry's msgctxt or msgid; "#~|" ones before an obsolete entry's.
    (?P<pv> (?: (?: \#\|[ ]msgctxt[ ] {S}{E} (?: \#\|[ ]+{S}{E} )*+ )?+
                \#\|[ ]msgid[ ] {S}{E} (?: \#\|[ ]+{S}{E} )*+
                (?: \#\|[ ]msgid_plural[ ] {S}{E} (?: \#\|[ ]+{S}{E} )*+ )?+
                (?= msg(?:ctxt|id)[ ] ) )?+ )
    (?P<ov> (?: (?: \#~\|[ ]msgctxt[ ] {S}{E} (?: \#~\|[ ]+{S}{E} )*+ )?+
                \#~\|[ ]msgid[ ] {S}{E} (?: \#~\|[ ]+{S}{E} )*+
                (?: \#~\|[ ]msgid_plural[ ] {S}{E} (?: \#~\|[ ]+{S}{E} )*+ )?+
                (?= \#~[ ]msg(?:ctxt|id)[ ] ) )?+ )
    (?P<o> \#~[ ] )?                                 # an obsolete entry's marker, then {O} on each line
    (?: msgctxt[ ] "(?P<ctxt>{C})" {E} (?P<ctxt_more> (?: {O}{S}{E} )*+ ) {O} )?
    msgid[ ] "(?P<id>{C})" {E} (?P<id_more> (?: {O}{S}{E} )*+ )
    (?: {O}msgid_plural[ ] "(?P<plural>{C})" {E} (?P<plural_more> (?: {O}{S}{E} )*+ )
        (?P<forms> (?: {O}msgstr\[[0-9]\][ ] {S} {E} (?: {O}{S}{E} )*+ )++ )
      | {O}msgstr[ ] "(?P<str>{C})" {E} (?P<str_more> (?: {O}{S}{E} )*+ )
    )
    (?P<blank> (?: [ \t]*{N} )*+ )
    # What follows closes the entry (the strict path would add a string or a msgstr line to it),
    # after "#~|" lines, which open no entry.
    (?= (?: {V} | [ \t]*{N} )*+ (?: \#[^~] | \#~[ ]msg(?:ctxt|id)[ ] | msgctxt[ ] | msgid[ ] | \Z ) )
    """.replace("{S}", r'"{C}"').replace("{C}", r'{Q}*+(?:\\[ntrabfv\\"]{Q}*+)*+')
_BLOCK = _BLOCK.replace("{E}", r"[ \t]*{N}").replace("{O}", r"(?(o)\#~[ ])").replace("{V}", r"\#~\| (?:[ \t]{L})? {N}")


def _block(cr: bool) -> str:
    """:data:`BLOCK`'s pattern, for a text that holds a CR or one that holds none."""
    if cr:
        return _BLOCK.replace("{L}", r"[^\n\r]*").replace("{N}", r"\r?\n").replace("{Q}", r'[^"\\\n\r]')
    # Without a CR in the text, "." is "[^\n\r]" and sre reads it several times faster, a plain "\n" ends a line.
    return _BLOCK.replace("{L}", ".*").replace("{N}", r"\n").replace("{Q}", r'[^"\\\n]')


#: A well-formed entry in a text without a CR (nearly every catalog).
BLOCK = re.compile(_block(cr=False), re.VERBOSE)
#: The same in a text with a CR anywhere (CRLF line ends): alike on a text without one, a fifth slower.
BLOCK_CR = lazy_regex(_block(cr=True), re.VERBOSE)


def pattern(text: str) -> re.Pattern[str]:
    """The pattern that reads a well-formed entry of ``text``."""
    return BLOCK_CR() if "\r" in text else BLOCK


# A string line of a matched block, and a msgstr[N] line or a string line: the string's content,
# between the line's first and last quote.
_CONTENT = re.compile(r'"(.*)"[ \t]*\r?\n')
_FORM = re.compile(r'(?:msgstr\[([0-9])\][ ])?"(.*)"[ \t]*\r?\n')
_NEW = tuple.__new__


def entry(i: int, found: re.Match[str], flags_read: dict[str, tuple[str, ...]]) -> tuple[Entry, int] | None:
    """The entry :data:`BLOCK` matched at line ``i``, as the strict path reads it, and the number of lines
    it spans (blank lines after it included); None when a plural form comes twice, which the strict path
    refuses. ``flags_read`` keeps one tuple per distinct flags line.

    Run once per entry of every catalog read: most entries lack most parts, so each part is tested before
    it is counted, joined or unescaped (a call on an empty string costs as much as on a line), and no
    object is made that the entry's record does not keep (each one brings the collector's next pass closer).
    """
    (tc, gc, oc, fl, pv, ov, obsolete, ctxt, ctxt_more, msgid, id_more,  # every group, in the pattern's order
     plural, plural_more, forms, msgstr, str_more, blank) = found.groups()  # fmt: skip
    if forms is not None:
        plural_forms = _forms(forms)
        if plural_forms is None:
            return None
    else:
        plural_forms = {}
    flags_line = i + (tc.count("\n") if tc else 0) + (gc.count("\n") if gc else 0) + (oc.count("\n") if oc else 0)
    insert_at = flags_line + 1 if fl is not None else flags_line  # after the last comment but "#|" ones
    msgid_line = insert_at + (pv.count("\n") if pv else 0) + (ov.count("\n") if ov else 0)
    if ctxt is not None:
        msgid_line += 1 + ctxt_more.count("\n") if ctxt_more else 1
        raw_ctxt = ctxt + "".join(_CONTENT.findall(ctxt_more)) if ctxt_more else ctxt
    else:
        raw_ctxt = None
    if id_more:  # a keyword's string, then its string lines' (escapes as written)
        msgstr_start = msgid_line + 1 + id_more.count("\n")
        raw_id = msgid + "".join(_CONTENT.findall(id_more))
    else:
        msgstr_start = msgid_line + 1
        raw_id = msgid
    if forms is not None:
        msgstr_start += 1 + plural_more.count("\n") if plural_more else 1
        msgstr_end = msgstr_start + forms.count("\n")
        text = ""
        plural = unescape(plural + "".join(_CONTENT.findall(plural_more)) if plural_more else plural)
    else:
        if str_more:
            msgstr_end = msgstr_start + 1 + str_more.count("\n")
            text = msgstr + "".join(_CONTENT.findall(str_more))
        else:
            msgstr_end = msgstr_start + 1
            text = msgstr
        if "\\" in text:
            text = unescape(text)
        plural = ""
    key = None
    if "\\" in raw_id or (raw_ctxt is not None and "\\" in raw_ctxt):
        # Of the escapes a block may hold, polib reads all but \a as msgfmt does: only with one can the
        # two readings of the key differ (an escaped backslash before an "a" is looked at in full).
        key = polib_key(raw_ctxt, raw_id) if "\\a" in raw_id or "\\a" in (raw_ctxt or "") else None
        raw_id, raw_ctxt = unescape(raw_id), unescape(raw_ctxt) if raw_ctxt is not None else None
    read = _NEW(Entry, (  # Entry's fields in order, made without the Python frame of its __new__
        i, msgid_line, flags_line if fl is not None else None, insert_at, msgstr_start, msgstr_end,
        obsolete is not None, raw_ctxt, raw_id, plural, text, plural_forms,  # raw_ctxt and raw_id unescaped by now
        (flags_read.get(fl) or _flags(fl, flags_read)) if fl is not None else (),
        "\n".join([c[3:] for line in gc.split("\n")[:-1] if len(c := line.strip()) > 2]) if gc else "",
        key,
    ))  # fmt: skip
    return read, msgstr_end - i + blank.count("\n") if blank else msgstr_end - i


def _forms(forms: str) -> dict[int, str] | None:
    """The msgstr[N] lines' strings by N, in the file's order; None if an N comes twice."""
    read: dict[str, list[str]] = {}
    parts: list[str] = []
    for number, content in _FORM.findall(forms):
        if number:
            if number in read:
                return None
            parts = read[number] = [content]
        else:
            parts.append(content)
    return {int(number): unescape("".join(parts)) for number, parts in read.items()}


def _flags(line: str, flags_read: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The flags of a "#," line, split as the strict path splits them (a bare "#," has none), kept in
    ``flags_read``."""
    flags = flags_in(line[2:])
    flags_read[line] = flags
    return flags
