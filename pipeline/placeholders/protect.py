"""Placeholder protection and restoration.

Before a segment is sent, every placeholder is replaced by a self-closing ``<x id="N"/>`` tag; the
request lists ``x`` in ``ignore_tags`` and uses ``tag_handling=xml``, so the placeholder's own text
is never sent, billed or translated. Leading and trailing whitespace is set aside and put back
verbatim.

What is protected is a superset of what any program, markup engine or reader of code would break
on, whatever the segment's format flags say: markup tags whole with the directives inside them
(:mod:`~pipeline.placeholders.markup`, which also cuts out the values of text attributes to
translate), quoted code, the directives of the formats the flags name
(:mod:`~pipeline.placeholders.grammars`), ICU structure (:mod:`~pipeline.placeholders.icu`, with the
target language's plural categories added by :mod:`~pipeline.placeholders.icu_plurals`), and the
kinds of :mod:`~pipeline.placeholders.kinds` (other formats' directives, variables, options,
paths, names, URLs, entities, newlines). What is an *error* in a human translation is another
question, judged as gettext does (:mod:`~pipeline.placeholders.checks`).

After translation, :func:`restore` puts the placeholders back and refuses (raising
:class:`PlaceholderMismatch`) anything a careful reviewer would refuse: a placeholder missing,
duplicated or unknown; foreign markup, raw or written as text; unnamed printf placeholders out of
their source order; HTML tags that were balanced in the source and no longer are; a tag's pieces
out of order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from pipeline.patterns import lazy_regex
from pipeline.placeholders import grammar, icu, icu_plurals, kinds, markup, synopsis
from pipeline.placeholders.grammars import grammars_for, parse
from pipeline.placeholders.runs import Disjoint, Span, beside_outer, code_runs, tagged_interpolations
from pipeline.segments import Placeholder, Protected

if TYPE_CHECKING:
    from pipeline.placeholders.grammars.spec import Grammar

# SCHEME_VERSION, the version of the protected form made here, is in pipeline.model.
#: The tag name sent in ``ignore_tags``.
TAG = "x"
#: The flag the XLIFF adapter puts on its units: their text is inner XML with inline markup.
XLIFF_INLINE = "xliff-inline"


class PlaceholderMismatch(ValueError):
    """A translation cannot be restored faithfully; ``str(exc)`` is the reason for the report."""


#: Kinds that read a printf argument in order when they carry no position or name.
PRINTF_KINDS = frozenset({"safe-printf"})
_SAFE_PRINTF = lazy_regex(grammar.SAFE_PRINTF, re.VERBOSE)
#: msgfmt reads a ``kde-kuit-format`` entry as XML: every tag of it is markup.
_KUIT = "kde-kuit-format"


def _flagged(flags: tuple[str, ...]) -> bool:
    """Whether ``flags`` name a format grammar."""
    return bool(grammars_for(flags))


def _is_ordered(kind: str, text: str) -> bool:
    """Unnamed, non-positional printf conversions must keep their relative order."""
    return kind in PRINTF_KINDS and text != "%%" and "(" not in text and "$" not in text


def _xml_escape(text: str) -> str:
    if "&" in text or "<" in text or ">" in text:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text  # most pieces between placeholders: nothing to escape


_XML_ENTITY = re.compile(r"&(?:(lt|gt|amp|quot|apos)|#([0-9]+)|#[xX]([0-9A-Fa-f]+));")
_XML_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def _xml_char(match: re.Match[str]) -> str:
    name, dec, hexa = match.groups()
    if name:
        return _XML_NAMED[name]
    code = _number(dec) if dec else int(hexa, 16)
    return chr(code) if 0 < code <= 0x10FFFF else match.group()


def _number(digits: str) -> int:
    """The decimal ``digits`` as a number, 0 (no character, no placeholder) for more than Python converts."""
    try:
        return int(digits)
    except ValueError:  # over 4,300 digits (sys.get_int_max_str_digits): beyond any character or id
        return 0


def _xml_unescape(text: str) -> str:
    return _XML_ENTITY.sub(_xml_char, text) if "&" in text else text


def split_edges(text: str) -> tuple[str, str, str]:
    """``(leading whitespace, core, trailing whitespace)`` of ``text``."""
    core = text.strip()
    if not core:
        return text, "", ""
    start = len(text) - len(text.lstrip())  # the core starts with its first non-whitespace character
    return text[:start], core, text[start + len(core) :]


def protect(text: str, flags: Iterable[str] = ()) -> Protected:
    """Replace every placeholder of ``text`` by an ``<x id="N"/>`` tag, ids counted from 1."""
    return _protect(text, tuple(flags))


#: Texts whose protected form is kept. A run protects each source when planning and again at the
#: gate (which protects source and translation to compare their placeholders), so the entries must
#: outlast a run's planning; the result is a frozen record, shared safely.
PROTECT_MEMO = 1 << 15


@functools.lru_cache(maxsize=PROTECT_MEMO)
def _protect(text: str, flags: tuple[str, ...]) -> Protected:
    prefix, core, suffix = split_edges(text)
    triggered = _triggered(core)
    if not triggered and not _flagged(flags) and XLIFF_INLINE not in flags:
        # Most texts: no character any kind (nor markup, nor ICU, which needs a brace) starts with, and
        # no format grammar or XLIFF span to look for. What _spans would find: nothing.
        return Protected(_xml_escape(core), (), prefix, suffix)
    locale = icu_plurals.locale_of(flags)
    numbers: dict[int, int] = {}  # where an added ICU case starts -> the number in place of its '#'
    if locale is not None:  # the target's plural categories, added to the source's ICU plurals
        expanded = icu_plurals.expand(core, locale, XLIFF_INLINE in flags)
        core, numbers = expanded.text, {at: n for at, n in expanded.added if n is not None}
        triggered = triggered or _triggered(core)
    pieces: list[str] = []
    placeholders: list[Placeholder] = []
    last = 0
    for start, end, kind, ordered in _spans(core, flags, triggered):
        pieces.append(_xml_escape(core[last:start]))
        text = core[start:end]
        ph = _placeholder(len(placeholders) + 1, text, kind, ordered or _is_ordered(kind, text))
        placeholders.append(ph)
        pieces.append(f'<{TAG} id="{ph.id}"/>')
        last = end
        if kind == icu.CASE and start in numbers:  # sent as text; restore puts '#' back
            placeholders.append(_placeholder(len(placeholders) + 1, str(numbers[start]), icu_plurals.NUMBER, False))
    pieces.append(_xml_escape(core[last:]))
    return Protected("".join(pieces), tuple(placeholders), prefix, suffix)


@functools.lru_cache(maxsize=4096)
def _placeholder(number: int, text: str, kind: str, ordered: bool) -> Placeholder:
    """One record for each placeholder alike: a catalog repeats its ``<b>`` and ``%(count)d`` thousands of times."""
    return Placeholder(number, text, kind, ordered)


#: What every kind, markup and ICU need one of: a character (``<`` ``&`` ``%`` ``{`` ``}`` ``$`` ``@`` ``[``
#: ``]`` ``:`` ````` ``_`` ``\``, a control character), three apostrophes, a dash, slash or tilde starting a
#: word (an option, a path), a dot or slash between two letters (``conf.py``, ``po/de.po``), a dotfile
#: after a folder (``0~/.config``: the folder glued to a word, the dotfile not), a small letter before a
#: capital (``phpMyAdmin``), two capitals before two small letters (``OAuth``), ``()``, a protocol's
#: command (``CWD``), a URL's query (``?format=``) or a quoted pattern (``'^.*@example\\.com'``): a text
#: without any holds no placeholder.
TRIGGERS = re.compile(
    r"""[<&:@{}%$\[\]`_\\\n\t\r\v\f]|'''|(?<![\w/.~\\-])[-/~.]|\w[./]\w|/\.|[a-z][A-Z]|[A-Z]{2}[a-z]{2}|\(\)"""
    + "|"
    + grammar.PROTOCOL_VERBS
    + "|"
    + grammar.URL_QUERY_HINT
    + "|(?x:"
    + grammar.QUOTED_REGEX
    + ")"
)
#: The characters of TRIGGERS alone: a class the regex engine skips ahead to, where the whole alternation
#: (a lookbehind, ``\w``) is tried at every position. Most texts that hold a trigger hold one of these.
_TRIGGER_CHARACTERS = re.compile(r"[<&:@{}%$\[\]`_\\\n\t\r\v\f]")


