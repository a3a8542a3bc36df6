"""Markup damage on purpose (test faults), reproducing what real engines do to protected tags.

Each function takes a translated text and returns it with one defect, or unchanged when the
text has nothing to damage. See ``testing.faults`` for how a request asks for them.
"""

from __future__ import annotations

import bisect
import re

from pipeline.service.engine.base import MarkupOptions
from pipeline.service.engine.markup import TOKEN

_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f]\s+|\n")
_ATTRIBUTE_VALUE = re.compile(r"""=\s*(?:"([^"]*)"|'([^']*)')""")


def _tags(text: str) -> list[re.Match[str]]:
    return [m for m in TOKEN().finditer(text) if m.group("tag") is not None]


def _ignored_spans(text: str, markup: MarkupOptions) -> list[tuple[int, int]]:
    """Start and end of every top-level element named in ``ignore_tags`` (tags and content)."""
    html = markup.mode == "html"
    ignore = {t.lower() for t in markup.ignore_tags} if html else markup.ignore_tags
    spans: list[tuple[int, int]] = []
    start, depth = 0, 0
    for tag in _tags(text):
        name = tag.group("name").lower() if html else tag.group("name")
        if name not in ignore:
            continue
        closing, empty = tag.group("close") is not None, tag.group("selfclose") is not None
        if depth == 0:
            if empty:
                spans.append(tag.span())
            elif not closing:
                start, depth = tag.start(), 1
        elif not empty:
            depth += -1 if closing else 1
            if depth == 0:
                spans.append((start, tag.end()))
    return spans


def _sentence_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _SENTENCE_END.finditer(text))]


def _sentence_start(text: str, starts: list[int], index: int) -> int:
    start = starts[bisect.bisect_right(starts, index) - 1]
    while start < index and text[start].isspace():
        start += 1
    return start


def move(text: str, markup: MarkupOptions) -> str:
    """The first ignored element not already there, moved to the start of its sentence."""
    starts = _sentence_starts(text)
    for start, end in _ignored_spans(text, markup):
        target = _sentence_start(text, starts, start)
        if target == start:
            continue
        element = text[start:end]
        before, after = text[:start], text[end:]
        if before.endswith(" ") and (after.startswith(" ") or not after):
            before = before[:-1]
        rest = before + after
        return rest[:target] + element + rest[target:]
    return text


def drop(text: str) -> str:
    """The first tag removed."""
    tags = _tags(text)
    if not tags:
        return text
    return text[: tags[0].start()] + text[tags[0].end() :]


def duplicate(text: str) -> str:
    """The first tag emitted twice."""
    tags = _tags(text)
    if not tags:
        return text
    return text[: tags[0].end()] + tags[0].group() + text[tags[0].end() :]


def attribute(text: str, mark: str) -> str:
    """The first attribute value "translated": ``mark`` added after its first character."""
    for tag in _tags(text):
        value = _ATTRIBUTE_VALUE.search(tag.group("attrs"))
        if value is None:
            continue
        group = 1 if value.group(1) is not None else 2
        cut = tag.start("attrs") + value.start(group) + (1 if value.group(group) else 0)
        return text[:cut] + mark + text[cut:]
    return text


def swap(text: str) -> str:
    """The first two different tags exchanged."""
    tags = _tags(text)
    second = next((t for t in tags[1:] if t.group() != tags[0].group()), None) if tags else None
    if second is None:
        return text
    first = tags[0]
    return (
        text[: first.start()]
        + second.group()
        + text[first.end() : second.start()]
        + first.group()
        + text[second.end() :]
    )


def glue(text: str) -> str:
    """The spaces right after the first tag removed: what it stands for touches the next word."""
    tags = _tags(text)
    if not tags:
        return text
    end = tags[0].end()
    return text[:end] + text[end:].lstrip(" ")


#: A word that starts with a letter and holds a digit: what opaque placeholder tokens look like.
_CODE_WORD = re.compile(r"(?<![^\W_])[^\W\d_][^\W_]*\d[^\W_]*")


def damage_any(text: str, markup: MarkupOptions | None) -> str:
    """The first tag removed (with tag handling), else the first code-like word removed."""
    if markup is not None and _tags(text):
        return drop(text)
    code = _CODE_WORD.search(text)
    return text if code is None else text[: code.start()] + text[code.end() :]


#: Markup no source has, which an injection fault brings into an answer.
SCRIPT = "<script>alert(1)</script>"
_PLACEHOLDER = re.compile(r"<x\s[^>]*/>|<span\s[^>]*>\s*</span>|_XQ[0-9]+_")


def inject(text: str, markup: MarkupOptions | None) -> str:
    """:data:`SCRIPT` written as text after the answer: escaped with tag handling, as it is without."""
    if markup is None:
        return f"{text} {SCRIPT}"
    return f"{text} {SCRIPT.replace('<', '&lt;').replace('>', '&gt;')}"


def inject_beside(text: str) -> str:
    """:data:`SCRIPT` as markup right after the first placeholder (tag, span or token), or at the end."""
    first = _PLACEHOLDER.search(text)
    at = first.end() if first else len(text)
    return text[:at] + SCRIPT + text[at:]


def apply(mode: str, text: str, markup: MarkupOptions | None, mark: str) -> str:
    """Apply one mangle mode to a translated text (``any`` and the injections also without tag handling)."""
    if mode == "any":
        return damage_any(text, markup)
    if mode == "inject":
        return inject(text, markup)
    if mode == "inject-beside":
        return inject_beside(text)
    if markup is None:
        return text
    if mode == "swap":
        return swap(text)
    if mode == "move":
        return move(text, markup)
    if mode == "drop":
        return drop(text)
    if mode == "duplicate":
        return duplicate(text)
    if mode == "glue":
        return glue(text)
    return attribute(text, mark)
