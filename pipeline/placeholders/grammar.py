"""The placeholder kinds detected without a format flag, written once, as commented verbose regexes.

A format flag names a grammar of :mod:`pipeline.placeholders.grammars` (ported from GNU gettext);
without one, protection (:mod:`~pipeline.placeholders.protect`) looks only for the forms that are
safe to detect, joined into one alternation: these. The plural planner asks whether a placeholder
is an integer count (:data:`INTEGER_PRINTF`); the ICU parser (:mod:`~pipeline.placeholders.icu`)
names arguments as the safe brace kind does (:data:`ARGUMENT_NAME`). Every pattern is a ``(?x)``
string: whitespace outside character classes is ignored and ``#`` starts a comment, so a literal
space or ``#`` lives in a class.
"""

from __future__ import annotations

import re

from pipeline.patterns import lazy_regex

__all__ = [
    "ARGUMENT_NAME",
    "AT_ABBREVIATION",
    "AT_NAME",
    "BACKQUOTED",
    "BRACE_SET",
    "BRACKET_MARKUP",
    "BUILD_MACRO",
    "CODE_ELEMENT",
    "CODE_IDENTIFIER",
    "COMMAND_SYNOPSIS",
    "ESCAPE",
    "ESCAPED_BRACE",
    "EX_COMMAND",
    "FILE_GLOB",
    "GLUED_FILE_NAME",
    "IDENTIFIER",
    "INI_SECTION",
    "QUOTED_BRACES",
    "DOLLAR_VARIABLE",
    "FORTRAN_DIRECTIVE",
    "GCC_QUOTED",
    "ICU_ARGUMENT",
    "INTEGER_PRINTF",
    "MACRO_PERCENT",
    "OPTION",
    "PATH",
    "PERCENT_DIRECTIVE",
    "PERCENT_NAMED",
    "PROTOCOL_COMMAND",
    "PROTOCOL_VERBS",
    "QT_COUNT",
    "QT_NUMBERED",
    "RUBY_NAMED",
    "SAFE_BRACE",
    "SAFE_PRINTF",
    "TEMPLATE",
    "TEMPLATE_TAG",
    "TEMPLATE_VARIABLE",
    "URL",
    "VIM_TYPED",
    "WIKI",
    "WIKI_LINK",
]

# --- Shared parts of a printf conversion ---------------------------------------------------------

#: printf forms safe to detect without a format flag (where "100%" is just text): Apple's %@ and
#: the integer lengths (%lld, %zu) included, so that Xcode-style catalogs are protected too, and
#: Apple's stringsdict variables whole (%#@files@: the name is the key of a plural rule).
SAFE_PRINTF = r"""
    %
    (?:[0-9]+\$)?               # argument position
    (?:\#@[A-Za-z_][A-Za-z0-9_]*@   # a stringsdict variable, %#@files@ or %1$#@d_files@: one piece
    |
    (?:\([A-Za-z_]\w*\))?       # Python mapping key
    [-+#0]?                     # one flag at most, never a space: "100% discount" is text
    [0-9]*                      # width
    (?:\.[0-9]+)?               # precision
    (?:\[[1-9][0-9]?\])?         # Go's explicit argument index: %[2]d, %6.2[1]f
    (?:(?:ll|l|z)[diuxX]        # an integer with its length
      |[sdifuxXeEgGc%@]))       # or a plain conversion
"""

#: An argument named by an identifier or a number: the safe brace kind and ICU arguments share it.
ARGUMENT_NAME = r"""(?: [A-Za-z_][A-Za-z0-9_]* | [0-9]+ )"""

#: Brace fields safe to detect without a format flag: {}, {name}, {0}, and str.format's {room.name},
#: {id:2}, {value!r:>10}; never a space inside, so "{see below}" stays text, and an ASCII name, so
#: that "{Aufzählung}" (a translated "<enumerator>") is text too.
SAFE_BRACE = (
    r"""
    \{\}                                # automatic numbering
    | \{"""
    + r"""(?: [A-Za-z_][A-Za-z0-9_]* | [0-9]+ )"""
    + r"""
      (?:\.[A-Za-z_][A-Za-z0-9_]*|\[[A-Za-z0-9_]+\])*   # attribute and index: {room.name}, {a[0]}
      (?:![rsa])?                       # conversion
      (?::[^{}\s]*)?                    # format spec
    \}"""
)

