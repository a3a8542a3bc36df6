"""Runs of code written without a space, made one placeholder: a path, URL or file name a directive leads or
ends (``%(outdir)s/output.txt``, ``http://%(host)s%(path)s``, ``"%s_%s.spl"``). Moved apart by an engine, the
parts would no longer name the file."""

from __future__ import annotations

import itertools
from bisect import bisect_left, bisect_right
from collections.abc import Iterable

from pipeline.patterns import lazy_regex

#: ``(start, end, kind, ordered)`` of a placeholder of a text.
Span = tuple[int, int, str, bool]
#: The kind of a format flag's directives ends so: ``c-format``, ``python-brace-format``.
FORMAT_SUFFIX = "-format"

#: Kinds whose spans join their neighbours into one run of code: a path, URL or name a directive leads
#: or ends (``%(outdir)s/output.txt``, ``%(outdir)s{sep}python.txt``, ``http://%(host)s%(path)s``).
_RUN_NAMES = frozenset({"path", "identifier", "code-identifier", "url", "glued-file-name"})
#: Kinds a run may hold besides: directives, fields, variables (markup, links, newlines stay apart).
_RUN_PARTS = frozenset(
    {"safe-printf", "percent-directive", "qt-numbered", "safe-brace", "icu-arg", "dollar-var", "template", "ruby-named"}
)
#: Between two parts of a run: path separators, an index's bracket, a file name's underscore (%s_%s.spl), nothing.
_RUN_JOINT = lazy_regex(r"[/\\[_]*")
#: Between two parts of a link's run, and after its last directive: what a URL's path holds up to a space or a
#: quote, without the sentence's punctuation after it (``…/doc/v~a.~a/Documentation/usage``,
#: ``…/en/%(version)s/ref/settings/``): a directive does not end the link, its path goes on.
_URL_JOINT = lazy_regex(r"""[^\s<>"'`]*""")
_URL_REST = lazy_regex(r"""[^\s<>"'`]*[^\s<>"'`.,;:!?)\]]""")
#: The kind of a run of code made one span.
_MERGED = "code-run"


class Disjoint:
    """Spans, and whether another span overlaps one of them or which one holds it: found by bisection where
    they do not overlap each other and come in order (tested against each in turn, a text of n placeholders
    cost n squared: 7,000 took seconds), else by testing each."""

    __slots__ = ("starts", "ends", "indexed")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.indexed = True  # none empty, each ending where the next starts or earlier

    @classmethod
    def of(cls, spans: Iterable[tuple[int, int]]) -> Disjoint:
        """``spans``, in their order (:meth:`holding` gives an index into them)."""
        made = cls()
        for start, end in spans:
            made.starts.append(start)
            made.ends.append(end)
        made.indexed = all(map(int.__lt__, made.starts, made.ends)) and all(map(int.__le__, made.ends, made.starts[1:]))
        return made

    def add(self, start: int, end: int) -> None:
        """Add a span that overlaps none of them (in order, as a text is read: at the end)."""
        # an empty span before a span that starts where it is, so that the ends stay in order too
        at = bisect_left(self.starts, start) if end == start else bisect_right(self.starts, start)
        self.starts.insert(at, start)
        self.ends.insert(at, end)

    def overlaps(self, start: int, end: int) -> bool:
        """Whether ``start``..``end`` overlaps one of the spans (``s < end and start < e``)."""
        if not self.indexed:
            return any(s < end and start < e for s, e in zip(self.starts, self.ends, strict=True))
        # Only the last span starting before ``end`` can: every one before it ends where the next starts, or earlier.
        last = bisect_left(self.starts, end) - 1
        return last >= 0 and self.ends[last] > start

    def crossing(self, start: int, end: int) -> range | list[int]:
        """The indexes of the spans that overlap ``start``..``end`` (``s < end and start < e``), in order."""
        if not self.indexed:
            return [i for i, (s, e) in enumerate(zip(self.starts, self.ends, strict=True)) if s < end and start < e]
        # In order and apart, both the starts and the ends rise: the overlapping spans are one run of them.
        return range(bisect_right(self.ends, start), bisect_left(self.starts, end))

    def holding(self, start: int, end: int) -> int | None:
        """The index of the first span that holds ``start``..``end`` (not empty), or None."""
        if not self.indexed:
            pairs = enumerate(zip(self.starts, self.ends, strict=True))
            return next((i for i, (s, e) in pairs if s <= start and end <= e), None)
        last = bisect_right(self.starts, start) - 1
        return last if last >= 0 and self.ends[last] >= end else None


