"""XLIFF 1.2 and 2.x catalogs, read with the safe parser and edited in place.

::

    catalog.py  the catalog: its units, and targets written back where they belong (:func:`read_xliff`)
    units.py    where a document's units are, and the ones it leaves out
    edits.py    a reviewer's decisions as edits of the text
    xmltext.py  the text itself: where each element's bytes are, escaping, attributes set in place
"""
