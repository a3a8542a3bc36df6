"""Helpers of ``bench/real_catalogs.py``: fetching and blanking real catalogs, and the fault proxy.

A package (not ``bench/*.py`` modules) so that ``make bench``, which runs every ``bench/*.py``, does not
run them as scripts.
"""