#: Ruby named references (``ruby-format``): %{name}.
RUBY_NAMED = r"""%\{[A-Za-z_][\w.]*\}"""

#: Symfony / Laravel parameters: %name%, and a name in capitals alone (%MIN). Listed before the printf
#: kinds by protect, or %size% would be read as %s followed by "ize%". An ASCII name of two characters or
#: more that ends in a letter, digit or underscore: strftime's "%H.%M" and "%b%e" hold none. Not two printf
#: conversions around a word (phpMyAdmin's "%sdocumentation%s for", "%sCreate%s a database"): a name that
#: starts with a conversion letter, closed by a "%" whose conversion letter ends a word, is read as printf
#: (Symfony's "%link_start%click here" is a name).
PERCENT_NAMED = r"""
    %
    (?![diouxXeEfFgGcs][A-Za-z0-9_.-]*[A-Za-z0-9_]%[diouxXeEfFgGcs](?![A-Za-z0-9_]))  # not %sword%s
    [A-Za-z_][A-Za-z0-9_.-]*[A-Za-z0-9_]%
    | (?<![\w%])%[A-Z][A-Z0-9_]+[A-Z0-9](?![\w%])   # or a name in capitals without the closing "%", three
                                # characters or more (phpMyAdmin's "%MIN min. %SEC sec."; strftime's "%EC"
                                # and "%OH" have two), not after a number ("100%ABC")
"""

# --- Markup and variables of unflagged strings ----------------------------------------------------

#: Template variables and tags: {{ name }}, {% tag %}. Not inside a third brace: ``{{{ x }}}`` is wiki
#: markup, text to gettext and to the reader.
TEMPLATE_VARIABLE = r"""
    (?<!\{)
    (?!(?<=")\{\{"|(?<=')\{\{')     # not a quoted "{{" (pretix: "double them as "{{" and "}}"")
    \{\{(?!\{)[^{}]*\}\}(?!\})    # {{ variable }}, no brace inside or around
"""
TEMPLATE_TAG = r"""
    \{%.*?%\}                         # {% tag %}: up to the first "%}", whatever it holds (Django reads so)
"""
TEMPLATE = "|".join((TEMPLATE_VARIABLE, TEMPLATE_TAG))

#: BBCode-style markup (phpMyAdmin's ``[em]``, ``[a@url]...[/a]``, ``[doc@page]``, a forum's ``[kbd]``):
#: any name; :mod:`~pipeline.placeholders.markup` decides which are markup ("[x]", "[OPTIONS]" are text).
BRACKET_MARKUP = r"""
    \[/?
    [A-Za-z][A-Za-z0-9]*              # the name
    (?:[@=][^\]\s]*)?                 # [a@https://...], [doc@faq-1], [color=red]
    \]
"""

#: Variables: $name, ${name}, make's and logging's $(name) (with the conversion of a logging format,
#: ``$(module)s``), and PHP's array elements $cfg['Servers'] (not "$5", a price).
DOLLAR_VARIABLE = r"""
    \$\{[A-Za-z_][A-Za-z0-9_]*\}       # ${name}
    | \$\{[^{}\n]*\}                    # ${python:round(size/1024, 1)}: an expression (TAL, JavaScript)
    | \$\([A-Za-z_][A-Za-z0-9_.-]*\)    # $(name), $(CC)
      (?:[sdifr](?![A-Za-z]))?          #   and a logging format's conversion: $(module)s
    | \$[A-Za-z_][A-Za-z0-9_]*          # $name, ASCII: "$TMPDIR를" is $TMPDIR and a Korean particle,
      (?![\u00c0-\u024f])               #   but "$línia" is a word, not $l
      (?:\[(?:'[^'\n]*'|"[^"\n]*"|\w+)\])*   # ['key'], [0]
"""

# --- Code of other programs, protected whatever the entry's format flag says ---------------------

