"""A translation memory edited in place (same name, same id) is never served from the cache in its old state.

The local service reads its memories from files at start-up, and a memory's id comes from its
name: an edited file keeps its id. The pipeline keys a text sent with a memory by what the listing
says the memory is now, and the local service listed nothing that an edit changes (the segment
count stays when a translation is corrected): the old translation came back from the cache. It now
lists ``creation_time`` and ``updated_time`` as the real service does, and the update time changes
with the memory's content.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import LiveService

pytestmark = pytest.mark.integration

CATALOG = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n\n'
    'msgid "{source}"\nmsgstr ""\n'
)
MEMORY = (
    'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    'msgid "{source}"\nmsgstr "{target}"\n'
)
SOURCE = "Save the file before closing."
OLD, NEW = "Speichern Sie die Datei vor dem Schließen.", "Sichern Sie die Datei, bevor Sie schließen."


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        result: int = probe.getsockname()[1]
        return result


def _memories(service: LiveService) -> dict[str, dict[str, Any]]:
    with httpx.Client(base_url=service.url, timeout=30) as http:
        answer = http.get("/v3/translation_memories", headers={"Authorization": f"Service-Auth-Key {service.auth_key}"})
    assert answer.status_code == 200, answer.text
    return {m["name"]: m for m in answer.json()["translation_memories"]}


def _translate(root: Path, service: LiveService, memory_id: str) -> str:
    """A run on the pristine catalog with the project's cache; the translation it wrote."""
    (root / "pipeline.toml").write_text(
        f'catalogs = ["locale/*.po"]\n[service]\nurl = "{service.url}"\nmax_attempts = 1\n[cache]\ndir = ".cache"\n'
        f'[report]\ndir = "report"\n[locales.de]\ntranslation_memory_id = "{memory_id}"\n',
        encoding="utf-8",
    )
    catalog = root / "locale" / "de.po"
    catalog.write_text(CATALOG.format(source=SOURCE), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    env["PIPELINE_AUTH_KEY"] = service.auth_key
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "translate", "--config", str(root / "pipeline.toml")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    text = catalog.read_text(encoding="utf-8")
    return text[text.rindex('msgstr "') + 8 :].split('"')[0]


@pytest.mark.parametrize("data_dir", [True, False], ids=["data-dir", "no-data-dir"])
def test_an_edited_memory_is_used_anew_not_served_from_the_cache(
    launch_service: Callable[..., LiveService], tmp_path: Path, data_dir: bool
) -> None:
    memory = tmp_path / "memory.po"
    memory.write_text(MEMORY.format(source=SOURCE, target=OLD), encoding="utf-8")
    key = f"test-auth-{secrets.token_hex(8)}"
    # The same key and port after the restart: the same service to the cache, whose keys must then change.
    port = ("--port", str(_free_port()))
    options: dict[str, Any] = {"auth_key": key, "extra_args": ("--translation-memory", f"ui={memory}", *port)}
    if data_dir:
        options["data_dir"] = tmp_path / "data"
    service = launch_service(**options)
    listed, listed_url = _memories(service)["ui"], service.url
    root = tmp_path / "project"
    (root / "locale").mkdir(parents=True)
    memory_id = listed["translation_memory_id"]
    assert _translate(root, service, memory_id) == OLD
    service.stop()
    stat = memory.stat()
    memory.write_text(MEMORY.format(source=SOURCE, target=NEW), encoding="utf-8")  # corrected in place
    if data_dir:  # the content is what counts, not the file's time: a copy that kept an old time
        os.utime(memory, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    service = launch_service(**options)
    assert service.url == listed_url
    again = _memories(service)["ui"]
    assert again["translation_memory_id"] == listed["translation_memory_id"]
    assert again["segment_count"] == listed["segment_count"]  # nothing else says it changed
    assert again["updated_time"] > listed["updated_time"]
    if data_dir:  # the service remembers when it first saw the memory
        assert again["creation_time"] == listed["creation_time"]
    assert _translate(root, service, memory_id) == NEW  # not the old one, from the cache


def test_an_unchanged_memory_keeps_its_times_across_restarts(
    launch_service: Callable[..., LiveService], tmp_path: Path
) -> None:
    memory = tmp_path / "memory.po"
    memory.write_text(MEMORY.format(source=SOURCE, target=OLD), encoding="utf-8")
    options = {"data_dir": tmp_path / "data", "extra_args": ("--translation-memory", f"ui={memory}")}
    first = launch_service(**options)
    listed = _memories(first)["ui"]
    first.stop()
    os.utime(memory)  # touched, not changed: the keys of texts sent with it stay
    second = launch_service(**options)
    assert _memories(second)["ui"] == listed
