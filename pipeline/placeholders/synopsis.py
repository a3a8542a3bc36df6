"""The program and subcommand words of a usage synopsis: ``git commit-graph write`` of
``usage: git commit-graph write [--object-dir <dir>]``.

A user types these words as they are; translated (``gitä cömmit-gräph``), the synopsis names a
program nobody has. They are the lowercase words that start a line of a synopsis, up to its first
option, bracket or metavariable, where the line

- starts with a usage label (``usage:``, ``Usage:``, ``  or:``, vim's ``E562: Usage:``; the label is
  text and is translated);
- or starts with a placeholder naming the program (``%s add [OPTION]...``, ``Usage: {0} build [-q]``);
- or is a bare synopsis, as git keeps its usage strings (``git notes add [<options>]``): lowercase
  words straight before an option or an opening bracket.

Words of a sentence (``or``, ``use``, ``see`` ...) end the run: ``use [PATCH n/m] even with a single
patch`` is a sentence, and so is a label's ``usage: see the manual``.
"""

from __future__ import annotations

import re

from pipeline.segments import Placeholder, Protected

__all__ = ["KIND", "command_words", "kept_in"]

#: The kind of the words' placeholder: the synopsis's command, which keeps its place among the options
#: (:func:`pipeline.placeholders.glue.disordered`).
KIND = "command-synopsis"

#: Words of a sentence, which no program or subcommand is called.
_STOP = (
    r"(?:or|and|the|to|of|for|in|on|at|by|from|is|are|be|with|without|when|use|see|try|run|then|also|if|not"
    r"|no|a|an)"
)
_WORD = rf"(?!{_STOP}\b)[a-z][a-z0-9_+.-]*[a-z0-9]"  # git, commit-graph, dpkg-deb, python3, bisect--helper

_SYNOPSIS = re.compile(
    rf"""
    (?:^|(?<=\n))[ \t]*                     # a line's start and its indentation
    (?:(?:E[0-9]+|%s):[ ]+(?=(?i:usage):))? # an error's number or the program before it: vim's "E562: "
    (?:(?P<label>(?i:usage|or)):[ \t]*)?    # usage: / Usage: / or:  (translated, left out of the span)
    (?:(?P<program>                         # the program's placeholder: %s, %1$s, %(prog)s, {{0}}, {{prog}}, %1
        %(?:[1-9]\$)?s | %\([A-Za-z_]\w*\)s | \{{[A-Za-z_0-9]*\}} | %[1-9]
    )[ \t]+)?
    (?P<words>{_WORD}(?:[ ]{_WORD}){{0,4}})  # up to five words: git submodule set-branch
    (?=
        [ \t]+(?:--?[A-Za-z\[<]|[\[<(])     # then an option, an opening bracket or a metavariable
      | (?(label)[ \t]*(?:\n|\Z)|(?!))      # or, after a label, the line's end (usage: git stash clear)
    )
    """,
    re.VERBOSE,
)
#: What a bare synopsis line holds after its command: groups in brackets (their content is the
#: synopsis's business, but no directive: "loading translations [%s]..." is a message), metavariables,
#: alternatives in parentheses, options, capitals, "..." and "|", and a subcommand before its options
#: (``git notes [--ref <notes-ref>] add [-f]``; bash's ``... or fc -s [pat=rep]``).
_GROUP = re.compile(r"\[[^\[\]%\n]*\]|<[^<>%\n]+>|\{[^{}%\n]*\}")
_ALTERNATIVES = re.compile(r"\((?:[ ]*(?:--?[\w-]+|<[^<>\n]+>|[A-Z][A-Z0-9_]*|\0)[ ]*\|?)+\)")
_GROUPED = "\0"  # what a group is replaced by
_ITEM = re.compile(
    r"""
    \0                                      # a group
    | --?(?:[A-Za-z0-9][\w-]*(?:=\S*)?)?    # an option, "-" or "--" alone
    | \|+ | \.\.\.|…                        # alternatives, repetition
    | [A-Z][A-Z0-9_.-]*(?:\.\.\.)?          # a metavariable in capitals: FILE, SET1
    | or                                    # "... or fc -s [pat=rep]"
    """,
    re.VERBOSE,
)
_SUBCOMMAND = re.compile(rf"(?!{_STOP}\b)[a-z][a-z0-9_-]*")
#: Where a bare synopsis goes on: the same line, or the next ones when indented (git wraps its options).
_CONTINUED = re.compile(r"[^\n]*(?:\n[ \t]+[^\n]*)*")
_NEWLINE = re.compile(r"\n")


