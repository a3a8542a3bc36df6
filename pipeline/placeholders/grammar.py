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

__all__ = [
    "ARGUMENT_NAME",
    "BRACKET_MARKUP",
    "DOLLAR_VARIABLE",
    "INTEGER_PRINTF",
    "PERCENT_NAMED",
    "RUBY_NAMED",
    "SAFE_BRACE",
    "SAFE_PRINTF",
    "TEMPLATE",
]

# --- Shared parts of a printf conversion ---------------------------------------------------------

#: printf forms safe to detect without a format flag (where "100%" is just text): Apple's %@ and
#: the integer lengths (%lld, %zu) included, so that Xcode-style catalogs are protected too.
SAFE_PRINTF = r"""
    %
    (?:\d+\$)?                  # argument position
    (?:\([A-Za-z_]\w*\))?       # Python mapping key
    [-+#0]?                     # one flag at most, never a space: "100% discount" is text
    \d*                         # width
    (?:\.\d+)?                  # precision
    (?:(?:ll|l|z)[diuxX]        # an integer with its length
      |[sdifuxXeEgGc%@])        # or a plain conversion
"""

#: An argument named by an identifier or a number: the safe brace kind and ICU arguments share it.
ARGUMENT_NAME = r"""(?: [A-Za-z_]\w* | \d+ )"""

#: Brace fields safe to detect without a format flag: {}, {name}, {0}, and str.format's {room.name},
#: {id:2}, {value!r:>10}; never a space inside, so "{see below}" stays text, and an ASCII name, so
#: that "{Aufzählung}" (a translated "<enumerator>") is text too.
SAFE_BRACE = (
    r"""
    \{\}                                # automatic numbering
    | \{"""
    + r"""(?: [A-Za-z_][A-Za-z0-9_]* | \d+ )"""
    + r"""
      (?:\.[A-Za-z_]\w*|\[\w+\])*       # attribute and index: {room.name}, {a[0]}
      (?:![rsa])?                       # conversion
      (?::[^{}\s]*)?                    # format spec
    \}"""
)

#: Ruby named references (``ruby-format``): %{name}.
RUBY_NAMED = r"""%\{[A-Za-z_][\w.]*\}"""

#: Symfony / Laravel parameters: %name%. Listed before the printf kinds by protect, or %size%
#: would be read as %s followed by "ize%". An ASCII name of two characters or more that ends in a
#: letter, digit or underscore: strftime's "%H.%M" and "%b%e" hold none.
PERCENT_NAMED = r"""%[A-Za-z_][A-Za-z0-9_.-]*[A-Za-z0-9_]%"""

# --- Markup and variables of unflagged strings ----------------------------------------------------

#: Template variables and tags: {{ name }}, {% tag %}. Not inside a third brace: ``{{{ x }}}`` is wiki
#: markup, text to gettext and to the reader.
TEMPLATE = r"""
    (?<!\{)\{\{(?!\{)[^{}]*\}\}(?!\})    # {{ variable }}, no brace inside or around
    | \{%.*?%\}                       # {% tag %}
"""

#: BBCode-style markup (phpMyAdmin's ``[em]``, ``[a@url]...[/a]``, ``[doc@page]``): the tag names
#: such catalogs use, so that "[x]" or "[default]" stay text.
BRACKET_MARKUP = r"""
    \[/?
    (?:a|b|i|u|s|em|strong|code|kbd|doc|br|sup|sub|dfn|tt|strike|url|img|quote|li|ul|ol|p|span|color|size)
    (?:[@=][^\]\s]*)?                 # [a@https://...], [doc@faq-1], [color=red]
    \]
"""

#: Variables: $name, ${name}, and PHP's array elements $cfg['Servers'] (not "$5", a price).
DOLLAR_VARIABLE = r"""
    \$\{[A-Za-z_][A-Za-z0-9_]*\}       # ${name}
    | \$[A-Za-z_][A-Za-z0-9_]*          # $name, ASCII: "$TMPDIR를" is $TMPDIR and a Korean particle,
      (?![\u00c0-\u024f])               #   but "$línia" is a word, not $l
      (?:\[(?:'[^'\n]*'|"[^"\n]*"|\w+)\])*   # ['key'], [0]
"""

# --- Compiled, for single-purpose matches ---------------------------------------------------------

#: A printf conversion of an integer (%d, %i, %u, with position, key, flags, width or length):
#: what can stand for the count of a plural.
INTEGER_PRINTF = re.compile(
    r"""
    %
    (?:\d+\$)?                  # argument position
    (?:\([^)]*\))?              # Python mapping key
    [-+ #0']*                   # flags
    \d*                         # width
    (?:hh|h|ll|l|j|z|t)?        # integer length modifiers
    [diu]$
""",
    re.VERBOSE,
)
