"""A run and length limits: over the limit, asked for again with an instruction; still over, marked or refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.config import ServiceSettings, Settings, load_settings
from pipeline.errors import ExitCode
from pipeline.model import Severity
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import RunReport
from pipeline.run.send.length import INSTRUCTION
from tests.run_fakes import FakeService

LONG = "Save the changes to your profile"  # 32 characters
HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset={charset}\\n"\n"Language: {lang}\\n"\n\n'


def catalog(root: Path, lang: str, body: str, charset: str = "UTF-8", name: str = "app.po") -> Path:
    path = root / "locale" / lang / "LC_MESSAGES" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((HEADER.format(charset=charset, lang=lang) + body).encode(charset))
    return path


def embedded(root: Path, **fields: Any) -> Settings:
    return Settings(
        root=root,
        catalogs=("locale/*/LC_MESSAGES/*.po",),
        service=ServiceSettings(url="embedded"),
        cache_dir=root / "cache",
        **fields,
    )


def run(settings: Settings, service: FakeService | None = None, **options: Any) -> RunReport:
    factory = service.factory() if service is not None else None
    return run_translate(settings, RunOptions(**options), log=lambda m: None, client_factory=factory)


@pytest.mark.parametrize(
    ("lang", "charset"), [("de", "UTF-8"), ("de", "ISO-8859-1"), ("ja", "EUC-JP"), ("fr", "ISO-8859-15")]
)
def test_a_translation_over_its_limit_is_asked_for_again_and_written_within_it(
    tmp_path: Path, msgfmt_check: Callable[[Path], None], lang: str, charset: str
) -> None:
    path = catalog(tmp_path, lang, f'#, max-length:14\nmsgid "{LONG}"\nmsgstr ""\n', charset)
    report = run(embedded(tmp_path))
    assert report.exit_code == ExitCode.OK, report.issues
    [unit] = read_catalog(path).units
    assert 0 < len(unit.targets[0]) <= 14 and unit.state is UnitState.FUZZY
    msgfmt_check(path)
    totals = report.totals
    assert (totals.segments_translated, totals.length_retried, totals.length_over, totals.requests) == (1, 1, 0, 2)
    assert "pipeline:" not in path.read_bytes().decode(charset)  # within its limit: no note
    written = path.read_bytes()
    catalog(tmp_path, lang, f'#, max-length:14\nmsgid "{LONG}"\nmsgstr ""\n', charset)
    again = run(embedded(tmp_path))
    assert again.totals.requests == 0 and path.read_bytes() == written  # both answers come from the cache


def test_placeholders_count_as_written_not_as_sent(tmp_path: Path) -> None:
    body = f'#, python-format, max-length:24\nmsgid "%(name)s: {LONG}"\nmsgstr ""\n'
    path = catalog(tmp_path, "de", body)
    run(embedded(tmp_path))
    [unit] = read_catalog(path).units
    assert unit.targets[0].startswith("%(name)s") and len(unit.targets[0]) <= 24


def test_a_target_without_custom_instructions_is_written_over_its_limit_marked_for_review(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    path = catalog(tmp_path, "pl", f'#, max-length:14\nmsgid "{LONG}"\nmsgstr ""\n', "ISO-8859-2")
    report = run(embedded(tmp_path, mark_fuzzy=False))
    assert report.exit_code == ExitCode.OK
    assert (report.totals.requests, report.totals.length_retried, report.totals.length_over) == (1, 0, 1)
    msgfmt_check(path)
    text = path.read_bytes().decode("iso-8859-2")
    assert "# pipeline: the translation has 32 characters, over the limit of 14 (max-length:14)\n#, fuzzy" in text
    [warning] = report.issues
    assert warning.severity is Severity.WARNING and "over the limit of 14" in warning.reason


def test_over_length_refuse_leaves_the_unit_untranslated_and_the_catalog_settled(tmp_path: Path) -> None:
    path = catalog(tmp_path, "pl", f'#, max-length:14\nmsgid "{LONG}"\nmsgstr ""\n\nmsgid "Open"\nmsgstr ""\n')
    settings = embedded(tmp_path, over_length="refuse")
    report = run(settings)
    assert report.exit_code == ExitCode.OK and report.totals.length_refused == 1
    [refused] = [i for i in report.issues if i.severity is Severity.SKIPPED]
    assert refused.line == 7 and "over_length is 'refuse'" in refused.reason
    units = read_catalog(path).units
    assert [u.state for u in units] == [UnitState.UNTRANSLATED, UnitState.FUZZY]
    again = run(settings)
    assert again.unchanged_catalogs == 1 and [i.reason for i in again.issues] == [refused.reason]


def test_the_retry_carries_the_instruction_leaves_the_classic_model_out_and_keeps_the_shorter_answer(
    tmp_path: Path,
) -> None:
    (tmp_path / "pipeline.toml").write_text(
        'catalogs = ["locale/*/LC_MESSAGES/*.po"]\n[service]\nurl = "http://fake.invalid"\n'
        '[cache]\ndir = "cache"\n[locale_defaults]\nmodel_type = "latency_optimized"\n'
    )
    path = catalog(tmp_path, "de", f'#, max-length:14\nmsgid "{LONG}"\nmsgstr ""\n')
    service = FakeService()  # answers "[DE] " + the text, whatever the instructions say: still over
    report = run(load_settings(tmp_path / "pipeline.toml"), service)
    first, retry = service.requests
    assert first["model_type"] == "latency_optimized" and "custom_instructions" not in first
    assert retry["custom_instructions"] == [INSTRUCTION.format(n=14)] and "model_type" not in retry
    assert (report.totals.length_retried, report.totals.length_over) == (1, 1)
    assert report.totals.billed_characters == 2 * len(LONG)
    [unit] = read_catalog(path).units
    assert unit.targets == (f"[DE] {LONG}",)
    assert "# pipeline: the translation has 37 characters" in path.read_text("utf-8")


def test_a_failed_retry_keeps_the_first_answer_with_a_warning(tmp_path: Path) -> None:
    path = catalog(tmp_path, "de", f'#, max-length:14\nmsgid "{LONG}"\nmsgstr ""\n')
    settings = embedded(tmp_path)._replace(service=ServiceSettings(url="http://fake.invalid"))
    report = run(settings, FakeService(fail_with={2: 400}))
    assert report.exit_code == ExitCode.OK, report.issues
    assert report.totals.segments_failed == 0 and report.totals.length_over == 1
    assert any("the first one is kept" in i.reason and i.severity is Severity.WARNING for i in report.issues)
    assert read_catalog(path).units[0].targets == (f"[DE] {LONG}",)


def test_no_retry_when_the_placeholders_alone_fill_the_limit(tmp_path: Path) -> None:
    path = catalog(tmp_path, "de", '#, python-format, max-length:17\nmsgid " By %(filter_title)s "\nmsgstr ""\n')
    report = run(embedded(tmp_path))
    assert (report.totals.requests, report.totals.length_retried, report.totals.length_over) == (1, 0, 1)
    assert "over the limit of 17" in path.read_text("utf-8")