#: A directive of some format a ``%`` starts that the entry's flag does not name (or no flag): strftime's
#: conversions (``%Y-%m-%d``, ``%-d``, ``%Ey``), GCC's diagnostics (``%qs``, ``%r``...``%R``, ``%wd``,
#: ``%m``, ``%'``), e2fsck's expansions (``%Iu``, ``%Dn``). A percent sign before a space, a digit or
#: punctuation stays text ("100% sure").
PERCENT_DIRECTIVE = r"""
    %[ID][A-Za-z](?![A-Za-z])   # e2fsck's two-letter expansions of an inode's and an entry's fields:
                                # %Iu, %Is, %Di, %Dn, %Dt (its unflagged problem.c messages)
    | %
    (?:[0-9]+\$)?               # argument position
    [-_0^#+]?                   # one flag: glibc's padding and case flags, printf's
    [0-9]*                      # width
    (?:\.[0-9]+)?               # precision
    (?:[EO](?=[A-Za-z])         # glibc's alternative era and digits: %Ey, %Od
      |q?[+#]?(?:ll|l|w|h|z|j|t|L|H)?   # GCC's quoting (q), tree flags, sizes; stat's %Hd %Ld
    )
    (?:\[[1-9][0-9]?\])?         # Go's explicit argument index: %[2]d, %6.2[1]f
    [A-Za-z@](?![A-Za-z])       # the conversion letter, ending the word: "50%less" is text
    | %[<>']                    # GCC's quotes and apostrophe, when not around code (see GCC_QUOTED)
    | %\([^()\s]{1,40}\)[A-Za-z] # a mapping key with any conversion: bash's printf %(fmt)T, Python's %(x)r
"""

#: Qt's and KDE's numbered arguments (%1 .. %99, %L1 for a localised number) without their flag, and
#: the ``%0`` of programs that count from 0 (xfce4-panel's clock: "%0 o'clock", "twenty to %1"): a ``%``
#: and a digit is no text a reader writes ("100%" and "0 %" are text; "%05d" is printf's). Not before a
#: precision or a capital that ends the word: stat's "%10.10A" and "%8U" are its directives, read whole.
QT_NUMBERED = r"""%L?(?:0|[1-9][0-9]?)(?![0-9]|\.[0-9]|[A-Z](?![A-Za-z]))"""

#: Qt's plural count: ``%n``, and ``%Ln`` for the count written with the locale's digits.
QT_COUNT = r"""%L?n(?![A-Za-z])"""

#: Code GCC quotes in its diagnostics, quotes and all: ``%<constexpr%>``, ``%<auto{x}%>``.
GCC_QUOTED = r"""%<(?:(?!%>)[^\n])*%>"""

#: Code between backquotes (Markdown, reStructuredText): ```make install```, and GNU's old quotes
#: ```help name'``, ```info bash'``, ```%s --help'``: what GNU quotes so is a command, a file or a name.
BACKQUOTED = r"""
    `{1,2}[^`'\n]+`{1,2}        # `code`, ``code``: no apostrophe inside, or GNU's quotes would pair wrongly
    | `[^`'\n]{1,80}'           # `configure', `help name'
"""

#: A regular expression quoted in a sentence, without its quotes (a translator may write his language's):
#: mailman's ``'^.*@example\.com'``, coreutils' ``'^c'``, translated ``« ^c »``, ``„^c“``, ``”^c”``. One word of two
#: characters or more that an escaped character, a repeated dot, or a caret starting it or a dollar ending it
#: marks as a pattern ("'^'" alone is a character named, "'don't'" a word, "'%.*s'" a directive).
QUOTED_REGEX = r"""
    (?:(?<=['"‘’‚“”„«»›‹])(?<![\w'"‘’‚“”„«»›‹]['"‘’‚“”„«»›‹])   # after a quote that starts a word
      |(?<=[«»‹›][ \u00a0\u202f]))                       # or a guillemet and its space: French « ^c »
    (?=\^|[^'"‘’‚“”„«»›‹\s%]*(?:\\[.\\dwsb()\[\]{}|*+?^$]|\.[*+?]|\$(?:['"‘’“”«»›‹]|[ \u00a0\u202f][«»‹›])))
    [^'"‘’‚“”„«»›‹\s%]{2,}    # no directive: '%.*s' is the format's (its precision, not a pattern)
    (?=(?:['"‘’“”«»›‹]|[ \u00a0\u202f][«»‹›])(?!\w))    # before a quote that ends it
"""
#: The quotes :data:`QUOTED_REGEX` stands between: a text without any holds none.
QUOTED_REGEX_QUOTES = "'\"‘’‚“”„«»›‹"

