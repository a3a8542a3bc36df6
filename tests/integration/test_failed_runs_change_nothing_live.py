"""A run that cannot use its service changes no file (issue 36): ``pipeline translate`` as a subprocess.

The project has work that needs no service (an entry reused from a sibling catalog's reviewed
translation, an entry copied as it is) beside work that does. Before, the first kind was written
and the run then stopped with exit 2 or 4: under pre-commit, "exit code 4" *and* "files were
modified by this hook".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import LiveService

pytestmark = pytest.mark.integration

HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\n'
CONFIG = 'source_lang = "en"\ncatalogs = ["locale/*.po"]\n[translate]\nlanguages = { "locale/*.po" = "de" }\n'


def _project(root: Path) -> dict[Path, bytes]:
    (root / "locale").mkdir(parents=True)
    (root / "locale" / "app.po").write_text(
        HEADER + 'msgid "Open"\nmsgstr ""\n\nmsgid "42"\nmsgstr ""\n\nmsgid "Save %(name)s"\nmsgstr ""\n'
    )
    (root / "locale" / "admin.po").write_text(HEADER + 'msgid "Open"\nmsgstr "Öffnen"\n\nmsgid "7"\nmsgstr ""\n')
    (root / "pipeline.toml").write_text(CONFIG)
    return {p: p.read_bytes() for p in (root / "locale").glob("*.po")}


def _translate(root: Path, url: str, key: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIPELINE_", "XDG_"))}
    env["XDG_CACHE_HOME"] = str(root.parent / "cache")
    if key is not None:
        env["PIPELINE_AUTH_KEY"] = key
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "translate", "--service-url", url],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_no_key_exits_2_and_changes_no_file(live_service: LiveService, tmp_path: Path) -> None:
    root = tmp_path / "project"
    before = _project(root)
    done = _translate(root, live_service.url, None)
    assert done.returncode == 2, done.stderr
    assert "needs a key: set PIPELINE_AUTH_KEY" in done.stderr
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize("key", ["sk-attack-9f2c\nInjected: x", "sk-attack-9f2c\x01", "sk-attack-9f2c-\u00fc"])
def test_a_key_no_http_header_can_hold_exits_2_without_showing_it(
    live_service: LiveService, tmp_path: Path, key: str
) -> None:
    # Its line break used to reach httpx, whose error printed the header, key and all.
    root = tmp_path / "project"
    before = _project(root)
    done = _translate(root, live_service.url, key)
    assert done.returncode == 2, done.stderr
    assert "PIPELINE_AUTH_KEY" in done.stderr and "attack" not in done.stderr, done.stderr
    assert {p: p.read_bytes() for p in before} == before


def test_a_wrong_key_exits_4_says_so_once_and_changes_no_file(live_service: LiveService, tmp_path: Path) -> None:
    root = tmp_path / "project"
    before = _project(root)
    done = _translate(root, live_service.url, "not-a-key")
    assert done.returncode == 4, done.stderr
    assert "goes on without a quota check" not in done.stderr  # it does not go on
    # "answered 403", not "403": the ephemeral port in the "using the service at" line may hold 403 too
    assert done.stderr.count("answered 403") == 1
    assert "no catalog was changed" in done.stderr
    assert {p: p.read_bytes() for p in before} == before
    # The same project with the right key: everything is written, the reused entry with its origin.
    done = _translate(root, live_service.url, live_service.auth_key)
    assert done.returncode == 0, done.stderr
    assert "# pipeline: reused from locale/admin.po" in (root / "locale" / "app.po").read_text()


def test_an_unreachable_service_exits_4_and_changes_no_file(tmp_path: Path) -> None:
    root = tmp_path / "project"
    before = _project(root)
    (root / "pipeline.toml").write_text(CONFIG + "[service]\nmax_attempts = 1\ntimeout = 5\n")
    done = _translate(root, "http://127.0.0.1:9", "some-key")
    assert done.returncode == 4, done.stderr
    assert "service unreachable" in done.stderr and "goes on without a quota check" not in done.stderr
    assert {p: p.read_bytes() for p in before} == before


def test_a_url_ending_in_v2_gets_a_hint_once_and_changes_no_file(live_service: LiveService, tmp_path: Path) -> None:
    root = tmp_path / "project"
    before = _project(root)
    done = _translate(root, f"{live_service.url}/v2", live_service.auth_key)
    assert done.returncode == 4, done.stderr
    assert done.stderr.count("the service URL ends in /v2, which the client adds itself: use the URL without it") == 1
    assert "goes on without a quota check" not in done.stderr  # it does not go on
    assert "stopped early: the service's target languages could not be read" in done.stderr
    assert {p: p.read_bytes() for p in before} == before
