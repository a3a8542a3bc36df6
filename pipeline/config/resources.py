"""The ``[resources]``, ``[locale_defaults]`` and ``[locales.<code>]`` tables of the configuration.

Parsed here and kept as frozen records in :class:`pipeline.config.Settings`; their keys, types
and documentation are :mod:`pipeline.config.keys`'.
"""

import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple, TypeVar, cast

from pipeline import protocol
from pipeline.config.keys import types
from pipeline.config.lines import did_you_mean
from pipeline.errors import ConfigError

T = TypeVar("T")
#: What ``isinstance`` takes: a type or a tuple of types.
_Types = type | tuple[type, ...]

#: What may name a project on the service: it is embedded in glossary and style list names.
_PROJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
#: Requests with any of these are rejected together with ``model_type = "latency_optimized"``.
_NEEDS_QUALITY = ("style", "translation_memory_id")


class Instruction(NamedTuple):
    """A custom instruction of a style list, as configured."""

    label: str
    prompt: str
    source_language: str | None = None


class StyleSpec(NamedTuple):
    """A style rule list as configured: name, configured rules, custom instructions."""

    name: str
    rules: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()  # sorted category -> sorted rule -> option
    instructions: tuple[Instruction, ...] = ()

    def rules_dict(self) -> dict[str, dict[str, str]]:
        """The configured rules as the service's JSON object."""
        return {category: dict(rules) for category, rules in self.rules}


class LocaleSpec(NamedTuple):
    """The resource keys of one ``[locales.<code>]`` table (or the defaults); None means inherit."""

    glossaries: tuple[Path, ...] = ()
    formality: str | None = None
    strict_formality: bool | None = None
    model_type: str | None = None
    translation_memory_id: str | None = None
    translation_memory_threshold: int | None = None
    style: StyleSpec | None = None
    no_style: bool = False  # ``style = false``: opt out of the default style list


class ResourceSettings(NamedTuple):
    """Glossaries, style lists, formality, model type and translation memory, per target locale."""

    project: str = "pipeline"
    multilingual_glossaries: tuple[Path, ...] = ()
    defaults: LocaleSpec = LocaleSpec()
    locales: Mapping[str, LocaleSpec] = MappingProxyType({})  # key as written in the file

    @property
    def configured(self) -> bool:
        """Whether any resource key is set at all (an empty configuration syncs nothing)."""
        return bool(self.multilingual_glossaries or self.locales or self.defaults != LocaleSpec())

    def for_locale(self, key: str | None) -> LocaleSpec:
        """The defaults overlaid with the ``[locales.<key>]`` table; glossary files add up."""
        own = self.locales.get(key) if key is not None else None
        if own is None:
            return self.defaults
        base = self.defaults
        return LocaleSpec(
            glossaries=base.glossaries + own.glossaries,
            formality=_pick(own.formality, base.formality),
            strict_formality=_pick(own.strict_formality, base.strict_formality),
            model_type=_pick(own.model_type, base.model_type),
            translation_memory_id=_pick(own.translation_memory_id, base.translation_memory_id),
            translation_memory_threshold=_pick(own.translation_memory_threshold, base.translation_memory_threshold),
            style=None if own.no_style else _pick(own.style, base.style),
        )


def _pick(own: T | None, inherited: T) -> T:
    return inherited if own is None else own


def parse_resources(path: Path, data: Mapping[str, object]) -> ResourceSettings:
    """The resource settings of a config table (``path`` names the file in errors)."""
    root = path.parent
    table = _table(path, "resources", data.get("resources", {}), types("resources"))
    project = table.get("project", _project_from_folder(root))
    if not _PROJECT.match(project):
        raise ConfigError(f"{path}: resources.project {project!r} must be 1-100 letters, digits, '.', '_' or '-'")
    multilingual = _paths(path, "resources.multilingual_glossaries", table.get("multilingual_glossaries", []), root)
    defaults = _locale(path, "locale_defaults", data.get("locale_defaults", {}), root)
    locales_table = data.get("locales", {})
    if not isinstance(locales_table, dict):
        raise ConfigError(f"{path}: locales must be a table of [locales.<code>] tables")
    locales = {str(key): _locale(path, f"locales.{key}", value, root) for key, value in locales_table.items()}
    return ResourceSettings(project=project, multilingual_glossaries=multilingual, defaults=defaults, locales=locales)


def _is_uuid(text: str) -> bool:
    """Whether ``text`` is a UUID as :class:`uuid.UUID` reads one (32 hex digits; hyphens, braces, ``urn:uuid:``
    allowed), without loading the uuid module for every configuration read."""
    digits = text.replace("urn:", "").replace("uuid:", "").strip("{}").replace("-", "")
    return len(digits) == 32 and all(c in "0123456789abcdefABCDEF" for c in digits)