#: An element whose content is code or keyboard input, content and all: HTML's ``<code>make</code>``,
#: ``<kbd>``, ``<samp>``, and BBCode's ``[code]main[/code]``, ``[kbd]config[/kbd]`` (no markup inside).
CODE_ELEMENT = r"""
    <(?P<html_code>code|kbd|samp)(?:\s[^<>]*)?>[^<>]*</(?P=html_code)\s*>
    | \[(?P<bb_code>code|kbd)\][^\[\]]*\[/(?P=bb_code)\]
"""

#: A command-line option: ``--scale``, ``-ffixed-line-length``, ``-O2``, ``--color=auto``. It starts a
#: word (after a space, an opening bracket or a quote), so "e-mail" and "self-contained" stay text.
OPTION = r"""
    -(?<![^\s(\[{"'=,`|*]-)      # a dash first in the text or after a space, an opening bracket or quote, a
                                # usage line's |, AsciiDoc's *: not "Demo</b>-Anwendung" (written from the dash,
                                # which the regex engine skips ahead to)
    (?:-?[A-Za-z]               # -x, --name, -ffixed
      |-[0-9]+[A-Za-z]          #   and a long one that starts with digits: --32bit, --4gb ("-1" is a number)
    )[A-Za-z0-9_]*
    (?:-[A-Za-z0-9_]+)*(?:-\*)? #   -line-length; a family of them: util-linux's --table-*
    (?:=(?:[A-Za-z0-9_.:/-]+    # =value, or none where the option is named: gcc's "the -mcpu= option"
      |\{[A-Za-z0-9_-]+(?:[,|][A-Za-z0-9_-]+)+\}   # or the values it takes, which a program reads:
      |\[[A-Za-z0-9_-]+(?:[,|][A-Za-z0-9_-]+)+\]   #   --tree={parent|owner}, -msdata=[none,data,sysv]
      |(?=[\s"')\],;:*]|\Z)
    ))?
    (?:/--?[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*)*   # its other spellings after a slash: -g/--group,
                                # --uid/--gid (util-linux, shadow); "+/-sectors" starts no option
"""

#: Shell brace expansion of names a program reads: util-linux's ``{LABEL,UUID,PARTUUID,PARTLABEL}=<value>``,
#: ``--{raw,json,pairs}`` (the options --raw, --json, --pairs), ``+size{K,M,G,T,P}``: two names or more,
#: comma-separated, no space ("{see below, or above}" is text), with the option prefix that starts a word.
BRACE_SET = r"""
    (?:(?:(?<=[\s(\["'=,`|])|^)--?(?:[A-Za-z][A-Za-z0-9]*-)?(?=\{))?   # the options' prefix: --{raw,json},
                                                          # --sched-{runtime,deadline}
    \{[A-Za-z0-9_-]+(?:,[A-Za-z0-9_-]+)+\}   # {LABEL,UUID}, {K,M,G}
"""

#: A path: ``/usr/local/bin``, ``~/.config``, ``./configure``, ``../po``, ``C:\Windows``, and a relative
#: one whose last part names a file (``flatpages/default.html``, ``META-INF/container.xml``,
#: ``include/defines.inc.php``: every dot of the name, or its last part is sent as a word). An absolute
#: one starts a word, and a relative one needs its file's extension, so "and/or" and "km/h" stay text.
#: Its alternatives, in order; the scan searches each where the text holds what it needs (the first and
#: third a slash, the second a dot, the last a colon and a backslash).
PATH_ROOTED = r"""
    (?:~(?<![\w/.~:\\)\]]~)/     # home, here, up, or the root, not inside a word, a URL or another path,
      |\.(?<![\w/.~:\\)\]]\.)\.?/  #   nor after "term(s)" (each written from its first character, which
      |/(?<![\w/.~:\\)\]]/)        #   the regex engine skips ahead to)
    )(?!-)                      # not "+/-sectors" (util-linux's "plus or minus")
    (?:[A-Za-z0-9_.+@-]|\([\w|]+\))+   # the first component; bash's /dev/(tcp|udp) alternatives too
    (?:/(?:[A-Za-z0-9_.+@-]|\([\w|]+\))*)*   # the others; a trailing slash too
"""
DOTFILE = r"""
    \.(?<![\w.~:\\-]\.)          # a dot starting a word or after a folder (written from the dot)
    [a-z][a-z0-9_.-]*[a-z0-9]   # a dotfile: .netrc, OUTPUT_DIR/.doctrees
                                # (".NET" is a name)
"""
PATH_RELATIVE = r"""
    (?<![\w/.~:\\-])
    [A-Za-z0-9_.+-]+            # a relative path's first folder
    (?:[/:][A-Za-z0-9_.+-]+)*   # more folders, or the parts of a name a colon separates
    [/:][A-Za-z0-9_+-]+         # the file's name (GNU Mailman's template list:admin:notice:disable.txt)
    (?:\.[A-Za-z0-9_+-]+)*      #   and its inner dotted parts: defines.inc.php, jquery.min.js, a.tar.gz
    \.[A-Za-z0-9]{1,8}\b        # its extension
"""
WINDOWS_PATH = r"""\b[A-Za-z]:\\[^\s"'<>]+   # a Windows path
"""
PATH = "|".join((PATH_ROOTED, DOTFILE, PATH_RELATIVE, WINDOWS_PATH))

