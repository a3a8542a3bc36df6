"""`pipeline translate` on a copy of sample_locales/ with the embedded service: what `make translate` does."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.cli import main
from tests.sample_project import SAMPLES, assert_translated_faithfully, copy_sample_project, expected_segments


def test_translate_sample_project_with_the_embedded_service(
    tmp_path: Path, msgfmt_check: Callable[[Path], None], capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_sample_project(tmp_path, "embedded")
    config = str(root / "pipeline.toml")
    assert main(["translate", "--config", config]) == 0
    captured = capsys.readouterr()
    assert "embedded local service" in captured.err
    filled = assert_translated_faithfully(root, msgfmt_check)
    report = json.loads((root / "report" / "report.json").read_text())
    totals = report["totals"]
    assert filled == 249  # untranslated entries in the eight sample catalogs (Irish: all 58)
    assert totals["segments_translated"] + totals["segments_copied"] == expected_segments(SAMPLES)
    assert totals["requests"] > 0 and totals["billed_characters"] > 0 and totals["segments_failed"] == 0
    assert {c["target_lang"] for c in report["catalogs"]} == {"DE", "FR", "PL", "AR", "JA", "PT-BR", "ZH-HANT", "GA"}
    irish = next(c for c in report["catalogs"] if c["target_lang"] == "GA")
    assert irish["segments_translated"] > 0 and irish["segments_failed"] == 0  # a beta language of the service
    assert (root / "report" / "report.md").read_text().startswith("## Translation run")

    snapshot = {p: p.read_bytes() for p in (root / "sample_locales").rglob("*.po")}
    assert main(["translate", "--config", config]) == 0
    again = json.loads((root / "report" / "report.json").read_text())
    assert again["totals"]["requests"] == 0 and again["totals"]["segments_translated"] == 0
    assert {p: p.read_bytes() for p in snapshot} == snapshot


def test_no_service_configured_exits_2_naming_both_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PIPELINE_SERVICE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["translate"]) == 2
    err = capsys.readouterr().err
    assert "--service-url" in err and "PIPELINE_SERVICE_URL" in err


def test_a_broken_catalog_exits_1_and_the_rest_is_translated(
    tmp_path: Path, msgfmt_check: Callable[[Path], None], capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_sample_project(tmp_path, "embedded")
    bad = root / "sample_locales" / "de" / "LC_MESSAGES" / "messages.po"
    lines = bad.read_text("utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.startswith('msgstr "') and len(line) > 12)
    lines[index] = lines[index].replace('msgstr "', "msgstr ", 1)
    bad.write_text("".join(lines), encoding="utf-8")
    before = bad.read_bytes()
    assert main(["translate", "--config", str(root / "pipeline.toml")]) == 1
    err = capsys.readouterr().err
    assert f"sample_locales/de/LC_MESSAGES/messages.po:{index + 1}: error:" in err
    assert bad.read_bytes() == before
    report = json.loads((root / "report" / "report.json").read_text())
    assert report["issues"][0]["line"] == index + 1
    fr = root / "sample_locales" / "fr" / "LC_MESSAGES" / "messages.po"
    assert fr.read_bytes() != (SAMPLES / "fr" / "LC_MESSAGES" / "messages.po").read_bytes()
    msgfmt_check(fr)
    assert not list(bad.parent.glob(".*.tmp"))


def test_the_command_sends_without_importing_httpx_own_command_line_or_uvicorn(tmp_path: Path) -> None:
    import importlib.util

    # Installed with uvicorn, a dependency: what httpx would pull in, and what only serve and review run.
    assert importlib.util.find_spec("click") is not None and importlib.util.find_spec("uvicorn") is not None
    root = copy_sample_project(tmp_path, "embedded")
    printed = _translate_in_a_fresh_process(
        root, "", "sorted(m for m in ('httpx', 'click', 'pygments', 'uvicorn') if m in sys.modules)"
    )
    assert printed == "['httpx']"  # the client's, and not its command line's, nor a server's


def test_a_one_catalog_embedded_run_loads_neither_the_document_worker_nor_the_test_faults_nor_a_closing_thread(
    tmp_path: Path,
) -> None:

    (tmp_path / "pipeline.toml").write_text('catalogs = ["*.po"]\n[service]\nurl = "embedded"\n', encoding="utf-8")
    catalog = 'msgid ""\nmsgstr "Language: de\\n"\n\nmsgid "Hello"\nmsgstr ""\n'
    (tmp_path / "de.po").write_text(catalog, encoding="utf-8")
    printed = _translate_in_a_fresh_process(
        tmp_path,
        "import threading; "
        "names = ('pipeline.service.app', 'pipeline.service.documents.jobs', 'pipeline.service.testing.faults'); "
        "started = []; start = threading.Thread.start; "
        "threading.Thread.start = lambda self: (started.append(self.name), start(self))[1]; ",
        "[m for m in names if m in sys.modules], started",
    )
    assert 'msgstr ""' not in (tmp_path / "de.po").read_text(encoding="utf-8").split('msgid "Hello"')[1]  # translated
    loaded, threads = printed.split("] [")
    assert loaded == "['pipeline.service.app'"  # the service answered; its document jobs and faults stayed unloaded
    assert "asyncio" not in threads and "_do_shutdown" not in threads  # closing it needed no thread of the loop's


def test_a_run_whose_targets_have_no_glossary_style_rules_nor_memory_loads_nothing_of_them_on_either_side(
    tmp_path: Path,
) -> None:
    (tmp_path / "pipeline.toml").write_text('catalogs = ["*.po"]\n[service]\nurl = "embedded"\n', encoding="utf-8")
    catalog = 'msgid ""\nmsgstr "Language: de\\n"\n\nmsgid "Hello"\nmsgstr ""\n'
    (tmp_path / "de.po").write_text(catalog, encoding="utf-8")
    unused = (
        "pipeline.resources.glossary_sync",  # the run's syncs
        "pipeline.resources.style_sync",
        "pipeline.service.api.glossaries",  # the service's endpoints
        "pipeline.service.api.style_rules",
        "pipeline.service.api.memories",
        "pipeline.service.store.glossaries",  # their stores
        "pipeline.service.store.styles",
        "pipeline.service.engine.tm_match",  # the memory matcher
    )
    printed = _translate_in_a_fresh_process(tmp_path, "", f"[m for m in {unused!r} if m in sys.modules]")
    assert 'msgstr ""' not in (tmp_path / "de.po").read_text(encoding="utf-8").split('msgid "Hello"')[1]  # translated
    assert printed == "[]"


def _translate_in_a_fresh_process(cwd: Path, setup: str, printed_at_exit: str) -> str:
    """``pipeline translate --quiet`` in ``cwd`` as a fresh process, after ``setup`` (Python statements);
    what ``print(printed_at_exit)`` shows as the process exits. The run must succeed."""
    import subprocess
    import sys

    probe = (
        f"import atexit, sys; from pipeline.cli import run; {setup}"
        f"atexit.register(lambda: print({printed_at_exit})); "
        "sys.argv = ['pipeline', 'translate', '--quiet']; run()"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()