def beside_outer(
    core: str, directives: list[Span], outer: list[tuple[int, int, str]]
) -> tuple[list[Span], set[int], list[tuple[int, int, str]]]:
    """Of the format directives of ``core`` and its ``outer`` spans (markup, quoted code; ``(start, end, kind)`` in
    order): the directives apart from ``outer``, the indexes of ``outer`` holding an ordered directive, and ``outer``
    less the tags a directive holds before its conversion letter (Ruby's ``%<n>d``; C's ``%<PRIuMAX>``, whose
    conversion the macro is; not ``50%<br/>%s``, whose
    ``%<br/>%`` would take the ``%`` of the ``%s`` after it and leave its ``s`` as text) or its closing brace
    (Ruby's ``%{<b>}``: Ruby and msgfmt read a ``%{…}`` name up to the brace, whatever it holds)."""
    if not outer:  # no markup nor quoted code (most texts): every directive stands as it is
        return list(directives), set(), outer
    fixed: list[Span] = []
    ordered_outer, swallowed = set[int](), set[int]()
    placed = Disjoint.of((s, e) for s, e, _ in outer)  # indexes as outer's
    for start, end, kind, ordered in directives:
        inside = placed.holding(start, end)
        if inside is not None:
            if ordered:
                ordered_outer.add(inside)
            continue
        crossing = placed.crossing(start, end)
        if len(crossing) == 1 and _is_macro_of(core, outer[crossing[0]], start, end):
            swallowed.update(crossing)  # C's %<PRIuMAX>, whole as msgfmt reads it: the macro is its conversion
            fixed.append((start, end, kind, ordered))
            continue
        if crossing and not (core[end - 1].isalpha() or core[end - 1] == "}"):
            continue
        if all(start < outer[i][0] and outer[i][1] < end and outer[i][2] != "xliff-native" for i in crossing):
            swallowed.update(crossing)  # tags the conversion follows: %<n>d
            fixed.append((start, end, kind, ordered))
    if not swallowed:
        return fixed, ordered_outer, outer
    kept = [i for i in range(len(outer)) if i not in swallowed]
    return fixed, {new for new, old in enumerate(kept) if old in ordered_outer}, [outer[i] for i in kept]


def _is_macro_of(core: str, span: tuple[int, int, str], start: int, end: int) -> bool:
    """Whether ``span`` is the ``<PRI…>`` macro that ends the directive ``start``..``end`` (``%'<PRIuMAX>``)."""
    return start < span[0] and span[1] == end and core.startswith("<PRI", span[0])


_TAGGED_INTERPOLATION = lazy_regex(r"%\{[^{}\n%]*<[^{}\n]*\}")


def tagged_interpolations(core: str, directives: list[Span]) -> list[Span]:
    """``directives`` with every ``%{…}`` of ``core`` that holds a tag and no directive holds: Ruby's ``format``
    and Elixir's gettext read its name up to the brace, whatever it holds (a flag's grammar says so too)."""
    taken = Disjoint.of((s, e) for s, e, _, _ in directives)
    found = [
        (m.start(), m.end(), "ruby-named", False)
        for m in _TAGGED_INTERPOLATION().finditer(core)
        if not taken.overlaps(m.start(), m.end())
    ]
    return sorted(directives + found) if found else directives


#: A word between two directives, without a space: the second numbers it.
_GLUED_WORD = lazy_regex(r"[A-Za-z][A-Za-z0-9_]*")
#: An integer conversion of printf: what numbers a name (``%sraw%d``: ``/dev/raw/raw1``).
_INTEGER_CONVERSION = lazy_regex(r"%(?:[0-9]+\$)?[-+ #0']*[0-9]*(?:hh|h|ll|l|j|z|t)?[diouxX]")


def _numbered_names(core: str, spans: list[Span]) -> list[Span]:
    """``spans`` with each word that two directives build a name with (util-linux's ``%sraw%d``, which prints
    ``/dev/raw/raw1``) as a name of its own, which :func:`code_runs` then joins to them. A word two ``%s`` wrap
    is text (phpMyAdmin's ``%sdocumentation%s``, a link's)."""
    names: list[Span] = []
    for (_, before, kind, _), (after, end, next_kind, _) in itertools.pairwise(spans):
        if (
            _joinable(kind)
            and _joinable(next_kind)
            and _GLUED_WORD().fullmatch(core, before, after)
            and _INTEGER_CONVERSION().fullmatch(core, after, end)
        ):
            names.append((before, after, "glued-file-name", False))
    return sorted(spans + names) if names else spans


def code_runs(core: str, spans: list[Span]) -> list[Span]:
    """``spans`` with every run of code written without a space, a name or path among it, made one span:
    moved apart, its parts would no longer name the file (``%(outdir)s`` far from ``/output.txt``)."""
    spans = _numbered_names(core, spans)
    if len(spans) < 2 or not any(kind in _RUN_NAMES for _, _, kind, _ in spans):
        return spans
    out: list[Span] = []
    run: list[Span] = []
    for span in [*spans, (len(core) + 1, len(core) + 1, "", False)]:
        joint = _URL_JOINT() if run and _is_link(core, run[0]) else _RUN_JOINT()
        joined = run and _joinable(span[2]) and joint.fullmatch(core, run[-1][1], span[0]) is not None
        if joined:
            run.append(span)
            continue
        if len(run) > 1 and any(kind in _RUN_NAMES for _, _, kind, _ in run):
            end = run[-1][1]
            if core.count("[", run[0][0], end) > core.count("]", run[0][0], end) and core.startswith("]", end):
                end += 1  # the index's closing bracket: latex_elements[%r]
            elif _is_link(core, run[0]) and (rest := _URL_REST().match(core, end, min(span[0], len(core)))):
                end = rest.end()  # the link's path after its last directive
            out.append((run[0][0], end, _MERGED, any(ordered for *_, ordered in run)))
        else:
            out.extend(run)
        run = [span] if span[2] and _joinable(span[2]) else []
        if span[2] and not run:
            out.append(span)
    return out


def _is_link(core: str, span: Span) -> bool:
    """Whether ``span`` is a URL with its scheme (``https://``), which a directive in its path does not end."""
    return span[2] == "url" and ":/" in core[span[0] : span[1]]


def _joinable(kind: str) -> bool:
    return kind in _RUN_NAMES or kind in _RUN_PARTS or kind.endswith(FORMAT_SUFFIX)
