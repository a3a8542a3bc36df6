"""Discovery under attack: links out of the project, folders named like catalogs, read-only catalogs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.catalog_paths import discover, find_catalogs
from pipeline.cli import main
from pipeline.config import Settings
from pipeline.errors import ExitCode
from pipeline.run.report import write_reports
from tests.run_fakes import HEADER, PLURALS, FakeService, project, run

HOSTILE = Path(__file__).resolve().parent.parent / "data" / "hostile_po"
SECRETS = ("SECRET_TOKEN", "abc123", "API_PASSWORD", "hunter2")


def _outside_catalog(tmp_path: Path) -> Path:
    outside = tmp_path / "elsewhere" / "de.po"
    outside.parent.mkdir()
    outside.write_text(
        HEADER.format(lang="de", plural=PLURALS["de"]) + 'msgid "Elsewhere"\nmsgstr ""\n', encoding="utf-8"
    )
    return outside


def _project(tmp_path: Path) -> tuple[Settings, Path]:
    root = tmp_path / "project"
    root.mkdir()
    return project(root), root / "locale" / "de" / "LC_MESSAGES"


def test_a_catalog_linked_out_of_the_project_is_reported_and_left_alone(tmp_path: Path) -> None:
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


def test_the_flag_allows_a_link_out_of_the_project(tmp_path: Path) -> None:
    settings, folder = _project(tmp_path)
    outside = _outside_catalog(tmp_path)
    (folder / "linked.po").symlink_to(outside)
    report = run(settings._replace(follow_symlinks_outside=True), FakeService())
    assert report.exit_code == ExitCode.OK, report.issues
    assert "[DE] Elsewhere" in outside.read_text(encoding="utf-8")


def test_links_inside_the_project_and_given_folders_are_followed(tmp_path: Path) -> None:
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


def test_a_linked_folder_is_followed_to_where_it_leads(tmp_path: Path) -> None:
    settings, folder = _project(tmp_path)
    outside = tmp_path / "elsewhere" / "fr"
    (outside / "LC_MESSAGES").mkdir(parents=True)
    shutil.copy(folder / "app.po", outside / "LC_MESSAGES" / "app.po")
    (settings.root / "locale" / "fr").symlink_to(outside, target_is_directory=True)  # leaves the project
    (settings.root / "locale" / "de-alias").symlink_to(folder.parent, target_is_directory=True)  # stays inside
    found = find_catalogs(settings)
    assert found.paths == [(folder / "app.po").resolve()]  # one catalog, however many ways lead to it
    assert [(i.catalog, "outside the project" in i.reason) for i in found.refused] == [
        ("locale/fr/LC_MESSAGES/app.po", True)
    ]


def test_a_given_file_that_links_out_of_the_project_is_refused(tmp_path: Path) -> None:
    settings, folder = _project(tmp_path)
    (folder / "linked.po").symlink_to(_outside_catalog(tmp_path))
    found = find_catalogs(settings, [folder / "linked.po"])
    assert found.paths == [] and len(found.refused) == 1
    assert discover(settings, [folder / "linked.po"]) == []


def test_a_linked_secret_is_not_read_and_with_the_flag_not_quoted(tmp_path: Path) -> None:
    settings, folder = _project(tmp_path)
    secret = tmp_path / "elsewhere" / "env.po"  # a .po suffix, so that with the flag it is parsed
    secret.parent.mkdir()
    shutil.copy(HOSTILE / "not_a_catalog_with_a_secret.po", secret)
    (folder / "secrets.po").symlink_to(secret)
    for follow in (False, True):
        report = run(settings._replace(follow_symlinks_outside=follow), FakeService())
        json_path, md_path = write_reports(report, tmp_path / f"report-{follow}")
        texts = str(report.issues) + json_path.read_text(encoding="utf-8") + md_path.read_text(encoding="utf-8")
        assert ("secrets.po" if not follow else "env.po") in texts
        for secret_text in SECRETS:
            assert secret_text not in texts
    assert secret.read_bytes() == (HOSTILE / "not_a_catalog_with_a_secret.po").read_bytes()


def test_check_reports_the_link_and_takes_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, folder = _project(tmp_path)
    (folder / "linked.po").symlink_to(_outside_catalog(tmp_path))
    (settings.root / "pipeline.toml").write_text('catalogs = ["locale/*/LC_MESSAGES/*.po"]\n', encoding="utf-8")
    monkeypatch.chdir(settings.root)
    assert main(["check"]) == ExitCode.PARTIAL
    assert "linked.po: is a symbolic link to" in capsys.readouterr().out
    assert main(["check", "--follow-symlinks-outside"]) == ExitCode.OK


def test_a_loop_of_links_named_like_catalogs_is_reported_and_the_others_are_translated(tmp_path: Path) -> None:
    settings, folder = _project(tmp_path)
    (folder / "loop1.po").symlink_to("loop2.po")
    (folder / "loop2.po").symlink_to("loop1.po")
    found = find_catalogs(settings)
    assert [(i.catalog, i.reason) for i in found.refused] == [
        (f"locale/de/LC_MESSAGES/{name}", "is a symbolic link that leads back to itself: neither read nor written")
        for name in ("loop1.po", "loop2.po")
    ]
    assert found.paths == [(folder / "app.po").resolve()]
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.PARTIAL
    assert report.totals.segments_translated > 0


def test_a_dangling_link_among_the_catalogs_is_named_as_the_link_with_what_it_points_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `pipeline check` said "shared/fr.po: error: cannot read: No such file or directory", a file the
    # user never wrote down: the link locale/de/LC_MESSAGES/fr.po, pointing there, was not named.
    settings, folder = _project(tmp_path)
    (folder / "gone.po").symlink_to("../../../shared/gone.po")
    found = find_catalogs(settings)
    assert [(i.catalog, i.reason) for i in found.refused] == [
        (
            "locale/de/LC_MESSAGES/gone.po",
            "is a symbolic link to ../../../shared/gone.po, which does not exist: not read",
        )
    ]
    assert found.paths == [(folder / "app.po").resolve()]
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.PARTIAL and report.totals.segments_translated > 0
    (settings.root / "pipeline.toml").write_text('catalogs = ["locale/*/LC_MESSAGES/*.po"]\n', encoding="utf-8")
    monkeypatch.chdir(settings.root)
    assert main(["check"]) == ExitCode.PARTIAL
    out = capsys.readouterr().out
    assert "locale/de/LC_MESSAGES/gone.po: is a symbolic link to ../../../shared/gone.po" in out
    assert "shared/gone.po: error" not in out


def test_a_folder_named_like_a_catalog_is_reported(tmp_path: Path) -> None:
    settings, folder = _project(tmp_path)
    (folder / "odd.po").mkdir()
    (folder / "odd.po" / "inner.txt").write_text("not a catalog", encoding="utf-8")
    for given in ((), (settings.root,)):
        found = find_catalogs(settings, given)
        assert [(i.catalog, i.reason, i.severity) for i in found.refused] == [
            ("locale/de/LC_MESSAGES/odd.po", "is a folder named like a catalog: not read", "warning")
        ]
        assert found.paths == [(folder / "app.po").resolve()]
    report = run(settings, FakeService())
    assert report.exit_code == ExitCode.OK and "odd.po" in str(report.issues)


def test_a_read_only_catalog_is_reported_and_left_alone(tmp_path: Path) -> None:
    settings, folder = _project(tmp_path)
    locked = folder / "locked.po"
    locked.write_text(
        HEADER.format(lang="de", plural=PLURALS["de"]) + 'msgid "Locked only"\nmsgstr ""\n', encoding="utf-8"
    )
    locked.chmod(0o444)
    before = locked.read_bytes()
    service = FakeService()
    report = run(settings, service)
    assert report.exit_code == ExitCode.PARTIAL
    [issue] = [i for i in report.issues if i.severity == "error"]
    assert issue.catalog == "locale/de/LC_MESSAGES/locked.po" and "read-only" in issue.reason
    assert locked.read_bytes() == before and locked.stat().st_mode & 0o777 == 0o444
    assert service.requests and not any("Locked only" in t for r in service.requests for t in r["text"])
    assert find_catalogs(settings, writing=False).refused == []  # `pipeline check` reads it as usual


def test_the_writer_refuses_to_replace_a_read_only_file(tmp_path: Path) -> None:
    from pipeline.files.atomic import atomic_write

    path = tmp_path / "de.po"
    path.write_bytes(b"old")
    path.chmod(0o444)
    with pytest.raises(PermissionError, match="read-only"):
        atomic_write(path, b"new")
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["de.po"]
