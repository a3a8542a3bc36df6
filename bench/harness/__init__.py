"""What every bench shares: ``process`` (a whole command measured beside ``python -c pass``), ``rows``
(a figure per published project, the worst against a target), ``corpus`` and ``sources`` (published
projects' catalogs fetched by script into a cache), ``workloads`` (those catalogs as templates, laid
out as projects), ``generated`` (catalogs made up for size figures), ``stand_in`` (a slow, refusing
service), ``serve`` (``pipeline serve`` for a ``with`` block, fault probes, JSON layout) and the
loopback proxies (``proxy``, ``faultproxy``).
"""