def command_words(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the command words of every usage synopsis line of ``text``."""
    found: list[tuple[int, int]] = []
    starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]  # tried where a line starts, not at every character
    for m in filter(None, (_SYNOPSIS.match(text, at) for at in starts)):
        if m.group("label") is None and not _synopsis_rest(text, m.end("words")):
            continue
        words = m.group("words").split(" ")
        if "_" in words[0]:
            continue  # bash's "job_spec [&]": an argument, no command
        kept = next((i for i, word in enumerate(words[1:], 1) if _is_argument(word)), len(words))
        start = m.start("words")
        found.append((start, start + len(" ".join(words[:kept]))))
    return found


#: Names synopses give their arguments in small letters (bash's ``source filename [arguments]``,
#: ``getopts optstring name [arg ...]``): words a translator translates, which no command is named.
_ARGUMENTS = frozenset(
    """arg args argument arguments name names filename file files dir directory path paths expr expression
    pattern patterns string word words value values n num number count optstring command spec mode id
    key keys list text""".split()
)


def _is_argument(word: str) -> bool:
    """Whether a word after a synopsis's program names an argument rather than a subcommand."""
    return "_" in word or word in _ARGUMENTS


def _synopsis_rest(text: str, at: int) -> bool:
    """Whether what follows a bare line's words is a synopsis's options and arguments, nothing else."""
    rest = _CONTINUED.match(text, at)
    assert rest is not None  # matches the empty string
    if "[" not in rest.group():
        return False  # no optional part: "ignore revisions from <file>", "missing --config=<config>" are sentences
    line, previous = rest.group(), ""
    while line != previous:  # innermost groups first: [--split[=<strategy>]]
        previous = line
        line = _ALTERNATIVES.sub(f" {_GROUPED} ", _GROUP.sub(f" {_GROUPED} ", line))
    items = ["", *line.split(), ""]
    for before, item, after in zip(items, items[1:-1], items[2:], strict=False):
        if _ITEM.fullmatch(item):
            continue
        subcommand = after == _GROUPED or after.startswith("-") or before == "or"  # add [-f]; or fc -s
        if not (subcommand and _SUBCOMMAND.fullmatch(item)):
            return False
    return True


_TAG = re.compile(r'<x id="(\d+)"/>')


def kept_in(source: Protected, target: Protected) -> Protected:
    """``target`` with the source's command words made placeholders where it holds them as words.

    A translation's line need not read as a synopsis to our rules (``Aufruf: git notes add [...]``:
    a label in another language; ``--object-dir [git commit-graph write]``: moved), yet it holds the
    words a user types: judged as a translation, they are there, in the place they were put.
    """
    wanted = [ph.text for ph in source.placeholders if ph.kind == KIND]
    for ph in target.placeholders:
        if ph.kind == KIND and ph.text in wanted:
            wanted.remove(ph.text)
    # The target's own command words that the source has not (git's "write" alone, where the source
    # reads "git commit-graph write"; a translated line that reads as a synopsis, "nutze [<Präfix>]")
    # are text, where the source's words are looked for.
    source_words = {ph.text for ph in source.placeholders if ph.kind == KIND}
    inline = {str(ph.id): ph.text for ph in target.placeholders if ph.kind == KIND and ph.text not in source_words}
    if not wanted and not inline:
        return target
    flat = _TAG.sub(lambda m: inline.get(m.group(1), m.group()), target.text)
    pieces = _TAG.split(flat)  # text, id, text, id, ..., text
    before = len(pieces)
    for text in wanted:
        word = re.compile(rf"(?<![\w-]){re.escape(text)}(?![\w-])")
        for i in range(0, len(pieces), 2):
            m = word.search(pieces[i])
            if m is not None:
                pieces[i : i + 1] = [pieces[i][: m.start()], f"new:{text}", pieces[i][m.end() :]]
                break
    if len(pieces) == before and not inline:
        return target
    by_id = {str(ph.id): ph for ph in target.placeholders}
    out: list[str] = []
    placeholders: list[Placeholder] = []
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            out.append(piece)
            continue
        old = by_id.get(piece)
        ph = Placeholder(len(placeholders) + 1, piece[4:], KIND) if old is None else old
        placeholders.append(Placeholder(len(placeholders) + 1, ph.text, ph.kind, ph.ordered))
        out.append(f'<x id="{len(placeholders)}"/>')
    return Protected("".join(out), tuple(placeholders), target.prefix, target.suffix)
