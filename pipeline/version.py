"""The package's version, in a module of its own: everything may import it without importing the package API."""

__version__ = "0.1.0"  # keep in step with pyproject.toml
