"""Which lone ``<word>`` names of a text are code, read as they are, and which are words a translator translates.

A ``<word>`` that is no markup (:func:`pipeline.placeholders.markup.is_markup`) is code where a program
reads it as it is: a header file, a key of vim's, a file the text also names, an element named in
prose. It is a metavariable (``Usage: cp <source> <dest>``) or a shown value (``<unspecified>``)
otherwise, which translators translate (:class:`CodeNames`). Judging a human translation, a ``<word>`` of the
shape translators translate that one wrote in their language is not warned about
(:func:`without_translated_names`).
"""

from __future__ import annotations

import functools
from bisect import bisect_left
from collections.abc import Sequence

from pipeline.patterns import lazy_regex
from pipeline.segments import Placeholder

__all__ = ["CODE_NAME", "CodeNames", "translatable_name", "without_translated_names"]

#: The kind of a lone ``<word>`` that is code: an element named in prose, a key, a header file.
CODE_NAME = "code-name"

#: Vim's key notation, spelt as vim spells it (``<Enter>``, ``<CR>``, ``<C-W>``; ``<end>`` is a
#: metavariable), and the expansions of its command line (``<sfile>``): what its users type as it is.
_KEYS = frozenset(
    """Enter Return CR NL LF Tab Esc Space BS Del Bar Bslash Up Down Left Right Home End Insert PageUp PageDown
    Cmd SID Plug Leader LocalLeader Nop LeftMouse RightMouse""".split()
)
_EXPANSIONS = frozenset("sfile afile abuf amatch slnum sflnum cword cWORD cfile cexpr".split())
_LONE_WORD = lazy_regex(r"<([A-Za-z][\w.-]*)>")
_KEY_CHORD = lazy_regex(r"[CSMAD]-\w+|F[0-9]{1,2}")  # <C-W>, <S-Tab>, <F12>
#: An <inttypes.h> macro, which xgettext writes in angle brackets (``%<PRIu64>``): code wherever it stands,
#: glued to a directive's width too (``%-10<PRIu64>``, which reads like an option's metavariable).
_INTTYPES_MACRO = lazy_regex(r"PRI[diouxX](?:MAX|PTR|(?:LEAST|FAST)?(?:8|16|32|64))")
#: What makes a text a usage line, whose lone ``<word>`` is a metavariable: an option, a "usage:" label (not
#: the word: zabbix's "usage in Hz, <url> - …" names a key's parameter), or small words starting it before
#: an argument (``cp <source> <dest>``, ``git cat-file <type> <object>``).
_USAGE = lazy_regex(r"(?:^|[\s\[(|])(?:--?|\+)[A-Za-z<]|\b[Uu]sage:|^[a-z][\w-]*(?:[ ]+[a-z][\w/-]*)*[ ]+[<\[(]")
#: A metavariable where it stands: glued to an option, a word or a bracket (``-J<directory>``,
#: ``=<number>``, ``[<options>]``), beside another (``<start>,<end>``, ``<package>-<version>``), in a
#: quoted command (``'git add <file>'``).
_GLUED_BEFORE = lazy_regex(r"(?:[\w=:\[(|]|>[,/|-]?)\Z")
_BESIDE_AFTER = lazy_regex(r"[,/|-]?<")  # matched where the <word> ends
_APOSTROPHE = lazy_regex(r"\w'\w")  # "isn't": no quote


