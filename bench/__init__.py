"""Benchmarks. A package so that ``python -m bench.corpus`` and ``python -m bench.damage`` run from the
repository's root without touching ``sys.path``; the older ``bench/*.py`` scripts still run as files
(``make bench``), with their helpers in ``bench/real`` and ``bench/clients``.
"""
