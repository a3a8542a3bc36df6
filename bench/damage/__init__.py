"""The code-damage bench of issue 35 (``python -m bench.damage``): see __main__.py."""
