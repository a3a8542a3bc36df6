"""Conformance of translation memories over real HTTP: provisioning, listing, isolation, translation."""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.service.engine.pseudo import transliterate
from tests.integration.conftest import LiveService
from tests.waiting import poll

pytestmark = pytest.mark.integration


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Service-Auth-Key {key}"}


TMX = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE tmx SYSTEM "tmx14.dtd">
<tmx version="1.4">
  <header srclang="en-US" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x"
          creationtool="test" creationtoolversion="1"/>
  <body>
    <tu><tuv xml:lang="en-US"><seg>Save the file before closing.</seg></tuv>
        <tuv xml:lang="de-DE"><seg>Speichern Sie die Datei vor dem Schließen.</seg></tuv>
        <tuv xml:lang="fr-FR"><seg>Enregistrez le fichier avant de fermer.</seg></tuv></tu>
    <tu><tuv xml:lang="en-US"><seg>Press <ph x="1">{0}</ph> to continue</seg></tuv>
        <tuv xml:lang="de-DE"><seg>Drücken Sie {0}, um fortzufahren</seg></tuv></tu>
  </body>
</tmx>
"""

PO = """msgid ""
msgstr ""
"Language: de\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Open a new window"
msgstr "Ein neues Fenster öffnen"

#, fuzzy
msgid "Close"
msgstr "Schließen"
"""


@pytest.fixture(scope="module")
def memory_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("memories")
    tmx, po = folder / "ui.tmx", folder / "compendium.po"
    tmx.write_text(TMX, encoding="utf-8")
    po.write_text(PO, encoding="utf-8")
    return tmx, po


@pytest.fixture
def served(
    launch_service: Callable[..., LiveService], memory_files: tuple[Path, Path]
) -> Iterator[tuple[LiveService, httpx.Client]]:
    tmx, po = memory_files
    args = ("--translation-memory", f"ui={tmx}", "--free-translation-memory", f"compendium={po}")
    service = launch_service(extra_args=args)
    with httpx.Client(base_url=service.url, timeout=30) as http:
        yield service, http


def memories(http: httpx.Client, key: str) -> dict[str, dict[str, Any]]:
    response = http.get("/v3/translation_memories", headers=auth(key))
    assert response.status_code == 200, response.text
    return {m["name"]: m for m in response.json()["translation_memories"]}


def translate(http: httpx.Client, key: str, text: str, **fields: object) -> httpx.Response:
    body = {"text": [text], "source_lang": "EN", "target_lang": "DE", **fields}
    return http.post("/v2/translate", json=body, headers=auth(key))


def test_each_account_lists_its_own_memories(served: tuple[LiveService, httpx.Client]) -> None:
    service, http = served
    paid = memories(http, service.auth_key)
    assert list(paid) == ["ui"]
    ui = paid["ui"]
    uuid.UUID(ui["translation_memory_id"])
    assert ui == {
        "translation_memory_id": ui["translation_memory_id"],
        "name": "ui",
        "source_language": "en",
        "target_languages": ["de", "fr"],
        "segment_count": 3,
        "creation_time": ui["creation_time"],
        "updated_time": ui["updated_time"],
    }
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", ui["updated_time"]), ui
    free = memories(http, service.free_auth_key)
    assert list(free) == ["compendium"] and free["compendium"]["segment_count"] == 1  # the fuzzy entry is left out
    assert http.get("/v3/translation_memories").status_code == 403


def test_the_memory_listing_comes_in_pages(
    served: tuple[LiveService, httpx.Client], error: Callable[[httpx.Response, int], str]
) -> None:
    # The real service's description: page (from 0) and page_size (1 to 25, default 10), and
    # total_count; both official clients send them. Unread, page 1 answered page 0 again, so a
    # client walking the pages never saw an end.
    service, http = served

    def listing(query: str) -> httpx.Response:
        return http.get(f"/v3/translation_memories?{query}", headers=auth(service.auth_key))

    first = listing("page=0&page_size=1").json()
    assert [m["name"] for m in first["translation_memories"]] == ["ui"] and first["total_count"] == 1
    assert listing("page=1&page_size=1").json() == {"translation_memories": [], "total_count": 1}
    assert listing("page_size=25").json()["total_count"] == 1
    for query in ("page_size=0", "page_size=26", "page=-1", "page=x"):
        assert "query parameter 'page" in error(listing(query), 400), query


def test_another_paid_account_neither_lists_nor_uses_a_memory(
    served: tuple[LiveService, httpx.Client], error: Callable[[httpx.Response, int], str]
) -> None:
    service, http = served
    memory_id = memories(http, service.auth_key)["ui"]["translation_memory_id"]
    stranger = service.other_paid_auth_key
    assert memories(http, stranger) == {}
    error(translate(http, stranger, "Save the file before closing.", translation_memory_id=memory_id), 404)
    document = {"source_lang": "EN", "target_lang": "DE", "translation_memory_id": memory_id}
    upload = http.post("/v2/document", files={"file": ("a.txt", b"x\n")}, data=document, headers=auth(stranger))
    error(upload, 404)


def test_memory_ids_survive_a_restart(
    served: tuple[LiveService, httpx.Client],
    launch_service: Callable[..., LiveService],
    memory_files: tuple[Path, Path],
) -> None:
    service, http = served
    before = memories(http, service.auth_key)["ui"]["translation_memory_id"]
    again = launch_service(extra_args=("--translation-memory", f"ui={memory_files[0]}"))
    with httpx.Client(base_url=again.url, timeout=30) as other:
        assert memories(other, again.auth_key)["ui"]["translation_memory_id"] == before


def test_segments_at_or_above_the_threshold_take_the_memory_target(served: tuple[LiveService, httpx.Client]) -> None:
    service, http = served
    memory_id = memories(http, service.auth_key)["ui"]["translation_memory_id"]
    key = service.auth_key
    exact = translate(http, key, "Save  the file before closing.", translation_memory_id=memory_id)
    assert exact.json()["translations"][0]["text"] == "Speichern Sie die Datei vor dem Schließen."
    # "Save the file before closing!" differs by 1 of 29 code points: score 96.55
    near = "Save the file before closing!"
    assert (
        translate(http, key, near, translation_memory_id=memory_id)
        .json()["translations"][0]["text"]
        .startswith("Speichern")
    )
    strict = translate(http, key, near, translation_memory_id=memory_id, translation_memory_threshold=97)
    assert strict.json()["translations"][0]["text"] != "Speichern Sie die Datei vor dem Schließen."
    far = translate(http, key, "Something else entirely", translation_memory_id=memory_id).json()
    assert far["translations"][0]["text"] == transliterate("Something else entirely", "DE", next_gen=True)
    inline = translate(
        http, key, "Press  to continue", translation_memory_id=memory_id, translation_memory_threshold=100
    )
    assert inline.json()["translations"][0]["text"] == "Drücken Sie {0}, um fortzufahren"
    french = translate(http, key, near, target_lang="FR", translation_memory_id=memory_id)
    assert french.json()["translations"][0]["text"] == "Enregistrez le fichier avant de fermer."


def test_memory_errors(served: tuple[LiveService, httpx.Client], error: Callable[[httpx.Response, int], str]) -> None:
    service, http = served
    key = service.auth_key
    memory_id = memories(http, key)["ui"]["translation_memory_id"]
    error(translate(http, key, "x", translation_memory_id=str(uuid.uuid4())), 404)
    assert "UUID" in error(translate(http, key, "x", translation_memory_id="not-a-uuid"), 400)
    assert "no segments" in error(translate(http, key, "x", target_lang="IT", translation_memory_id=memory_id), 400)
    assert "source language" in error(translate(http, key, "x", source_lang="ES", translation_memory_id=memory_id), 400)
    for threshold in (-1, 101):
        error(translate(http, key, "x", translation_memory_id=memory_id, translation_memory_threshold=threshold), 400)
    latency = translate(http, key, "x", translation_memory_id=memory_id, model_type="latency_optimized")
    assert "latency_optimized" in error(latency, 400)
    # another account's memory is unknown, exactly as a missing one
    free_id = memories(http, service.free_auth_key)["compendium"]["translation_memory_id"]
    error(translate(http, key, "Open a new window", translation_memory_id=free_id), 404)
    applied = translate(http, service.free_auth_key, "Open a new window", translation_memory_id=free_id)
    assert applied.json()["translations"][0]["text"] == "Ein neues Fenster öffnen"


def test_unreadable_memory_stops_the_start_with_a_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tmx"
    bad.write_text('<?xml version="1.0"?><!DOCTYPE tmx [<!ENTITY a "b">]><tmx/>', encoding="utf-8")
    argv = [
        sys.executable,
        "-m",
        "pipeline",
        "serve",
        "--port",
        "0",
        "--auth-key",
        "k",
        "--translation-memory",
        f"ui={bad}",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "translation memory 'ui'" in done.stderr and "DOCTYPE" in done.stderr


def _document(http: httpx.Client, key: str, data: bytes, **fields: str) -> httpx.Response:
    files = {"file": ("ui.txt", data, "text/plain")}
    form = {"source_lang": "EN", "target_lang": "DE", **fields}
    return http.post("/v2/document", files=files, data=form, headers=auth(key))


def test_memory_applies_to_documents_with_the_rules_of_text_translation(
    served: tuple[LiveService, httpx.Client], error: Callable[[httpx.Response, int], str]
) -> None:
    # Spec: translation_memory_id / _threshold on a document have "the same meaning as in text translation".
    service, http = served
    key = service.auth_key
    memory_id = memories(http, key)["ui"]["translation_memory_id"]
    handle = _document(http, key, b"Save the file before closing!\nSomething else\n", translation_memory_id=memory_id)
    assert handle.status_code == 200, handle.text
    body = {"document_key": handle.json()["document_key"]}
    path = f"/v2/document/{handle.json()['document_id']}"
    poll(lambda: http.post(path, json=body, headers=auth(key)).json()["status"] in ("done", "error") or None, "the job")
    result = http.post(f"{path}/result", json=body, headers=auth(key))
    assert result.status_code == 200, result.text
    first, second = result.content.decode("utf-8").splitlines()
    assert first == "Speichern Sie die Datei vor dem Schließen." and second == transliterate(
        "Something else", "DE", next_gen=True
    )
    strict = _document(http, key, b"x\n", translation_memory_id=memory_id, translation_memory_threshold="101")
    error(strict, 400)
    assert "no segments" in error(_document(http, key, b"x\n", target_lang="IT", translation_memory_id=memory_id), 400)
    other_source = _document(http, key, b"x\n", source_lang="ES", translation_memory_id=memory_id)
    assert "source language" in error(other_source, 400)