#: A name a program reads, whose shape no word of prose has: ``snake_case`` and ``MAX_ROWS`` (human
#: translators keep 92 % of the capitals-with-underscore names of 24 projects' catalogs as they are;
#: coreutils translates its own, a reviewer may), ``__all__`` (a GTK label's mnemonic, ``_Zoom``,
#: ``E_xit``, is a word to translate), dotted names (``conf.py``,
#: ``org.gnome.Shell``, ``php.ini``; parts of two characters or more, so "e.g." is text),
#: ``Dpkg::Shlibs``, a call ``add_node()``, and camel case (``phpMyAdmin``, ``KPluginFactory``: a small
#: letter followed by a capital; ``OAuth``, ``ETag``: capitals followed by two small letters, so a
#: plural such as "URLs" is text).
IDENTIFIER = r"""
    \b[A-Za-z][A-Za-z0-9]*::[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*   # Perl and C++ names
    | \b[A-Za-z_][A-Za-z0-9_]*\(\)                        # a call: add_node()
    | \b(?=\w*_)                                          # with an underscore: snake_case, __all__,
      (?!_[A-Za-z][A-Za-z0-9]*\b|[A-Z][a-z]*_[a-z]+\b)    #   not a GTK mnemonic: _Zoom, _as, E_xit, Pre_view
      _*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)*_*\b
    | \b(?![A-Za-z][a-z]{3,}\.[A-Z][a-z]+\b(?!\.[A-Za-z]))  # not two sentences without a space: "done.Next"
                                                          #   (vim.Buffer, os.Path: a short or mixed-case name)
      [A-Za-z_][A-Za-z0-9_-]+(?:\.[A-Za-z_][A-Za-z0-9_-]+)+\b(?!\.[A-Za-z0-9])   # dotted: conf.py
    | \b[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*\b              # camel case: phpMyAdmin, KPluginFactory
    | \b[A-Z]{2,}[a-z]{2,}[A-Za-z0-9]*\b                  # capitals, then small letters: OAuth, ETag
"""

