"""The program and subcommand words of a usage synopsis: ``git commit-graph write`` of
``usage: git commit-graph write [--object-dir <dir>]``.

A user types these words as they are; translated (``gitä cömmit-gräph``), the synopsis names a
program nobody has. They are the lowercase words that start a line of a synopsis, up to its first
option, bracket or metavariable, where the line

- starts with a usage label (``usage:``, ``Usage:``, ``  or:``, vim's ``E562: Usage:``; the label is
  text and is translated);
- or starts with a placeholder naming the program (``%s add [OPTION]...``, ``Usage: {0} build [-q]``);
- or is a bare synopsis, as git keeps its usage strings (``git notes add [<options>]``): lowercase
  words straight before an option or an opening bracket, unless the line is indented under a usage
  line it goes on (badblocks' ``       device [last_block]`` is arguments; util-linux's `` chrt [options]``
  under ``Set policy:`` a synopsis).

A word that names an argument (``device``, ``file``, ``job_spec``) ends the run, and so does the line's
end after the program's placeholder: ``Usage: %s disk`` names what the program reads.

An interactive program's help line that starts a text (gawk's debugger ``help [command] - print list of
commands``) names a command the same way.

Words of a sentence (``or``, ``use``, ``see`` ...) end the run: ``use [PATCH n/m] even with a single
patch`` is a sentence, and so is a label's ``usage: see the manual``.

A command quoted in a sentence (``'gnucash-cli --quotes get <datafile>'``) has its words typed as they are
too (:func:`quoted_command`), and so are the words roundup's and Plone's programs read where prose could
stand (:func:`program_words`: a help list's topics, a keyword's name, a mail template's header names). Judging a
translation, its command words and its lone ``<word>``s are read
with the source's: a label translated reads as no usage line, yet holds the same command and
metavariables (:func:`kept_in`, :func:`names_as_in_source`).
"""

from __future__ import annotations

import re

from pipeline.patterns import lazy_regex
from pipeline.placeholders import markup
from pipeline.placeholders.code_names import CodeNames, translatable_name
from pipeline.segments import Placeholder, Protected

__all__ = [
    "KIND",
    "PROGRAM_WORD_KIND",
    "QUOTED_KIND",
    "command_words",
    "kept_in",
    "names_as_in_source",
    "program_words",
    "quoted_command",
]

#: The kind of the words' placeholder: the synopsis's command, which keeps its place among the options
#: (:func:`pipeline.placeholders.glue.disordered`).
KIND = "command-synopsis"
#: The kind of a quoted command's program, words and options, up to a metavariable (:func:`quoted_command`).
QUOTED_KIND = "quoted-command"
#: The kind of a word a program reads where prose could stand (:func:`program_words`).
PROGRAM_WORD_KIND = "program-word"

#: Words of a sentence, which no program or subcommand is called.
_STOP = (
    r"(?:or|and|the|to|of|for|in|on|at|by|from|is|are|be|with|without|when|use|see|try|run|then|also|if|not"
    r"|no|a|an)"
)
_WORD = (
    rf"(?:(?!{_STOP}\b)[a-z][a-z0-9_+.-]*[a-z0-9]"  # git, commit-graph, dpkg-deb, python3, bisect--helper
    r"|@[A-Z][A-Z0-9_]+@(?:[a-z0-9_+.-]*[a-z0-9])?)"  # a name the build puts in: @GPG@-connect-agent
)

