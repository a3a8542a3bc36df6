"""A run over catalogs an attacker or an unlucky user wrote: each is reported with file:line, none is sent."""

from __future__ import annotations

import shutil
from pathlib import Path

from pipeline.errors import ExitCode
from tests.run_fakes import FakeService, project, run

HOSTILE = Path(__file__).resolve().parent.parent / "data" / "hostile_po"
REFUSED = {  # fixture -> line reported
    "plural_forms_nplurals_0.po": 8,
    "plural_forms_nplurals_100000.po": 8,
    "plural_forms_division_by_zero.po": 8,
    "plural_forms_picks_a_missing_form.po": 8,
    "refused_invalid_escape.po": 13,
    "refused_duplicate_msgid.po": 16,
    "refused_byte_order_mark.po": 1,
    "charset_not_a_text_encoding.po": 6,
    "not_a_catalog_with_a_secret.po": 1,
}


def test_refused_catalogs_are_reported_and_nothing_of_them_is_sent_or_written(tmp_path: Path) -> None:
    settings = project(tmp_path)
    folder = tmp_path / "locale" / "de" / "LC_MESSAGES"
    for name in REFUSED:
        shutil.copy(HOSTILE / name, folder / name)
    service = FakeService()
    report = run(settings, service)
    assert report.exit_code == ExitCode.PARTIAL
    errors = {Path(i.catalog).name: i.line for i in report.issues if i.severity == "error"}
    assert errors == REFUSED
    sent = [text for request in service.requests for text in request["text"]]
    assert sent and not any("file" in t and "%d" in t for t in sent)  # no plural entry of a refused catalog
    assert not any("Size" in t or "Path" in t for t in sent)
    for name in REFUSED:
        assert (folder / name).read_bytes() == (HOSTILE / name).read_bytes()
    assert "abc123" not in str(report.issues) and "SECRET" not in str(report.issues)


def test_a_misnamed_utf8_catalog_is_translated_as_utf8_with_a_warning(tmp_path: Path) -> None:
    settings = project(tmp_path, body="")
    path = tmp_path / "locale" / "de" / "LC_MESSAGES" / "app.po"
    shutil.copy(HOSTILE / "charset_header_latin1_but_bytes_utf8.po", path)
    service = FakeService()
    report = run(settings, service)
    assert report.exit_code == ExitCode.OK, report.issues
    assert sorted(t for r in service.requests for t in r["text"]) == ["Größe ändern", "Size"]
    assert [i.severity for i in report.issues] == ["warning"]
    path.read_bytes().decode("utf-8")  # one encoding in the whole file
    assert "[DE] Größe ändern" in path.read_text(encoding="utf-8")