#: A URL: one with any scheme, and a scheme alone as help texts name it (``https://example.org/x``,
#: ``smb://server/resource/file.txt``, ``trash:///``, ``file:/home/konqi``, ``http://``, ``file://``); and
#: a query, with the end of the path it is glued to, where directives build the rest of the link
#: (roundup's ``%(url)suser?@template=forgotten&@action=passrst&otk=%(otk)s``) or a text shows it alone
#: (``?format=json``): its field names are the program's, its values what the program reads. Its
#: alternatives, in order; the scan searches the first where the text holds ``:/``, the second where it
#: holds ``?`` and ``=``.
URL_WITH_SCHEME = r"""
    \b[a-z][a-z0-9+.-]*[a-z0-9]  # the scheme, two characters or more (C:/ is a Windows path)
    :/{1,3}                     # file:/home, smb://, trash:///
    (?:[^\s<>"'`]*[^\s<>"'`.,;:!?)\]])?   # the rest, without the sentence's punctuation after it
"""
#: A query field's value: what the link holds up to a space, a quote or the next field; a template's field,
#: variable or tag in it whole (``?q={{ query }}``, ``?page={% url "home" %}``: taken up to their first space,
#: the rest of them was sent to translate).
_QUERY_VALUE = r"""(?:[^\s<>"'`&{}]|\{[\w.]*\}|\{\{[^{}]*\}\}|\{%[^{}]*?%\})*"""
URL_QUERY = (
    r"""
    [A-Za-z0-9_.~/-]{0,255}+    # the path's last part, glued to it (user?@template=): up to 255 characters
                                # of it, or each character of a long run reads the run to its end
    \?[\w@.\[\]-]+=             # the first field's name: ?@action=, ?format=, ?id[]=
    """
    + _QUERY_VALUE
    + r"""                      # its value
    (?:&(?:amp;)?[\w@.\[\]-]+="""
    + _QUERY_VALUE
    + r""")*                    # the other fields (an entity such as &lt; ends it)
    (?<![.,;:!?)\]])             # without the sentence's punctuation after it
"""
)
#: A wiki link's target in its brackets (Trac's ``[wiki:TracEnvironment#Strings string]``, ``[ticket:12]``,
#: ``[wiki:"%(name)s"]``, an InterWiki prefix's): the page a program opens; the label after it is text.
WIKI_LINK = r"""
    (?<=\[)(?<![\w\]]\[)         # just after a bracket that follows no word or bracket (a[i:j] is an index)
    [A-Za-z][A-Za-z0-9+.-]*:    # the prefix: wiki:, ticket:, an InterWiki name
    (?:                         # (no part reads past a "[": each one would read a long line to its end)
      (?:"[^"\n\[\]]*"|[^\s\[\]"]+)  # the target, quoted or up to a space ("[Note: this]" has none)
      (?=[ \t][^\[\]\n]*\]|\])      # in a bracket that closes on its line, maybe after a label
      | "[^"\n\[\]]*\Z             # or a quote a directive ends, where the text between them ends
    )
"""
URL = "|".join((URL_WITH_SCHEME, URL_QUERY, WIKI_LINK))
#: Where :data:`URL_QUERY` can be: a question mark before a field's name and its ``=``.
URL_QUERY_HINT = r"\?[\w@.\[\]-]+="

#: A file name glued to a directive or a brace field: ``"%s_%s.spl"``, ``%s_ascii.spl``, ``{name}.txt``:
#: the program builds the name; a word of it translated names another file.
GLUED_FILE_NAME = r"""
    (?:(?<=%[A-Za-z])|(?<=\}))   # right after %s or {name}
    [A-Za-z0-9_-]*\.[A-Za-z][A-Za-z0-9]{0,7}\b   # the rest of the name and its extension
"""

#: A backslash escape of a pattern or a string, with its braces: glib's PCRE messages ``\C``, ``\p``,
#: ``\N{name}``, ``\x{...}``, tr's ``\a`` ``\t``. One letter after a backslash that starts a word
#: ("Folder\Sub" is a Windows path's, ``C:\Windows`` a path).
ESCAPE = r"""(?<![\w\\])\\[A-Za-z](?:\{[^{}\s]{1,60}\}|(?![A-Za-z]))"""

#: A brace group a backslash starts: KDE web shortcuts' query references ``\{@}``, ``\{0}``,
#: ``\{name1,name2,...,"string"}`` (kio), read by the program whatever they hold.
ESCAPED_BRACE = r"""\\\{[^{}\s]{1,60}\}"""

#: Braces quoted alone, a syntax the text shows (pretix: 'to use literal "{" or "}", you need to double them
#: as "{{" and "}}"'): what the user types, no template variable between them.
QUOTED_BRACES = r"""(?<=["'])(?:\{\{?|\}\}?)(?=["'])"""

#: File patterns of a file dialog's filter: ``*.json``, ``*.*``, vim's ``*.vim;_vimrc``, ``*.c;*.h``.
FILE_GLOB = r"""
    (?<![\w*])\*\.(?:\*|[A-Za-z0-9_]+)     # *.vim, *.*
    (?:;(?:\*\.(?:\*|[A-Za-z0-9_]+)|[A-Za-z0-9_.-]+))*   # ;*.h, ;_vimrc
"""

