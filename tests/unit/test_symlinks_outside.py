"""Catalogs that are symbolic links out of the project are neither read nor written unless allowed."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from pipeline.catalog_paths import discover, find_catalogs
from pipeline.cli import main
from pipeline.config import Settings
from pipeline.errors import ExitCode
from pipeline.run.report import write_reports
from tests.unit.test_run import HEADER, PLURALS, FakeService, project, run

HOSTILE = Path(__file__).resolve().parent.parent / "data" / "hostile_po"
SECRETS = ("SECRET_TOKEN", "abc123", "API_PASSWORD", "hunter2")


def _outside_catalog(tmp_path: Path) -> Path:
    outside = tmp_path / "elsewhere" / "de.po"
    outside.parent.mkdir()
    outside.write_text(HEADER.format(lang="de", plural=PLURALS["de"]) + 'msgid "Elsewhere"\nmsgstr ""\n',
                       encoding="utf-8")
    return outside


def _project(tmp_path: Path) -> tuple[Settings, Path]:
    root = tmp_path / "project"
    root.mkdir()
    return project(root), root / "locale" / "de" / "LC_MESSAGES"


def test_a_catalog_linked_out_of_the_project_is_reported_and_left_alone(tmp_path):
    settings, folder = _project(tmp_path)
    outside = _outside_catalog(tmp_path)
    before = outside.read_bytes()
    (folder / "linked.po").symlink_to(outside)
    service = FakeService()
    report = run(settings, service)
    assert report.exit_code == ExitCode.PARTIAL
    [issue] = [i for i in report.issues if i.severity == "error"]
    assert issue.catalog == "locale/de/LC_MESSAGES/linked.po" and "outside the project" in issue.reason
    assert "--follow-symlinks-outside" in issue.reason
    assert outside.read_bytes() == before
    assert service.requests and not any("Elsewhere" in t for r in service.requests for t in r["text"])


def test_the_flag_allows_a_link_out_of_the_project(tmp_path):
    settings, folder = _project(tmp_path)
    outside = _outside_catalog(tmp_path)
    (folder / "linked.po").symlink_to(outside)
    report = run(dataclasses.replace(settings, follow_symlinks_outside=True), FakeService())
    assert report.exit_code == ExitCode.OK, report.issues
    assert "[DE] Elsewhere" in outside.read_text(encoding="utf-8")


def test_links_inside_the_project_and_given_folders_are_followed(tmp_path):
    settings, folder = _project(tmp_path)
    shared = settings.root / "shared" / "de.po"
    shared.parent.mkdir()
    shutil.copy(folder / "app.po", shared)
    (folder / "shared.po").symlink_to(shared)
    found = find_catalogs(settings)
    assert found.refused == [] and shared.resolve() in found.paths
    outside = _outside_catalog(tmp_path)
    given = find_catalogs(settings, [outside.parent, outside])  # what the user names is theirs to translate
    assert given.refused == [] and given.paths == [outside.resolve()]


def test_a_given_file_that_links_out_of_the_project_is_refused(tmp_path):
    settings, folder = _project(tmp_path)
    (folder / "linked.po").symlink_to(_outside_catalog(tmp_path))
    found = find_catalogs(settings, [folder / "linked.po"])
    assert found.paths == [] and len(found.refused) == 1
    assert discover(settings, [folder / "linked.po"]) == []


def test_a_linked_secret_is_not_read_and_with_the_flag_not_quoted(tmp_path):
    settings, folder = _project(tmp_path)
    secret = tmp_path / "elsewhere" / "env.po"  # a .po suffix, so that with the flag it is parsed
    secret.parent.mkdir()
    shutil.copy(HOSTILE / "not_a_catalog_with_a_secret.po", secret)
    (folder / "secrets.po").symlink_to(secret)
    for follow in (False, True):
        report = run(dataclasses.replace(settings, follow_symlinks_outside=follow), FakeService())
        json_path, md_path = write_reports(report, tmp_path / f"report-{follow}")
        texts = str(report.issues) + json_path.read_text(encoding="utf-8") + md_path.read_text(encoding="utf-8")
        assert ("secrets.po" if not follow else "env.po") in texts
        for secret_text in SECRETS:
            assert secret_text not in texts
    assert secret.read_bytes() == (HOSTILE / "not_a_catalog_with_a_secret.po").read_bytes()


def test_check_reports_the_link_and_takes_the_flag(tmp_path, capsys, monkeypatch):
    settings, folder = _project(tmp_path)
    (folder / "linked.po").symlink_to(_outside_catalog(tmp_path))
    (settings.root / "pipeline.toml").write_text('catalogs = ["locale/*/LC_MESSAGES/*.po"]\n', encoding="utf-8")
    monkeypatch.chdir(settings.root)
    assert main(["check"]) == ExitCode.PARTIAL
    assert "linked.po: is a symbolic link to" in capsys.readouterr().out
    assert main(["check", "--follow-symlinks-outside"]) == ExitCode.OK
