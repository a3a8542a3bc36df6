"""Tokens glued to their neighbours in an engine's answer: a URL, a variable, an option must not touch a word.

A placeholder tag keeps a token's text intact, but not the spaces beside it: an answer that reads
``<x id="1"/>and`` restores to ``https://example.com/docsand`` (a link to another page), ``$d day``
to ``$dday`` (another variable), ``-B, --ignore-backups`` moved to ``--ignore-backups-B`` (another
option), ``%1`` before a digit to ``%12`` (another argument), a directive before a word to one that
reads longer or runs into it (``%Ey`` for ``%E``, ``%sis``, ``%<PRIuMAX>listed``), a synopsis's
command before the bracket of its options (``write[--object-dir``: a command git does not have).
Comparing the restored text with the source cannot tell that from a localised word order, so the
answer is judged while its tags are still tags: a token the source keeps apart from a word must stay
apart from one. Scripts that write no space between words (Chinese, Japanese, Korean, Thai, Lao,
Khmer, Myanmar, Tibetan) may touch it.

A usage synopsis is not a sentence either: ``git notes [--ref <notes-ref>] add`` reads its words in
the one order the program parses them, and ``--ref [notes <notes-ref>]`` is another command line
with every token intact, as ``'get --quotes gnucash-cli'`` is of a quoted command. :func:`disordered`
refuses an answer that moves a synopsis line's or a quoted command's words among its options; the
placeholders of prose keep the free order a translation needs.
"""

import functools
import re
from typing import NamedTuple

from pipeline.patterns import lazy_regex
from pipeline.placeholders import synopsis
from pipeline.placeholders.code_names import CODE_NAME
from pipeline.segments import Placeholder, Protected

__all__ = ["disordered", "glued", "in_translation"]

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
    "quoted-command": "command",
    "program-word": "word",
    "at-name": "name",
    "quoted-regex": "pattern",
    "build-macro": "build macro",
    "file-glob": "file pattern",
    "glued-file-name": "file name",
    "escape": "escape",
    "backslash-command": "command",
    "escaped-brace": "reference",
}
#: Numbered arguments (``%1``): a digit after one makes another number.
_NUMBERED = frozenset({"qt-numbered", "qt-format", "kde-format", "kde-kuit-format", "smalltalk-format", "ycp-format"})
#: Directives a letter after which reads as part of them, or as a word run into the value they print
#: (what is before them is the text's business).
_DIRECTIVES = frozenset({"safe-printf", "percent-directive", "qt-count", "safe-brace", "icu-arg"})
_TAG_AT = re.compile(r'<x id="(\d+)"/>')
#: A name in angle brackets (``<Enter>``, an unflagged ``%<PRIuMAX>``).
_CODE_NAME = CODE_NAME
#: C's directive whose conversion is an <inttypes.h> macro, protected whole (``%'<PRIuMAX>``, ``%3$<PRIu64>``): a
#: c-format one, or a code name in an unflagged text.
_MACRO = lazy_regex(r"%[^<>\s]*<PRI\w+>")
_MACRO_KINDS = frozenset({_CODE_NAME, "c-format", "objc-format"})
_NOBODY = Placeholder(0, "", "")
#: A synopsis's command words.
_COMMAND = synopsis.KIND
#: Kinds a synopsis line's command keeps on its either side.
_SYNOPSIS = frozenset({_COMMAND, "option", _CODE_NAME})
#: A quoted command's words (``gnucash-cli`` and ``get`` of ``'gnucash-cli --quotes get <datafile>'``).
_QUOTED = synopsis.QUOTED_KIND
_COMMANDS = frozenset({_COMMAND, _QUOTED})
#: What stands between two placeholders of one quoted command (protected): a space, or metavariables, groups
#: and capitals a space apart (``git rebase --onto <base> --force``).
_IN_COMMAND = lazy_regex(r"[ ](?:(?:&lt;[^&\n]*?&gt;|\[[^\[\]\n]*\]|[A-Z][A-Z0-9_]*)(?:\.\.\.)?[ ])*")


