"""Hostile requests and a hostile environment against a real ``pipeline serve`` (issue: the service).

Each test reproduces one attack: an oversized glossary body, a slow glossary parse meant to stall
everyone else, JSON ``NaN``/``Infinity``, a huge invalid value echoed back, and keys that stay
valid after the configuration dropped them.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.protocol import MAX_GLOSSARY_DICTIONARY_BYTES
from pipeline.service.api import glossaries
from pipeline.service.api import translate as translate_api
from pipeline.service.api.glossaries import ONE_DICTIONARY_BODY_LIMIT
from pipeline.service.app import create_app
from pipeline.service.config import AccountSpec, ServiceConfig
from pipeline.service.echo import ELLIPSIS, MAX_ECHO_CHARS
from pipeline.service.engine import pseudo
from pipeline.service.http import json_body
from pipeline.service.server import bounded_protocol
from pipeline.service.store.glossaries import GlossaryStore
from tests.integration.conftest import LiveService
from tests.integration.service.conftest import Keys
from tests.integration.service.served_in_thread import SAFETY_SECONDS, ServedInThread

TRANSLATE = "/v2/translate"


def _glossary(http: httpx.Client, headers: dict[str, str]) -> str:
    body = {
        "name": "hostile",
        "dictionaries": [{"source_lang": "en", "target_lang": "de", "entries": "a\tb\n", "entries_format": "tsv"}],
    }
    created = http.post("/v3/glossaries", json=body, headers=headers)
    assert created.status_code == 201, created.text
    return str(created.json()["glossary_id"])


@functools.cache
def _full_dictionary() -> str:
    """Just under 10 MB of distinct TSV entries: the largest dictionary the spec allows."""
    lines: list[str] = []
    size = number = 0
    while True:
        line = f"term {number:07d} of the product\tBegriff {number:07d} des Produkts\n"
        if size + len(line) > MAX_GLOSSARY_DICTIONARY_BYTES:
            return "".join(lines)
        lines.append(line)
        size += len(line)
        number += 1


def test_a_glossary_body_past_the_spec_limit_is_413_before_it_is_read(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    # Before: any key could send 64 MiB per dictionary (256 MiB per creation), all held in memory.
    glossary_id = _glossary(http, keys.paid)
    try:
        padding = b"x" * (ONE_DICTIONARY_BODY_LIMIT + 1 - 64)
        body = b'{"source_lang":"en","target_lang":"de","entries_format":"tsv","entries":"' + padding + b'"}'
        headers = {**keys.paid, "Content-Type": "application/json"}
        answer = http.put(f"/v3/glossaries/{glossary_id}/dictionaries", content=body, headers=headers)
        assert f"at most {ONE_DICTIONARY_BODY_LIMIT} bytes" in error(answer, 413)
    finally:
        http.delete(f"/v3/glossaries/{glossary_id}", headers=keys.paid)


def test_the_largest_dictionary_fits_the_body_limit_even_escaped_at_worst() -> None:
    import json

    entries = "\u00e9" * (MAX_GLOSSARY_DICTIONARY_BYTES // 2)  # two UTF-8 bytes, six escaped
    body = json.dumps({"source_lang": "en", "target_lang": "de", "entries_format": "tsv", "entries": entries})
    assert len(body.encode("ascii")) <= ONE_DICTIONARY_BODY_LIMIT


KEY = "hostile-input-key"
HEADERS = {"Authorization": f"Service-Auth-Key {KEY}"}


@pytest.fixture(scope="module")
def in_process() -> Iterator[ServedInThread]:
    """The service app under uvicorn in this process, so that a test can hold one of its steps."""
    app = create_app(ServiceConfig(accounts=(AccountSpec("paid", (KEY,)),)))
    served = ServedInThread(app, http=bounded_protocol(), lifespan="on", log_level="error")
    served.start()
    yield served
    served.stop()


class Held:
    """A function of the service whose first call waits until :attr:`release` is set.

    It tells when that call arrived (:attr:`reached`) and whether it came on the thread of an event
    loop: work done there stalls every other request, so that call is not held but noted.
    """

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.reached, self.release = threading.Event(), threading.Event()
        self.on_event_loop = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self.reached.is_set():
            try:
                asyncio.get_running_loop()
                self.on_event_loop = True
            except RuntimeError:  # a worker thread: hold it there
                self.reached.set()
                assert self.release.wait(SAFETY_SECONDS), "never released (a safety net)"
            self.reached.set()
        return self.real(*args, **kwargs)


def _answered_while_held(
    monkeypatch: pytest.MonkeyPatch, step: tuple[Any, str], heavy: Callable[[], httpx.Response], url: str
) -> httpx.Response:
    """Run ``heavy`` while ``step`` (owner, name) holds it; a small request must be answered meanwhile."""
    owner, name = step
    held = Held(getattr(owner, name))
    monkeypatch.setattr(owner, name, lambda *args, **kwargs: held(*args, **kwargs))  # a function: a method too
    answers: list[httpx.Response] = []
    thread = threading.Thread(target=lambda: answers.append(heavy()))
    thread.start()
    try:
        assert held.reached.wait(SAFETY_SECONDS), f"the request never reached {name} (a safety net)"
        assert not held.on_event_loop, f"{name} runs on the event loop: every other request waits for it"
        with httpx.Client(base_url=url, timeout=SAFETY_SECONDS) as other:
            assert other.get("/v2/usage", headers=HEADERS).status_code == 200  # while the heavy one is held
    finally:
        held.release.set()
        thread.join(SAFETY_SECONDS)
    return answers[0]


# Before: the body was parsed and checked on the event loop; every other request waited.
PUT_STEPS = {
    "json": (json_body, "parse_json_object"),
    "dictionary": (glossaries, "dictionary_from"),
    "store": (GlossaryStore, "put_dictionary"),
}


@pytest.mark.parametrize("step", PUT_STEPS)
def test_parsing_a_10_mb_glossary_does_not_stall_other_requests(
    in_process: ServedInThread, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    with httpx.Client(base_url=in_process.url, timeout=SAFETY_SECONDS) as http:
        glossary_id = _glossary(http, HEADERS)
        dictionary = {"source_lang": "en", "target_lang": "fr", "entries": _full_dictionary(), "entries_format": "tsv"}

        def put() -> httpx.Response:
            return http.put(f"/v3/glossaries/{glossary_id}/dictionaries", json=dictionary, headers=HEADERS)

        try:
            answer = _answered_while_held(monkeypatch, PUT_STEPS[step], put, in_process.url)
            assert answer.status_code == 200, answer.text
            assert answer.json()["entry_count"] == _full_dictionary().count("\n")
        finally:
            http.delete(f"/v3/glossaries/{glossary_id}", headers=HEADERS)


# Before: the stored dictionary was parsed and indexed on the event loop at its first use (after
# every PUT), so a key could stall the service again and again.
FIRST_USE_STEPS = {"read": (translate_api, "_resources"), "index": (pseudo, "term_index")}


@pytest.mark.parametrize("step", FIRST_USE_STEPS)
def test_the_first_translation_with_a_10_mb_glossary_does_not_stall_other_requests(
    in_process: ServedInThread, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    dictionary = {"source_lang": "en", "target_lang": "fr", "entries": _full_dictionary(), "entries_format": "tsv"}
    with httpx.Client(base_url=in_process.url, timeout=SAFETY_SECONDS) as http:
        created = http.post("/v3/glossaries", json={"name": "big", "dictionaries": [dictionary]}, headers=HEADERS)
        assert created.status_code == 201, created.text
        glossary_id = created.json()["glossary_id"]
        request = {
            "text": ["the term 0000042 of the product"],
            "source_lang": "EN",
            "target_lang": "FR",
            "glossary_id": glossary_id,
        }
        try:
            answer = _answered_while_held(
                monkeypatch,
                FIRST_USE_STEPS[step],
                lambda: http.post(TRANSLATE, json=request, headers=HEADERS),
                in_process.url,
            )
        finally:
            http.delete(f"/v3/glossaries/{glossary_id}", headers=HEADERS)
    assert "Begriff 0000042 des Produkts" in answer.json()["translations"][0]["text"]


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_nan_and_infinity_are_400(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str], constant: str
) -> None:
    # Before: Python's JSON reader took them, and an unknown field holding one was simply ignored.
    headers = {**keys.paid, "Content-Type": "application/json"}
    body = f'{{"text": ["Hello"], "target_lang": "DE", "threshold": {constant}}}'
    message = error(http.post(TRANSLATE, content=body, headers=headers), 400)
    assert message == f"request body is not valid JSON: {constant} is not a JSON value"
    glossary = f'{{"name": "n", "dictionaries": [], "x": {constant}}}'
    assert "not a JSON value" in error(http.post("/v3/glossaries", content=glossary, headers=headers), 400)


def test_a_huge_invalid_value_is_echoed_cut_short(
    http: httpx.Client, keys: Keys, error: Callable[[httpx.Response, int], str]
) -> None:
    # Before: the whole 60,000-character value came back in the 400 message.
    huge = "X" * 60_000
    message = error(http.post(TRANSLATE, json={"text": ["Hi"], "target_lang": huge}, headers=keys.paid), 400)
    assert message == f"target_lang {repr(huge)[:MAX_ECHO_CHARS]}{ELLIPSIS} is not supported"
    entries = f"source\u0001{'y' * 60_000}\ttarget\n"
    body = {
        "name": "n",
        "dictionaries": [{"source_lang": "en", "target_lang": "de", "entries": entries, "entries_format": "tsv"}],
    }
    message = error(http.post("/v3/glossaries", json=body, headers=keys.paid), 400)
    assert message.endswith(ELLIPSIS) and len(message) < 300


def test_keys_dropped_from_the_configuration_stop_working_after_a_restart(
    launch_service: Callable[..., LiveService], tmp_path: Path, error: Callable[[httpx.Response, int], str]
) -> None:
    # Before: a free-tier or second paid-tier key removed from the environment kept working for good.
    data_dir = tmp_path / "data"
    first = launch_service(data_dir=data_dir, free_auth_key="free-old", other_paid_auth_key="other-old")

    def auth(key: str) -> dict[str, str]:
        return {"Authorization": f"Service-Auth-Key {key}"}

    body = {"text": ["Hello"], "target_lang": "DE"}
    with httpx.Client(base_url=first.url, timeout=30) as http:
        for key in ("free-old", "other-old", first.auth_key):
            assert http.post(TRANSLATE, json=body, headers=auth(key)).status_code == 200
        made = http.post("/v2/admin/developer-keys", json={"label": "made"}, headers=auth(first.admin_key)).json()
    assert first.stop() == 0

    second = launch_service(
        data_dir=data_dir,
        auth_key=first.auth_key,
        admin_key=first.admin_key,
        free_auth_key="free-new",
        other_paid_auth_key="other-new",
    )
    with httpx.Client(base_url=second.url, timeout=30) as http:
        for key in ("free-old", "other-old"):
            assert error(http.post(TRANSLATE, json=body, headers=auth(key)), 403) == "this key has been deactivated"
        for key in ("free-new", "other-new", first.auth_key, made["api_key"]):
            assert http.post(TRANSLATE, json=body, headers=auth(key)).status_code == 200
    assert "deactivated 2 developer key(s) that are no longer configured" in second.stderr()
    assert "free-old" not in second.stderr() and "other-old" not in second.stderr()
