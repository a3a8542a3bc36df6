"""A catalog folder whose name is not UTF-8, and an XLIFF length whose digits are not ASCII: every command
goes on, and every other catalog is translated.

A Latin-1 folder name from an old zip archive is bytes no UTF-8 text holds: the run hashed,
printed and recorded it as text and ended in a traceback with nothing translated. Reports name
it with ``\\xe9``; the catalog is translated like any other. ``maxwidth="²"`` is a digit to
``str.isdigit`` and not to ``int``: a ValueError took the other catalog down with it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import ExitCode
from tests.sample_project import SAMPLES

SAMPLE = SAMPLES / "de" / "LC_MESSAGES" / "messages.po"
LATIN1 = b"l/caf\xe9/de/messages.po"


def _project(tmp_path: Path, git: bool) -> Path:
    root = tmp_path / "project"
    for name in (LATIN1, b"l/ok/de/messages.po"):
        path = os.path.join(os.fsencode(root), name)
        os.makedirs(os.path.dirname(path))
        shutil.copyfile(SAMPLE, path)
    (root / "messages.pot").write_bytes(SAMPLE.read_bytes())
    (root / "pipeline.toml").write_text(
        'catalogs = ["l/**/*.po"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n[report]\ndir = "report"\n'
        '[refresh]\ntemplate = "messages.pot"\n',
        encoding="utf-8",
    )
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _run(root: Path, capsys: pytest.CaptureFixture[str], *command: str) -> tuple[int, str]:
    code = main([*command, "--config", str(root / "pipeline.toml")])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out + captured.err


def _fuzzy(root: Path) -> dict[bytes, int]:
    return {
        name: Path(os.fsdecode(os.path.join(os.fsencode(root), name))).read_bytes().count(b"#, fuzzy")
        for name in (LATIN1, b"l/ok/de/messages.po")
    }


@pytest.mark.parametrize("git", [False, True], ids=["walked", "git"])
def test_every_command_works_on_a_catalog_in_a_latin1_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], git: bool
) -> None:
    if git and shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = _project(tmp_path, git)
    monkeypatch.chdir(root)
    before = _fuzzy(root)
    code, out = _run(root, capsys, "translate", "--dry-run")
    assert code == ExitCode.OK and "l/caf\\xe9/de/messages.po (DE)" in out, out
    code, out = _run(root, capsys, "translate", "--frozen")
    assert code == ExitCode.PENDING and "caf\\xe9" in out, out
    code, out = _run(root, capsys, "translate")
    assert code == ExitCode.OK, out
    after = _fuzzy(root)
    assert all(after[name] > before[name] for name in after), after  # both translated
    report = json.loads((root / "report" / "report.json").read_bytes().decode("utf-8"))  # strict UTF-8
    assert sorted(c["path"] for c in report["catalogs"]) == ["l/caf\\xe9/de/messages.po", "l/ok/de/messages.po"]
    assert "caf\\xe9" in (root / "report" / "report.md").read_text(encoding="utf-8")
    assert _run(root, capsys, "translate", "--frozen")[0] == ExitCode.OK  # the state recorded both
    assert _run(root, capsys, "check")[0] == ExitCode.OK
    assert _run(root, capsys, "refresh")[0] == ExitCode.OK


XLIFF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
  <file source-language="en" target-language="de" datatype="plaintext" original="x">
    <body>
      <trans-unit id="a" maxwidth="{width}" size-unit="char"><source>Save the file</source></trans-unit>
      <trans-unit id="b"><source>Open the file</source></trans-unit>
    </body>
  </file>
</xliff>
"""


@pytest.mark.parametrize("width", ["²", "٣", "１２", "99999999999999999999999"])
def test_an_xliff_width_of_other_digits_is_no_limit_and_both_catalogs_are_translated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], width: str
) -> None:
    root = tmp_path / "project"
    (root / "xliff").mkdir(parents=True)
    (root / "xliff" / "a.de.xlf").write_text(XLIFF.format(width=width), encoding="utf-8")
    (root / "xliff" / "b.de.xlf").write_text(XLIFF.format(width="40"), encoding="utf-8")
    (root / "pipeline.toml").write_text(
        'catalogs = ["xliff/*.xlf"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n[report]\ndir = "r"\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(root)
    code, out = _run(root, capsys, "translate")
    assert code == ExitCode.OK, out
    for name in ("a.de.xlf", "b.de.xlf"):
        assert (root / "xliff" / name).read_text(encoding="utf-8").count("<target") == 2, name
    assert _run(root, capsys, "check")[0] == ExitCode.OK


def test_init_and_a_run_in_a_latin1_project_folder_print_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), b"caf\xe9")))
    (root / "locale/de/LC_MESSAGES").mkdir(parents=True)
    shutil.copyfile(SAMPLE, root / "locale/de/LC_MESSAGES/messages.po")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(root)
    code = main(["init", str(root)])
    captured = capsys.readouterr()
    assert code == ExitCode.OK and "Traceback" not in captured.err
    assert "caf\\udce9" in captured.out and "would send 19 segments" in captured.out
    assert _run(root, capsys, "translate")[0] == ExitCode.OK
    assert _run(root, capsys, "cache", "stats")[0] == ExitCode.OK