class _Source(NamedTuple):
    """What :func:`glued` and :func:`disordered` read from the source: the same for every answer to it
    (a run judges one source's answers in each of its languages)."""

    by_id: dict[str, Placeholder]
    kinds: dict[str, Placeholder]  # the watched placeholders, by id
    macros: set[str]  # ids of C's directives whose conversion is an <inttypes.h> macro (``%'<PRIuMAX>``)
    tokens: set[str]  # ids of the watched placeholders that are tokens (not directives)
    apart: dict[str, tuple[bool, bool]]  # per id: whether a word touches it, left and right
    bracketed: set[str]  # ids a bracket follows
    programs: set[str]  # ids that name a usage line's program
    lines: list[tuple[set[str], list[str]]]  # the synopsis lines (see _lines)
    #: Whether :func:`in_translation` has anything to judge: a program before its options, a macro, a command.
    judged: bool


@functools.lru_cache(maxsize=1 << 13)
def _source(protected: Protected, usage_and_macros: bool) -> _Source:
    source = protected.text
    by_id = {str(ph.id): ph for ph in protected.placeholders}
    macros = {str(ph.id) for ph in protected.placeholders if ph.kind in _MACRO_KINDS and _MACRO().fullmatch(ph.text)}
    programs = _programs(source, by_id)
    kinds = {
        str(ph.id): ph
        for ph in protected.placeholders
        if (_watched(ph.kind) or str(ph.id) in macros)
        and (not usage_and_macros or ph.kind == _COMMAND or str(ph.id) in macros or str(ph.id) in programs)
    }
    tokens = {ident for ident, ph in kinds.items() if ph.kind in _LABELS}
    if not kinds:
        apart: dict[str, tuple[bool, bool]] = {}
        bracketed: set[str] = set()
    else:
        apart = {m.group(1): _neighbours(source, m, tokens) for m in _TAG_AT.finditer(source)}
        bracketed = {m.group(1) for m in _TAG_AT.finditer(source) if source.startswith("[", m.end())}
    judged = '"/> [' in source or bool(macros) or any(ph.kind in _COMMANDS for ph in protected.placeholders)
    lines = _lines(source, by_id, programs) + _quoted_commands(source, by_id)
    return _Source(by_id, kinds, macros, tokens, apart, bracketed, programs, lines, judged)


def glued(protected: Protected, answer: str, usage_and_macros: bool = False) -> str | None:
    """Why an engine's ``answer`` glues a token to a word or another token (or a numbered argument to a
    digit) that the source keeps apart, or None. ``usage_and_macros``: judge only a usage line's command
    and program and xgettext's ``%<PRIuMAX>`` (what a human translation is held to: a Basque ``%dk``,
    an Esperanto ``%dª`` are the language's grammar)."""
    src = _source(protected, usage_and_macros)
    kinds, tokens, apart = src.kinds, src.tokens, src.apart
    if not kinds:
        return None
    source = protected.text
    for m in _TAG_AT.finditer(answer):
        ident = m.group(1)
        if ident not in kinds or ident not in apart:
            continue
        ph = kinds[ident]
        if ph.kind in _NUMBERED and _digit_after(answer, m.end()):
            if not _digit_after(source, _end_of(source, ident)):
                return f"argument {ph.text!r} is glued to the digit after it"
        before, after = _neighbours(answer, m, tokens)
        if ph.kind not in _LABELS:  # a directive: only a word (or a synopsis's bracket) after it
            if after and not apart[ident][1]:
                return f"placeholder {ph.text!r} is glued to the word after it"
            if ident in src.programs and answer.startswith("[", m.end()):  # a usage line's program
                return f"placeholder {ph.text!r} is glued to the bracket after it"
            continue
        if (after and not apart[ident][1]) or (before and not apart[ident][0]):
            return f"{_LABELS[ph.kind]} {ph.text!r} is glued to the text next to it"
        if answer.startswith("[", m.end()) and ident not in src.bracketed:
            return f"{_LABELS[ph.kind]} {ph.text!r} is glued to the bracket after it"
    return None


