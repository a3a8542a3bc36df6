"""The configuration: ``pipeline.toml`` (or ``[tool.pipeline]`` in ``pyproject.toml``), the environment
and the command line, in that order of precedence (last wins), read into one frozen :class:`Settings`.

::

    __init__.py   Settings and ServiceSettings (their defaults are the keys'), the project's folders, and
                  reading a file (then the environment) into them (:func:`load_settings`)
    keys.py       every key, declared once: section, type, default, documentation, checks
    checks.py     what a value must be (the checks the keys name), URLs and globs
    lines.py      where a key sits in the file's text (tomllib gives no lines), and the key a misspelt one meant
    resources.py  the glossary and style tables into their records
    reference.py  docs/configuration.md and ``pipeline init``'s commented file, made from the keys

Every value is checked as :mod:`pipeline.config.keys` says, types first, then each key's checks in
the table's order; the first value wrong is a :class:`~pipeline.errors.ConfigError` of one line
naming the file, the key's line and the key (and, for an unknown key, the known one it is closest
to), exit 2. A library caller may build :class:`Settings` directly. The
reference of every key: ``docs/configuration.md``.
"""

import hashlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from pipeline.config.checks import (
    CACHE_URL_SCHEMES,
    CONTEXT_POLICIES,
    EMBEDDED,
    ENV_AUTH_KEY,
    OVER_LENGTH,
    UNSUPPORTED,
    check_cache_url,
    check_service_url,
    check_types,
    glob_problem,
    kind,
)
from pipeline.config.keys import KEYS, Key, default, types
from pipeline.config.lines import key_line
from pipeline.config.resources import ResourceSettings, parse_resources
from pipeline.errors import ConfigError
from pipeline.files.untrusted import read_regular

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
    "as_data",
    "check_cache_url",
    "check_service_url",
    "find_config",
    "glob_problem",
    "load_settings",
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


class Settings(NamedTuple):
    """Everything a run needs to know, resolved to absolute paths (a copy with some changed: ``_replace``)."""

    root: Path
    config_path: Path | None = None
    source_lang: str = default("source_lang")
    catalogs: tuple[str, ...] = default("catalogs")
    exclude: tuple[str, ...] = default("exclude")
    target_langs: tuple[str, ...] = default("target_langs")
    service: ServiceSettings = ServiceSettings()
    mark_fuzzy: bool = default("translate.mark_fuzzy")
    max_characters: int | None = default("translate.max_characters")  # billed characters one run may spend
    lock_wait: float = default("translate.lock_wait")  # seconds a run waits for catalogs another run locked
    context: str = default("translate.context")
    locale_map: Mapping[str, str] = default("translate.locale_map")
    languages: tuple[tuple[str, str], ...] = default("translate.languages")  # (glob, locale), in the file's order
    to_utf8: bool = default("translate.to_utf8")
    reuse: bool = default("translate.reuse")  # reviewed translations elsewhere are written before any is paid for
    compendia: tuple[str, ...] = default("translate.compendia")  # globs of compendium PO files, relative to root
    over_length: str = default("translate.over_length")  # still over its length limit: "review" or "refuse"
    unsupported_languages: str = default("translate.unsupported_languages")  # "fail" or "skip"
    source_variants: bool = default("translate.source_variants")  # translate en_GB from en
    # Folders the file names are relative to ``root``; unset, the project's folder in the user's cache
    # (:mod:`pipeline.config`); None here: no cache and run state, no report folder.
    cache_dir: Path | None = None
    cache_url: str | None = default("cache.url")  # may carry a password: never printed (__repr__)
    cache_ttl: int | None = default("cache.ttl")  # seconds a shared cache entry lives (None: until cleared)
    report_dir: Path | None = None
    refresh_template: Path | None = default("refresh.template")
    resources: ResourceSettings = ResourceSettings()
    # Read and write catalogs reached through links that leave the project (--follow-symlinks-outside).
    follow_symlinks_outside: bool = False

    def __repr__(self) -> str:
        fields = zip(self._fields, self, strict=True)
        return f"Settings({', '.join(f'{name}={value!r}' for name, value in fields if name != 'cache_url')})"


