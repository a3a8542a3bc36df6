"""The printf and brace placeholder grammars, written once, as commented verbose regexes.

Protection (:mod:`~pipeline.placeholders.protect`) joins the kind patterns into one alternation;
``pipeline check`` parses a conversion into its parts (:data:`PRINTF_CONVERSION`); the plural
planner asks whether a placeholder is an integer count (:data:`INTEGER_PRINTF`); the ICU parser
(:mod:`~pipeline.placeholders.icu`) names arguments as the safe brace kind does
(:data:`ARGUMENT_NAME`). Every pattern is a ``(?x)`` string: whitespace outside character
classes is ignored and ``#`` starts a comment, so a literal space or ``#`` lives in a class.
The kind patterns are strings, not compiled, because protect compiles the alternation of
the kinds a unit's format flags select.
"""

from __future__ import annotations

import re

__all__ = [
    "ARGUMENT_NAME",
    "BRACE",
    "C_PRINTF",
    "INTEGER_PRINTF",
    "PERCENT_NAMED",
    "PRINTF_CONVERSION",
    "PYTHON_PRINTF",
    "QT_ARG",
    "RUBY_NAMED",
    "SAFE_BRACE",
    "SAFE_PRINTF",
]

# --- Shared parts of a printf conversion ---------------------------------------------------------

#: A C/POSIX field width or precision: digits, ``*``, or ``*N$`` (the width taken from argument N).
_C_WIDTH = r"""(?: \*(?:\d+\$)? | \d+ )"""
#: C length modifiers, including the Microsoft ones (I64, I32, I) and q (BSD long long).
_C_LENGTH = r"""(?: hh | h | ll | l | L | q | j | z | Z | t | I64 | I32 | I )"""

# --- Kinds (pattern strings for protect's alternation) -------------------------------------------

#: Python %-formatting (``python-format``): %s, %(name)s, %-5.2f, %%.
PYTHON_PRINTF = r"""
    %
    (?:\([^)]*\))?              # mapping key: %(name)s
    [#0 +\-]*                   # conversion flags
    (?:\*|\d+)?                 # minimum width
    (?:\.(?:\*|\d+))?           # precision
    [hlL]?                      # length modifier (accepted and ignored by Python)
    [diouxXeEfFgGcrsab%]        # conversion; %% is a literal percent sign
"""

#: C printf (``c-format`` and the flags that share it): %d, %2$s, %-*.*f, %lld, %@, %<PRId64>.
C_PRINTF = (
    r"""
    %
    (?:\d+\$)?                  # argument position: %2$s
    [-+ #0']*                   # flags (' groups thousands)
    """
    + _C_WIDTH
    + r"""?      # minimum width
    (?:\."""
    + _C_WIDTH
    + r""")?  # precision
    """
    + _C_LENGTH
    + r"""?     # length modifier
    (?:[diouxXeEfFgGaAcCsSpn%@]  # conversion (%@ is an Objective-C object)
      |<PRI[a-zA-Z0-9]+>)       # or an <inttypes.h> macro, as xgettext writes it
"""
)

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

#: Qt and KDE arguments (``qt-format``, ``kde-format``): %1 to %99, %L1 for a localised number.
QT_ARG = r"""%L?\d{1,2}"""

#: Python str.format fields (``python-brace-format``): {}, {0}, {name.attr[0]!r:>10}, and the
#: escaped braces {{ and }}.
BRACE = r"""
    \{\{ | \}\}                 # escaped braces
    | \{
      [A-Za-z0-9_]*             # field name or index, or nothing for automatic numbering
      (?:[.\[][^{}\s]*)?        # attribute access or index: .attr, [0]
      (?:![rsa])?               # conversion
      (?::[^{}]*)?              # format spec
      \}
"""

#: An argument named by an identifier or a number: the safe brace kind and ICU arguments share it.
ARGUMENT_NAME = r"""(?: [A-Za-z_]\w* | \d+ )"""

#: Brace fields safe to detect without a format flag: {name} and {0}, nothing more.
SAFE_BRACE = r"""\{""" + ARGUMENT_NAME + r"""\}"""

#: Ruby named references (``ruby-format``): %{name}.
RUBY_NAMED = r"""%\{[A-Za-z_][\w.]*\}"""

#: Symfony / Laravel parameters: %name%. Listed before the printf kinds by protect, or %size%
#: would be read as %s followed by "ize%".
PERCENT_NAMED = r"""%[A-Za-z_][\w.-]*%"""

# --- Compiled, for single-purpose matches ---------------------------------------------------------

#: One printf conversion taken apart (``pipeline check`` compares them between source and translation).
PRINTF_CONVERSION = re.compile(
    r"""
    %
    (?:(?P<pos>\d+)\$           # argument position: %2$s
      |\((?P<name>[^)]*)\))?    # or Python mapping key: %(name)s
    [-+ #0']*                   # flags
    (?P<width>"""
    + _C_WIDTH
    + r""")?
    (?:\.(?P<precision>"""
    + _C_WIDTH
    + r"""))?
    (?P<length>"""
    + _C_LENGTH
    + r""")?
    (?P<conv>.+)$               # the rest: the conversion (checked by the caller)
""",
    re.VERBOSE,
)

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
