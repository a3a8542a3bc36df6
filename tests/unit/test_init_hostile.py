"""`pipeline init` on project files nobody checked: no traceback, a valid pipeline.toml, nothing outside the project.

The files ``init`` reads come with the project (a downloaded archive, a pull request): each case
is run through the whole command, which must exit 0, write a ``pipeline.toml`` that TOML and the
configuration both accept, and point at nothing above the project.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.config import load_settings
from pipeline.errors import ExitCode

PO = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\nmsgid "Hi"\nmsgstr ""\n'


@pytest.fixture(autouse=True)
def _cache_outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))


def _angular(locales: object, source: object = "en-US", name: str = "app") -> str:
    return json.dumps({"projects": {name: {"i18n": {"sourceLocale": source, "locales": locales}}}})


#: (name, files): what the audit tried, then ours.
PROJECTS = {
    "angular-list": {"angular.json": "[1, 2, 3]"},
    "angular-deep": {"angular.json": '{"projects": ' + "[" * 3000 + "]" * 3000 + "}"},
    "angular-locales-list": {"angular.json": _angular(["de"])},
    "angular-projects-list": {"angular.json": '{"projects": [{"i18n": {}}]}'},
    "angular-quote": {"angular.json": _angular({"de": 'src/locale/messages."de".xlf'})},
    "angular-astral": {"angular.json": _angular({"de": "src/locale/messages.\U0001f600.xlf"})},
    "angular-surrogate": {"angular.json": '{"projects": {"a\\udc00": {"i18n": {"locales": {"de": "x/\\ud800.xlf"}}}}}'},
    "angular-control": {"angular.json": _angular({"de": "src/locale/a\u0000b\u001f.xlf"})},
    "angular-newline-name": {"angular.json": _angular({"de": "src/de.xlf"}, name='x\n[service]\nurl = "http://evil"')},
    "angular-source-injection": {"angular.json": _angular({"de": "src/de.xlf"}, source='en"\nurl = "http://evil')},
    "angular-source-object": {"angular.json": _angular({"de": "src/de.xlf"}, source={"code": ["x"]})},
    "angular-bad-glob": {"angular.json": _angular({"de": "src/[z-a].xlf"})},
    "angular-above": {"angular.json": _angular({"de": "../../elsewhere/de.xlf"})},
    "angular-absolute": {"angular.json": _angular({"de": "/etc/de.xlf"})},
    "pyproject-tool-int": {"pyproject.toml": "tool = 1\n"},
    "pyproject-tools-int": {"pyproject.toml": "[tool]\nbabel = 1\n"},
    "pyproject-command-int": {"pyproject.toml": "[tool.babel]\ncompile_catalog = 1\n"},
    "pyproject-directory-int": {"pyproject.toml": "[tool.babel.compile_catalog]\ndirectory = 1\ndomain = []\n"},
    "pyproject-deep": {"pyproject.toml": "a = " + "[" * 3000 + "]" * 3000 + "\n"},
    "pyproject-not-utf8": {"pyproject.toml": "[tool.babel.compile_catalog]\ndirectory = 'caf\udce9'\n"},
    "django-above": {
        "mysite/__init__.py": "",
        "mysite/settings.py": 'LOCALE_PATHS = ["../../../elsewhere/locale", "/etc/locale"]\n',
    },
    "django-join-above": {
        "mysite/__init__.py": "",
        "mysite/settings.py": "LOCALE_PATHS = [os.path.join(BASE_DIR, '..', '..', 'x')]\n",
    },
    "sphinx-above": {"docs/conf.py": "locale_dirs = ['../../../x/']\n"},
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode("utf-8", "surrogateescape"))


@pytest.mark.parametrize("name", list(PROJECTS))
def test_init_on_hostile_project_files_writes_a_valid_config_inside_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    root = tmp_path / "project"
    _write(root, {**PROJECTS[name], "locale/de/LC_MESSAGES/app.po": PO})
    assert main(["init", "--no-preview", str(root)]) == ExitCode.OK
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    text = (root / "pipeline.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)  # valid TOML
    assert "service" in data and data["service"] == {"url": "embedded"}, text  # nothing injected
    assert set(data) <= {"source_lang", "catalogs", "service", "translate"}, text
    load_settings(root / "pipeline.toml")  # a configuration the next command takes
    for glob in data.get("catalogs", []):
        assert not glob.startswith(("/", "..")) and "/../" not in glob, text
    assert "locale/*/LC_MESSAGES/*.po" in data["catalogs"]  # what is there is still found


def test_a_quoted_angular_path_is_kept_exactly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, {"angular.json": _angular({"de": 'src/locale/messages."de" \\ x.xlf'})})
    assert main(["init", "--no-preview", str(tmp_path)]) == ExitCode.OK
    data = tomllib.loads((tmp_path / "pipeline.toml").read_text(encoding="utf-8"))
    assert data["catalogs"] == ['src/locale/messages."de" \\ x.xlf']


def test_a_path_above_the_project_is_left_out_with_a_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, PROJECTS["django-above"])
    assert main(["init", "--no-preview", str(tmp_path)]) == ExitCode.OK
    text = (tmp_path / "pipeline.toml").read_text(encoding="utf-8")
    assert "outside the project" in text and "elsewhere" in text  # said, as a comment
    assert not any("elsewhere" in glob for glob in tomllib.loads(text).get("catalogs", []))


def test_a_crafted_angular_json_is_read_in_one_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Unterminated strings and comments, a million times: the comment stripper looked at the rest of the
    file from each of them (17.8 s for 1 MB before); this one is 2 MB."""
    _write(tmp_path, {"angular.json": '{"projects": ' + '"\\"' * 350_000 + "/*" * 300_000 + "/*" + '"\\' * 100_000})
    assert main(["init", "--no-preview", str(tmp_path)]) == ExitCode.OK
    assert "angular.json could not be read" in (tmp_path / "pipeline.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_project_file_that_is_a_fifo_or_a_device_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    _write(tmp_path, {"mysite/__init__.py": "", "locale/de/LC_MESSAGES/app.po": PO})
    settings = tmp_path / "mysite" / "settings.py"
    if kind == "fifo":
        os.mkfifo(settings)
    else:
        settings.symlink_to("/dev/zero")
    assert main(["init", "--no-preview", str(tmp_path)]) == ExitCode.OK
    assert "locale/*/LC_MESSAGES/*.po" in tomllib.loads((tmp_path / "pipeline.toml").read_text())["catalogs"]


def test_what_init_prints_carries_no_control_character_of_a_project_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, {"angular.json": _angular({"de\x1b[2J": "src/\x1b]0;pwned\x07de.xlf"}, name="app\x1b[31m\nx")})
    assert main(["init", "--no-preview", str(tmp_path)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "src/" in out and "\x1b" not in out and "\x07" not in out
