"""Reuse and length limits through the command line, against `pipeline serve` on 127.0.0.1 (ephemeral port)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.catalogs import UnitState, read_catalog
from tests.integration.conftest import LiveService

pytestmark = pytest.mark.integration

LONG = "Save the changes to your profile"
HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset={charset}\\n"\n"Language: {lang}\\n"\n\n'


def write(path: Path, lang: str, charset: str, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((HEADER.format(charset=charset, lang=lang) + body).encode(charset))
    return path


def pipeline(root: Path, key: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    env["PIPELINE_AUTH_KEY"] = key
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, env=env, timeout=120, cwd=root
    )


def test_a_sibling_translation_is_reused_and_length_limits_are_kept_or_reported(
    live_service: LiveService, tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    root = tmp_path
    (root / "pipeline.toml").write_text(
        f'catalogs = ["locale/**/*.po"]\n[service]\nurl = "{live_service.url}"\n[cache]\ndir = ".cache"\n'
        '[report]\ndir = "report"\n'
    )
    server = write(
        root / "locale/de/LC_MESSAGES/django.po",
        "de",
        "ISO-8859-1",
        f'msgid "Save"\nmsgstr "Speichern"\n\n#, max-length:14\nmsgid "{LONG}"\nmsgstr ""\n',
    )
    script = write(root / "locale/de/LC_MESSAGES/djangojs.po", "de", "UTF-8", 'msgid "Save"\nmsgstr ""\n')
    polish = write(
        root / "locale/pl/LC_MESSAGES/django.po", "pl", "ISO-8859-2", f'#, max-length:14\nmsgid "{LONG}"\nmsgstr ""\n'
    )
    done = pipeline(root, live_service.auth_key, "translate")
    assert done.returncode == 0, done.stderr
    assert "1 reused (4 characters not billed)" in done.stdout
    assert "length limits: 1 asked again, 1 still over (marked for review), 0 refused" in done.stdout
    for path in (server, script, polish):
        msgfmt_check(path)
    reused = read_catalog(script).units[0]
    assert reused.targets == ("Speichern",) and reused.state is UnitState.FUZZY
    assert "# pipeline: reused from locale/de/LC_MESSAGES/django.po:6\n" in script.read_text("utf-8")
    german = read_catalog(server).units[1]
    assert 0 < len(german.targets[0]) <= 14  # asked again: German takes custom instructions
    assert "over the limit" in polish.read_bytes().decode("iso-8859-2")  # Polish does not: marked instead
    report = json.loads((root / "report" / "report.json").read_text())
    assert report["reused"] == [
        {
            "catalog": "locale/de/LC_MESSAGES/djangojs.po",
            "line": 6,
            "target_lang": "DE",
            "origin": "locale/de/LC_MESSAGES/django.po:6",
        }
    ]
    assert report["languages"]["PL"]["length_over"] == 1 and report["languages"]["DE"]["length_retried"] == 1
    checked = pipeline(root, live_service.auth_key, "check", "--strict")
    assert checked.returncode == 1
    assert (
        "locale/pl/LC_MESSAGES/django.po:8: fuzzy entry: warning: the translation has 32 characters"
        in checked.stdout + checked.stderr
    )
