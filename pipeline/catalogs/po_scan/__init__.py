"""The PO reader's one pass: each entry's strings, and the exact lines write-back may touch.

A strict line scanner reads every line once. It checks the syntax (``msgstr x"``, comments inside
an entry, a msgid without msgstr, escapes gettext does not know), collects each entry's strings
as polib reads them (unescaped, ``#,`` flags split at commas, ``#.`` comments joined) and records
where the entry lives: its ``msgstr`` block and its ``#,`` flags line. Where an entry is in the
shape gettext writes it, a fast path reads all of it with one match instead, alike (:mod:`.blocks`):
the entries of most published catalogs are read that way, at about half the cost of their lines.

It also refuses whatever polib refuses (:mod:`.polib_rules`: a broken ``#|`` line, a keyword where
polib's state machine has no transition) but what msgfmt reads and polib is given spaced out (a
comment marker with its words right after it, ``#,fuzzy``; a keyword alone on its line, its strings
on the next ones), so that a catalog a
run reads is one that ``pipeline refresh``, which merges polib's entries, reads alike; a property
test compares the two readers on generated catalogs. (A run used to parse every catalog twice,
with polib and with this scanner, and match the two entry by entry: a third of a run's reading.)

::

    scanner.py      the scan: a line at a time, or an entry at a time where blocks.py matches one
    blocks.py       the fast path: a well-formed entry, in the shape gettext writes it, in one match
    polib_rules.py  what polib refuses that the scanner would let through
    msgfmt_rules.py what msgfmt refuses across entries: a duplicate, plural forms out of their numbers
    polib_file.py   polib's own reading of a catalog, which the review session asks for
    entry.py        what the scan reads of an entry
    defaults.py     Zope's message ids: the text an entry's ``#. Default:`` comment gives
"""

from pipeline.catalogs.po_scan.entry import Entry, Scanned, fields
from pipeline.catalogs.po_scan.scanner import metadata, scan

__all__ = ["Entry", "Scanned", "fields", "metadata", "scan"]
