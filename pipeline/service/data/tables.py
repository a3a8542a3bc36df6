"""Read the per-resource language files of this folder into frozen records.

A file lists every language of one resource (code, status, roles) and every feature with the
languages that support it (``"*"``: all of them). Names live once, in ``names.json``. The files
are read once per process; a file that contradicts itself (a feature naming a language the
resource does not list, an unknown status) fails loudly at load time, never at request time.
"""

import json
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

STATUSES = ("stable", "beta", "early_access")
#: The resources with a data file, in the order ``/v3/languages/resources`` lists them.
RESOURCES = (
    "translate_text",
    "translate_document",
    "glossary",
    "voice",
    "write",
    "style_rules",
    "translation_memory",
)


class FeatureSpec(NamedTuple):
    """A feature of a resource and the side(s) of a language pair that must support it."""

    name: str
    needs_source_support: bool
    needs_target_support: bool


class LanguageRow(NamedTuple):
    """One language of one resource: v3 code, English name, status, roles and supported features."""

    code: str
    name: str
    status: str
    source: bool
    target: bool
    features: tuple[str, ...]

    @property
    def v2(self) -> str:
        """Upper-case form of the code, as the v2 endpoints write it."""
        return self.code.upper()


class ResourceTable(NamedTuple):
    """Every language of one resource, its features, and where the facts come from."""

    name: str
    features: tuple[FeatureSpec, ...]
    languages: tuple[LanguageRow, ...]
    #: Codes the deprecated v2 listings leave out (as the real service does).
    v2_hidden: frozenset[str]
    #: Names the deprecated v2 target listing gives instead of the language's own (``zh``: Chinese (simplified)).
    v2_target_names: dict[str, str]
    sources: tuple[str, ...]
    retrieved: str

    def find(self, code: str) -> LanguageRow | None:
        """The row for ``code`` (any case), or None."""
        key = code.strip().lower()
        return next((row for row in self.languages if row.code.lower() == key), None)


def _read(name: str) -> dict[str, Any]:
    # Beside this module, as the package installs them (importlib.resources would load zipfile with it).
    text = Path(__file__).with_name(f"{name}.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def names() -> dict[str, str]:
    """English name of every language code (v3 form)."""
    return dict(_read("names")["names"])


@cache
def load(resource: str) -> ResourceTable:
    """The table of ``resource`` (one of :data:`RESOURCES`); ValueError when its file is inconsistent."""
    if resource not in RESOURCES:
        raise KeyError(resource)
    data = _read(resource)
    all_names = names()
    codes = [row["lang"] for row in data["languages"]]
    features = tuple(
        FeatureSpec(f["name"], bool(f["needs_source_support"]), bool(f["needs_target_support"]))
        for f in data["features"]
    )
    support: dict[str, list[str]] = {code: [] for code in codes}
    for raw in data["features"]:
        listed = codes if raw["languages"] == "*" else raw["languages"]
        for code in listed:
            if code not in support:
                raise ValueError(f"{resource}.json: feature {raw['name']!r} names {code!r}, which is not listed")
            support[code].append(raw["name"])
    rows = []
    for raw in data["languages"]:
        if raw["status"] not in STATUSES:
            raise ValueError(f"{resource}.json: {raw['lang']!r} has unknown status {raw['status']!r}")
        if raw["lang"] not in all_names:
            raise ValueError(f"{resource}.json: {raw['lang']!r} has no name in names.json")
        rows.append(
            LanguageRow(
                code=raw["lang"],
                name=all_names[raw["lang"]],
                status=raw["status"],
                source=bool(raw["usable_as_source"]),
                target=bool(raw["usable_as_target"]),
                features=tuple(support[raw["lang"]]),
            )
        )
    return ResourceTable(
        name=resource,
        features=features,
        languages=tuple(rows),
        v2_hidden=frozenset(data.get("v2_hidden", ())),
        v2_target_names=dict(data.get("v2_target_names", {})),
        sources=tuple(data["sources"]),
        retrieved=data["retrieved"],
    )
