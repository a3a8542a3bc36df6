"""Markup smuggled through entities (issue #39, item 2) is never written, whichever way it arrives.

Translations travel with ``tag_handling=xml``: an answer that writes ``&lt;script&gt;`` as text would be
restored as a ``<script>`` element. Three ways, each through ``pipeline translate`` as a user runs it:
an answer with the markup escaped (``mangle=inject``), an answer with the markup as markup right beside a
placeholder (``mangle=inject-beside``: refused at once under tag handling, and decoded to text by the
recovery schemes without it), and a shared cache entry holding it escaped. The gate refuses every one,
so no catalog holds markup its source lacks; ``pipeline check`` reports such markup as an error.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pipeline.service.testing.mangle import SCRIPT
from tests.integration.conftest import LiveService
from tests.integration.test_redis_cache import (
    RedisServer,
    redis_server,  # noqa: F401 - the fixture: a throw-away redis-server
)
from tests.sample_project import copy_sample_project

pytestmark = pytest.mark.integration

FAULTY_CLI = Path(__file__).resolve().parent / "faulty_cli.py"
ESCAPED = SCRIPT.replace("<", "&lt;").replace(">", "&gt;")


def _project(tmp_path: Path, url: str) -> Path:
    root = copy_sample_project(tmp_path, url)
    (root / "pipeline.toml").write_text(
        'source_lang = "en"\ncatalogs = ["sample_locales/de/LC_MESSAGES/*.po"]\n'
        f'[service]\nurl = "{url}"\nmax_attempts = 1\n[cache]\ndir = ".cache"\n[report]\ndir = "report"\n',
        encoding="utf-8",
    )
    return root


def _translate(root: Path, key: str | None, fault: str | None = None, cache_url: str | None = None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIPELINE_", "FAULTY_CLI_"))}
    if key:
        env["PIPELINE_AUTH_KEY"] = key
    if cache_url:
        env["PIPELINE_CACHE_URL"] = cache_url
    if fault:
        env["FAULTY_CLI_FAULT"] = fault
    argv = [sys.executable, str(FAULTY_CLI)] if fault else [sys.executable, "-m", "pipeline"]
    subprocess.run(
        [*argv, "translate", "--config", str(root / "pipeline.toml"), "--quiet"],
        env=env,
        cwd=root,
        capture_output=True,
        timeout=300,
        check=False,
    )
    result: dict[str, Any] = json.loads((root / "report" / "report.json").read_text(encoding="utf-8"))
    return result


def _written(root: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in (root / "sample_locales").rglob("*.po"))


def _check_errors(root: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "check", "--config", str(root / "pipeline.toml")],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        check=False,
    )
    return [line for line in done.stdout.splitlines() if ": warning:" not in line]


@pytest.mark.parametrize("mode", ["inject", "inject-beside"])
def test_an_answer_smuggling_markup_is_refused_under_every_scheme_and_never_written(
    tmp_path: Path, live_service: LiveService, mode: str
) -> None:
    root = _project(tmp_path, live_service.url)
    before = _written(root)
    report = _translate(root, live_service.auth_key, f"mangle={mode};id={mode}-{secrets.token_hex(4)}")
    written = _written(root)
    assert "<script>" not in written and ESCAPED not in written and "alert(1)" not in written
    assert "<script>" not in before  # the samples have none of their own
    # Every text was refused (the fault acts on every answer, under every recovery scheme) and said so.
    assert report["totals"]["segments_failed"] > 0 and report["totals"]["segments_translated"] == 0
    reasons = {i["reason"] for i in report["issues"] if i["severity"] == "error"}
    assert reasons and all("'<script>'" in r for r in reasons), reasons
    assert report["recovery"]["DE"]["characters"] > 0  # the other schemes were tried, and refused too
    assert _check_errors(root) == []


def test_a_shared_cache_entry_smuggling_markup_is_refused_and_asked_again(
    tmp_path: Path,
    redis_server: RedisServer,  # noqa: F811 - the fixture imported above
) -> None:
    first = _project(tmp_path / "first", "embedded")
    report = _translate(first, None, cache_url=redis_server.url())
    assert report["totals"]["segments_translated"] > 0
    client = redis_server.client()
    tampered = 0
    for key in client.scan_iter(match="pipeline:*", count=1000):
        stored = client.get(key) if client.type(key) == b"string" else None
        if stored is None:
            continue
        entry = json.loads(stored)
        entry["translation"] += f" {ESCAPED}"
        client.set(key, json.dumps(entry, ensure_ascii=False))
        tampered += 1
    assert tampered > 0
    second = _project(tmp_path / "second", "embedded")  # its own, empty, local cache
    report = _translate(second, None, cache_url=redis_server.url())
    written = _written(second)
    assert "<script>" not in written and "alert(1)" not in written
    # Refused from the cache and translated again by the service: the same catalogs as the first tree.
    assert report["totals"]["segments_from_cache"] == 0 and report["totals"]["requests"] > 0
    assert written == _written(first)
    assert _check_errors(second) == []
