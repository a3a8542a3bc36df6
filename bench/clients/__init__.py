"""Helpers of ``bench/official_clients.py``: the scheme-renaming proxy and the suites' runners."""
