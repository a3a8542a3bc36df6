"""The file system, handled with care: files someone else made read as hostile, our own written atomically.

::

    untrusted.py  reading a file someone else made (a regular file only, within a size); git's listing
    atomic.py     replacing a file atomically (the reports, the run state, sync records, pipeline.toml)
    swap.py       replacing a file only while it holds what was read (catalogs, a reviewer's decisions);
                  atomic writes in worker threads (a run's catalogs)
    git.py        asking git, safely, which files it sees in a work tree
    descriptors.py  how many files this process may open at once
"""
