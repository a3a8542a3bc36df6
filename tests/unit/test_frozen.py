"""``--frozen``: the CI check. Sends nothing, writes nothing; exit 5 with a list when a run would change a catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import ExitCode

HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {lang}\\n"\n\n'
BODY = 'msgid "Open the file"\nmsgstr ""\n\nmsgid "Done"\nmsgstr "Fertig"\n\nmsgid "%(name)s"\nmsgstr ""\n'
TEMPLATE = (
    HEADER.format(lang="") + 'msgid "Open the file"\nmsgstr ""\n\nmsgid "Done"\nmsgstr ""\n\n'
    'msgid "%(name)s"\nmsgstr ""\n'
)


def project(tmp_path: Path, langs: tuple[str, ...] = ("de", "fr"), service: str | None = "embedded") -> Path:
    root = tmp_path / "project"
    (root / "locale").mkdir(parents=True)
    for lang in langs:
        (root / "locale" / f"{lang}.po").write_text(HEADER.format(lang=lang) + BODY, encoding="utf-8")
    (root / "locale" / "messages.pot").write_text(TEMPLATE, encoding="utf-8")
    service_table = f'[service]\nurl = "{service}"\n' if service else ""
    (root / "pipeline.toml").write_text(
        f'source_lang = "en"\ncatalogs = ["locale/*.po"]\n{service_table}[refresh]\ntemplate = "locale/messages.pot"\n',
        encoding="utf-8",
    )
    return root


def snapshot(root: Path, cache_home: Path) -> dict[Path, bytes]:
    """Every file of the project and of the user's cache folder (the translation cache's database by name only:
    the cache library rewrites its settings row whenever it opens one, adding or changing no translation)."""
    return {
        p: b"" if p.name == "cache.db" and p.is_relative_to(cache_home) else p.read_bytes()
        for folder in (root, cache_home)
        for p in folder.rglob("*")
        if p.is_file()
    }


def frozen(root: Path, command: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main([command, "--frozen", "--config", str(root / "pipeline.toml")])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_translate_frozen_lists_the_work_and_exits_5_without_sending_or_writing(
    tmp_path: Path, user_cache_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, service=None)  # no service, no key: a CI check needs neither
    monkeypatch.delenv("PIPELINE_SERVICE_URL", raising=False)
    before = snapshot(root, user_cache_home)
    code, output = frozen(root, "translate", capsys)
    assert code == ExitCode.PENDING == 5
    assert snapshot(root, user_cache_home) == before
    lines = {line.split()[0]: line for line in output.splitlines() if line.startswith("locale/")}
    assert set(lines) == {"locale/de.po", "locale/fr.po"}
    # Two entries each: one to translate (13 billed characters), one copied as is (only a placeholder).
    assert "DE" in lines["locale/de.po"] and "2 segments" in lines["locale/de.po"]
    assert "13 characters" in lines["locale/de.po"]
    assert "26 characters" in output  # the total


def test_translate_frozen_exits_0_after_a_run_and_5_again_after_a_new_string(
    tmp_path: Path, user_cache_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    assert main(["translate", "--quiet", "--config", str(root / "pipeline.toml")]) == 0
    capsys.readouterr()
    before = snapshot(root, user_cache_home)
    code, output = frozen(root, "translate", capsys)
    assert code == ExitCode.OK and "nothing to translate" in output
    assert snapshot(root, user_cache_home) == before

    with (root / "locale" / "de.po").open("a", encoding="utf-8") as handle:
        handle.write('\nmsgid "Save"\nmsgstr ""\n')
    before = snapshot(root, user_cache_home)
    code, output = frozen(root, "translate", capsys)
    assert code == ExitCode.PENDING and "locale/de.po" in output and "locale/fr.po" not in output
    assert "1 segments" in output and "4 characters" in output
    assert snapshot(root, user_cache_home) == before


def test_translations_the_cache_already_has_still_count_they_would_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, langs=("de",))
    assert main(["translate", "--quiet", "--config", str(root / "pipeline.toml")]) == 0
    capsys.readouterr()
    (root / "locale" / "de.po").write_text(HEADER.format(lang="de") + BODY, encoding="utf-8")  # undone by hand
    code, output = frozen(root, "translate", capsys)
    assert code == ExitCode.PENDING and "2 segments" in output and "0 characters" in output


def test_refresh_frozen_lists_what_the_merge_would_change(
    tmp_path: Path, user_cache_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    assert main(["refresh", "--quiet", "--config", str(root / "pipeline.toml")]) == 0
    capsys.readouterr()
    code, output = frozen(root, "refresh", capsys)
    assert code == ExitCode.OK and "nothing to" in output

    with (root / "locale" / "messages.pot").open("a", encoding="utf-8") as handle:
        handle.write('\nmsgid "Quit"\nmsgstr ""\n')
    before = snapshot(root, user_cache_home)
    code, output = frozen(root, "refresh", capsys)
    assert code == ExitCode.PENDING
    assert snapshot(root, user_cache_home) == before
    merged = [line for line in output.splitlines() if "merge" in line]
    assert any("locale/de.po" in line and "1 added" in line for line in merged), output
    assert any("locale/fr.po" in line and "1 added" in line for line in merged), output


def test_an_unreadable_catalog_is_exit_1_even_when_frozen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, langs=("de",))
    (root / "locale" / "de.po").write_text(HEADER.format(lang="de") + 'msgid "Open\nmsgstr ""\n', encoding="utf-8")
    code, output = frozen(root, "translate", capsys)
    assert code == ExitCode.PARTIAL and "locale/de.po" in output


def test_frozen_without_a_service_estimates_from_the_cache_of_the_last_run(
    tmp_path: Path, user_cache_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PIPELINE_SERVICE_URL", raising=False)
    root = project(tmp_path, langs=("de",), service=None)  # the CI check names no service
    config = str(root / "pipeline.toml")
    assert main(["translate", "--quiet", "--service-url", "embedded", "--config", config]) == 0
    capsys.readouterr()
    (root / "locale" / "de.po").write_text(HEADER.format(lang="de") + BODY, encoding="utf-8")  # undone by hand
    code, output = frozen(root, "translate", capsys)
    assert code == ExitCode.PENDING and "2 segments" in output and "0 characters" in output


def test_what_the_last_run_refused_is_reported_and_frozen_exits_as_that_run_did(tmp_path: Path) -> None:
    from tests.run_fakes import FakeService, run
    from tests.run_fakes import project as run_project

    settings = run_project(tmp_path)
    refused = run(settings, FakeService(mangle=True))  # the service drops placeholders: the gate refuses them
    assert refused.exit_code == ExitCode.PARTIAL
    reasons = sorted(i.reason for i in refused.issues if i.severity == "error")
    assert reasons

    check = run(settings, FakeService(), dry_run=True, frozen=True)
    assert check.exit_code == ExitCode.PARTIAL  # as the real run exited, not 5: no run would get further
    assert check.would_write == [] and sorted(i.reason for i in check.issues if i.severity == "error") == reasons

    service = FakeService()
    again = run(settings, service)  # a real run tries the refused units again
    assert again.exit_code == ExitCode.OK and service.requests
    assert run(settings, FakeService(), dry_run=True, frozen=True).exit_code == ExitCode.OK


def test_refresh_without_a_template_does_not_count_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], user_cache_home: Path
) -> None:
    root = project(tmp_path, langs=("de",))
    (root / "locale" / "messages.pot").unlink()
    (root / "pipeline.toml").write_text(
        'source_lang = "en"\ncatalogs = ["locale/*.po"]\n[service]\nurl = "embedded"\n', encoding="utf-8"
    )
    main(["refresh", "--config", str(root / "pipeline.toml")])
    out = capsys.readouterr()
    assert "0 of 0" not in out.out + out.err


def test_the_usage_note_is_said_once(capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.cli.commands.reports import print_usage
    from pipeline.run.quota import UsageRecord
    from pipeline.run.records import RunReport

    report = RunReport(service="x", dry_run=False, usage=UsageRecord(note="the account's usage could not be read"))
    print_usage(report)  # the run said it while it went on
    assert capsys.readouterr().err == ""
