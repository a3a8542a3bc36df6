"""ICU plurals for the target language: the CLDR categories it needs, added before translation.

An English message has ``one`` and ``other``; Russian and Polish need ``one``, ``few``, ``many``
and ``other``, Arabic six. A translation that keeps the source's two cases falls back to
``other`` for 2 and 5 alike, which is wrong in those languages. So a segment translated into such
a language carries the flag ``icu-locale:<locale>`` (:func:`locale_flags`), and protection sends
its plural (and ``selectordinal``) arguments with every category CLDR gives the language
(:func:`expand`).

What fills an added category is the ``other`` case with a *representative number* of the category
in place of its ``#`` (``few {2 files}``, ``many {5 files}``), as the PO plural code does
(:mod:`pipeline.run.plurals`): the engine writes the form that number takes. The number is text
in the request, and restore puts ``#`` back where it came back exactly once
(:func:`numbers_back`); where it did not, the added case takes the translated ``other`` case, as
ICU would. A category no whole number selects (Czech ``many`` is for fractions) and an ``other``
case without ``#`` are filled with the ``other`` case as it is. Categories the source has and the
language does not use are kept (ICU never selects them).
"""

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from pipeline.locales import cldr
from pipeline.patterns import lazy_regex
from pipeline.placeholders import icu

__all__ = [
    "LOCALE_FLAG",
    "NUMBER",
    "Expanded",
    "expand",
    "held_to_cases",
    "locale_flags",
    "numbers_back",
    "without_locale",
]

#: The flag that names the target locale of a segment whose ICU plurals lack its categories.
LOCALE_FLAG = "icu-locale:"
#: The kind of a representative number in an added case: sent as text, put back as ``#``.
NUMBER = "icu-number"
#: Numbers tried for each category, small first (engines keep them as digits).
_SEARCH = (*range(0, 1001), 10_000, 100_000, 1_000_000)
_PLURAL_HEAD = lazy_regex(r"\{\s*[A-Za-z_0-9]+\s*,\s*(plural|selectordinal)\s*,")
_TAG = lazy_regex(r"<[A-Za-z/][^<>]*>")  # an opening, closing or empty tag: "a < b" is no tag
_MARKUP = lazy_regex(r"<[A-Za-z/][^<>]*>|&lt;/?[A-Za-z][^&<>]*&gt;")  # a tag, or one XLIFF escapes as text


def locale_flags(text: str, locale: str) -> tuple[str, ...]:
    """``(icu-locale:<locale>,)`` when ``text`` holds an ICU plural lacking a category ``locale`` needs."""
    if "{" not in text or not _PLURAL_HEAD().search(text):
        return ()
    expanded = expand(text, locale)
    return (f"{LOCALE_FLAG}{locale}",) if expanded.text != text else ()


def locale_of(flags: Sequence[str]) -> str | None:
    """The locale an ``icu-locale:`` flag names, if any."""
    for flag in flags:  # a loop, not a generator: asked of every text protected and every translation judged
        if flag.startswith(LOCALE_FLAG):
            return flag[len(LOCALE_FLAG) :]
    return None


def without_locale(flags: tuple[str, ...]) -> tuple[str, ...]:
    """``flags`` without the ``icu-locale:`` flag (what a translation is judged with)."""
    return tuple(f for f in flags if not f.startswith(LOCALE_FLAG)) if locale_of(flags) else flags


class Expanded(NamedTuple):
    """A message with the categories added, and where each added case's representative number is."""

    text: str
    #: ``(start, number)``: where an added case's key starts in ``text``, and the number its body holds
    #: in place of ``#`` (``None`` when it holds the ``other`` case as it is).
    added: tuple[tuple[int, int | None], ...] = ()


@functools.lru_cache(maxsize=1024)
def expand(text: str, locale: str, xliff: bool = False) -> Expanded:
    """``text`` with every plural argument given the CLDR categories of ``locale`` it lacks.

    Tags are read as blanks: an ICU message a tag's attribute shows (Angular's ``<ph equiv="ICU"
    disp="{minutes, plural, ...}"/>``) is markup, which must come back as it was sent. In an XLIFF
    unit (``xliff``) a plural whose ``other`` case holds markup keeps the source's categories: copies
    would repeat inline ids XLIFF wants unique, and the gate refuses markup the source has fewer times.
    """
    spans = _spans(text)
    categories = _categories(locale)
    if not spans or categories is None:
        return Expanded(text)
    tree = _tree(text, spans, [0])
    out = _Writer(text, categories, xliff)
    out.items(tree, 0, len(text), None)
    return Expanded("".join(out.parts), tuple(out.added)) if out.added else Expanded(text)


