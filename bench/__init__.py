"""Benchmarks, run from the repository's root as modules (``python -m bench.<folder>.<module>``).

- ``harness/``: what every bench shares: a whole command measured as a user runs it (``process``), the
  published projects' catalogs fetched by script (``corpus``, ``sources``) and made into workloads
  (``workloads``), the slow and refusing stand-in service (``stand_in``), ``pipeline serve`` and proxies.
- ``performance/``: figures. ``python -m bench.performance`` (``make bench``) prints issue 37's rows,
  each the whole command over several published projects with the worst marked.
- ``acceptance/``: conformance and acceptance runs (code damage, gettext agreement, install routes,
  the official clients' suites, review from the keyboard, real layouts, ...), each printing JSON.
"""