def _project_from_folder(root: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", root.name).strip(".-_")[:100]
    return name or "pipeline"


def _table(path: Path, where: str, value: object, schema: Mapping[str, object]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: {where} must be a table", tuple(where.split(".")))
    for key, item in value.items():
        expected = schema.get(key)
        spot = (*where.split("."), key)
        if expected is None:
            known = ", ".join(sorted(schema))
            raise ConfigError(
                f"{path}: unknown key {where}.{key}{did_you_mean(key, tuple(schema))} (known: {known})", spot
            )
        if (isinstance(item, bool) and expected is int) or not isinstance(item, cast(_Types, expected)):
            raise ConfigError(f"{path}: {where}.{key} has the wrong type ({type(item).__name__})", spot)
    return value


def _paths(path: Path, where: str, items: list[object], root: Path) -> tuple[Path, ...]:
    paths = [item for item in items if isinstance(item, str) and item]
    if len(paths) != len(items):
        raise ConfigError(f"{path}: {where} must be a list of file paths")
    return tuple(root / item for item in paths)


def _locale(path: Path, where: str, value: object, root: Path) -> LocaleSpec:
    table = _table(path, where, value, types("locale"))
    formality = table.get("formality") or None  # "" means unset
    if formality is not None and formality not in protocol.FORMALITIES:
        raise ConfigError(f"{path}: {where}.formality must be one of {', '.join(protocol.FORMALITIES)}")
    model_type = table.get("model_type") or None
    if model_type is not None and model_type not in protocol.MODEL_TYPES:
        raise ConfigError(f"{path}: {where}.model_type must be one of {', '.join(protocol.MODEL_TYPES)}")
    memory = table.get("translation_memory_id") or None
    if memory is not None and not _is_uuid(memory):
        raise ConfigError(f"{path}: {where}.translation_memory_id must be a UUID")
    threshold = table.get("translation_memory_threshold")
    if threshold is not None and not protocol.TM_THRESHOLD_MIN <= threshold <= protocol.TM_THRESHOLD_MAX:
        raise ConfigError(
            f"{path}: {where}.translation_memory_threshold must be within "
            f"{protocol.TM_THRESHOLD_MIN}..{protocol.TM_THRESHOLD_MAX}"
        )
    style_value = table.get("style")
    if style_value is True:
        raise ConfigError(f"{path}: {where}.style must be a table, or false to use no style list")
    style = _style(path, f"{where}.style", style_value) if isinstance(style_value, dict) else None
    if model_type == "latency_optimized":
        for key in _NEEDS_QUALITY:
            if table.get(key):
                raise ConfigError(
                    f"{path}: {where}.{key} cannot be combined with model_type = "
                    f'"latency_optimized" (the service rejects it)'
                )
    return LocaleSpec(
        glossaries=_paths(path, f"{where}.glossaries", table.get("glossaries", []), root),
        formality=formality,
        strict_formality=table.get("strict_formality"),
        model_type=model_type,
        translation_memory_id=memory,
        translation_memory_threshold=threshold,
        style=style,
        no_style=style_value is False,
    )


def _style(path: Path, where: str, value: dict[str, Any]) -> StyleSpec:
    table = _table(path, where, value, types("style"))
    name = table.get("name", "")
    if not name.strip():
        raise ConfigError(f"{path}: {where}.name is required")
    # The service name also carries a marker (about 60 characters); see style_sync.service_name.
    if len(name) > protocol.MAX_STYLE_LIST_NAME_CHARS - 200:
        raise ConfigError(
            f"{path}: {where}.name is too long (at most {protocol.MAX_STYLE_LIST_NAME_CHARS - 200} characters)"
        )
    rules = []
    for category, chosen in sorted(table.get("rules", {}).items()):
        if not isinstance(chosen, dict) or not all(isinstance(v, str) and v for v in chosen.values()):
            raise ConfigError(f'{path}: {where}.rules.{category} must be a table of rule = "option"')
        rules.append((category, tuple(sorted(chosen.items()))))
    instructions = []
    items = table.get("instructions", [])
    if len(items) > protocol.MAX_STYLE_INSTRUCTIONS:
        raise ConfigError(
            f"{path}: {where}.instructions has {len(items)} entries; the limit is {protocol.MAX_STYLE_INSTRUCTIONS}"
        )
    for number, item in enumerate(items, 1):
        spot = f"{where}.instructions[{number}]"
        item = _table(path, spot, item, types("instruction"))
        label, prompt = item.get("label", ""), item.get("prompt", "")
        if not label or not prompt:
            raise ConfigError(f"{path}: {spot} needs a label and a prompt")
        if len(label) > protocol.MAX_STYLE_INSTRUCTION_LABEL_CHARS:
            raise ConfigError(
                f"{path}: {spot}.label has {len(label)} characters; the limit is "
                f"{protocol.MAX_STYLE_INSTRUCTION_LABEL_CHARS}"
            )
        if len(prompt) > protocol.MAX_STYLE_INSTRUCTION_PROMPT_CHARS:
            raise ConfigError(
                f"{path}: {spot}.prompt has {len(prompt)} characters; the limit is "
                f"{protocol.MAX_STYLE_INSTRUCTION_PROMPT_CHARS}"
            )
        instructions.append(Instruction(label, prompt, item.get("source_language")))
    return StyleSpec(name=name, rules=tuple(rules), instructions=tuple(instructions))