#: TRIGGERS' alternatives after its characters, each written from what the regex engine skips ahead to:
#: a dash, slash, tilde or dot starting a word, written from that character; a dot or slash between two
#: letters, from the dot or slash. (Three apostrophes, ``/.`` and ``()`` are plain strings; a small letter
#: before a capital and two capitals before two small letters are :data:`kinds.CASED`.)
_STARTING = re.compile(r"[-/~.](?<![\w/.~\\-][-/~.])")
_BETWEEN = re.compile(r"[./](?<=\w[./])(?=\w)")
_QUERY = re.compile(grammar.URL_QUERY_HINT)
_QUOTED_REGEX = re.compile(grammar.QUOTED_REGEX, re.VERBOSE)


def _triggered(core: str) -> bool:
    """Whether :data:`TRIGGERS` finds something in ``core``: its alternatives looked for one by one, the whole
    alternation only where a protocol's command can be (three capitals in a row)."""
    return (
        _TRIGGER_CHARACTERS.search(core) is not None
        or "'''" in core
        or "/." in core
        or "()" in core
        or _STARTING.search(core) is not None
        or _BETWEEN.search(core) is not None
        or kinds.CASED.search(core) is not None
        or ("?" in core and _QUERY.search(core) is not None)
        or (any(q in core for q in grammar.QUOTED_REGEX_QUOTES) and _QUOTED_REGEX.search(core) is not None)
        or (kinds.CAPITALS_HINT.search(core) is not None and TRIGGERS.search(core) is not None)
    )