def as_data(value: object) -> object:
    """A configuration record as plain data, what hashes of the configuration are taken over: each record
    (a NamedTuple) a dict of its fields, never a list (a hash names each value by its field, and stays
    what ``state.json`` and ``synced.json`` hold), each mapping a dict, recursively."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {name: as_data(item) for name, item in zip(value._fields, value, strict=True)}
    if isinstance(value, tuple | list):
        return type(value)(as_data(item) for item in value)
    if isinstance(value, Mapping):
        return {key: as_data(item) for key, item in value.items()}
    return value


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


#: The sections whose keys become fields of :class:`~pipeline.config.Settings` (the others: the resources').
_SETTINGS_SECTIONS = ("", "service", "translate", "cache", "report", "refresh")
#: Keys whose value is checked by a function that names the file itself (URLs are never quoted with a password).
_URLS = {"service.url": check_service_url, "cache.url": check_cache_url}


def find_config(start: Path) -> Path | None:
    """``pipeline.toml`` in ``start``, else a ``pyproject.toml`` there with ``[tool.pipeline]``."""
    candidate = start / CONFIG_NAME
    if candidate.is_file():
        return candidate
    pyproject = start / "pyproject.toml"
    if pyproject.is_file() and _tool_table(pyproject, _read_toml(pyproject)[1]) is not None:
        return pyproject
    return None


def _tool_table(path: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    """``[tool.pipeline]`` of a ``pyproject.toml`` (None when absent)."""
    tools = data.get("tool", {})
    if not isinstance(tools, dict):
        raise ConfigError(f"{path}: tool must be a table ([tool.pipeline]), not {kind(tools)}")
    table = tools.get("pipeline")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: tool.pipeline must be a table ([tool.pipeline]), not {kind(table)}")
    return table


#: A configuration file is a few kilobytes; a larger one (a link to /dev/zero) is not read.
CONFIG_BYTES = 4 * 1024 * 1024


def _read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """The text of the TOML file at ``path`` and its table."""
    try:
        data = read_regular(path, CONFIG_BYTES)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{path}: line {line}: not UTF-8 (byte 0x{data[exc.start]:02x}); TOML files are UTF-8"
        ) from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: arrays or tables nested too deeply") from None


def _on_its_line(exc: ConfigError, path: Path, text: str, within: tuple[str, ...]) -> ConfigError:
    """``exc`` with the line of its key in ``text`` after the file's name (``within``: the configuration's table)."""
    line = None if exc.key is None else key_line(text, (*within, *exc.key))
    message, named = str(exc), f"{path}: "
    if line is None or not message.startswith(named):
        return exc
    return ConfigError(f"{named}line {line}: {message.removeprefix(named)}", exc.key)


def load_settings(config_path: Path | None, cwd: Path | None = None) -> Settings:
    """Settings from a config file (or defaults rooted at ``cwd``), then the environment."""
    cwd = (cwd or Path.cwd()).resolve()
    if config_path is None:
        config_path = find_config(cwd)
    if config_path is None:
        default = project_dir(cwd)
        settings = Settings(root=cwd, cache_dir=default, report_dir=default / REPORT_SUBDIR)
    else:
        config_path = config_path.resolve()
        text, data = _read_toml(config_path)
        within: tuple[str, ...] = ()
        if config_path.name == "pyproject.toml":
            data, within = _tool_table(config_path, data) or {}, ("tool", "pipeline")
        try:
            settings = from_table(config_path, data)
        except ConfigError as exc:
            raise _on_its_line(exc, config_path, text, within) from None
    env_url = os.environ.get(ENV_SERVICE_URL)
    if env_url:
        settings = settings._replace(service=replace(settings.service, url=check_service_url(env_url, ENV_SERVICE_URL)))
    env_cache_url = os.environ.get(ENV_CACHE_URL)
    if env_cache_url:
        settings = settings._replace(cache_url=check_cache_url(env_cache_url, ENV_CACHE_URL))
    return settings


def from_table(path: Path, data: dict[str, Any]) -> Settings:
    """The settings of a configuration file's table (``path`` names the file in errors)."""
    check_types(path, "", data, types(""))
    for section in _SETTINGS_SECTIONS[1:]:
        check_types(path, f"{section}.", data.get(section, {}), types(section))
    root = path.parent
    fields: dict[str, Any] = {}
    for key in KEYS:
        if key.section not in _SETTINGS_SECTIONS:
            continue
        table = data.get(key.section, {}) if key.section else data
        if key.name in table:
            fields[key.field] = _read(path, key, table[key.name])
        elif key.unset:  # the project's folder in the user's cache: only where the file names none
            fields[key.field] = project_dir(root) / (REPORT_SUBDIR if key.unset == "project report folder" else "")
    service = {name.removeprefix("service."): value for name, value in fields.items() if name.startswith("service.")}
    others = {name: value for name, value in fields.items() if not name.startswith("service.")}
    return Settings(
        root=root,
        config_path=path,
        service=ServiceSettings(**service),
        resources=parse_resources(path, data),
        **others,
    )


def _read(path: Path, key: Key, value: Any) -> Any:
    """``value`` of ``key`` checked, as its Settings field holds it."""
    url_check = _URLS.get(key.path)
    spot = tuple(key.path.split("."))
    if url_check is not None and value:
        try:
            url_check(value, f"{path}: {key.path}")
        except ConfigError as exc:
            raise ConfigError(str(exc), spot) from None
    for check in key.checks:
        problem = check(value)
        if problem is not None:
            raise ConfigError(f"{path}: {key.path}{problem}", spot)
    root = path.parent
    match key.read:
        case "float":
            return float(value)
        case "or_none":
            return value or None
        case "path":
            return root / value if value else None
        case "under_root":
            return root / value
        case "mapping":
            return {str(k): str(v) for k, v in value.items()}
        case "pairs":
            return tuple((str(k), str(v)) for k, v in value.items())
    return tuple(value) if isinstance(value, list) else value