def disordered(protected: Protected, answer: str) -> str | None:
    """Why an engine's ``answer`` moves a usage synopsis's or a quoted command's words among its options, or None.

    A synopsis line is a line of the source that holds a synopsis's command (``command-synopsis``),
    or whose first placeholder is followed by a bracket (``Usage: %s [<option>...]``, ``{0} [OPTIONS]``:
    the program's name): each such command keeps the options and names it had before it and after it
    (``write [--object-dir]`` never reads ``--object-dir [write]``). Options may change places among
    themselves, as translators of bash's synopses do when they rewrap them, and options of prose move
    with the sentence. A command quoted in a sentence is such a line of its own (``'gnucash-cli --quotes
    get <datafile>'`` never reads ``'get --quotes gnucash-cli'``); the sentence around it moves freely.
    """
    src = _source(protected, False)
    if not src.lines:
        return None
    order = [m.group(1) for m in _TAG_AT.finditer(answer)]
    for heads, line in src.lines:
        on_line = set(line)
        got = [ident for ident in order if ident in on_line]
        if not any(ident in heads for ident in got):
            continue
        moved = _moved_head(heads, line, got)
        if moved is not None:
            head = src.by_id[moved]
            where = "quoted command" if head.kind == _QUOTED else "usage synopsis"
            return f"command {head.text!r} of the {where} moved among its options"
    return None


def in_translation(source: Protected, target: Protected) -> str | None:
    """What :func:`disordered`, or :func:`glued` of a usage line or a ``%<PRIuMAX>``, finds in an
    existing translation, protected as ``target``.

    The target's placeholders take the ids of the source's with the same text, in order (one the
    source has not gets an id of its own, which neither rule judges), so the translation reads as an
    engine's answer would.
    """
    if not _source(source, True).judged:
        return None  # nothing either rule judges in a human translation (most texts)
    free: dict[str, list[int]] = {}
    for ph in source.placeholders:
        free.setdefault(ph.text, []).append(ph.id)
    ids: dict[str, int] = {}
    for ph in target.placeholders:
        same = free.get(ph.text)
        ids[str(ph.id)] = same.pop(0) if same else _UNMATCHED + ph.id
    answer = _TAG_AT.sub(lambda m: f'<x id="{ids.get(m.group(1), _UNMATCHED)}"/>', target.text)
    return glued(source, answer, usage_and_macros=True) or disordered(source, answer)


def _moved_head(heads: set[str], line: list[str], got: list[str]) -> str | None:
    """The first command of a synopsis ``line`` that the answer (``got``: its ids on that line, in order)
    puts after other ids than the source does, counting only ids the answer has; or None.

    What precedes an id only grows along a line, so a prefix is told by its size and the latest, in the
    source's order, of what it holds: linear, where comparing a set per command cost n squared.
    """
    kept = set(got)
    rank: dict[str, int] = {}  # the ids the answer has, by first place in the source
    for ident in line:
        if ident in kept and ident not in rank:
            rank[ident] = len(rank)
    answered: dict[str, tuple[int, int]] = {}  # per command: what precedes its first place in the answer
    distinct: set[str] = set()
    latest = -1
    for ident in got:
        if ident in heads and ident not in answered:
            answered[ident] = (len(distinct), latest)
        if ident not in distinct:
            distinct.add(ident)
            latest = max(latest, rank[ident])
    before = 0  # how many ids the answer has precede this place in the source
    for ident in line:
        # what a translation left out (an option with a translated name: bash's -sigspec) is judged elsewhere
        if ident in answered:
            size, last = answered[ident]
            if size != before or last >= before:  # not the first ``before`` of the source's order
                return ident
        if rank.get(ident) == before:
            before += 1
    return None


#: Ids of a translation's placeholders that the source does not have: beyond any source's.
_UNMATCHED = 1_000_000


def _lines(text: str, by_id: dict[str, Placeholder], programs: set[str]) -> list[tuple[set[str], list[str]]]:
    """Per synopsis line of ``text`` (protected): its commands, and the ids of its commands, options
    and names in order (``programs``: what :func:`_programs` found in it)."""
    lines: list[tuple[set[str], list[str]]] = [(set(), [])]
    for m in _TAG_AT.finditer(text):
        ph = by_id.get(m.group(1))
        if ph is None:
            continue
        heads, line = lines[-1]
        if ph.kind == "control" and "\n" in ph.text:
            lines.append((set(), []))
            continue
        if ph.kind == _COMMAND or m.group(1) in programs:
            heads.add(m.group(1))
            line.append(m.group(1))
        elif ph.kind in _SYNOPSIS:
            line.append(m.group(1))
    return [(heads, line) for heads, line in lines if heads]