def _spans(text: str) -> list[icu.Span] | None:
    """:func:`icu.spans` with tags read as blanks (an ICU message in a tag's attribute is markup)."""
    return icu.spans(_TAG().sub(lambda m: " " * len(m.group()), text) if "<" in text else text)


_Numbers = dict[str, tuple[int, ...]]


@functools.lru_cache(maxsize=64)
def _categories(locale: str) -> tuple[_Numbers, _Numbers] | None:
    """For ``plural`` and ``selectordinal``: each CLDR category of ``locale`` but ``other``, and the
    whole numbers that select it, small first (none when only fractions do); None for a locale babel
    does not know."""
    rules = cldr().plural_rules(locale.replace("-", "_").split("@")[0])
    if rules is None:
        return None
    found = []
    for rule in rules:
        numbers: dict[str, list[int]] = {tag: [] for tag in rule.tags}
        for n in _SEARCH:
            tag = rule(n)
            if tag in numbers:
                numbers[tag].append(n)
        found.append({tag: tuple(ns) for tag, ns in numbers.items()})
    return found[0], found[1]


def _representative(numbers: tuple[int, ...], exact: set[int]) -> int | None | bool:
    """The number to stand for a category in a case of its own: the first the argument's ``=N`` keys
    leave to it (2 or more where it can, as a speaker reads "1" as singular); False when those keys
    take every number the category has, so that ICU never selects it."""
    left = [n for n in numbers if n not in exact]
    if numbers and not left:
        return False
    return next((n for n in left if n >= 2), left[0] if left else None)


# Plain classes: a dataclass is built with exec when the module loads, for helpers never compared.
class _Arg:
    __slots__ = ("head", "kind", "cases", "close")

    def __init__(self, head: icu.Span, kind: str) -> None:
        self.head = head
        self.kind = kind  # plural, selectordinal, select
        self.cases: list[_Case] = []
        self.close: icu.Span | None = None


class _Case:
    __slots__ = ("key", "items", "close")

    def __init__(self, key: icu.Span) -> None:
        self.key = key
        self.items: list[icu.Span | _Arg] = []
        self.close: icu.Span | None = None

    @property
    def end(self) -> int:
        return self.close.start if self.close else self.key.end


def _tree(text: str, spans: list[icu.Span], at: list[int], until_close: bool = False) -> list[icu.Span | _Arg]:
    """The spans from ``at[0]`` as a tree: arguments with their cases, other spans as they are."""
    items: list[icu.Span | _Arg] = []
    while at[0] < len(spans):
        span = spans[at[0]]
        if span.kind == icu.CLOSE and until_close:
            return items
        at[0] += 1
        if span.kind != icu.HEAD:
            items.append(span)
            continue
        arg = _Arg(span, icu.head_type(text, span))
        while at[0] < len(spans) and spans[at[0]].kind == icu.CASE:
            case = _Case(spans[at[0]])
            at[0] += 1
            case.items = _tree(text, spans, at, until_close=True)
            case.close = spans[at[0]]
            at[0] += 1
            arg.cases.append(case)
        arg.close = spans[at[0]]
        at[0] += 1
        items.append(arg)
    return items


