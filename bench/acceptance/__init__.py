"""Acceptance and conformance runs on published material, each printing JSON: code damage
(``damage``), agreement with GNU gettext, real layouts and catalogs, reuse and length limits, the
install routes, the official clients' own suites (``clients``), a keyboard review in a browser,
descriptor limits and a shared cache holding huge values. Run as ``python -m bench.acceptance.<name>``.
"""
