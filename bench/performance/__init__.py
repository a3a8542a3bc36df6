"""Performance figures. Issue 37's rows, each the whole command over several published projects, are
what ``make bench`` runs (``python -m bench.performance``, see ``__main__.py``); the other modules
here measure one part (the local service, the shared cache, the pre-commit hook, scale) and run alone
as ``python -m bench.performance.<module>``.
"""
