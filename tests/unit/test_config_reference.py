"""The configuration is declared once (pipeline/config/keys.py): the reference, the settings and init follow it."""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path

from pipeline.config import ServiceSettings, Settings
from pipeline.config.checks import check_types
from pipeline.config.keys import KEYS, default
from pipeline.config.reference import init_keys, reference

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
#: Fields no key of the file sets: where the file is, and what the command line or the resources tables give.
NOT_KEYS = {"root", "config_path", "service", "resources", "follow_symlinks_outside"}


def test_the_reference_in_the_docs_is_the_one_the_keys_make() -> None:
    """After a key changed: python -m pipeline.config.reference > docs/configuration.md"""
    assert DOCUMENT.read_text(encoding="utf-8") == reference()


def test_every_field_a_file_can_set_has_one_key_and_every_key_a_field() -> None:
    settable = set(Settings._fields) - NOT_KEYS
    settable |= {f"service.{f.name}" for f in fields(ServiceSettings)}
    named = [key.field for key in KEYS if key.field]
    assert sorted(named) == sorted(settable)


def test_the_settings_defaults_are_the_keys_defaults() -> None:
    settings = Settings(root=Path("/project"))
    for key in KEYS:
        if key.field and not key.unset:
            owner, name = (
                (settings.service, key.field[8:]) if key.field.startswith("service.") else (settings, key.field)
            )
            assert getattr(owner, name) == default(key.path), key.path


def test_every_example_of_the_reference_has_the_keys_type() -> None:
    for key in KEYS:
        value = tomllib.loads(f"v = {key.example}")["v"]
        check_types(Path("docs/configuration.md"), "", {key.name: value}, {key.name: key.type})


def test_init_writes_keys_the_table_names_and_they_load(tmp_path: Path) -> None:
    written = [key.path for section in ("", "service", "translate") for key in init_keys(section)]
    assert written == [
        "source_lang",
        "catalogs",
        "exclude",
        "service.url",
        "translate.mark_fuzzy",
        "translate.max_characters",
        "translate.languages",
        "translate.to_utf8",
    ]
