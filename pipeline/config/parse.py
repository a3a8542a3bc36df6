"""Reading the configuration: ``pipeline.toml`` (or ``[tool.pipeline]`` in ``pyproject.toml``), then the
environment, into :class:`~pipeline.config.Settings`, every value checked as :mod:`pipeline.config.keys` says.

The first value wrong is a :class:`~pipeline.errors.ConfigError` of one line naming the file and
the key, exit 2: types first, then each key's checks, in the table's order.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from pipeline.config.checks import check_cache_url, check_service_url, check_types, kind
from pipeline.config.keys import KEYS, Key, types
from pipeline.config.resources import parse_resources
from pipeline.config.settings import (
    CONFIG_NAME,
    ENV_CACHE_URL,
    ENV_SERVICE_URL,
    REPORT_SUBDIR,
    ServiceSettings,
    Settings,
    project_dir,
)
from pipeline.errors import ConfigError
from pipeline.files.untrusted import read_regular

__all__ = ["CONFIG_BYTES", "find_config", "load_settings"]

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
    if pyproject.is_file() and _tool_table(pyproject, _read_toml(pyproject)) is not None:
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


def _read_toml(path: Path) -> dict:
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
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: arrays or tables nested too deeply") from None


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
        data = _read_toml(config_path)
        if config_path.name == "pyproject.toml":
            data = _tool_table(config_path, data) or {}
        settings = from_table(config_path, data)
    env_url = os.environ.get(ENV_SERVICE_URL)
    if env_url:
        settings = replace(settings, service=replace(settings.service, url=check_service_url(env_url, ENV_SERVICE_URL)))
    env_cache_url = os.environ.get(ENV_CACHE_URL)
    if env_cache_url:
        settings = replace(settings, cache_url=check_cache_url(env_cache_url, ENV_CACHE_URL))
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
    if url_check is not None and value:
        url_check(value, f"{path}: {key.path}")
    for check in key.checks:
        problem = check(value)
        if problem is not None:
            raise ConfigError(f"{path}: {key.path}{problem}")
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
