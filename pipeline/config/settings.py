"""The settings a run reads: one frozen tree, its defaults those of :mod:`pipeline.config.keys`.

Made by :func:`pipeline.config.parse.load_settings` from ``pipeline.toml`` (or ``[tool.pipeline]``
in ``pyproject.toml``), the environment and the command line, in that order of precedence (last
wins); a library caller may build one directly.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.config.checks import EMBEDDED, check_service_url
from pipeline.config.keys import default
from pipeline.config.resources import ResourceSettings

__all__ = [
    "CONFIG_NAME",
    "ENV_CACHE_URL",
    "ENV_SERVICE_URL",
    "REPORT_SUBDIR",
    "ServiceSettings",
    "Settings",
    "project_dir",
    "user_cache_home",
]

CONFIG_NAME = "pipeline.toml"
ENV_SERVICE_URL = "PIPELINE_SERVICE_URL"
ENV_CACHE_URL = "PIPELINE_CACHE_URL"
REPORT_SUBDIR = "report"  # of the project's cache folder, where the report goes unless configured


@dataclass(frozen=True)
class ServiceSettings:
    """How to reach the translation service."""

    url: str | None = default("service.url")
    concurrency: int = default("service.concurrency")  # a ceiling: the run finds the service's own limit below it
    timeout: float = default("service.timeout")
    max_attempts: int = default("service.max_attempts")  # every send of one request, whatever failed
    reporting_tag: str | None = default("service.reporting_tag")

    def __post_init__(self) -> None:
        # Every way in (file, environment, command line, library) ends here; those three name themselves first.
        if self.url:
            check_service_url(self.url, "the service URL")

    @property
    def embedded(self) -> bool:
        """Whether the in-process local service is used."""
        return self.url == EMBEDDED


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, resolved to absolute paths."""

    root: Path
    config_path: Path | None = None
    source_lang: str = default("source_lang")
    catalogs: tuple[str, ...] = default("catalogs")
    exclude: tuple[str, ...] = default("exclude")
    target_langs: tuple[str, ...] = default("target_langs")
    service: ServiceSettings = field(default_factory=ServiceSettings)
    mark_fuzzy: bool = default("translate.mark_fuzzy")
    max_characters: int | None = default("translate.max_characters")  # billed characters one run may spend
    lock_wait: float = default("translate.lock_wait")  # seconds a run waits for catalogs another run locked
    context: str = default("translate.context")
    locale_map: Mapping[str, str] = field(default_factory=lambda: dict(default("translate.locale_map")))
    languages: tuple[tuple[str, str], ...] = default("translate.languages")  # (glob, locale), in the file's order
    to_utf8: bool = default("translate.to_utf8")
    reuse: bool = default("translate.reuse")  # reviewed translations elsewhere are written before any is paid for
    compendia: tuple[str, ...] = default("translate.compendia")  # globs of compendium PO files, relative to root
    over_length: str = default("translate.over_length")  # still over its length limit: "review" or "refuse"
    unsupported_languages: str = default("translate.unsupported_languages")  # "fail" or "skip"
    source_variants: bool = default("translate.source_variants")  # translate en_GB from en
    # Folders the file names are relative to ``root``; unset, the project's folder in the user's cache
    # (:mod:`pipeline.config.parse`); None here: no cache and run state, no report folder.
    cache_dir: Path | None = None
    cache_url: str | None = field(default=default("cache.url"), repr=False)  # may carry a password: never printed
    cache_ttl: int | None = default("cache.ttl")  # seconds a shared cache entry lives (None: until cleared)
    report_dir: Path | None = None
    refresh_template: Path | None = default("refresh.template")
    resources: ResourceSettings = field(default_factory=ResourceSettings)
    # Read and write catalogs reached through links that leave the project (--follow-symlinks-outside).
    follow_symlinks_outside: bool = False


def user_cache_home() -> Path:
    """The user's cache folder, where the platform keeps caches (platformdirs).

    ``$XDG_CACHE_HOME`` (a relative value is ignored, as the XDG spec says) or ``~/.cache`` on
    Linux, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows.
    """
    import platformdirs  # the front door of the user's folders: loaded only where the configuration names none

    return platformdirs.user_cache_path()


def project_dir(root: Path) -> Path:
    """Where the cache, run state and report of the project at ``root`` live unless configured.

    Outside the work tree, so that a run (the pre-commit hook above all) changes nothing there but
    the catalogs: ``<user cache folder>/pipeline/<folder name>-<hash of the absolute root>``. The
    name makes the folder easy to find; the hash keeps two checkouts of one project apart.
    """
    digest = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", root.name)[:40].strip("._") or "project"
    return user_cache_home() / "pipeline" / f"{name}-{digest}"
