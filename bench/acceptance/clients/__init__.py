"""Helpers of ``bench/acceptance/clients/__main__.py``: the scheme-renaming proxy and the suites' runners."""
