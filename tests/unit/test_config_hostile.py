"""A configuration nobody should have written is one line naming the file and the key, exit 2, never a traceback.

Each case is run through the whole command (``translate --dry-run``, or ``init``): the message
must be the only line on stderr, name the file (or folder) and the key, and the exit status 2.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pipeline.catalog_paths import _compile
from pipeline.cli import main
from pipeline.config import glob_problem
from pipeline.errors import ExitCode

LONG_URL = "http://" + "a" * 70_000 + ".example/"

#: (name, file, content, the key the message names): the audit's cases, then ours.
FILES = [
    ("not-utf8", "pipeline.toml", b'catalogs = ["caf\xe9/*.po"]\n', "line 1"),
    ("catalogs-int", "pipeline.toml", b"catalogs = [1]\n", "catalogs[0]"),
    ("exclude-int", "pipeline.toml", b"exclude = [1]\n", "exclude[0]"),
    ("target-langs-int", "pipeline.toml", b"target_langs = [1]\n", "target_langs[0]"),
    ("bad-range", "pipeline.toml", b'catalogs = ["[z-a]"]\n', "catalogs[0]"),
    ("deep-array", "pipeline.toml", b"a = " + b"[" * 3000 + b"]" * 3000 + b"\n", "nested"),
    ("tool-int", "pyproject.toml", b"tool = 1\n", "tool"),
    ("tool-pipeline-int", "pyproject.toml", b"[tool]\npipeline = 1\n", "tool.pipeline"),
    ("url-bracket", "pipeline.toml", b'[service]\nurl = "http://[::1"\n', "service.url"),
    ("url-two-ports", "pipeline.toml", b'[service]\nurl = "http://127.0.0.1:1:2"\n', "service.url"),
    ("url-long", "pipeline.toml", f'[service]\nurl = "{LONG_URL}"\n'.encode(), "service.url"),
    # Beyond the audit: what else a file can hold that the run would only meet later.
    ("url-nul", "pipeline.toml", b'[service]\nurl = "http://exa\\u0000mple/"\n', "service.url"),
    ("url-ftp", "pipeline.toml", b'[service]\nurl = "ftp://example/"\n', "service.url"),
    ("compendia-range", "pipeline.toml", b'[translate]\ncompendia = ["[z-a].po"]\n', "translate.compendia[0]"),
    ("exclude-range", "pipeline.toml", b'exclude = ["po/[z-a]"]\n', "exclude[0]"),
    ("languages-range", "pipeline.toml", b'[translate]\nlanguages = { "[z-a]" = "de" }\n', "translate.languages"),
    ("catalogs-nul", "pipeline.toml", b'catalogs = ["a\\u0000/*.po"]\n', "catalogs[0]"),
    ("cache-dir-nul", "pipeline.toml", b'[cache]\ndir = "a\\u0000"\n', "cache.dir"),
    ("report-dir-nul", "pipeline.toml", b'[report]\ndir = "a\\u0000"\n', "report.dir"),
    ("template-nul", "pipeline.toml", b'[refresh]\ntemplate = "a\\u0000.pot"\n', "refresh.template"),
    ("timeout-nan", "pipeline.toml", b"[service]\ntimeout = nan\n", "service.timeout"),
    ("timeout-zero", "pipeline.toml", b"[service]\ntimeout = 0\n", "service.timeout"),
    ("concurrency-huge", "pipeline.toml", b"[service]\nconcurrency = 100000000000\n", "service.concurrency"),
    ("attempts-huge", "pipeline.toml", b"[service]\nmax_attempts = 100000000000\n", "service.max_attempts"),
    ("tag-newline", "pipeline.toml", b'[service]\nreporting_tag = "a\\nX-Evil: 1"\n', "service.reporting_tag"),
    ("tag-not-ascii", "pipeline.toml", b'[service]\nreporting_tag = "caf\\u00e9"\n', "service.reporting_tag"),
]


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1, captured.err[-3000:]
    assert "Traceback" not in captured.err + captured.out
    return lines[0]


@pytest.mark.parametrize(("name", "file", "content", "key"), FILES, ids=[case[0] for case in FILES])
def test_a_hostile_config_file_is_one_line_naming_the_file_and_key(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    file: str,
    content: bytes,
    key: str,
) -> None:
    monkeypatch.delenv("PIPELINE_SERVICE_URL", raising=False)
    (tmp_path / file).write_bytes(content)
    monkeypatch.chdir(tmp_path)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default, as the command runs with it (a test tool may raise it)
    try:
        assert main(["translate", "--dry-run"]) == ExitCode.USAGE
    finally:
        sys.setrecursionlimit(limit)
    line = _one_line(capsys)
    assert str(tmp_path / file) in line and key in line, line
    if name.startswith("url-long"):
        assert len(line) < 1000  # the URL is not quoted whole


@pytest.mark.parametrize(
    ("where", "url"), [("PIPELINE_SERVICE_URL", "http://[::1"), ("--service-url", "http://127.0.0.1:1:2")]
)
def test_a_bad_service_url_from_the_environment_or_command_line_names_where_it_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], where: str, url: str
) -> None:
    monkeypatch.chdir(tmp_path)
    if where.startswith("--"):
        monkeypatch.delenv("PIPELINE_SERVICE_URL", raising=False)
        code = main(["translate", "--dry-run", where, url])
    else:
        monkeypatch.setenv(where, url)
        code = main(["translate", "--dry-run"])
    assert code == ExitCode.USAGE
    assert where in _one_line(capsys)


def test_init_into_a_file_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "a-file"
    target.write_text("x", encoding="utf-8")
    assert main(["init", str(target)]) == ExitCode.USAGE
    assert str(target) in _one_line(capsys)


def test_init_into_a_folder_that_does_not_exist_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(tmp_path / "missing" / "deeper")]) == ExitCode.USAGE
    assert str(tmp_path / "missing" / "deeper") in _one_line(capsys)


def test_init_force_over_a_folder_named_pipeline_toml_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pipeline.toml").mkdir()
    assert main(["init", "--force", "--no-preview", str(tmp_path)]) == ExitCode.USAGE
    assert str(tmp_path / "pipeline.toml") in _one_line(capsys)
    assert (tmp_path / "pipeline.toml").is_dir()


def test_a_pipeline_toml_that_is_a_folder_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pipeline.toml").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["translate", "--dry-run", "--config", str(tmp_path / "pipeline.toml")]) == ExitCode.USAGE
    assert str(tmp_path / "pipeline.toml") in _one_line(capsys)


@pytest.mark.parametrize("content", [b'catalogs = ["/dev/zero"]\n', b"x"])
@pytest.mark.parametrize("kind", ["fifo", "device-link"])
def test_a_config_that_is_a_fifo_or_a_device_is_refused_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], kind: str, content: bytes
) -> None:
    config = tmp_path / "pipeline.toml"
    if kind == "fifo":
        os.mkfifo(config)
    else:
        config.symlink_to("/dev/zero")
    monkeypatch.chdir(tmp_path)
    assert main(["translate", "--dry-run", "--config", str(config)]) == ExitCode.USAGE
    assert "not a regular file" in _one_line(capsys)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab-z[]!/*?^\\", max_size=12))
@example("[!]z-a]")  # a "]" first after the "!" is in the set: the range after it is read too
def test_the_configuration_refuses_exactly_the_globs_discovery_cannot_compile(glob: str) -> None:
    compiled = _compile(glob, False).regex.pattern != "(?!)"
    assert (glob_problem(glob) is None) == compiled, glob
