"""ICU MessageFormat: the structure of ``plural``/``select``/``selectordinal`` messages, for protection.

:func:`spans` cuts a message into the parts that must come back verbatim (argument heads such as
``{count, plural, offset:1 ``, case keys with their brace such as ``few {`` or ``male {``, closing
braces, ``#`` inside plural cases, simple arguments ``{name}`` / ``{n, number}``, quoted literals
``'{'``) and leaves the case bodies and the text around them to translate. :func:`check` then
verifies a translation's sequence of parts: the structure (heads, keys, closing braces) in the
source's exact order, every other placeholder inside the same case as in the source, and no text
that would change the structure (letters between cases, a stray brace or ``#``).
"""

import re
from collections.abc import Sequence
from typing import NamedTuple

from pipeline.patterns import lazy_regex
from pipeline.placeholders.grammar import ARGUMENT_NAME

#: Opens an argument; closes one; opens a case body.
HEAD, CLOSE, CASE = "icu-head", "icu-close", "icu-case"
STRUCTURE = frozenset({HEAD, CLOSE, CASE})
HASH, ARG, QUOTE = "icu-hash", "icu-arg", "icu-quote"
#: Somewhere in the text, the head of a plural or select message: {count, plural, ...
PRESENT = lazy_regex(r"\{\s*" + ARGUMENT_NAME + r"\s*,\s*(?:plural|select|selectordinal)\s*,", re.VERBOSE)

#: The head of a plural or select message at a position, up to its first case; group 1 is its type.
_HEAD = lazy_regex(
    r"\{\s*"
    + ARGUMENT_NAME
    + r"""\s*,\s*(plural|select|selectordinal)\s*,
                   (?:\s*offset\s*:\s*\d+)?\s*   # plural messages may subtract an offset""",
    re.VERBOSE,
)
#: A simple argument, {name} or {0}, or the start of a formatted one: {when, date, short}.
_SIMPLE = lazy_regex(r"\{\s*" + ARGUMENT_NAME + r"\s*(?:\}|,)", re.VERBOSE)
_KEY = lazy_regex(r"(?:=-?\d+(?:\.\d+)?|[A-Za-z_][\w-]*)\s*\{")
_BODY_CLOSE = lazy_regex(r"\}\s*")
_MAX_DEPTH = 20


class Span(NamedTuple):
    """One protected part of an ICU message."""

    start: int
    end: int
    kind: str


def head_type(text: str, head: Span) -> str:
    """``plural``, ``select`` or ``selectordinal``: the type of the argument whose head is ``head``."""
    m = _HEAD().match(text, head.start)
    return m.group(1) if m else ""


class _Malformed(Exception):
    """Not an ICU message we can take apart safely."""


def spans(text: str) -> list[Span] | None:
    """The protected parts of ``text`` in order, or None when it holds no well-formed plural/select argument."""
    if not PRESENT().search(text):
        return None
    out: list[Span] = []
    try:
        end = _message(text, 0, out, in_plural=False, depth=0)
    except _Malformed:
        return None
    if end != len(text) or not any(s.kind == HEAD for s in out):
        return None
    return out


def _message(text: str, pos: int, out: list[Span], in_plural: bool, depth: int) -> int:
    """Parse a message from ``pos`` up to an unmatched ``}`` (not consumed) or the end."""
    if depth > _MAX_DEPTH:
        raise _Malformed
    while pos < len(text):
        ch = text[pos]
        if ch == "'":
            pos = _quote(text, pos, out)
        elif ch == "{":
            pos = _argument(text, pos, out, in_plural, depth)
        elif ch == "}":
            return pos
        elif ch == "#" and in_plural:
            out.append(Span(pos, pos + 1, HASH))
            pos += 1
        else:
            pos += 1
    return pos


