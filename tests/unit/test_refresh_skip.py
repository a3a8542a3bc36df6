"""``pipeline refresh`` with nothing to do: what the last refresh settled is skipped unread, and nothing else.

A catalog is skipped by the merge only while its bytes and its template's hash as the last merge
left them, and by the translation only while a refresh with the same settings and glossary files
settled it. Each test changes one input and checks that the catalogs it touches are merged or read again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import pipeline.workflows.merge as merge_step
from pipeline.catalogs.merge import MergeResult, Template, merge_read
from pipeline.cli import main
from pipeline.config import load_settings
from pipeline.run.records import RunReport
from pipeline.workflows.merge import MergeOutcome
from pipeline.workflows.refresh import refresh
from tests.sample_project import copy_sample_project

CATALOGS = 8  # the sample project's PO catalogs


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The sample project after a first refresh (merged, translated, settled), and its second (merged again)."""
    root = copy_sample_project(tmp_path, "embedded")
    for _ in range(2):  # the first writes translations into every catalog; the second merges those bytes
        _, report = _refresh(root)
        assert report is not None and report.exit_code == 0
    return root


@pytest.fixture
def merged(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the catalogs the merge step parses and merges."""
    names: list[str] = []

    def spy(path: Path, raw: bytes | None, template: Template) -> MergeResult:
        names.append(f"{path.parent.parent.name}/{path.name}")
        return merge_read(path, raw, template)

    monkeypatch.setattr(merge_step, "merge_read", spy)
    return names


def _refresh(root: Path, frozen: bool = False) -> tuple[MergeOutcome, RunReport | None]:
    return refresh(load_settings(root / "pipeline.toml"), frozen=frozen)


def _catalog(root: Path, lang: str) -> Path:
    return root / "sample_locales" / lang / "LC_MESSAGES" / "messages.po"


def test_a_refresh_with_nothing_to_do_merges_and_reads_nothing(project: Path, merged: list[str]) -> None:
    before = {p: p.read_bytes() for p in (project / "sample_locales").rglob("*.po")}
    outcome, report = _refresh(project)
    assert merged == []
    assert report is not None and report.exit_code == 0 and report.unchanged_catalogs == CATALOGS
    assert len(outcome.catalogs) == CATALOGS and not any(c.written for c in outcome.catalogs)
    assert {p: p.read_bytes() for p in before} == before


def test_an_edited_template_is_merged_into_every_catalog_and_translated(project: Path, merged: list[str]) -> None:
    pot = project / "sample_locales" / "messages.pot"
    pot.write_text(pot.read_text(encoding="utf-8") + '\nmsgid "Nightly builds are ready"\nmsgstr ""\n')
    outcome, report = _refresh(project)
    assert len(merged) == CATALOGS and all(c.written and c.added == 1 for c in outcome.catalogs)
    assert report is not None and report.unchanged_catalogs == 0
    assert report.totals.segments_translated >= CATALOGS
    merged.clear()
    _, report = _refresh(project)  # and once more: the merge is settled again (translations written since)
    _, report = _refresh(project)
    assert report is not None and report.unchanged_catalogs == CATALOGS


def test_a_catalog_edited_with_its_size_and_mtime_kept_is_merged_and_read_again(
    project: Path, merged: list[str]
) -> None:
    de = _catalog(project, "de")
    stat = de.stat()
    text = de.read_bytes()
    assert text.count(b'msgstr "Teilen"') >= 1
    de.write_bytes(text.replace(b'msgstr "Teilen"', b'msgstr "Teilem"', 1))
    os.utime(de, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (de.stat().st_size, de.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)
    _, report = _refresh(project)
    assert merged == ["de/messages.po"]
    assert report is not None and report.unchanged_catalogs == CATALOGS - 1


def test_another_configured_template_is_merged(project: Path, merged: list[str]) -> None:
    other = project / "other.pot"
    pot = (project / "sample_locales" / "messages.pot").read_text(encoding="utf-8")
    other.write_text(pot + '\nmsgid "Only in the other template"\nmsgstr ""\n', encoding="utf-8")
    config = project / "pipeline.toml"
    config.write_text(config.read_text(encoding="utf-8") + '[refresh]\ntemplate = "other.pot"\n', encoding="utf-8")
    outcome, report = _refresh(project)
    assert len(merged) == CATALOGS and all(c.template == "other.pot" and c.added == 1 for c in outcome.catalogs)
    assert report is not None and report.unchanged_catalogs == 0  # another setting: nothing settled under it


def test_a_setting_that_changes_the_translation_reads_every_catalog_again(project: Path, merged: list[str]) -> None:
    config = project / "pipeline.toml"
    config.write_text(config.read_text(encoding="utf-8") + "[translate]\nmark_fuzzy = false\n", encoding="utf-8")
    _, report = _refresh(project)
    assert merged == []  # the merge depends on the catalogs and the templates alone
    assert report is not None and report.unchanged_catalogs == 0


def test_an_edited_glossary_file_reads_every_catalog_again(tmp_path: Path, merged: list[str]) -> None:
    root = copy_sample_project(tmp_path, "embedded")
    glossary = root / "terms.tsv"
    glossary.write_text("Trash\tPapierkorb\n", encoding="utf-8")
    config = root / "pipeline.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + '[locales.de]\nglossaries = ["terms.tsv"]\n', encoding="utf-8"
    )
    for _ in range(2):
        _refresh(root)
    _, report = _refresh(root)
    assert report is not None and report.unchanged_catalogs == CATALOGS
    glossary.write_text("Trash\tMülleimer\n", encoding="utf-8")  # machine translations using it are stale now
    _, report = _refresh(root)
    assert report is not None and report.unchanged_catalogs == 0


def test_a_translate_run_skips_what_a_refresh_settled_and_a_refresh_what_it_wrote(
    project: Path, merged: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    de = _catalog(project, "de")
    de.write_bytes(de.read_bytes() + b'\nmsgid "A string added by hand"\nmsgstr ""\n')
    assert main(["translate", "-q"]) == 0
    translated = json.loads((project / "report" / "report.json").read_text(encoding="utf-8"))
    assert translated["unchanged_catalogs"] == CATALOGS - 1 and translated["totals"]["segments_translated"] >= 1
    _, report = _refresh(project)
    assert merged == ["de/messages.po"]  # its bytes changed: merged again (the string is not in the template)
    assert report is not None and report.unchanged_catalogs == CATALOGS - 1


def test_frozen_refresh_skips_what_is_settled_and_saves_nothing(project: Path, merged: list[str]) -> None:
    state = project / ".cache" / "state.json"
    before = state.read_bytes()
    outcome, report = _refresh(project, frozen=True)
    assert merged == [] and report is not None and report.exit_code == 0
    assert state.read_bytes() == before


def test_a_damaged_merge_record_is_merged_again(project: Path, merged: list[str]) -> None:
    state = project / ".cache" / "state.json"
    data = json.loads(state.read_text(encoding="utf-8"))
    assert len(data["merged"]) == CATALOGS
    data["merged"]["sample_locales/de/LC_MESSAGES/messages.po"]["sha256"] = 7
    data["merged"]["sample_locales/fr/LC_MESSAGES/messages.po"] = "nonsense"
    state.write_text(json.dumps(data), encoding="utf-8")
    _refresh(project)
    assert sorted(merged) == ["de/messages.po", "fr/messages.po"]