class _Writer:
    """Writes a message again, adding the missing categories before each plural's ``other`` case."""

    def __init__(self, text: str, categories: tuple[_Numbers, _Numbers], xliff: bool) -> None:
        self.text, self.categories, self.xliff = text, categories, xliff
        self.parts: list[str] = []
        self.added: list[tuple[int, int | None]] = []
        self.length = 0

    def emit(self, piece: str) -> None:
        self.parts.append(piece)
        self.length += len(piece)

    def items(self, items: list[icu.Span | _Arg], start: int, end: int, number: int | None) -> None:
        """Copy ``text[start:end]`` holding ``items``; a ``#`` of this level becomes ``number`` when set."""
        at = start
        for item in items:
            first = item.head.start if isinstance(item, _Arg) else item.start
            self.emit(self.text[at:first])
            if isinstance(item, _Arg):
                self.argument(item, number)
                at = item.close.end if item.close else first
            else:
                hashed = number is not None and item.kind == icu.HASH
                self.emit(str(number) if hashed else self.text[item.start : item.end])
                at = item.end
        self.emit(self.text[at:end])

    def argument(self, arg: _Arg, outer: int | None) -> None:
        # A # belongs to the innermost plural around it; a select passes the outer plural's number on.
        inner = outer if arg.kind == "select" else None
        self.emit(self.text[arg.head.start : arg.head.end])
        keys = {_key(self.text, case) for case in arg.cases}
        exact = {int(k[1:]) for k in keys if re.fullmatch(r"=[0-9]+", k)}
        wanted = {} if arg.kind == "select" else self.categories[arg.kind == "selectordinal"]
        numbers = {tag: _representative(ns, exact) for tag, ns in wanted.items() if tag not in keys}
        missing = {tag: n for tag, n in numbers.items() if n is not False}
        other = next((case for case in arg.cases if _key(self.text, case) == "other"), None)
        if self.xliff and other is not None and _MARKUP().search(self.text, other.key.end, other.end):
            missing = {}  # copies of its markup: XLIFF's inline ids would repeat, and the gate refuses them
        for case in arg.cases:
            if case is other and missing:
                for tag in _CLDR_ORDER:
                    if tag in missing:
                        self.added_case(tag, missing[tag], other)
            self.emit(self.text[case.key.start : case.key.end])
            self.items(case.items, case.key.end, case.end, inner)
            if case.close is not None:
                self.emit(self.text[case.close.start : case.close.end])
        if arg.close is not None:
            self.emit(self.text[arg.close.start : arg.close.end])

    def added_case(self, tag: str, number: int | bool | None, other: _Case) -> None:
        body = self.text[other.key.end : other.end]
        hashes = [item for item in other.items if isinstance(item, icu.Span) and item.kind == icu.HASH]
        if not isinstance(number, int) or not hashes or re.search(rf"(?<![0-9]){number}(?![0-9])", body):
            number = None  # nothing to stand for, or the number is in the text already: the case as it is
        self.added.append((self.length, number))
        self.emit(f"{tag} {{")
        self.items(other.items, other.key.end, other.end, number)
        self.emit("} ")


_CLDR_ORDER = ("zero", "one", "two", "few", "many")


def _key(text: str, case: _Case) -> str:
    return text[case.key.start : case.key.end].rstrip("{ \t\n")


@functools.lru_cache(maxsize=1024)
def held_to_cases(source: str, target: str) -> str:
    """``source`` with each plural (and ``selectordinal``) argument given the cases ``target`` writes it with:
    what a translation's placeholders are counted against.

    A case the source lacks is held to the source's ``other`` (a copy of it, markup and all: Russian's
    ``few`` and ``many`` written like ``other``), and a source case the translation leaves out counts
    nothing (ICU takes ``other`` for it; the structure check warns). ``source`` as it is when the two do
    not pair argument for argument (the structure check says why) or write the same cases.
    """
    src_spans, tgt_spans = _spans(source), _spans(target)
    if not src_spans or not tgt_spans:
        return source
    src_args = _plurals(_tree(source, src_spans, [0]))
    tgt_args = _plurals(_tree(target, tgt_spans, [0]))
    if len(src_args) != len(tgt_args):
        return source
    cases: dict[int, list[str]] = {}  # a source argument's head -> the keys the target writes it with
    for src_arg, tgt_arg in zip(src_args, tgt_args, strict=True):
        src_keys = [_key(source, case) for case in src_arg.cases]
        tgt_keys = [_key(target, case) for case in tgt_arg.cases]
        if src_arg.kind != tgt_arg.kind or "other" not in src_keys:
            return source
        if src_keys != tgt_keys:
            cases[src_arg.head.start] = tgt_keys
    if not cases:
        return source
    out: list[str] = []
    _held(source, _tree(source, src_spans, [0]), 0, len(source), cases, out)
    return "".join(out)