def _quote(text: str, pos: int, out: list[Span]) -> int:
    """``''`` is an apostrophe (text); ``'`` before a syntax character quotes up to the next ``'``."""
    nxt = text[pos + 1 : pos + 2]
    if nxt == "'" or nxt not in ("{", "}", "#", "|"):
        return pos + (2 if nxt == "'" else 1)
    close = text.find("'", pos + 1)
    if close < 0:
        raise _Malformed  # quoted to the end of the message: too easy to get wrong
    out.append(Span(pos, close + 1, QUOTE))
    return close + 1


def _argument(text: str, pos: int, out: list[Span], in_plural: bool, depth: int) -> int:
    head = _HEAD().match(text, pos)
    if head is None:
        simple = _SIMPLE().match(text, pos)
        if simple is None:
            raise _Malformed
        end = _matching_brace(text, pos)
        out.append(Span(pos, end, ARG))
        return end
    out.append(Span(pos, head.end(), HEAD))
    nested_plural = in_plural or head.group(1) != "select"
    pos, cases = head.end(), 0
    while pos < len(text) and text[pos] != "}":
        key = _KEY().match(text, pos)
        if key is None:
            raise _Malformed
        out.append(Span(pos, key.end(), CASE))
        pos = _message(text, key.end(), out, nested_plural, depth + 1)
        close = _BODY_CLOSE().match(text, pos)
        if close is None:
            raise _Malformed
        out.append(Span(pos, close.end(), CLOSE))
        pos, cases = close.end(), cases + 1
    if pos >= len(text) or not cases:
        raise _Malformed
    out.append(Span(pos, pos + 1, CLOSE))
    return pos + 1


