"""Links in an engine's answer: a URL or e-mail address must not be glued to the words around it.

A placeholder tag keeps a link's text intact, but not the spaces beside it: an answer that reads
``<x id="1"/>and`` restores to ``https://example.com/docsand``, a link to another page. Comparing
the restored text with the source cannot tell that from a localised URL, so the answer is judged
while its tags are still tags.
"""

from __future__ import annotations

import re

from pipeline.segments import Protected

__all__ = ["glued_link"]

_LABELS = {"url": "URL", "email": "e-mail address"}
_LINK_KINDS = frozenset(_LABELS)
_TAG_AT = re.compile(r'<x id="(\d+)"/>')


def glued_link(protected: Protected, answer: str) -> str | None:
    """Why an engine's ``answer`` glues a URL or e-mail address to a word the source keeps apart, or None.

    Restored, ``https://example.com/docs`` followed by "and" reads ``https://example.com/docsand``: a
    link to another page, which a comparison of the restored text could only take for a localised URL.
    """
    links = {str(ph.id): ph.text for ph in protected.placeholders if ph.kind in _LINK_KINDS}
    if not links:
        return None
    apart = {
        m.group(1): _neighbours(protected.text, m) for m in _TAG_AT.finditer(protected.text) if m.group(1) in links
    }
    for m in _TAG_AT.finditer(answer):
        ident = m.group(1)
        if ident in apart:
            before, after = _neighbours(answer, m)
            if (after and not apart[ident][1]) or (before and not apart[ident][0]):
                return f"{_LABELS[_kind_of(protected, ident)]} {links[ident]!r} is glued to the text next to it"
    return None


def _neighbours(text: str, m: re.Match[str]) -> tuple[bool, bool]:
    """Whether a letter or digit of a script that spaces its words touches the tag ``m``, left and right.

    Chinese and Japanese writing puts no space around a link, and a reader's link ends at the ideograph.
    """

    def word(ch: str) -> bool:
        return ch.isalnum() and ord(ch) < _IDEOGRAPHIC

    return (m.start() > 0 and word(text[m.start() - 1]), m.end() < len(text) and word(text[m.end()]))


#: From here on (CJK radicals, kana, ideographs, Hangul...): scripts a URL is not glued to.
_IDEOGRAPHIC = 0x2E80


def _kind_of(protected: Protected, ident: str) -> str:
    return next(ph.kind for ph in protected.placeholders if str(ph.id) == ident)