_Span = Span


def _spans(core: str, flags: tuple[str, ...], triggered: bool) -> list[_Span]:
    """``(start, end, kind, ordered)`` of every placeholder of ``core``, in order.

    First what comes back whole with whatever it holds: XLIFF's protected spans, markup (cut around
    the values of its text attributes) and quoted code. Then, outside them, the directives of the
    formats the flags name; ICU structure where no flag's grammar reads the text; and the regex
    kinds in what is left, the attribute values included. ``triggered``: :data:`TRIGGERS` finds
    something in ``core`` (without, only a format grammar or XLIFF's spans can).
    """
    xliff = XLIFF_INLINE in flags
    grammars = grammars_for(flags)
    every_tag = xliff or any(g.flag == _KUIT for g in grammars)
    native = [(start, end, "xliff-native") for start, end in markup.xliff_protected(core)] if xliff else []
    outer: list[tuple[int, int, str]] = list(native)
    if triggered:
        found = markup.outer_spans(core, xliff, every_tag)
        outer += [(s.start, s.end, s.kind) for s in found if not _inside_any(s.start, s.end, native)]
        outer.sort()
    directives: list[_Span] = []
    valid = False
    if grammars:
        directives, valid = _directives(core, grammars)
    if "%{" in core and outer:  # Ruby's and Elixir's %{<b>} unflagged: the whole interpolation, the tag in it
        directives = tagged_interpolations(core, directives)
    fixed, ordered_outer, outer = beside_outer(core, directives, outer)
    if not valid:  # ICU structure, and unnumbered printf conversions that order the code they are in
        hidden = _blanked(core, outer)
        fixed += [
            (s.start, s.end, s.kind, False)
            for s in icu.spans(hidden) or ()
            if not any(a < s.end and s.start < b for a, b, _, _ in fixed)
        ]
        for i, (start, end, _) in enumerate(outer):
            if any(_is_ordered("safe-printf", m.group()) for m in _SAFE_PRINTF().finditer(core, start, end)):
                ordered_outer.add(i)
    fixed += [(start, end, kind, i in ordered_outer) for i, (start, end, kind) in enumerate(outer)]
    if triggered:  # a usage synopsis's program and subcommands, a quoted command, words a program reads as they are
        for command_kind, words in (
            (synopsis.KIND, synopsis.command_words(core)),
            (synopsis.QUOTED_KIND, synopsis.quoted_command(core)),
            (synopsis.PROGRAM_WORD_KIND, synopsis.program_words(core)),
        ):
            fixed += [
                (start, end, command_kind, False)
                for start, end in words
                if not any(a < end and start < b for a, b, _, _ in fixed)
            ]
    fixed.sort()
    return code_runs(core, _with_regex_kinds(core, fixed)) if triggered else fixed