def _matching_brace(text: str, pos: int) -> int:
    """The end of the simple argument opening at ``pos`` (styles such as ``::currency/EUR`` may nest braces)."""
    depth = 0
    for i in range(pos, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    raise _Malformed


class Part(NamedTuple):
    """A piece of a restored translation: placeholder ``(id, kind, text)`` or plain text (``id`` None)."""

    text: str
    id: int | None = None
    kind: str = ""


def check(parts: Sequence[Part], source_ids: Sequence[tuple[int, str]]) -> str | None:
    """Why ``parts`` (a restored translation) breaks the structure of the source, or None.

    ``source_ids`` lists the source's placeholders as ``(id, kind)`` in source order.
    """
    expected = [i for i, kind in source_ids if kind in STRUCTURE]
    got = [p.id for p in parts if p.id is not None and p.kind in STRUCTURE]
    if got != expected:
        return "ICU message structure (arguments, case keys, braces) changed"
    want_scope = _scopes(source_ids)
    got_scope = _scopes([(p.id, p.kind) for p in parts if p.id is not None])
    for ident, scope in got_scope.items():
        if want_scope.get(ident) != scope:
            return "a placeholder moved into another ICU case"
    stack: list[tuple[str, bool]] = []  # ("arg" or "case", inside a plural), innermost last
    for part in parts:
        if part.id is None:
            problem = _text_problem(part.text, stack)
            if problem:
                return problem
        elif part.kind == HEAD:
            head = _HEAD().match(part.text)
            stack.append(("arg", bool(stack and stack[-1][1]) or (head is not None and head.group(1) != "select")))
        elif part.kind == CASE:
            stack.append(("case", bool(stack and stack[-1][1])))
        elif part.kind == CLOSE and stack:
            stack.pop()
    return None


def _text_problem(text: str, stack: list[tuple[str, bool]]) -> str | None:
    if not stack:
        return None
    where, in_plural = stack[-1]
    if where == "arg" and text.strip():
        return f"text {text.strip()[:20]!r} between ICU cases"
    if "{" in text or "}" in text:
        return "a brace in the translated text of an ICU message"
    if in_plural and "#" in text:
        return "a '#' in the translated text of an ICU plural case"
    return None


def _scopes(sequence: Sequence[tuple[int, str]]) -> dict[int, int]:
    """For every non-structural placeholder, the id of the case it lies in (0 outside every case)."""
    stack: list[int] = []
    scopes: dict[int, int] = {}
    for ident, kind in sequence:
        if kind in (HEAD, CASE):
            stack.append(ident)
        elif kind == CLOSE:
            if stack:
                stack.pop()
        else:
            scopes[ident] = stack[-1] if stack else 0
    return scopes


#: The plural categories of CLDR: a translation's plural argument may have any of them (the target
#: language's), whatever the source's language has.
CATEGORIES = frozenset({"zero", "one", "two", "few", "many", "other"})


class _Node:
    """An argument of a message's structure: its head, and its cases with the arguments they hold."""

    # A plain class: a dataclass is built with exec when the module loads, for a helper never compared.
    __slots__ = ("head", "cases")

    def __init__(self, head: str, cases: list[tuple[str, list["_Node"]]]) -> None:
        self.head = head
        self.cases = cases


def structure_problem(
    source: Sequence[tuple[str, str]], target: Sequence[tuple[str, str]], dropped: list[str] | None = None
) -> str | None:
    """Why the ICU structure of a translation does not fit its source's, or None.

    ``source`` and ``target`` are the structure placeholders ``(kind, text)`` in order. Heads and
    select keys must be the source's, in its order; a plural argument may have other categories
    (those its language needs), an ``other`` case always; a case the source lacks is held to the
    source's ``other`` case. The plural cases of the source the translation leaves out (ICU then
    takes ``other``: right in Japanese, wrong in German) are added to ``dropped``.
    """
    return _compare(_tree(source), _tree(target), [] if dropped is None else dropped)


_WRONG = "the ICU message structure (arguments, keywords, case keys) differs from the source's"


def _tree(sequence: Sequence[tuple[str, str]]) -> list[_Node]:
    top: list[_Node] = []
    stack: list[tuple[_Node, list[_Node] | None]] = []  # an argument, and the case body being read
    for kind, text in sequence:
        text = _SPACES().sub(" ", text.strip())
        if kind == HEAD:
            node = _Node(text, [])
            (stack[-1][1] if stack and stack[-1][1] is not None else top).append(node)
            stack.append((node, None))
        elif kind == CASE and stack:
            body: list[_Node] = []
            stack[-1][0].cases.append((text.rstrip("{ "), body))
            stack[-1] = (stack[-1][0], body)
        elif kind == CLOSE and stack:
            if stack[-1][1] is not None:
                stack[-1] = (stack[-1][0], None)
            else:
                stack.pop()
    return top


def _compare(source: list[_Node], target: list[_Node], dropped: list[str]) -> str | None:
    if [n.head for n in source] != [n.head for n in target]:
        return _WRONG
    for mine, theirs in zip(target, source, strict=True):
        their_cases = dict(theirs.cases)
        keys = [key for key, _ in mine.cases]
        if ", select," in theirs.head + ",":
            if keys != [key for key, _ in theirs.cases]:
                return _WRONG
        elif "other" not in keys or any(k not in CATEGORIES and not k.startswith("=") for k in keys):
            return "an ICU plural needs an 'other' case, and plural categories (zero, one, two, few, many) or =N keys"
        else:
            dropped.extend(key for key in their_cases if key not in keys)
        for key, body in mine.cases:
            problem = _compare(their_cases.get(key, their_cases.get("other", [])), body, dropped)
            if problem:
                return problem
    return None


_SPACES = lazy_regex(r"\s+")


def quote_apostrophes(parts: Sequence[Part]) -> list[Part]:
    """Double an apostrophe that a translation put right before ``{``, ``}`` or ``#``, where ICU would quote."""
    out = list(parts)
    for i, part in enumerate(out[:-1]):
        nxt = out[i + 1]
        if part.id is None and nxt.id is not None and nxt.text[:1] in ("{", "}", "#"):
            trailing = len(part.text) - len(part.text.rstrip("'"))
            if trailing % 2:
                out[i] = Part(part.text + "'")
    return out