class CodeNames:
    """Which lone ``<word>`` names of a text are code, not a metavariable or a shown value; each judged once.

    Code: a header file (``<signal.h>``), a key (``<Enter>``, ``<C-x>``), a file the text also names
    (``<vimrc>`` beside ``.vimrc``), and an element named in a sentence that is no usage line
    (GSettings' ``<%s> must contain at least one <value>``: human translators keep all of glib's). Text:
    the whole text (``<unspecified>``, ``<Empty>``), and a metavariable of a text with options or a
    "usage:" label (``-font <font>``, ``Usage: cp <source> <dest>``). Every occurrence of a tag is judged alike.

    What a judgement asks of the whole text (where each ``<word>`` is, its quotes, its dotted names, whether
    it is a usage line) is read once for all of them: asked anew per tag, a text of n names cost n squared
    (Ruby's ``%<n>d`` 4,000 times took seconds).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._judged: dict[str, bool] = {}

    def __call__(self, tag: str) -> bool:
        """Whether ``tag`` (a ``<word>`` of the text that is no markup) is code."""
        judged = self._judged.get(tag)
        if judged is None:
            judged = self._judged[tag] = self._judge(tag)
        return judged

    def _judge(self, tag: str) -> bool:
        m = _LONE_WORD().fullmatch(tag)
        if m is None:
            return False
        name = m.group(1)
        if "." in name:
            return True
        if name in _KEYS or _KEY_CHORD().fullmatch(name) or _INTTYPES_MACRO().fullmatch(name):
            return True  # even glued to a command: ":help iccf<Enter>"
        # One name, one thing: a metavariable where any occurrence is one ("[<channel>] ... closes <channel>").
        text = self.text
        for where in self._where.get(tag, ()):
            after = where + len(tag)
            # At most two characters before it match: they are searched for there, not through the text before.
            glued = _GLUED_BEFORE().search(text, max(0, where - 2), where) is not None
            if glued or _BESIDE_AFTER().match(text, after) or self._quoted(where, after):
                return False
        if name in _EXPANSIONS:
            return True
        if self._dotted(name):
            return True
        if self._alone == tag:
            return False
        return not self._usage

    @functools.cached_property
    def _where(self) -> dict[str, list[int]]:
        """Where each ``<word>`` of the text starts (every occurrence: what follows a ``<word>`` starts no other)."""
        found: dict[str, list[int]] = {}
        for m in _LONE_WORD().finditer(self.text):
            found.setdefault(m.group(), []).append(m.start())
        return found

    @functools.cached_property
    def _quotes(self) -> dict[str, list[int]]:
        """Where the text's quotes are, in order: an apostrophe inside a word (``isn't``) is none."""
        text = self.text
        inside = {m.start() + 1 for m in _APOSTROPHE().finditer(text)} if "'" in text else set()
        return {q: [i for i, c in enumerate(text) if c == q and i not in inside] for q in "'\"" if q in text}

    def _quoted(self, start: int, end: int) -> bool:
        """Whether the text around ``start``..``end`` quotes it with a command (``'git add <file>'``): an odd
        number of a quote before it, and one after it."""
        for places in self._quotes.values():
            before = bisect_left(places, start)
            if before % 2 == 1 and bisect_left(places, end) < len(places):
                return True
        return False

    @functools.cached_property
    def _dots(self) -> dict[str, list[int]]:
        """Where a dotted name (``.vimrc``, not ``a.b`` nor ``..x``) starts after its dot, by its first word."""
        found: dict[str, list[int]] = {}
        if "." in self.text:
            for m in _DOTTED().finditer(self.text):
                found.setdefault(m.group(1), []).append(m.start(1))
        return found

    def _dotted(self, name: str) -> bool:
        """Whether the text names a file ``.name`` (``(?<![\\w.])\\.name\\b``); ``name`` holds no dot."""
        text, end = self.text, len(name)
        return any(
            text.startswith(name, at) and _boundary(text, at + end) for at in self._dots.get(name.split("-")[0], ())
        )

    @functools.cached_property
    def _alone(self) -> str | None:
        """The ``<word>`` that is the whole text, repeated or with punctuation around it, if one is."""
        if len(self._where) != 1:
            return None
        (tag,) = self._where
        return tag if not self.text.replace(tag, "").strip(_AROUND_ALONE) else None

    @functools.cached_property
    def _usage(self) -> bool:
        return _USAGE().search(self.text) is not None


#: What may stand around a ``<word>`` that is the whole text (``<unspecified>``, ``(<Empty>).``).
_AROUND_ALONE = " .,:;!?()\n\t\"'"
#: A dot that starts a name (``.vimrc``), not one inside a word or after another dot, and the name's first word.
_DOTTED = lazy_regex(r"(?<![\w.])\.(\w*)")
_WORD_CHAR = lazy_regex(r"\w")


def _boundary(text: str, at: int) -> bool:
    """``\\b`` at ``at``: a word character on one side only."""
    before = at > 0 and _WORD_CHAR().match(text, at - 1) is not None
    return before != (at < len(text) and _WORD_CHAR().match(text, at) is not None)


#: A lone ``<word>`` of the shape human translators translate: a small-letter word or compound of two letters
#: or more (git's ``<upstream>``, ``<rev-opts>``, dpkg's ``<directory>``, dselect's ``<space>``). Across the
#: sample's human catalogs such words are translated 5,908 times to 4,426 kept in dpkg, 8,405 to 1,521 in
#: git, 292 to 8 in gcc, 79 to 11 in coreutils and 40 to 4 in gnome-shell. What they keep stays code: single
#: letters (``<n>``), capitals and capitalized keys (``<MODULE_PATH>``, vim's ``<Enter>``), names with a digit,
#: an underscore or a dot (``<i1>``, netbox's ``<app_label>``, ``<stdio.h>``), macros (``<PRIuMAX>``).
_TRANSLATED_NAME = lazy_regex(r"<[a-z]{2,}(?:-[a-z]+)*>")


def translatable_name(tag: str) -> bool:
    """Whether ``tag``, a lone ``<word>``, has the shape human translators translate (:data:`_TRANSLATED_NAME`)."""
    return _TRANSLATED_NAME().fullmatch(tag) is not None


#: What a translator writes in such a word's place: words of any script in angle brackets, joined by a space,
#: a hyphen or an underscore (``<Leertaste>``, ``<nom de fichier>``, ``<опции-rev-list>``, git's Swedish
#: ``<nytt_grennamn>``), no digit nor dot (``<stdio.h>`` is code).
_STAND_IN = lazy_regex(r"<[^\W\d_]+(?:[ _-][^\W\d_]+)*>")


def without_translated_names(
    source: Sequence[Placeholder], target: Sequence[Placeholder], translation: str
) -> tuple[Sequence[Placeholder], Sequence[Placeholder]]:
    """``source`` and ``target`` less each lone ``<word>`` a human translated: each of :data:`_TRANSLATED_NAME`'s
    shape that the translation leaves out, where it writes as many words in angle brackets the source has not
    (``--%s needs <name>``, dpkg's French ``--%s a besoin de <nom>``). The engine never sees them (they are
    protected); a translator who writes them in their language is not warned about it."""
    gone = [ph for ph in source if ph.kind == CODE_NAME and ph.text not in translation and translatable_name(ph.text)]
    if not gone:
        return source, target  # most translations
    theirs = {ph.text for ph in source}
    stand_ins = {m.group() for m in _STAND_IN().finditer(translation)} - theirs
    if sum(translation.count(name) for name in stand_ins) < len(gone):
        return source, target
    return (
        [ph for ph in source if ph not in gone],
        [ph for ph in target if not (ph.kind == CODE_NAME and ph.text in stand_ins)],
    )
