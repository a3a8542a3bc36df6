"""The configuration: ``pipeline.toml`` (or ``[tool.pipeline]`` in ``pyproject.toml``), the environment
and the command line, in that order of precedence (last wins), read into one frozen :class:`Settings`.

::

    keys.py       every key, declared once: section, type, default, documentation, checks
    checks.py     what a value must be (the checks the keys name), URLs and globs
    parse.py      reading a file (and the environment) into Settings, every value checked
    settings.py   Settings and ServiceSettings (their defaults are the keys'), the project's folders
    resources.py  the glossary and style tables into their records
    reference.py  docs/configuration.md and ``pipeline init``'s commented file, made from the keys

The reference of every key: ``docs/configuration.md``.
"""

from __future__ import annotations

from pipeline.config.checks import (
    CACHE_URL_SCHEMES,
    CONTEXT_POLICIES,
    EMBEDDED,
    ENV_AUTH_KEY,
    OVER_LENGTH,
    UNSUPPORTED,
    check_cache_url,
    check_service_url,
    glob_problem,
)
from pipeline.config.parse import find_config, load_settings
from pipeline.config.settings import (
    CONFIG_NAME,
    ENV_CACHE_URL,
    ENV_SERVICE_URL,
    REPORT_SUBDIR,
    ServiceSettings,
    Settings,
    project_dir,
    user_cache_home,
)

__all__ = [
    "CACHE_URL_SCHEMES",
    "CONFIG_NAME",
    "CONTEXT_POLICIES",
    "EMBEDDED",
    "ENV_AUTH_KEY",
    "ENV_CACHE_URL",
    "ENV_SERVICE_URL",
    "OVER_LENGTH",
    "REPORT_SUBDIR",
    "UNSUPPORTED",
    "ServiceSettings",
    "Settings",
    "check_cache_url",
    "check_service_url",
    "find_config",
    "glob_problem",
    "load_settings",
    "project_dir",
    "user_cache_home",
]
