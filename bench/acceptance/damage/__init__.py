"""The code-damage bench of issue 35 (``python -m bench.acceptance.damage``): see __main__.py."""