def _quoted_commands(text: str, by_id: dict[str, Placeholder]) -> list[tuple[set[str], list[str]]]:
    """Per quoted command of ``text`` (protected): its words, and the ids of its words and options in order. A
    command line is typed in one order (``get --quotes gnucash-cli`` is another command), and its placeholders
    stand one beside the other, nothing but spaces and metavariables between them."""
    if not any(ph.kind == _QUOTED for ph in by_id.values()):
        return []  # most texts
    found: list[tuple[set[str], list[str]]] = []
    heads: set[str] = set()
    line: list[str] = []
    end = -1
    for m in _TAG_AT.finditer(text):
        ph = by_id.get(m.group(1))
        if ph is None or ph.kind not in _QUOTED_PARTS:
            continue
        if not line or _IN_COMMAND().fullmatch(text, end, m.start()) is None:
            if heads and len(line) > 1:
                found.append((heads, line))
            heads, line = set(), []
        line.append(m.group(1))
        if ph.kind == _QUOTED:
            heads.add(m.group(1))
        end = m.end()
    if heads and len(line) > 1:
        found.append((heads, line))
    return found


#: The placeholders a quoted command is made of.
_QUOTED_PARTS = frozenset({_QUOTED, "option"})


def _programs(text: str, by_id: dict[str, Placeholder]) -> set[str]:
    """The placeholders that name the program of a usage line: first on their line, after nothing
    or a label (``Usage: %s [<option>...]``, ``{0} [OPTIONS]``), before a bracket. ``Wrote the
    index to %s [%s]`` is a sentence."""
    found: set[str] = set()
    start, first = 0, True
    for m in _TAG_AT.finditer(text):
        ph = by_id.get(m.group(1))
        if ph is not None and ph.kind == "control":  # a line ends, or a tab is a space
            if "\n" in ph.text:
                start, first = m.end(), True
            continue
        if first and text.startswith(" [", m.end()):
            # what comes before the line's first tag (read once per line: every tag's would be quadratic)
            label = _TAG_AT.sub(" ", text[start : m.start()]).strip()
            if not label or (label.endswith(":") and " " not in label):
                found.add(m.group(1))
        first = False
    return found


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
    start, end = m.span()
    return (
        start > 0 and (_word(text[start - 1]) or _token_before(text, start, tokens)),
        end < len(text) and (_word(text[end]) or _token_at(text, end, tokens)),
    )


def _token_before(text: str, at: int, tokens: set[str]) -> bool:
    """Whether the tag that ends at ``at`` (only the last tag opening before it can) is one of ``tokens``."""
    if not text.endswith("/>", 0, at):  # no tag ends there (most places: a space, a word)
        return False
    opening = text.rfind(_OPENING, 0, at)
    previous = _BEFORE().match(text, opening, at) if opening >= 0 else None
    return previous is not None and previous.group(1) in tokens


def _token_at(text: str, at: int, tokens: set[str]) -> bool:
    """Whether a tag of one of ``tokens`` starts at ``at``."""
    following = _TAG_AT.match(text, at)
    return following is not None and following.group(1) in tokens


def _word(ch: str) -> bool:
    """Whether ``ch`` is part of a word of a script that spaces its words."""
    if not ch.isalnum():
        return False
    code = ord(ch)
    if code >= _IDEOGRAPHIC:
        return False
    for first, last in _UNSPACED:  # a loop, not a generator: two characters of every tag of every answer
        if first <= code <= last:
            return False
    return True


_OPENING = '<x id="'
_BEFORE = lazy_regex(r'<x id="(\d+)"/>\Z')


#: From here on (CJK radicals, kana, ideographs, Hangul...): scripts a token is not glued to.
_IDEOGRAPHIC = 0x2E80
#: Scripts before it that write no space between words: Thai, Lao, Tibetan, Myanmar, Khmer.
_UNSPACED = ((0x0E00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x17FF))