def _plurals(items: list[icu.Span | _Arg]) -> list[_Arg]:
    """The plural and selectordinal arguments of ``items``, nested ones too, in the order they start."""
    found: list[_Arg] = []
    for item in items:
        if isinstance(item, _Arg):
            if item.kind != "select":
                found.append(item)
            for case in item.cases:
                found.extend(_plurals(case.items))
    return found


def _held(
    text: str, items: list[icu.Span | _Arg], start: int, end: int, cases: dict[int, list[str]], out: list[str]
) -> None:
    """Copy ``text[start:end]`` holding ``items`` into ``out``, the arguments ``cases`` names with its keys."""
    at = start
    for item in items:
        if not isinstance(item, _Arg):
            continue
        out.append(text[at : item.head.end])
        keys = cases.get(item.head.start)
        by_key = {_key(text, case): case for case in item.cases}
        for key in keys if keys is not None else list(by_key):
            case = by_key.get(key, by_key["other"] if keys is not None else None)
            if case is None:
                continue
            out.append(f"{key} {{" if key not in by_key else text[case.key.start : case.key.end])
            _held(text, case.items, case.key.end, case.end, cases, out)
            out.append(text[case.close.start : case.close.end] if case.close is not None else "}")
        at = item.close.end if item.close is not None else item.head.end
        if item.close is not None:
            out.append(text[item.close.start : item.close.end])
    out.append(text[at:end])


def numbers_back(parts: list[icu.Part], expected: Sequence[tuple[int, str, str]]) -> list[icu.Part]:
    """Put ``#`` back for each representative number of an added case, or fill the case with the
    translated ``other`` case where the number did not come back exactly once.

    ``parts`` is the restored translation; ``expected`` the protected placeholders as ``(id, kind,
    text)`` in source order.
    """
    enclosing, other_of = _structure(expected)
    out = list(parts)
    for ident, kind, text in expected:
        if kind != NUMBER or ident not in enclosing or enclosing[ident] not in other_of:
            continue
        case, other = enclosing[ident], other_of[enclosing[ident]]
        where = {part.id: i for i, part in enumerate(out) if part.id is not None}
        start, end = where[case] + 1, _body_end(out, where[case])
        pattern = re.compile(rf"(?<![0-9.,]){text}(?![0-9]|[.,][0-9])")
        found = [(i, m) for i in range(start, end) if out[i].id is None for m in pattern.finditer(out[i].text)]
        if len(found) == 1:
            i, m = found[0]
            before, after = icu.Part(out[i].text[: m.start()]), icu.Part(out[i].text[m.end() :])
            out[i : i + 1] = [before, icu.Part("#", ident, icu.HASH), after]
        else:
            out[start:end] = out[where[other] + 1 : _body_end(out, where[other])]
    return out


def _structure(expected: Sequence[tuple[int, str, str]]) -> tuple[dict[int, int], dict[int, int]]:
    """The case key each non-structural placeholder lies in, and for each case key its argument's ``other``."""
    enclosing: dict[int, int] = {}
    cases: dict[int, list[tuple[int, str]]] = {}
    stack: list[tuple[str, int]] = []  # ("arg", head id) or ("case", key id), innermost last
    for ident, kind, text in expected:
        if kind == icu.HEAD:
            stack.append(("arg", ident))
            cases[ident] = []
        elif kind == icu.CASE and stack and stack[-1][0] == "arg":
            cases[stack[-1][1]].append((ident, text.rstrip("{ \t\n")))
            stack.append(("case", ident))
        elif kind == icu.CLOSE:
            if stack:
                stack.pop()
        elif stack and stack[-1][0] == "case":
            enclosing[ident] = stack[-1][1]
    other_of: dict[int, int] = {}
    for keys in cases.values():
        other = next((ident for ident, key in keys if key == "other"), None)
        if other is not None:
            other_of.update((ident, other) for ident, _ in keys)
    return enclosing, other_of


def _body_end(parts: Sequence[icu.Part], key_index: int) -> int:
    """The index of the part that closes the case whose key is ``parts[key_index]``."""
    depth = 0
    for i in range(key_index + 1, len(parts)):
        kind = parts[i].kind
        if kind in (icu.HEAD, icu.CASE):
            depth += 1
        elif kind == icu.CLOSE:
            if depth == 0:
                return i
            depth -= 1
    return len(parts)
