"""pipeline: machine-translate Gettext PO/POT and XLIFF catalogs, safely.

The public API is small: build :class:`~pipeline.config.Settings` with
:func:`~pipeline.config.load_settings`, then call :func:`~pipeline.run.orchestrate.run_translate`.
The service client lives in :mod:`pipeline.client`, the local service in :mod:`pipeline.service`.
"""

from __future__ import annotations

from pipeline.distribution import __version__

__all__ = ["RunOptions", "RunReport", "Settings", "__version__", "load_settings", "run_translate"]


def __getattr__(name: str) -> object:
    # Lazy, so that `import pipeline` (and the pre-commit path) stays light.
    if name in ("Settings", "load_settings"):
        from pipeline import config

        return getattr(config, name)
    if name in ("RunOptions", "RunReport", "run_translate"):
        from pipeline.run import orchestrate

        return getattr(orchestrate, name)
    raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
