"""The hashes that name a run's settings and its synced resources, pinned to their values.

``state.json`` keeps a catalog settled while :func:`~pipeline.run.journal.settings_hash` stays the
same, and ``synced.json`` skips a resource sync while :func:`~pipeline.resources.synced.fingerprint`
does. Both hash a JSON dump of the configuration's records, so a record that changes type (a
NamedTuple is dumped as a list, a dataclass as an object) would unsettle every catalog and sync
every resource again after an upgrade, silently. A change of value here must be one on purpose.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import Settings
from pipeline.config.resources import Instruction, LocaleSpec, ResourceSettings, StyleSpec
from pipeline.resources.synced import fingerprint
from pipeline.run import journal

STYLE = StyleSpec("house", (("punctuation", (("quotes", "curly"),)),), (Instruction("brief", "Be brief", "en"),))
SETTINGS = Settings(
    root=Path("/project"),
    locale_map={"pt_BR": "PT-BR"},
    resources=ResourceSettings(
        project="demo",
        defaults=LocaleSpec(formality="prefer_more", model_type="quality_optimized"),
        locales={"de": LocaleSpec(style=STYLE, translation_memory_id="tm-1", translation_memory_threshold=80)},
    ),
)


def test_the_settings_hash_of_a_configuration_with_every_kind_of_record(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal, "__version__", "0.0")
    assert journal.settings_hash(SETTINGS) == "0a0725c6fd11f76b22cefcd6ccb3d4beaca1433d2d82711190425ac3f4b6835a"


def test_the_resources_fingerprint_of_a_configuration_with_every_kind_of_record() -> None:
    assert fingerprint(SETTINGS) == "a3d2bfe41cf3c830f0be2c5f3ca1e8aa76f4d89d15c0d243bd5d2ebdce07c1ea"
