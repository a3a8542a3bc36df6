"""Zope's message ids: an entry's text is its ``#. Default:`` comment, where it has one.

Zope, Plone and Pyramid (Chameleon) code names its messages (``msgid "deleting_contents"``) and keeps
the English text beside the name; the extractors write that text into the catalog as an extracted
comment, and zope.i18n shows it wherever the catalog has no translation. The text is what a
translation is made from and judged against; the id is only its name. Two writers, two shapes:

- i18ndude (and zope.app.locales' pygettext): ``#. Default: "text"``, a PO string with its escapes
  (``\\"``, ``\\n``); a text of several lines is ``#. Default: ""`` followed by one ``#. "line"``
  comment per line (``#.  "line"`` in i18ndude's newer writer), read as PO strings are: joined.
- lingua: ``#. Default: text`` as written in the code, which polib wraps at lingua's 79 columns over
  several ``#.`` lines. A line goes on where its first word did not fit on the line before; lingua's
  other comments (``pragma: no cover``) start lines of their own. A text of several lines (a
  triple-quoted default) has a ``#.`` line per line of it, each indented as in the code: a line that
  starts with a blank is the text's next line, kept as zope.i18n shows it. Any developer's note may
  read ``Default: ...``, so this shape counts only for a msgid spelled as a name (no whitespace).

A Default counts where it is not empty and differs from the msgid. The text keeps the msgid's
newlines at its ends (``msgfmt --check`` holds a translation to the msgid's). An entry with two
Defaults that differ (one id used with two texts, as lingua merges them) has no one text: its
first is shown and checked against, and a run leaves it to a human. A plural entry's comment is
never read: Zope's catalogs have none, and a Default would stand for the singular alone.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from pipeline.catalogs.po_strings import unescape

__all__ = ["Default", "default_changed", "default_of"]

_MARK = "Default:"
#: A whole PO string: quotes around characters that are not quotes or backslashes, or escapes.
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"\Z', re.DOTALL)
#: The width lingua (``--width``, through polib) wraps comments at, "#. " included.
_WIDTH = 79
_PREFIX = len("#. ")


class Default(NamedTuple):
    """An entry's Default text, and whether it has another Default with another text."""

    text: str
    undecided: bool = False


def default_of(comment: str, msgid: str) -> Default | None:
    """The Default text the extracted comments ``comment`` (one per line) give the entry ``msgid``, or None."""
    lines = comment.split("\n")
    texts = [text for i, line in enumerate(lines) if line.startswith(_MARK) and (text := _read(lines, i, msgid))]
    if not texts:
        return None
    text = _edges_of(msgid, texts[0])
    if not text.strip("\n") or text == msgid:
        return None
    return Default(text, any(other != texts[0] for other in texts[1:]))


def default_changed(msgid: str, comment: str, template_comment: str) -> bool:
    """Whether the entry ``msgid``'s Default text is another in its template's extracted comments than in its own:
    its translation is of the old text. msgmerge keeps it as it is (the msgid is the same), under the new Default."""
    if "Default:" not in comment or comment == template_comment:
        return False
    was, now = default_of(comment, msgid), default_of(template_comment, msgid)
    return was is not None and now is not None and was.text != now.text


def _read(lines: list[str], at: int, msgid: str) -> str | None:
    """The text of the Default comment at ``lines[at]``, with the lines that go on with it."""
    first = lines[at][len(_MARK) :].strip()
    whole = _STRING.match(first)
    if whole is not None:  # i18ndude: a PO string, then the strings of the lines after it
        parts = [whole.group(1)]
        for line in lines[at + 1 :]:
            more = _STRING.match(line.strip())
            if more is None:
                break
            parts.append(more.group(1))
        return unescape("".join(parts))
    if any(c.isspace() for c in msgid):
        return None  # not a name: "Default: ..." may be anybody's note
    # lingua: the words polib wrapped onto the next lines (a string it wrapped is read as a string), and the
    # text's own next lines, indented as in the code (a triple-quoted default), which zope.i18n shows as written
    text, written = first, _PREFIX + len(lines[at])
    for line in lines[at + 1 :]:
        if line[:1] in (" ", "\t") and line.strip():
            text += "\n" + line
        else:
            word = line.split(" ", 1)[0]
            if not word or line.startswith(_MARK) or written + 1 + len(word) <= _WIDTH:
                break
            text += " " + line
        written = _PREFIX + len(line)
    wrapped = _STRING.match(text)
    return unescape(wrapped.group(1)) if wrapped is not None else text


def _edges_of(msgid: str, text: str) -> str:
    """``text`` beginning and ending with a newline where ``msgid`` does, and only there."""
    core = text.strip("\n")
    return ("\n" if msgid.startswith("\n") else "") + core + ("\n" if msgid.endswith("\n") else "")