#: Vim's Ex commands: ``:qa!``, ``:help 'cm'`` (an option's name), ``:s\/sub/`` (a pattern), ``:recover``.
#: The colon starts a word: "E1270:" and "10:30" are text.
EX_COMMAND = r"""
    :(?<![^\s"'(\[]:)          # the colon, starting the text or after a space, a quote or a bracket (a
                                # literal first: the regex engine looks for the colon rather than try a
                                # lookbehind at every position)
    [a-z]{1,20}!?               # the command, maybe forced
    (?:\\?/\S*                  # its pattern: :s\/sub/
      |[ ]'[a-z]{1,20}'         # or the option it is about: :help 'cm'
    )?
    (?![\w:])
"""

#: What vim's intro tells a user to type, command, argument and key as one: ``:help iccf<Enter>``,
#: ``:set nocp<Enter>`` (the argument is a help topic or an option, never a word to translate).
VIM_TYPED = r"""(?<![\w:]):[a-z]{1,20}(?:[ ][\w-]+)?<(?:Enter|CR)>"""

#: Commands of the network protocols catalogs speak of (FTP, SMTP), which no English word spells:
#: ``'PBSZ 0'``, ``'PROT %c'``, ``CWD``. (``LIST``, ``SIZE``, ``TYPE`` are also words of usage lines.)
PROTOCOL_VERBS = r"""\b(?:CWD|CDUP|PWD|PASV|EPSV|EPRT|NLST|RETR|STOR|MDTM|SYST|PBSZ|PROT|EHLO|HELO|RCPT|STARTTLS)\b"""
PROTOCOL_COMMAND = (
    PROTOCOL_VERBS
    + r"""
    (?:[ ][0-9A-Z](?![\w]))?    # its argument, when one character: 'PBSZ 0', TYPE I
"""
)

#: What makes xgettext's ``<PRIuMAX>`` after it a directive: ``%``, with a position, flags, width and
#: precision as msgfmt reads them (``%'<PRIuMAX>``, ``%3$<PRIu64>``, ``%-10<PRId64>``). Text, as the ``%``
#: alone is: the name in angle brackets is the placeholder, and what stands before it is judged by
#: :mod:`~pipeline.placeholders.glue`.
MACRO_PERCENT = lazy_regex(r"%(?:[1-9][0-9]*\$)?[-+ #0'I]*(?:[0-9]+|\*)?(?:\.[0-9]*)?\Z")

#: An Autoconf/Make substitution the build replaces with a program's name: ``@GPG@``, ``@PACKAGE_NAME@``
#: (gnupg's ``Usage: @GPG@-connect-agent``). Capitals only: ``user@host`` and ``@media`` are no macro; two at
#: least: e2fsck's one-letter ``@B`` ``@C`` are its own codes.
BUILD_MACRO = r"""(?<![\w@])@[A-Z][A-Z0-9_]+@(?!@)"""

#: e2fsck's abbreviations, which it expands at run time in the translated message too (``@b`` "block",
#: ``@i`` "inode", ``@S`` "superblock", ``@bs`` "blocks", ``@b_size`` the field "block_size"): an ``@`` and
#: one ASCII letter, maybe a plural ``s`` or a field name's tail, as a word of its own. Not inside a word
#: (``user@host``), not before a letter (``@media``, a handle), not after ``%`` (Apple's ``%@``) or another
#: ``@`` (``@GPG@``).
AT_ABBREVIATION = r"""
    (?<![\w@%.+-])               # starting a word: not an address, a macro's end or a directive
    @[A-Za-z]                   # the code
    (?:s|_[A-Za-z0-9_]+)?       # the plural s, or the rest of a field's name: @b_size
    (?![\w@])                   # ending the word: "@media", "@GPG@" are not codes
"""

#: A name an ``@`` starts: roundup's form fields (``@action``, ``@template``, which its forms submit), Drupal's
#: ``@count``, CSS's ``@media``. Three letters or digits at least after the ``@`` (e2fsck's ``@b`` and ``@bs`` are
#: :data:`AT_ABBREVIATION`); not inside an address (``user@host``) nor after a ``%`` (Apple's ``%@``).
AT_NAME = r"""
    (?<![\w@%.+-])              # starting a word
    @[a-z][a-z0-9]{2,}(?:_[a-z0-9]+)*
    (?![\w@(]|\.\w)             # ending it: not a call's name (@selector()), nor a domain's (*@gmail.com)
"""

