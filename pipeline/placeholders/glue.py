"""Tokens glued to their neighbours in an engine's answer: a URL, a variable, an option must not touch a word.

A placeholder tag keeps a token's text intact, but not the spaces beside it: an answer that reads
``<x id="1"/>and`` restores to ``https://example.com/docsand`` (a link to another page), ``$d day``
to ``$dday`` (another variable), ``-B, --ignore-backups`` moved to ``--ignore-backups-B`` (another
option), ``%1`` before a digit to ``%12`` (another argument), a directive before a word to one that
reads longer or runs into it (``%Ey`` for ``%E``, ``%sis``). Comparing the restored text with the
source cannot tell that from a localised word order, so the answer is judged while its tags are
still tags: a token the source keeps apart from a word must stay apart from one. Scripts that write
no space between words (Chinese, Japanese, Korean, Thai, Lao, Khmer, Myanmar, Tibetan) may touch it.
"""

from __future__ import annotations

import re

from pipeline.segments import Protected

__all__ = ["glued"]

#: Tokens a reader (or a program) ends at the first character that is not a letter or digit: touching
#: a word makes them another token.
_LABELS = {
    "url": "URL",
    "email": "e-mail address",
    "dollar-var": "variable",
    "option": "option",
    "path": "path",
    "identifier": "name",
    "code-identifier": "name",
    "code-run": "code",
    "fortran-directive": "directive",
    "ex-command": "command",
    "protocol-command": "command",
    "command-synopsis": "command",
    "file-glob": "file pattern",
    "glued-file-name": "file name",
    "escaped-brace": "reference",
}
#: Numbered arguments (``%1``): a digit after one makes another number.
_NUMBERED = frozenset({"qt-numbered", "qt-format", "kde-format", "kde-kuit-format", "smalltalk-format", "ycp-format"})
#: Directives a letter after which reads as part of them, or as a word run into the value they print
#: (what is before them is the text's business).
_DIRECTIVES = frozenset({"safe-printf", "percent-directive", "qt-count", "safe-brace", "icu-arg"})
_TAG_AT = re.compile(r'<x id="(\d+)"/>')


def glued(protected: Protected, answer: str) -> str | None:
    """Why an engine's ``answer`` glues a token to a word or another token (or a numbered argument to a
    digit) that the source keeps apart, or None."""
    kinds = {str(ph.id): ph for ph in protected.placeholders if _watched(ph.kind)}
    if not kinds:
        return None
    tokens = {ident for ident, ph in kinds.items() if ph.kind in _LABELS}
    apart = {m.group(1): _neighbours(protected.text, m, tokens) for m in _TAG_AT.finditer(protected.text)}
    for m in _TAG_AT.finditer(answer):
        ident = m.group(1)
        if ident not in kinds or ident not in apart:
            continue
        ph = kinds[ident]
        if ph.kind in _NUMBERED and _digit_after(answer, m.end()):
            if not _digit_after(protected.text, _end_of(protected.text, ident)):
                return f"argument {ph.text!r} is glued to the digit after it"
        before, after = _neighbours(answer, m, tokens)
        if ph.kind not in _LABELS:  # a directive: only a word after it
            if after and not apart[ident][1]:
                return f"placeholder {ph.text!r} is glued to the word after it"
            continue
        if (after and not apart[ident][1]) or (before and not apart[ident][0]):
            return f"{_LABELS[ph.kind]} {ph.text!r} is glued to the text next to it"
    return None


def _watched(kind: str) -> bool:
    """Whether what touches a placeholder of ``kind`` is judged here (tokens, numbered arguments, directives)."""
    return kind in _LABELS or kind in _NUMBERED or kind in _DIRECTIVES or kind.endswith("-format")


def _end_of(text: str, ident: str) -> int:
    tag = f'<x id="{ident}"/>'
    return text.index(tag) + len(tag)


def _digit_after(text: str, at: int) -> bool:
    return at < len(text) and text[at].isdigit()


def _neighbours(text: str, m: re.Match[str], tokens: set[str]) -> tuple[bool, bool]:
    """Whether a word, or another token, touches the tag ``m``, left and right.

    A word is letters or digits of a script that spaces its words: Chinese and Japanese writing puts
    no space around a link, and a reader's link ends at the ideograph.
    """

    def word(ch: str) -> bool:
        return ch.isalnum() and ord(ch) < _IDEOGRAPHIC and not any(a <= ord(ch) <= b for a, b in _UNSPACED)

    previous = _BEFORE.search(text, 0, m.start())
    following = _TAG_AT.match(text, m.end())
    return (
        m.start() > 0 and (word(text[m.start() - 1]) or (previous is not None and previous.group(1) in tokens)),
        m.end() < len(text) and (word(text[m.end()]) or (following is not None and following.group(1) in tokens)),
    )


_BEFORE = re.compile(r'<x id="(\d+)"/>\Z')


#: From here on (CJK radicals, kana, ideographs, Hangul...): scripts a token is not glued to.
_IDEOGRAPHIC = 0x2E80
#: Scripts before it that write no space between words: Thai, Lao, Tibetan, Myanmar, Khmer.
_UNSPACED = ((0x0E00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x17FF))
