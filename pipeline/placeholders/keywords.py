"""Words a program reads that stand where prose could: a help text's topics, a synopsis's keyword names, a
mail template's header names. Each was found translated on a published catalog, where a user then types
a word the program does not know:

- the topics of an indented ``word -- description`` list (roundup's ``help``: ``commands  -- list
  commands``, ``initopts  -- init command options``; its German translators keep them), two lines or more;
- a keyword argument's name before its metavariable in a bracket (roundup's ``[rounds=<integer>]``: the
  ``<integer>`` is the translator's, ``rounds=`` the command line's);
- the header names of a mail template, two header lines in a row (Plone's ``From:``, ``To:``,
  ``Subject:``, which its German translators keep); one label alone (pretix's ``Subject: {subject}``,
  translated "Betreff:") is text for the reader.

(A form field's name, roundup's ``@action``, is a regex kind: :data:`pipeline.placeholders.grammar.AT_NAME`.)
"""

from __future__ import annotations

import re

from pipeline.patterns import lazy_regex

__all__ = ["KIND", "spans"]

#: The kind of these words' placeholders.
KIND = "program-word"

#: A topic of an indented help list: the line's one word, then a column's spaces and ``--`` before the description.
_HELP_TOPIC = lazy_regex(r"^[ \t]+([a-z][a-z0-9_-]*)[ \t]+--[ \t]+\S", re.MULTILINE)
#: A keyword argument's name with its ``=``, opening a bracket, before a metavariable: ``[rounds=<integer>]``.
_KEYWORD = lazy_regex(r"(?<=\[)[a-z][a-z0-9_-]*=(?=<[^<>\n]+>\])")
#: The header names of mail that a template writes, as RFC 5322 and MIME spell them.
_MAIL_HEADERS = (
    r"(?:From|To|Cc|Bcc|Reply-To|Subject|Date|Sender|Message-ID|In-Reply-To|References|Return-Path"
    r"|Content-Type|Content-Transfer-Encoding|MIME-Version|Precedence|X-[A-Za-z0-9-]+)"
)
#: Two header lines or more in a row, each a name, its colon and a value.
_MAIL_BLOCK = lazy_regex(rf"^{_MAIL_HEADERS}:[ \t]+\S[^\n]*(?:\n{_MAIL_HEADERS}:[ \t]+\S[^\n]*)+", re.MULTILINE)
_MAIL_NAME = lazy_regex(rf"^{_MAIL_HEADERS}:", re.MULTILINE)


def spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every word of ``text`` a program reads as it is (see the module's docstring), in order."""
    found: list[tuple[int, int]] = []
    if "--" in text and "\n" in text:
        topics = [m.span(1) for m in _HELP_TOPIC().finditer(text)]
        if len(topics) > 1:
            found += topics
    if "=<" in text:
        found += [m.span() for m in _KEYWORD().finditer(text)]
    if ":" in text and "\n" in text:
        for block in _MAIL_BLOCK().finditer(text):
            found += [m.span() for m in _MAIL_NAME().finditer(text, block.start(), block.end())]
    return sorted(found)