#: The command a usage synopsis names: ``trap [-lp] [[arg] signal_spec ...]``, ``fc [-e ename] ... or fc -s
#: [pat=rep]``, ``logout [n]``: a lowercase name before its options (wherever: a translation's "или fc -s"
#: must read as its source's "or fc -s"), or starting the text before bracketed arguments only.
COMMAND_SYNOPSIS = r"""
    (?<![\w\[-])                  # the command's name, two letters or more ("x [y [z]]" is text),
    (?!(?:or|and|the|to|of|for|with|use|see|try|run|then|also)\b)  # no word of a sentence ("or [-q]")
    [a-z][a-z0-9_-]+
    (?=[ ]+(?:\[-                # its options: a bracket of options (trap [-lp]),
      |-[A-Za-z][^\n]*\[          #   an option before a bracket (fc -s [pat=rep])
    ))
    | ^[a-z][a-z0-9_-]+           # or the text's first word,
    (?=[ ]+\[[\w.<> |-]+\](?:[ ]+\[[^\n]*)?\s*$)   # bracketed arguments up to the end (logout [n])
                                  # ("use [PATCH n/m] even with a single patch" is a sentence)
"""

#: An ini file's section, named as such: Trac's "the [trac] section", phpMyAdmin's "into [mysqld] section" (a
#: name of two characters or more; "formatted as [prefix]" is a metavariable).
INI_SECTION = r"""
    (?<![\w\]])\[[a-z][a-z0-9_.:-]*[a-z0-9]\]
    (?=[ ]section\b)            # before the word that says what it is
"""

#: An identifier holding ``$`` (VMS's ``SYS$LOGIN``, generated names such as ``foo$bar``).
CODE_IDENTIFIER = r"""
    (?<!\$)                    # not after a "$": that is a $name, which starts first ("$a$a": each one a
                                # search that ran on to the end, n of them cost n squared)
    \b[A-Za-z_][A-Za-z0-9_]*\$[A-Za-z0-9_$]*
"""

#: Fortran's OpenMP and OpenACC directives quoted in a compiler's messages: ``!$OMP DO``, ``!$ACC LOOP``,
#: with the clause words in capitals that follow.
FORTRAN_DIRECTIVE = r"""!\$(?i:omp|acc)\b(?:[ \t]+[A-Z][A-Z_]*\b)*"""

#: An ICU MessageFormat argument outside a plural or select message: ``{ limit }``,
#: ``{id, number}``, ``{when, date, short}``; its name and type are the program's.
ICU_ARGUMENT = r"""
    \{[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*           # the name, spaces around it allowed
    (?:,[ \t]*(?:number|date|time|spellout|ordinal|duration)[ \t]*   # a type
       (?:,[^{}\n]*(?:\{[^{}\n]*\}[^{}\n]*)*)?      # a style, maybe with braces: ::currency/EUR
    )?
    \}
"""

#: Wiki markup: links (``[[Page]]``, ``[[Page|`` before the label, ``]]`` after it), bold quotes (three
#: to five apostrophes; two are ICU's and Java's escaped apostrophe, "it''s"), MediaWiki's template
#: parameters (``{{{1}}}``) and Trac's and MoinMoin's code, inline or a block over lines, with a block
#: inside (``{{{#!ini`` … ``}}}``: its translators keep it as it is).
WIKI = r"""
    \[\[[^\[\]|\n]+(?:\]\]|\|)  # [[Page]] whole; [[Page| up to the label
    | \]\]                      # the end of a labelled link
    | '{3,5}                    # bold, bold italic
    | \{\{\{                      # {{{ code }}}: what it holds is
      (?:[^{}] | \{(?!\{\{) | \}(?!\}\})  # anything but a third brace's opener or closer,
        | \{\{\{ (?:[^{}] | \{(?!\{\{) | \}(?!\}\}))* \}\}\}  # or a block inside, whole
      )*
      \}\}\}
"""

# --- Compiled, for single-purpose matches ---------------------------------------------------------

#: A printf conversion of an integer (%d, %i, %u, with position, key, flags, width or length):
#: what can stand for the count of a plural.
INTEGER_PRINTF = lazy_regex(
    r"""
    %
    (?:[0-9]+\$)?               # argument position
    (?:\([^)]*\))?              # Python mapping key
    [-+ #0']*                   # flags
    [0-9]*                      # width
    (?:hh|h|ll|l|j|z|t)?        # integer length modifiers
    [diu]$
""",
    re.VERBOSE,
)
