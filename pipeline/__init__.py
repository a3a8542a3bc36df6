"""pipeline: machine-translate Gettext PO/POT and XLIFF catalogs, safely.

The public API is small: build :class:`~pipeline.config.Settings` with
:func:`pipeline.config.load_settings`, then call :func:`pipeline.run.orchestrate.run_translate`
(with :class:`~pipeline.run.orchestrate.RunOptions`; it returns a
:class:`~pipeline.run.orchestrate.RunReport`). The service client lives in :mod:`pipeline.client`,
the local service in :mod:`pipeline.service`.

Nothing is imported here but the version: every process of the package (``pipeline serve``, the
review page, a command that never runs a translation) starts from this module, and each loads
what it uses from the module that defines it.
"""

from __future__ import annotations

from pipeline.distribution import __version__

__all__ = ["__version__"]