def _with_regex_kinds(core: str, fixed: list[_Span]) -> list[_Span]:
    """``fixed`` with the regex kinds found in the text between its spans, in order."""
    scanned = kinds.scanned_in(core)
    found: list[_Span] = []
    last = 0
    for span in [*fixed, (len(core), len(core), "", False)]:
        start, end = span[0], span[1]
        gap = start
        if span[2] == markup.CODE_NAME and core.startswith("<PRI", start):  # %'<PRIuMAX>, unflagged: whole
            percent = grammar.MACRO_PERCENT().search(core, last, start)
            gap = percent.start() if percent else start
        if gap > last and scanned:  # no kind matches an empty gap
            found.extend(kinds.spans(core, scanned, last, gap))
        if span[2] and start >= last:
            found.append((gap, *span[1:]))
            last = end
    return found


def _inside_any(start: int, end: int, spans: list[tuple[int, int, str]]) -> bool:
    """Whether ``start``..``end`` overlaps one of ``spans``."""
    return any(s < end and start < e for s, e, _ in spans)


def _blanked(core: str, spans: list[tuple[int, int, str]]) -> str:
    """``core`` with every span filled with NULs: ICU reads neither its braces nor its whitespace."""
    if not spans:
        return core
    out, last = [], 0
    for start, end, _ in spans:
        out.append(core[last:start])
        out.append("\0" * (end - start))
        last = end
    out.append(core[last:])
    return "".join(out)


def _directives(core: str, grammars: tuple[Grammar, ...]) -> tuple[list[_Span], bool]:
    """The directives of every format ``grammars`` name (the first grammar's where two overlap), and
    whether every grammar reads ``core`` as a valid format string."""
    spans: list[_Span] = []
    kept = Disjoint()  # the spans kept: each directive is tested against them by bisection, not each in turn
    valid = True
    for each in grammars:
        parsed = parse(each, core, True)
        valid = valid and parsed.invalid is None
        for d in parsed.directives:
            if not kept.overlaps(d.start, d.end):
                spans.append((d.start, d.end, each.flag, d.ordered))
                kept.add(d.start, d.end)
    return spans, valid


_TOKEN = re.compile(
    rf"""<{TAG}\s+id\s*=\s*["'](?P<id>\d+)["']\s*(?:/>|>\s*</{TAG}\s*>)  # a placeholder tag
       |(?P<markup><[^>]*>?)                                              # anything else tag-like""",
    re.VERBOSE,
)


