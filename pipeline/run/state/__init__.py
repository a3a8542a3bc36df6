"""What runs remember between them, in the project's cache folder, and how they take turns.

::

    journal.py     state.json: the catalogs runs settled (skipped unread while unchanged), language lists
    provenance.py  provenance/: what the pipeline wrote into each catalog (a human's text is never rewritten)
    locks.py       locks/: runs take turns on catalogs; the lock held while the state is written
"""
