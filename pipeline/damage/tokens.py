"""Every code-like token of a text, by one deliberately broad reading that knows no catalog flag.

Written from the formats' own documentation (printf(3), strftime(3), gcc's diagnostic directives,
Qt's QString::arg, Python's str.format and %-formatting, ICU MessageFormat, Jinja, Symfony's
``%name%``, HTML, BBCode) and the examples of issue #35, never from the placeholder code the run
protects with: an oracle that shared that code would share its blind spots.

A token is a small frozen record: its kind, its text, and the key two tokens are compared by (the
text with what a program does not read normalised away: spaces inside braces, quote style and spacing
of markup attributes, the values of attributes a reader sees such as ``title``). A token is decided
by the characters around it only, so the same code in a source and in its translation reads the same
whatever the words around it became.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import NamedTuple

from pipeline.damage import icu


class Kind(StrEnum):
    """What a token is; damage is reported and counted by kind."""

    PRINTF = "printf"  # %s %5.2f %1$s %(name)s %Y %qs %n %Ln %1 %L1 %1% %{name} %%
    QUOTED_CODE = "quoted-code"  # %<...%>  `code`  ``code``  <code>...</code>  [kbd]...[/kbd]
    GNU_QUOTED = "gnu-quoted"  # what GNU quotes `so': a command, a file, a name (a translation may requote it)
    COMMAND = "command"  # vim's :qa!, a protocol's PBSZ, the command a usage synopsis names (trap [-lp])
    BRACE = "brace"  # {name} {0} {0:.2f} {name!r} { limit } {id, number}
    ICU = "icu"  # {count, plural, ...} heads, select keys, # in plural branches
    TEMPLATE = "template"  # {{ var }} {% tag %} {# comment #}
    PERCENT_NAME = "percent-name"  # Symfony's %count%
    VARIABLE = "variable"  # $VAR ${VAR} $(module)s !$OMP DO
    MARKUP = "markup"  # <tag attr="...">, </tag>, <tag/>, <!-- -->
    METAVAR = "metavar"  # a lone <word> with no attribute and no closing partner: <file> in a usage line
    BBCODE = "bbcode"  # [b] [/b] [url=...] [[Wiki target
    ENTITY = "entity"  # &amp; &#160;
    URL = "url"
    EMAIL = "email"
    PATH = "path"  # /usr/share/x ~/.config ./configure C:\x *.po foo.conf
    OPTION = "option"  # --scale -ffixed-line-length -o
    IDENTIFIER = "identifier"  # snake_case camelCase QString os.path std::string main()
    LISP = "lisp"  # ~A ~S ~D ~%
    AT_CODE = "at-code"  # e2fsck's @b @i @bs, @-words (a translation may write out what they stand for)


class Token(NamedTuple):
    """One code-like span of a text."""

    kind: Kind
    text: str
    key: str  # what two tokens are compared by
    start: int
    in_branch: bool = False  # inside an ICU plural/select branch: counted by presence, not number


#: Attributes whose values a reader sees, and which a translation may therefore change.
TEXT_ATTRIBUTES = frozenset(
    {
        "title",
        "alt",
        "placeholder",
        "label",
        "summary",
        "abbr",
        "aria-label",
        "aria-description",
        "aria-placeholder",
        "aria-roledescription",
        "aria-valuetext",
    }
)
#: Elements whose content is code: it must come back as it was.
CODE_ELEMENTS = frozenset({"code", "kbd", "tt", "samp"})
#: Elements that stand alone without attributes in HTML or Qt rich text; any other lone ``<word>`` (no
#: attribute, no ``</word>`` in the text) is a metavariable of a usage line (``-o <file>``).
LONE_ELEMENTS = frozenset("br hr p li dt dd tr td th qt nobr html body head wbr img input".split())
#: BBCode names known without a closing partner (``[*]`` list items, ``[hr]``).
BBCODE_NAMES = frozenset(
    "b i u s url img quote code kbd color size list li center left right email sub sup table tr td th "
    "h1 h2 h3 h4 h5 h6 spoiler youtube font pre hr noparse".split()
)
#: File name extensions that make a word a file name (``foo.c``, ``setup.cfg``).
_EXTENSIONS = (
    "c|h|cc|cpp|hpp|py|pyc|js|mjs|ts|css|scss|html?|xml|xsd|xsl|json|ya?ml|toml|ini|cfg|conf|po|pot|mo|"
    "txt|md|rst|sh|bat|exe|dll|so|a|o|lib|jar|war|zip|gz|bz2|xz|tar|tgz|deb|rpm|desktop|png|svg|jpe?g|gif|"
    "ico|pdf|csv|log|lock|db|sqlite3?|pem|crt|key|php|pl|pm|rb|go|rs|java|kt|swift|qml|ui|qm|ts|lua|tex"
)

_PATTERN = re.compile(
    r"""
    (?P<comment> <!--.*?--> )                           # an HTML/XML comment, whole
  | (?P<pri> % (?:\d+\$)? [-+\ \#0'I]* (?:\d+|\*)? (?:\.\d*)? <PRI\w+> )   # gettext's <inttypes.h> macro
                                                        #   directive %<PRIu64>, %'<PRIuMAX>, %3$<PRIu64>
  | (?P<build_macro> (?<![\w@]) @[A-Z][A-Z0-9_]+@ (?: [\w.+-]*\w )? )   # configure's @GPG@, with the name
                                                        #   it starts: @GPG@-connect-agent is what one types
                                                        #   (two letters at least: e2fsck's @B@C are codes)
  | (?P<gcc_quote> %<.*?%> )                            # gcc's quoted code %<constexpr%>, contents included
  | (?P<template> \{\{.*?\}\} | \{%.*?%\} | \{\#.*?\#\} )   # Jinja/Django/Angular {{ v }} {% tag %} {# c #}
  | (?P<tag>                                            # a markup tag: opening, closing or empty
        < (?P<close>/)? (?P<name>[^\W\d_][\w:.-]*)      #   its name (any script: a translated name shows)
        (?P<attrs> (?: \s+ [^\s=<>/"']+                 #   attributes: a name,
            (?: \s*=\s* (?: "[^"]*" | '[^']*' | [^\s<>"']+ ) )? )* )  # with a quoted or bare value
        \s* (?P<selfclose>/)? >
    )
  | (?P<url> (?: \b [a-z] [a-z0-9+.-]* [a-z0-9] :/{1,3}    # a URL with any scheme (smb://, trash:///,
               | mailto: | www\. )                      #   file:/home), a mailto: or a www. host
        [^\s<>"'`\]\[{}]* )                             #   what follows, if anything ("like http://")
  | (?P<email> [\w.+-]+ @ [A-Za-z0-9-]+ (?: \.[A-Za-z0-9-]+ )+ )
  | (?P<at_code> (?<![\w@%.+-]) @ [^\W\d_] (?!@)       # e2fsck's @b @i: it expands the one letter after @
        (?: _\w+ )? )                                   #   and prints the rest (@bs, German @ne, Finnish @issa);
                                                        #   any script, so that @ф shows; a field @b_size whole
  | (?P<icu_head> \{ \s* [\w.]+ \s* , \s* (?:plural|selectordinal|select) \b [^{}]* )  # an ICU head whose
                                                        #   construct did not parse (see icu.py)
  | (?P<brace>                                          # a brace field: str.format, C#, Java, ICU simple
        \{ \s* [\w.\[\]-]* \s*                          #   {name} {0} {a.b[c]} {} { limit }
        (?: , \s* \w+ \s* (?: , [^{}]* )? )?            #   ICU/Java {id, number} {d, date, short}
        (?: ![rsa] )? (?: : [^{}]* )? \}                #   conversion and format spec {x!r:>10}
    )
  | (?P<percent_name>                                   # Symfony's %count%, but not %d% or %lu%
        % [A-Za-z] [A-Za-z0-9.]* _ [A-Za-z0-9_.]* [A-Za-z0-9] %   # a name with an underscore, whatever
                                                        #   follows: %link_start%click here%link_end%
      | % (?! (?:hh|ll|[hlLqjzZt])? [A-Za-z] % ) [A-Za-z_] [A-Za-z0-9_.]* [A-Za-z0-9_] %   # ASCII, 2+
        (?! [A-Za-z0-9] )                               #   (PHP's %slink%s is two %s)
    )
  | (?P<printf>
        % [ID] [A-Za-z] (?![A-Za-z])                    # e2fsck's inode and entry fields %Iu %Dn
      | % \( [^()\n]{0,60} \) [-+\#0]* (?:\*|\d+)? (?:\.(?:\*|\d+))? [A-Za-z%]    # Python %(name)s
      | % \{ [A-Za-z_]\w* \}                                                   # Ruby %{name}
      | % (?:\d+\$)? [-+\#0'I_^]*                       # C/PHP/strftime/gcc: position and flags,
        (?: \*(?:\d+\$)? | \d+ )? (?: \. (?: \*(?:\d+\$)? | \d+ ) )?  # width and precision,
        (?: E[cCxXyY] | O[deHImMSuUVwWy] | :z           # strftime's modified conversions %Ey %Od %:z,
          | (?: hh | ll | I64 | I32 | [hlLqjzZtw] )?    # or a length
            [A-Za-z@] )                                 #   and the conversion
      | %%                                              # a percent sign
      | % [<>']                                         # gcc's bare %< %> %'
      | % L? \d{1,2}                                    # Qt/KDE %1 %L1 (boost's %1% too, its % apart)
    )
  | (?P<ex_command>                                     # vim's Ex commands :qa! :help 'cm' :s\/sub/, where
        (?: (?<=[\s"'(\[]) | ^ ) : [a-z]+ !?             #   a word starts (not "E1270:", not 10:30)
        (?: \\?/\S* | \ '[a-z]+' | \ [\w-]+(?=<(?:Enter|CR)>) )? (?![\w:]) )   # :help iccf<Enter>
  | (?P<protocol> \b (?:CWD|CDUP|SMNT|REIN|PASV|STRU|STOU|APPE|ALLO|RETR|STOR|RNFR|RNTO|ABOR|DELE|RMD|MKD|PWD
        |NLST|SYST|NOOP|PBSZ|PROT|EPSV|EPRT|MDTM|FEAT|EHLO|HELO|RCPT) \b )   # FTP and SMTP verbs no prose spells
  | (?P<synopsis> (?<![\w\[-]) (?!(?:or|and|use|see|the|with|try|then)\b)   # a usage synopsis's command:
        [a-z][a-z0-9-]+ (?!\w)                         #   trap [-lp] ..., fc -s [x] (not "or [-q|--quiet]",
                                                        #   nor badblocks' metavariable "test_pattern [-t")
        (?= \ + (?: \[- | \[\[ | -[A-Za-z][^\n]*\[ ) ) )  #   (wherever: "or fc -s" may be "или fc -s")
  | (?P<lisp> ~ [:@]* [ASDBOXRPCFEG%&|] )               # Lisp format ~A ~% (uppercase only: prose has ~a)
  | (?P<fortran> !\$ [^\W\d_]+ (?: [ \t]+ [^\W\d_]+ )* )  # Fortran !$OMP PARALLEL DO (cut to its capitals)
  | (?P<variable>
        \$\{ [^{}\s]+ \}                                # ${VAR}
      | \$\( [^\W\d][\w.]* \) [^\W\d_]?               # $(module)s, make's $(VAR)
      | \$ [^\W\d]\w*                                 # $VAR $name (any script: a translated name shows)
    )
  | (?P<wiki> \[\[ [^\]\[|\n]+ (?=\]\]|\|) )         # a wiki link's target (its label after | is text;
                                                        #   a synopsis's [[arg] is no link)
  | (?P<bbcode> \[ /? [^\W\d_][\w]* (?: =[^\]\n]* )? \] )   # [b] [/b] [url=x] (filtered below)
  | (?P<entity> & (?: [A-Za-z][A-Za-z0-9]{1,31} | \#\d{1,7} | \#[xX][0-9A-Fa-f]{1,6} ) ; )
  | (?P<backquote> ``[^`\n]+`` | `[^`'\n]+` )           # reST/Markdown code; GNU `quote' is prose
  | (?P<path>
        [A-Za-z]:\\[\w.\\-]+                            # C:\Windows
      | (?<![\w/.~)-]) (?:~|\.{1,2})? / (?!-) (?: [\w.+@-] | \([\w|]+\) )*[\w)]   # /etc/x ~/.x ./configure
                                                        #   (not "term(s)/phrase", nor "+/-sectors")
        (?: / (?: [\w.+@-] | \([\w|]+\) )* )*        #   and bash's /dev/(tcp|udp)/host/port
      | (?<![\w.~-]) \. [a-z][\w.]*\w                    # a dotfile: .netrc .vimrc (.desktop-Datei: a compound;
                                                        #   MAJOR[.MINOR] is a metavariable)
      | (?: (?<=%[A-Za-z]) | (?<=\}) ) [\w-]* \. [A-Za-z]\w{0,7} (?![\w])   # a name a program builds: %s_ascii.spl
      | \*\. (?:\*|\w+) (?: ; [\w.*-]+ )*                # *.po, *.*, a dialog's filter *.vim;_vimrc
      | (?<![\w/.~-]) [A-Za-z0-9_.-]+ (?: / [A-Za-z0-9_.-]+ )+ \.[A-Za-z0-9]+ (?![\w/])  # templates/x.html
    )
  | (?P<option>                                        # --scale -Wall -ffixed-line-length, where a word
        (?: (?<![^\s(\[{=,|;]) | (?<=[\s(\[{=,|;]["'‘“«»„`]) | (?<=^["'‘“«»„`]) )  # may start (not the
        (?: --[A-Za-z0-9][\w-]* | -[A-Za-z][\w-]* ) (?<!-)   # "-Klausel" of "%<map%>-Klausel")
    )
  | (?P<identifier>
        (?<![\w.]) [A-Za-z_]\w* (?: :: \w+ )+           # std::string
      | (?<![\w.]) [a-z_]\w* -> \w+                     # obj->field (Edit->Global is a menu path)
      | (?<![\w.]) [A-Za-z_][\w.]* \(\)                 # main() os.getcwd()
      | (?<![\w.]) [A-Za-z_]\w+ (?: \.[A-Za-z_]\w* )+ (?![\w])   # os.path.join settings.py (not e.g.)
      | (?<![\w$]) __\w+__ (?![\w$])                    # __init__
      | (?<![\w$]) [^\W_]\w*_\w*_\w*[^\W_] (?![\w$])    # two underscores inside: a_b_c (not _Help)
      | (?<![\w$]) (?: [a-z0-9]{2,} (?:_[a-z0-9]{2,})+ | [A-Z0-9]{2,} (?:_[A-Z0-9]{2,})+ ) (?![\w$])  # file_name
                                                        #   MAX_PATH, one case (not the mnemonic I_nternet)
      | (?<![\w$]) [^\W\d]\w* \$ \w+                    # a$b
      | (?<![\w]) (?=[A-Za-z0-9]*[a-z][A-Z]) [a-z][A-Za-z0-9]* (?![\w])       # camelCase innerHTML
      | (?<![\w]) [A-Z]{2,}[a-z]{2,}[A-Za-z0-9]* (?![\w])                      # QString IOError
      | (?<![\w]) [\w-]+ \. (?:"""
    + _EXTENSIONS
    + r""") (?![\w.])                                   # foo.c setup.cfg
    )
    """,
    re.VERBOSE | re.DOTALL,
)
#: Quoted text, in GNU's old quotes (```help name'``) and in every language's: a GNU-quoted command of a
#: source must come back in some quotes of the translation, whichever. Matched at every position (a
#: lookahead), so that an apostrophe ("don't") cannot hide the quote after it.
_QUOTED = re.compile(
    r"""(?=( `([^`'\n]{1,80})'          # GNU's `code'
           | ‘([^’\n]{1,80})’ | '([^'\n]{1,80})' | "([^"\n]{1,80})"   # English, ASCII
           | „([^“”\n]{1,80})[“”] | “([^”\n]{1,80})” | »([^«\n]{1,80})«   # German, Czech, Danish
           | «\s?([^»\n]{1,80}?)\s?» | ‹([^›\n]{1,80})› | 「([^」\n]{1,80})」 | 『([^』\n]{1,80})』 ))""",
    re.VERBOSE,
)
_ATTRIBUTE = re.compile(r"""([^\s=<>/"']+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s<>"']+))?""")
_SPACES = re.compile(r"\s+")
_URL_TAIL = ".,;:!?)'\"“”„«»‹›’"  # sentence punctuation and quotes after a URL are not part of it


def tokens(text: str) -> list[Token]:
    """Every code-like token of ``text``, in order."""
    found: list[Token] = []
    at = 0
    for construct in icu.constructs(text):
        found.extend(_scan(text, at, construct.start, in_branch=False))
        found.extend(Token(Kind.ICU, word, key, start) for word, key, start in construct.heads)
        for branch in construct.branches:
            found.extend(
                Token(t.kind, t.text, t.key, t.start + branch.start, True)
                for t in tokens(text[branch.start : branch.end])
            )
            found.extend(Token(Kind.ICU, "#", "#", branch.start + i, True) for i in branch.counts)
        at = construct.end
    found.extend(_scan(text, at, len(text), in_branch=False))
    return found


def _scan(text: str, start: int, end: int, in_branch: bool) -> list[Token]:
    part = text[start:end]
    found: list[Token] = _program_words(part, start)
    closers = {m.group(1).lower() for m in re.finditer(r"\[/([^\W\d_]\w*)\]", part)}
    for match in _PATTERN.finditer(part):
        group = match.lastgroup or ""
        if group in ("close", "name", "attrs", "selfclose"):
            group = "tag"
        found.extend(_tokens_of(match, group, start, closers, part))
    if "`" in part or any(q in part for q in "'\"‘“„«»‹「『"):
        for quoted in _QUOTED.finditer(part):
            content = next(g for g in quoted.groups()[1:] if g is not None).strip()
            found.append(Token(Kind.GNU_QUOTED, quoted.group(1), content, quoted.start() + start))
    found = _without_repeats(found)
    found.sort(key=lambda t: t.start)
    return [Token(t.kind, t.text, t.key, t.start, in_branch) for t in found] if in_branch else found


#: A line of a usage synopsis and the words a user types at its start (the program and its subcommands):
#: after "usage:" or "or:" (vim's "E562: Usage:"), or a directive standing for the program (``%s``,
#: ``{0}``), or nothing (git's bare synopses, whose words must then stand right before an option, an
#: option's bracket or a metavariable: "loading translations [%s]" and "pass -k flag to" are
#: sentences); up to the first option, bracket or angle bracket. A translation may call the label
#: anything ("Aufruf:"): a word of the source's that the translation holds as a word is kept
#: (:func:`pipeline.damage.compare.check`).
_USAGE_LINE = re.compile(
    r"""
    (?m: ^ ) [ \t]*
    (?: E\d+ : \ + )?                                 # vim's error number
    (?: (?P<label> (?i: usage | or ) : ) [ \t]+ )?    # Usage: / or:
    (?: (?P<program> %(?:\d\$)?s | %\(\w+\)s | \{\w*\} ) [ \t]+ )?   # %s, %1$s, %(prog)s, {0}
    (?P<words> [a-z][\w.+-]*[a-z0-9] (?: \ [a-z][\w.+-]*[a-z0-9] )* )   # git commit-graph write
    (?: (?<= . ) (?(label) (?= [ \t]+ [\[<(-] )       # labelled: an option, a bracket, <metavariable>
                 | (?(program) (?= [ \t]+ [\[-] )     # the program's directive: its options
                 | (?= [ \t]+ (?: \[[-<\[a-z] | --?[A-Za-z] | <[a-z] ) ) ) ) )   # bare: the same, closely
    """,
    re.VERBOSE,
)
#: Words of prose that no program is called, which end a run (a sentence's "ignore revisions from").
_PROSE_WORDS = frozenset(
    "a an and are as at be been by can cannot for from has have if in is it not of on only or see the to try "
    "use was were when with without must may do does should will".split()
)
#: An interactive command's help text: the command, its bracketed arguments, then " - " or a column's
#: spaces before the description (gawk's ``help [command] - print ...``, parted's ``print [devices|free]   display``).
_HELP_LINE = re.compile(r"\A([a-z][a-z0-9-]+)(?= \[[^\n]*\](?: - | {2,})[^\s\-])")
_NOUNISH = re.compile(
    r"(?:name|file|spec|string|expr|args?|arguments?|pattern|word|num|mode|dir)$"
    # whole words only (git's fast-import, ls-files are commands): e2label device, findsuper device
    r"|^(?:path|device|disk|dev|partition|label|size|image|host|port|url|user)s?$"
)


def brace_metavariables(text: str) -> int:
    """How many of a usage line's braced argument names ``text`` holds (``{script-only-if-no-other-script}``)."""
    return len(_HYPHENATED_NAME.findall(text))


def help_command(text: str) -> str | None:
    """The command whose help line ``text`` is (``continue [COUNT] - continue program being debugged``);
    its description may say the word again, which a translation translates."""
    line = _HELP_LINE.match(text)
    return line.group(1) if line and line.group(1) not in _PROSE_WORDS else None


def _program_words(part: str, offset: int) -> list[Token]:
    """The program and subcommand words of each usage line of ``part``, one COMMAND token each."""
    found: list[Token] = []
    if "[" not in part and "<" not in part and "-" not in part:
        return found
    command = help_command(part)
    if command:
        found.append(Token(Kind.COMMAND, command, command, offset))
    for line in _USAGE_LINE.finditer(part):
        words = line.group("words").split(" ")
        rest = part[line.end() : part.find("\n", line.end()) % (len(part) + 1)]
        if any(w in _PROSE_WORDS for w in words):
            continue
        if not (line.group("label") or line.group("program")) and (line.start() or not _synopsis_after(rest)):
            continue  # a bare synopsis is a whole text (git's), and nothing but its arguments follow its words
        at = line.start("words") + offset
        for index, word in enumerate(words):
            if index and _names_an_argument(word, rest):
                break
            found.append(Token(Kind.COMMAND, word, word, at))
            at += len(word) + 1
    return found


def _names_an_argument(word: str, rest: str) -> bool:
    """Whether a word after a usage line's program names an argument (a translator translates it): a
    name's shape (bash's ``source filename``, ``job_spec``), or a word its arguments repeat (``let arg
    [arg ...]``)."""
    return (
        bool(_NOUNISH.search(word))
        or "_" in word
        or re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", rest) is not None
    )


def _synopsis_after(rest: str) -> bool:
    """Whether ``rest`` reads as a synopsis's arguments: brackets, <metavariables>, (alternatives), options,
    CAPITALS, "|" and "...", a subcommand right before its options (``[--ref <notes-ref>] add [-f]``)."""
    if "[" not in rest:
        return False
    shown = rest
    for _ in range(3):  # nested brackets: [--split[=<strategy>]]
        shown = re.sub(r"\[[^\[\]]*\]|<[^<>]*>|\([^()]*\)", " [] ", shown)
    items = shown.replace("...", " ").replace("|", " ").split()
    return all(
        item == "[]"
        or item.startswith("-")
        or item.isupper()
        or (
            re.fullmatch(r"[a-z][\w-]*", item) is not None
            and item not in _PROSE_WORDS
            and i + 1 < len(items)
            and (items[i + 1] == "[]" or items[i + 1].startswith("-"))
        )
        for i, item in enumerate(items)
    )


def _without_repeats(found: list[Token]) -> list[Token]:
    """``found`` with one token per start: a usage line's last word may also be read as a synopsis's command."""
    seen: set[int] = set()
    out = []
    for token in found:
        if token.kind is Kind.COMMAND and token.start in seen:
            continue
        seen.add(token.start)
        out.append(token)
    return out


#: A brace around a hyphenated name: no format's argument (a name of str.format, ICU, C#, RFC 6570 holds no
#: hyphen), but what a usage line calls an argument, which translators translate.
_HYPHENATED_NAME = re.compile(r"\{[^\W\d_]\w*(?:-\w+)+\}")
_GROUPING_FLAGS = re.compile(r"\A(%(?:\d+\$)?)([-+ #0'I]*)")


def _tokens_of(match: re.Match[str], group: str, offset: int, closers: set[str], part: str) -> list[Token]:
    """The token(s) one match stands for (a tag brings the code of its text attributes along)."""
    text, start = match.group(), match.start() + offset
    if group == "tag":
        return _tag(match, offset, part)
    if group == "url":
        text = text.rstrip(_URL_TAIL)
    elif group == "bbcode":
        name = re.match(r"\[/?([^\W\d_]\w*)", text)
        named = name.group(1).lower() if name else ""
        known = name is not None and name.group(1) in BBCODE_NAMES  # lowercase: [SIZE] is a metavariable
        if not (text.startswith("[/") or known or named in closers):
            return []  # a bracketed word ([here](url), [default], a usage line's [pat=rep]) is prose
        return [Token(Kind.BBCODE, text, text, start), *_code_content(part, match, named, offset, bbcode=True)]
    elif group == "identifier" and _two_sentences(text):
        return []
    elif group == "brace" and _HYPHENATED_NAME.fullmatch(text):
        return []  # sed's {script-only-if-no-other-script}: a usage line's metavariable (34 of 37 translate it)
    elif group == "synopsis" and _NOUNISH.search(text):
        return []  # resize2fs' "... device [-b|-s|new_size]": an argument's name before options
    elif group == "fortran":
        words = text.split()
        while len(words) > 1 and not words[-1].isupper():
            words.pop()  # the directive's words are capitals; what follows is prose
        text = " ".join(words)
    kind, key = _KIND[group], _SPACES.sub("", text) if group in _SPACELESS else text
    if group == "pri":  # the locale's digit grouping is the translator's: %'<PRIuMAX> prints the same number
        key = _GROUPING_FLAGS.sub(lambda m: m.group(1) + m.group(2).replace("'", "").replace("I", ""), key)
    glued = match.end() < len(part) and part[match.end()].isalpha() and text not in ("%<", "%>", "%'")
    if kind is Kind.PRINTF and glued:
        text, key = text + part[match.end()], key + "+"  # a letter glued on (%Y -> %Yą) is damage a key shows
    return [Token(kind, text, key, start)]


#: Words that start an English sentence and name no module or class: ``content.They should`` is two
#: sentences missing a space (plone), ``vim.Buffer`` a name.
_SENTENCE_STARTS = frozenset(
    "The They This These Those That There Then It Its We You Your Our He She If In On At As For To A An "
    "Please Note See Use When While Each All Any No Not Only Otherwise Also But And Or So Some".split()
)


def _two_sentences(text: str) -> bool:
    """Whether a dotted name is two sentences without a space between them: ``content.They``."""
    first, dot, second = text.partition(".")
    return bool(dot) and "." not in second and second in _SENTENCE_STARTS and first.isalpha() and first.islower()


def _tag(match: re.Match[str], offset: int, part: str) -> list[Token]:
    """A tag's token (name and code attributes; text attribute values elided) and the code inside those values."""
    name = match.group("name")
    pieces = ["<", "/" if match.group("close") else "", name]
    inner: list[Token] = []
    attrs_at = match.start("attrs") + offset
    for attribute in _ATTRIBUTE.finditer(match.group("attrs") or ""):
        attr, value = attribute.group(1), attribute.group(2)
        if value is None:
            pieces.append(f" {attr}")
            continue
        bare = value[1:-1] if value[:1] in "\"'" else value
        if attr.lower() in TEXT_ATTRIBUTES:
            pieces.append(f' {attr}="…"')
            at = attrs_at + attribute.start(2) + (1 if value[:1] in "\"'" else 0)
            inner.extend(Token(t.kind, t.text, t.key, t.start + at) for t in tokens(bare))
        else:
            pieces.append(f' {attr}="{bare}"')
    pieces.append("/>" if match.group("selfclose") else ">")
    lone = not (match.group("close") or match.group("selfclose") or match.group("attrs").strip())
    partner = re.search(rf"</{re.escape(name)}\s*>", part, re.IGNORECASE)
    if partner is None and not (match.group("close") or match.group("selfclose")):
        attrs = match.group("attrs")
        if attrs.strip() and "=" not in attrs:
            return []  # words in angle brackets: <missing product>, <no current directory>
        if lone and not part.replace(match.group(), "").strip(" .,:;!?()\n\t\"'"):
            return []  # the whole text is a value shown as it is: <unspecified>, <Empty>
    kind = Kind.METAVAR if lone and name.lower() not in LONE_ELEMENTS and partner is None else Kind.MARKUP
    found = [Token(kind, match.group(), "".join(pieces), match.start() + offset), *inner]
    if not match.group("close") and name.lower() in CODE_ELEMENTS:
        found.extend(_code_content(part, match, name.lower(), offset, bbcode=False))
    return found


def _code_content(part: str, match: re.Match[str], name: str, offset: int, bbcode: bool) -> list[Token]:
    """The content of ``<code>``/``[kbd]``-like elements up to their closing tag, as one token."""
    if name not in CODE_ELEMENTS or match.group().startswith(("</", "[/")):
        return []
    closing = re.compile(rf"\[/{name}\]" if bbcode else rf"</{name}\s*>", re.IGNORECASE)
    end = closing.search(part, match.end())
    content = part[match.end() : end.start()].strip() if end else ""
    if not content or "<" in content or "[" in content:
        return []  # nested markup: its own tokens say enough
    return [Token(Kind.QUOTED_CODE, content, f"{name}:{content}", match.end() + offset)]


_KIND = {
    "comment": Kind.MARKUP,
    "pri": Kind.PRINTF,
    "gcc_quote": Kind.QUOTED_CODE,
    "template": Kind.TEMPLATE,
    "url": Kind.URL,
    "email": Kind.EMAIL,
    "at_code": Kind.AT_CODE,
    "icu_head": Kind.ICU,
    "brace": Kind.BRACE,
    "percent_name": Kind.PERCENT_NAME,
    "printf": Kind.PRINTF,
    "lisp": Kind.LISP,
    "fortran": Kind.VARIABLE,
    "build_macro": Kind.VARIABLE,
    "variable": Kind.VARIABLE,
    "wiki": Kind.BBCODE,
    "ex_command": Kind.COMMAND,
    "protocol": Kind.COMMAND,
    "synopsis": Kind.COMMAND,
    "entity": Kind.ENTITY,
    "backquote": Kind.QUOTED_CODE,
    "path": Kind.PATH,
    "option": Kind.OPTION,
    "identifier": Kind.IDENTIFIER,
}
#: Kinds whose inner spacing no program reads: ``{ limit }`` is ``{limit}``, ``{{ v }}`` is ``{{v}}``.
_SPACELESS = frozenset({"template", "brace", "icu_head", "fortran"})


def is_count(token: Token) -> bool:
    """Whether ``token`` is an argument a plural form may leave out (``%d``, ``%n``, ``{count}``, ``#``)."""
    return token.kind in (Kind.PRINTF, Kind.BRACE) or (token.kind is Kind.ICU and token.key == "#")
