"""The configuration is hashed as plain data: each record a dict of its fields (as when they were dataclasses),
so that the hashes of settled catalogs and synced resources do not change when the record types do."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.config import as_data, load_settings
from pipeline.run.journal import settings_hash

CONFIG = """\
[resources]
project = "shape"
[locale_defaults]
formality = "prefer_more"
[locale_defaults.style]
name = "House"
rules = { punctuation = { apostrophe = "use_curly_apostrophes" } }
instructions = [{ label = "Tone", prompt = "Be nice." }]
[locales.fr]
style = false
"""


def test_records_become_dicts_of_their_fields_and_everything_else_stays(tmp_path: Path) -> None:
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    resources = load_settings(tmp_path / "pipeline.toml").resources
    no_locale = {
        "glossaries": (),
        "formality": None,
        "strict_formality": None,
        "model_type": None,
        "translation_memory_id": None,
        "translation_memory_threshold": None,
        "style": None,
        "no_style": False,
    }
    style = {
        "name": "House",
        "rules": (("punctuation", (("apostrophe", "use_curly_apostrophes"),)),),
        "instructions": ({"label": "Tone", "prompt": "Be nice.", "source_language": None},),
    }
    assert as_data(resources) == {
        "project": "shape",
        "multilingual_glossaries": (),
        "defaults": {**no_locale, "formality": "prefer_more", "style": style},
        "locales": {"fr": {**no_locale, "no_style": True}},
    }


def test_a_changed_resource_table_changes_the_settings_hash(tmp_path: Path) -> None:
    (tmp_path / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    first = load_settings(tmp_path / "pipeline.toml")
    (tmp_path / "pipeline.toml").write_text(CONFIG.replace("Be nice.", "Be terse."), encoding="utf-8")
    second = load_settings(tmp_path / "pipeline.toml")
    assert settings_hash(first) != settings_hash(second)
    assert json.dumps(as_data(first.resources), sort_keys=True).startswith('{"defaults": {"formality"')