_SYNOPSIS = lazy_regex(
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
_GROUP = lazy_regex(r"\[[^\[\]%\n]*\]|<[^<>%\n]+>|\{[^{}%\n]*\}")
_ALTERNATIVES = lazy_regex(r"\((?:[ ]*(?:--?[\w-]+|<[^<>\n]+>|[A-Z][A-Z0-9_]*|\0)[ ]*\|?)+\)")
_GROUPED = "\0"  # what a group is replaced by
_ITEM = lazy_regex(
    r"""
    \0                                      # a group
    | --?(?:[A-Za-z0-9][\w-]*(?:=\S*)?)?    # an option, "-" or "--" alone
    | \|+ | \.\.\.|…                        # alternatives, repetition
    | [A-Z][A-Z0-9_.-]*(?:\.\.\.)?          # a metavariable in capitals: FILE, SET1
    | or                                    # "... or fc -s [pat=rep]"
    """,
    re.VERBOSE,
)
_SUBCOMMAND = lazy_regex(rf"(?!{_STOP}\b)[a-z][a-z0-9_-]*")
#: Where a bare synopsis goes on: the same line, or the next ones when indented (git wraps its options).
_CONTINUED = lazy_regex(r"[^\n]*(?:\n[ \t]+[^\n]*)*")
_NEWLINE = lazy_regex(r"\n")
_ENDS_LINE = lazy_regex(r"[ \t]*(?:\n|\Z)")


def command_words(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the command words of every usage synopsis line of ``text``."""
    found: list[tuple[int, int]] = []
    if not _may_hold(text):
        return found
    # Tried where a line starts, not at every character.
    starts = [0, *(m.end() for m in _NEWLINE().finditer(text))] if "\n" in text else [0]
    for m in filter(None, (_SYNOPSIS().match(text, at) for at in starts)):
        if m.group("label") is None and not (
            _synopsis_rest(text, m.end("words")) or (m.start() == 0 and _command_help(text, m.group("words")))
        ):
            continue
        if m.group("label") is None and m.group("program") is None and _continues(text, starts, m.start()):
            continue  # badblocks' "       device [last_block]": the arguments of the usage line above
        words = m.group("words").split(" ")
        if "_" in words[0] or (m.group("program") is not None and _is_argument(words[0])):
            continue  # bash's "job_spec [&]", "%s device [start]": an argument, no command
        if m.group("program") is not None and _ENDS_LINE().match(text, m.end("words")):
            continue  # "Usage: %s disk": what the program reads (a subcommand has options after it)
        kept = next((i for i, word in enumerate(words[1:], 1) if _is_argument(word)), len(words))
        start = m.start("words")
        found.append((start, start + len(" ".join(words[:kept]))))
    return found


#: A command line quoted in a sentence: a program (``git``, ``gnucash-cli``, ``roundup-server``), then
#: subcommands, arguments, options, metavariables and their groups, one space apart, inside quotes of
#: any language. The quote before it starts a word (an apostrophe inside one is no quote).
_QUOTED_COMMAND = lazy_regex(
    r"""
    (?P<open>['"‘“„»«])(?<![\w'"‘’“”„»«].)     # written from the quote, which the regex engine skips ahead to
    (?P<body>[a-z][a-z0-9_+.-]*[a-z0-9]             # the program
      (?:[ ](?:--?[A-Za-z0-9][\w-]*(?:=[^\s'"‘’“”„»«]*)?   # an option, with its value
          |[a-z][a-z0-9_+.-]*                      # a subcommand or an argument written as it is
          |<[^<>\n'"]+>(?:\.\.\.)?                # a metavariable: <file>, <file>...
          |\[[^\[\]\n'"]*\](?:\.\.\.)?             # an optional group: [<options>]
          |[A-Z][A-Z0-9_]*(?:\.\.\.)?              # a metavariable in capitals: FILE
          |\.\.\.
      ))+)
    (?P<close>['"’”“«»])
    """,
    re.VERBOSE,
)
_CLOSES = {"'": "'", '"': '"', "‘": "’", "“": "”", "„": "“", "»": "«", "«": "»"}
#: The words of a quoted command that a user types as they are: its program, subcommands, arguments (its
#: options are the option kind's).
_TYPED = lazy_regex(r"[a-z][a-z0-9_+.-]*")


def quoted_command(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each run of words a user types as they are of the commands ``text`` quotes
    (``gnucash-cli`` and ``get`` of ``'gnucash-cli --quotes get <datafile>'``, ``git add`` of ``"git add
    <file>..."``): the program, its subcommands and arguments, each run up to an option (the option kind's),
    a metavariable or a group, which a translator translates (git's German ``"git add <Datei>..."``). A quote
    holding no option nor metavariable ("'save as'") is prose.
    """
    found: list[tuple[int, int]] = []
    if ("-" not in text and "<" not in text) or not any(q in text for q in _CLOSES):
        return found  # no option, no metavariable, or no quote: most texts
    for m in _QUOTED_COMMAND().finditer(text):
        body = m.group("body")
        if _CLOSES[m.group("open")] != m.group("close") or not any(c in body for c in "-<"):
            continue
        at = m.start("body")
        run: tuple[int, int] | None = None
        for token in body.split(" "):
            if _TYPED().fullmatch(token):
                run = (run[0] if run else at, at + len(token))
            elif run:
                found.append(run)
                run = None
            at += len(token) + 1
        if run:
            found.append(run)
    return found


def _may_hold(text: str) -> bool:
    """Whether ``text`` holds what a synopsis's words stand before (an option, a bracket, a metavariable,
    alternatives) or a label's colon: without any, :data:`_SYNOPSIS` matches nowhere."""
    return "-" in text or "[" in text or "<" in text or "(" in text or ":" in text


#: Names synopses give their arguments in small letters (bash's ``source filename [arguments]``,
#: ``getopts optstring name [arg ...]``): words a translator translates, which no command is named.
_ARGUMENTS = frozenset(
    """arg args argument arguments name names filename file files dir directory path paths expr expression
    pattern patterns string word words value values n num number count optstring command spec mode id
    key keys list text device devices dev disk disks partition filesystem fs label newlabel size image
    mountpoint user host port url uri dest destination target prefix""".split()
)


def _is_argument(word: str) -> bool:
    """Whether a word after a synopsis's program names an argument rather than a subcommand."""
    return "_" in word or word in _ARGUMENTS


#: An interactive command's help line: its name, its arguments in brackets or angle brackets, then `` - ``
#: or a column's spaces and the description (gawk's debugger ``help [command] - print list of commands``,
#: parted's ``print [devices|free|list,all]            display the partition table``, gcov-tool's
#: ``overlap [options] <dir1> <dir2>       Compute the overlap of two profiles``).
_COMMAND_HELP = lazy_regex(r"(?:[ ]\0)+(?:[ ]-[ ]|[ ]{2,})\S")
_INNERMOST = lazy_regex(r"\[[^\[\]\n]*\]|<[^<>%\n]+>")


def _command_help(text: str, words: str) -> bool:
    """Whether ``text``, starting with the one word ``words``, is an interactive command's help line."""
    if " " in words:
        return False
    line, previous = text[len(words) : text.find("\n") % (len(text) + 1)], ""
    while line != previous:  # innermost groups first: [[filename:]N|function]
        previous, line = line, _INNERMOST().sub(_GROUPED, line)
    return _COMMAND_HELP().match(line) is not None


#: A line that starts a usage synopsis on itself (``Usage: %s [-b block_size]``), which indented lines
#: below it go on; a label alone (``Usage:``) has its synopses on the lines below.
_LABELLED_LINE = lazy_regex(r"[ \t]*(?:(?:E[0-9]+|%s):[ ]+)?(?i:usage|or):[ \t]*[^\s]")


def _continues(text: str, starts: list[int], at: int) -> bool:
    """Whether the indented line at ``at`` goes on a labelled usage line above it (through indented lines)."""
    if not text.startswith((" ", "\t"), at):
        return False
    index = starts.index(at)
    while index > 0:
        index -= 1
        line = text[starts[index] : starts[index + 1] - 1]
        if not line.startswith((" ", "\t")) or _LABELLED_LINE().match(line):
            return _LABELLED_LINE().match(line) is not None
    return False


def _synopsis_rest(text: str, at: int) -> bool:
    """Whether what follows a bare line's words is a synopsis's options and arguments, nothing else."""
    rest = _CONTINUED().match(text, at)
    assert rest is not None  # matches the empty string
    if "[" not in rest.group():
        return False  # no optional part: "ignore revisions from <file>", "missing --config=<config>" are sentences
    line, previous = rest.group(), ""
    while line != previous:  # innermost groups first: [--split[=<strategy>]]
        previous = line
        line = _ALTERNATIVES().sub(f" {_GROUPED} ", _GROUP().sub(f" {_GROUPED} ", line))
    items = ["", *line.split(), ""]
    for before, item, after in zip(items, items[1:-1], items[2:], strict=False):
        if _ITEM().fullmatch(item):
            continue
        subcommand = after == _GROUPED or after.startswith("-") or before == "or"  # add [-f]; or fc -s
        if not (subcommand and _SUBCOMMAND().fullmatch(item)):
            return False
    return True


_TAG = lazy_regex(r'<x id="(\d+)"/>')
_BUILD_MACRO = "build-macro"
_COMMANDS = frozenset({KIND, QUOTED_KIND})
#: What a translation holds as words where its own text does not say they are code: command words, the words a
#: program reads (``'rounds'`` beside „rounds“), a scheme named before a translated "URI" (``maps:``).
_KEPT_WORDS = _COMMANDS | {PROGRAM_WORD_KIND, "url"}


def kept_in(source: Protected, target: Protected) -> Protected:
    """``target`` with the source's command words (a synopsis's, a quoted command's) and the other words of
    :data:`_KEPT_WORDS` made placeholders where it holds them as words.

    A translation's line need not read as a synopsis to our rules (``Aufruf: git notes add [...]``:
    a label in another language; ``--object-dir [git commit-graph write]``: moved), yet it holds the
    words a user types: judged as a translation, they are there, in the place they were put.
    """
    wanted = [(ph.text, ph.kind) for ph in source.placeholders if ph.kind in _KEPT_WORDS]
    if not wanted and not any(ph.kind in _COMMANDS for ph in target.placeholders):
        return target  # no command word on either side (most texts): nothing to look for, nothing inline
    for ph in target.placeholders:
        if (ph.text, ph.kind) in wanted:
            wanted.remove((ph.text, ph.kind))
    # The target's own command words that the source has not (git's "write" alone, where the source
    # reads "git commit-graph write"; a translated line that reads as a synopsis, "nutze [<Präfix>]"; a
    # command the translator quotes, git's "\"git write-tree\" schlug fehl") are text, where the
    # source's words are looked for.
    source_words = {(ph.text, ph.kind) for ph in source.placeholders if ph.kind in _COMMANDS}
    inline = {
        str(ph.id): ph.text
        for ph in target.placeholders
        if (ph.kind in _COMMANDS and (ph.text, ph.kind) not in source_words)
        or (ph.kind == _BUILD_MACRO and any(ph.text in text for text, _ in wanted))  # "@GPG@" of "@GPG@-connect-agent"
    }
    if not wanted and not inline:
        return target
    flat = _TAG().sub(lambda m: inline.get(m.group(1), m.group()), target.text)
    pieces = _TAG().split(flat)  # text, id, text, id, ..., text
    before = len(pieces)
    kinds = dict(wanted)
    for text, _ in wanted:
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
        ph = Placeholder(len(placeholders) + 1, piece[4:], kinds[piece[4:]]) if old is None else old
        placeholders.append(Placeholder(len(placeholders) + 1, ph.text, ph.kind, ph.ordered))
        out.append(f'<x id="{len(placeholders)}"/>')
    return Protected("".join(out), tuple(placeholders), target.prefix, target.suffix)


#: A bare start tag: ``<s>``, no attribute.
_BARE_TAG = lazy_regex(r"<([A-Za-z][\w-]*)>")
_ESCAPED_BARE_TAG = lazy_regex(r"&lt;[A-Za-z][\w-]*&gt;")


def _lone_element(ph: Placeholder, source: str, closed: set[str] | None) -> bool:
    """Whether ``ph`` is a bare tag an element's name makes markup, alone in a translation of a source without
    markup, in place of one of its metavariables: util-linux's Spanish ``<s>`` (seconds) for the help line's
    ``<sec>``, HTML's strikethrough too. ``closed``: the elements the translation closes (None: it has more
    bare tags than the source has metavariables)."""
    bare = _BARE_TAG().fullmatch(ph.text) if ph.kind == markup.TAG_KIND and closed is not None else None
    return (
        bare is not None
        and bare.group(1).lower() not in (closed or ())
        and "</" not in source
        and ph.text not in source
    )


#: The quotes of other languages, and the straight quote each stands for where a ``<word>`` is judged.
_STRAIGHT = str.maketrans("\u201c\u201d\u201e\u00ab\u00bb\u2018\u2019\u201a", '"""""\'\'\'')
_TYPOGRAPHIC = lazy_regex("[\u201c\u201d\u201e\u00ab\u00bb\u2018\u2019\u201a]")


def names_as_in_source(source: str, translation: str, target: Protected) -> Protected:
    """``target`` (``translation`` protected) with each lone ``<word>`` it takes for code (``code-name``) made text
    where the source's words make it a metavariable: roundup's "Usage: help topic … <command> -- …" translated
    "Verwendung: …" reads as no usage line, yet its ``<command>``, kept or translated (``<Befehl>``), is the
    source's metavariable. So is one in a command the translation quotes in its language's quotes, where the
    source has straight ones (git's German ``„git add <Datei>...“`` for ``"git add <file>..."``), and a bare
    tag an element's name makes markup in place of a metavariable (:func:`_lone_element`)."""
    if not any(ph.kind in (markup.CODE_NAME, markup.TAG_KIND) for ph in target.placeholders):
        return target  # most translations: no <word> at all
    code = CodeNames(source)
    quoted = CodeNames(translation.translate(_STRAIGHT)) if _TYPOGRAPHIC().search(translation) else None
    bare = sum(1 for ph in target.placeholders if _BARE_TAG().fullmatch(ph.text)) + len(
        _ESCAPED_BARE_TAG().findall(target.text)
    )
    closed: set[str] | None = None  # None: more bare tags than the source's metavariables, an element added
    if bare <= len(_BARE_TAG().findall(source)):
        closed = {ph.text[2:-1].strip().lower() for ph in target.placeholders if ph.text.startswith("</")}
    # A bare tag in place of a metavariable is judged by the source's own: its word is not in the source. A
    # source's <word> that is code but of the shape translators translate counts as one (git's "please specify
    # <upstream> manually", whose Catalan translation writes <font>); markup never does (<br>).
    stand_ins = not any(
        code(tag) and (not translatable_name(tag) or markup.is_markup(tag, set))
        for tag in (m.group() for m in _BARE_TAG().finditer(source))
    )
    text_names = {
        str(ph.id): ph.text
        for ph in target.placeholders
        if (
            ph.kind == markup.CODE_NAME
            and not (code(ph.text) and (quoted is None or quoted(ph.text)))
            or (stand_ins and _lone_element(ph, source, closed))
        )
    }
    if not text_names:
        return target
    kept: list[Placeholder] = []
    numbers: dict[str, int] = {}
    for ph in target.placeholders:
        if str(ph.id) not in text_names:
            numbers[str(ph.id)] = len(kept) + 1
            kept.append(Placeholder(len(kept) + 1, ph.text, ph.kind, ph.ordered))

    def renumbered(m: re.Match[str]) -> str:
        name = text_names.get(m.group(1))
        if name is not None:
            return name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return f'<x id="{numbers[m.group(1)]}"/>'

    return Protected(_TAG().sub(renumbered, target.text), tuple(kept), target.prefix, target.suffix)


#: A topic of an indented help list: the line's one word, then a column's spaces and ``--`` before the description.
_HELP_TOPIC = lazy_regex(r"^[ \t]+([a-z][a-z0-9_-]*)[ \t]+--[ \t]+\S", re.MULTILINE)
#: A keyword argument's name with its ``=``, opening a bracket, before a metavariable: ``[rounds=<integer>]``.
_KEYWORD = lazy_regex(r"(?<=\[)[a-z][a-z0-9_-]*=(?=<[^<>\n]+>\])")
#: A bare word in a bracket, a literal the command line reads where it stands on a line of keyword arguments
#: (roundup's mode ``[password]`` before ``[rounds=<integer>]``).
_LITERAL = lazy_regex(r"(?<=\[)[a-z][a-z0-9_-]*(?=\])")
#: A word in straight quotes (``'rounds'``, ``'scheme='``): a name the program reads where the text also
#: writes it as a keyword or a literal.
_QUOTED_NAME = lazy_regex(r"(?<=')[a-z][a-z0-9_-]*=?(?=')")
#: The header names of mail that a template writes, as RFC 5322 and MIME spell them.
_MAIL_HEADERS = (
    r"(?:From|To|Cc|Bcc|Reply-To|Subject|Date|Sender|Message-ID|In-Reply-To|References|Return-Path"
    r"|Content-Type|Content-Transfer-Encoding|MIME-Version|Precedence|X-[A-Za-z0-9-]+)"
)
#: Two header lines or more in a row, each a name, its colon and a value.
_MAIL_BLOCK = lazy_regex(rf"^{_MAIL_HEADERS}:[ \t]+\S[^\n]*(?:\n{_MAIL_HEADERS}:[ \t]+\S[^\n]*)+", re.MULTILINE)
_MAIL_NAME = lazy_regex(rf"^{_MAIL_HEADERS}:", re.MULTILINE)


def program_words(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every word of ``text`` a program reads as it is, where prose could stand, in order.

    Each was found translated on a published catalog, where a user then types a word the program does not know:

    - the topics of an indented ``word -- description`` list (roundup's ``help``: ``commands  -- list
      commands``, ``initopts  -- init command options``; its German translators keep them), two lines or more;
    - a keyword argument's name before its metavariable in a bracket (roundup's ``[rounds=<integer>]``: the
      ``<integer>`` is the translator's, ``rounds=`` the command line's);
    - on such a line, a bare word in a bracket (roundup's mode ``[password]``), and each of these names where
      the text quotes it (``'rounds'``, ``'scheme='``; "Invalid 'rounds'." alone is left to the translator);
    - the header names of a mail template, two header lines in a row (Plone's ``From:``, ``To:``,
      ``Subject:``, which its German translators keep); one label alone (pretix's ``Subject: {subject}``,
      translated "Betreff:") is text for the reader.

    (A form field's name, roundup's ``@action``, is a regex kind: :data:`pipeline.placeholders.grammar.AT_NAME`.)
    """
    found: list[tuple[int, int]] = []
    if "--" in text and "\n" in text:
        topics = [m.span(1) for m in _HELP_TOPIC().finditer(text)]
        if len(topics) > 1:
            found += topics
    if "=<" in text:
        found += _keywords(text)
    if ":" in text and "\n" in text:
        for block in _MAIL_BLOCK().finditer(text):
            found += [m.span() for m in _MAIL_NAME().finditer(text, block.start(), block.end())]
    return sorted(found)


def _keywords(text: str) -> list[tuple[int, int]]:
    """The keyword names of ``text``'s bracketed keyword arguments, the literals on their lines, and these names
    where the text quotes them."""
    found = [m.span() for m in _KEYWORD().finditer(text)]
    for line in {(text.rfind("\n", 0, start) + 1, _line_end(text, start)) for start, _ in found}:
        found += [m.span() for m in _LITERAL().finditer(text, *line)]
    names = {text[start:end].rstrip("=") for start, end in found}
    if names and "'" in text:
        found += [m.span() for m in _QUOTED_NAME().finditer(text) if m.group().rstrip("=") in names]
    return found


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end