def restore(translated: str, protected: Protected) -> str:
    """Put the placeholders back into a translation of ``protected.text``; verify everything came back."""
    # Strip before restoring: a placeholder that stands for whitespace must survive at the edges.
    translated = translated.strip()
    # Nothing to put back, nor any tag to refuse: every match of _TOKEN starts with a "<", and any "<" is one.
    if not protected.placeholders and "<" not in translated:
        restored = f"{protected.prefix}{_xml_unescape(translated)}{protected.suffix}"
        _no_foreign_markup(restored, protected)
        return restored
    sent = _sent(protected)
    seen, texts = _as_sent(translated, sent.by_id) or _tokens(translated, sent.by_id)
    if tuple(ph.id for ph in seen) != sent.tags:  # each tag once, in the order sent: nothing _verify refuses
        _verify(seen, protected.placeholders)
    groups, icu_structure = sent.groups, sent.icu_structure
    if not groups and not icu_structure:  # most texts: the pieces as they came
        pieces = [text for pair in zip(texts[:-1], (ph.text for ph in seen), strict=True) for text in pair]
        restored = f"{protected.prefix}{''.join(pieces)}{texts[-1]}{protected.suffix}"
        _no_foreign_markup(restored, protected)
        return restored
    parts = [
        part
        for text, ph in zip(texts[:-1], seen, strict=True)
        for part in (icu.Part(text), icu.Part(ph.text, ph.id, ph.kind))
    ]
    parts.append(icu.Part(texts[-1]))
    if groups:
        parts = _attribute_values(parts, groups)
    if icu_structure:
        if any(ph.kind == icu_plurals.NUMBER for ph in protected.placeholders):
            parts = icu_plurals.numbers_back(parts, [(ph.id, ph.kind, ph.text) for ph in protected.placeholders])
        parts = icu.quote_apostrophes(parts)
        problem = icu.check(parts, [(ph.id, ph.kind) for ph in protected.placeholders])
        if problem:
            raise PlaceholderMismatch(problem)
    restored = f"{protected.prefix}{''.join(p.text for p in parts)}{protected.suffix}"
    _no_foreign_markup(restored, protected)
    return restored


class _Sent(NamedTuple):
    """What :func:`restore` reads from a protected text, the same for every answer to it (a run restores
    one text's answers in each of its languages). Kept for 1,024 texts: a window's, in every language; a
    one-language run restores each text once, and 4,096 (with markup._shapes') cost 7.5 MB at 206,000 entries."""

    by_id: dict[int, Placeholder]  # read only
    tags: tuple[int, ...]  # the ids of the tags sent, in order
    groups: list[list[int]]  # read only: markup.tag_groups
    icu_structure: bool


@functools.lru_cache(maxsize=1 << 10)
def _sent(protected: Protected) -> _Sent:
    placeholders = protected.placeholders
    return _Sent(
        {ph.id: ph for ph in placeholders},
        # An ICU case's number is sent as text (an ordered one would be for _verify to judge).
        tuple(ph.id for ph in placeholders if ph.kind != icu_plurals.NUMBER or ph.ordered),
        markup.tag_groups(placeholders),
        any(ph.kind in icu.STRUCTURE for ph in placeholders),
    )


def _as_sent(translated: str, by_id: dict[int, Placeholder]) -> tuple[list[Placeholder], list[str]] | None:
    """What :func:`_tokens` finds, for an answer whose every tag is a known placeholder's as sent (the
    usual answer): cut at those tags alone. None for any other answer (text between them holds a ``<``,
    which :data:`_TOKEN` would read as a tag, or an id is unknown): :func:`_tokens` says why."""
    pieces = _CANONICAL().split(translated)  # text, id, text, id, ..., text
    texts = pieces[::2]
    if translated.count("<") != len(pieces) // 2:  # a "<" besides the tags' own
        return None
    seen: list[Placeholder] = []
    for ident in pieces[1::2]:
        ph = by_id.get(_number(ident))
        if ph is None:
            return None
        seen.append(ph)
    return seen, [_xml_unescape(text) for text in texts] if "&" in translated else texts


def _tokens(translated: str, by_id: dict[int, Placeholder]) -> tuple[list[Placeholder], list[str]]:
    """The placeholders of ``translated`` in order, and the text before each then after the last (unescaped);
    refuses markup and unknown ids."""
    seen: list[Placeholder] = []
    texts: list[str] = []
    last = 0
    for match in _TOKEN.finditer(translated):
        if match.group("markup") is not None:
            raise PlaceholderMismatch(f"unexpected markup {match.group('markup')!r} in translation")
        ph = by_id.get(_number(match.group("id")))
        if ph is None:
            raise PlaceholderMismatch(f"unknown placeholder id {match.group('id')} in translation")
        texts.append(_xml_unescape(translated[last : match.start()]))
        seen.append(ph)
        last = match.end()
    texts.append(_xml_unescape(translated[last:]))
    return seen, texts


def _attribute_values(parts: list[icu.Part], groups: list[list[int]]) -> list[icu.Part]:
    """``parts`` with each tag cut around a text attribute whole again: its pieces in order, nothing
    but the value's own placeholders between them, the value's quote character escaped."""
    where = {part.id: i for i, part in enumerate(parts) if part.id is not None}
    out = list(parts)
    for group in groups:
        positions = [where[ident] for ident in group]
        if positions != sorted(positions):
            raise PlaceholderMismatch(f"the pieces of markup {parts[positions[0]].text!r} are out of order")
        inside = range(group[0], group[-1] + 1)
        for i in range(positions[0] + 1, positions[-1]):
            part = parts[i]
            if part.id is not None and part.id not in inside:
                tag = parts[positions[0]].text
                raise PlaceholderMismatch(f"placeholder {part.text!r} moved into an attribute of {tag!r}")
            if part.id is None:
                quote = next(parts[j].text[-1] for j in range(i - 1, -1, -1) if parts[j].id in group)
                out[i] = icu.Part(part.text.replace(quote, "&quot;" if quote == '"' else "&#39;"))
    return out


def _no_foreign_markup(restored: str, protected: Protected) -> None:
    """Refuse markup the source does not have that the answer wrote as text (``&lt;script&gt;``, or
    plain text under a scheme without tag handling): restored, it would be markup."""
    if "<" not in restored and "&lt;" not in restored:
        return
    foreign = markup.foreign_markup(restored, _source_text(protected), escaped=True)
    if foreign:
        raise PlaceholderMismatch(f"markup {foreign[0]!r} that the source does not have")


_CANONICAL = lazy_regex(rf'<{TAG} id="([0-9]+)"/>')


def source_text(protected: Protected) -> str:
    """The text ``protected`` was made from."""
    texts = {str(ph.id): ph.text for ph in protected.placeholders}
    pieces = _CANONICAL().split(protected.text)  # text, id, text, id, ..., text
    core = "".join(texts[piece] if i % 2 else _xml_unescape(piece) for i, piece in enumerate(pieces))
    return f"{protected.prefix}{core}{protected.suffix}"


#: :func:`source_text` for the answers to one text in every language, kept for 1,024 texts as :func:`_sent` is.
_source_text = functools.lru_cache(maxsize=1 << 10)(source_text)


def _verify(seen: list[Placeholder], expected: tuple[Placeholder, ...]) -> None:
    counts: dict[int, int] = {}
    for ph in seen:
        counts[ph.id] = counts.get(ph.id, 0) + 1
    for ph in expected:
        if ph.kind == icu_plurals.NUMBER:  # text in the request, not a tag
            continue
        n = counts.get(ph.id, 0)
        if n == 0:
            raise PlaceholderMismatch(f"placeholder {ph.text!r} missing from translation")
        if n > 1:
            raise PlaceholderMismatch(f"placeholder {ph.text!r} appears {n} times in translation")
    ordered_out = [ph.id for ph in seen if ph.ordered]
    ordered_in = [ph.id for ph in expected if ph.ordered]
    if ordered_out != ordered_in:
        names = ", ".join(ph.text for ph in expected if ph.ordered)
        raise PlaceholderMismatch(f"unnamed placeholders ({names}) reordered; use positional forms to reorder")
    if markup.tags_balanced(expected) and not markup.tags_balanced(seen):
        raise PlaceholderMismatch("HTML tags no longer balanced or nested as in the source")
    moved = _lines_of_options(expected).items() - _lines_of_options(seen).items()
    if moved:
        ident = min(moved)[0]
        text = next(ph.text for ph in expected if ph.id == ident)
        raise PlaceholderMismatch(f"option {text!r} moved to another line of the help text")


def _lines_of_options(placeholders: Iterable[Placeholder]) -> dict[int, int]:
    """The line (newlines before it) of every option: a help text's column is its line, which no word
    order of another language moves."""
    lines: dict[int, int] = {}
    line = 0
    for ph in placeholders:
        if ph.kind == "control" and ph.text == "\n":
            line += 1
        elif ph.kind == "option":
            lines[ph.id] = line
    return lines
