"""Hostile requests and a hostile environment against a real ``pipeline serve`` (issue: the service).

Each test reproduces one attack: an oversized glossary body, a slow glossary parse meant to stall
everyone else, JSON ``NaN``/``Infinity``, a huge invalid value echoed back, and keys that stay
valid after the configuration dropped them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import httpx
import pytest

from pipeline.protocol import MAX_GLOSSARY_DICTIONARY_BYTES
from pipeline.service.api.glossaries import ONE_DICTIONARY_BODY_LIMIT
from pipeline.service.echo import ELLIPSIS, MAX_ECHO_CHARS

TRANSLATE = "/v2/translate"


def _glossary(http: httpx.Client, headers: dict[str, str]) -> str:
    body = {
        "name": "hostile",
        "dictionaries": [{"source_lang": "en", "target_lang": "de", "entries": "a\tb\n", "entries_format": "tsv"}],
    }
    created = http.post("/v3/glossaries", json=body, headers=headers)
    assert created.status_code == 201, created.text
    return str(created.json()["glossary_id"])


def _full_dictionary() -> str:
    """Just under 10 MB of distinct TSV entries: the largest dictionary the spec allows."""
    lines, size, number = [], 0, 0
    while True:
        line = f"term {number:07d} of the product\tBegriff {number:07d} des Produkts\n"
        if size + len(line) > MAX_GLOSSARY_DICTIONARY_BYTES:
            return "".join(lines)
        lines.append(line)
        size += len(line)
        number += 1


def test_a_glossary_body_past_the_spec_limit_is_413_before_it_is_read(http, keys, error):
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


def test_the_largest_dictionary_fits_the_body_limit_even_escaped_at_worst():
    import json

    entries = "\u00e9" * (MAX_GLOSSARY_DICTIONARY_BYTES // 2)  # two UTF-8 bytes, six escaped
    body = json.dumps({"source_lang": "en", "target_lang": "de", "entries_format": "tsv", "entries": entries})
    assert len(body.encode("ascii")) <= ONE_DICTIONARY_BODY_LIMIT


def _longest_wait_while(busy: threading.Thread, http: httpx.Client, headers: dict[str, str]) -> float:
    """Send small requests one after another while ``busy`` runs; the longest time one took.

    Over a stalled event loop one of them waits for the whole stall; otherwise each takes a few
    milliseconds, whatever the machine's speed.
    """
    longest = 0.0
    while busy.is_alive():
        started = time.monotonic()
        assert http.get("/v2/usage", headers=headers).status_code == 200
        longest = max(longest, time.monotonic() - started)
    return longest


def _timed(work: Callable[[], None], timings: dict[str, float]) -> threading.Thread:
    def run() -> None:
        started = time.monotonic()
        work()
        timings["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_parsing_a_10_mb_glossary_does_not_stall_other_requests(live_service, http, keys):
    # Before: the body was parsed and checked on the event loop; every other request waited.
    glossary_id = _glossary(http, keys.paid)
    dictionary = {"source_lang": "en", "target_lang": "fr", "entries": _full_dictionary(), "entries_format": "tsv"}
    timings: dict[str, float] = {}
    answers: list[httpx.Response] = []

    def put() -> None:
        with httpx.Client(base_url=live_service.url, timeout=120) as own:
            answers.append(own.put(f"/v3/glossaries/{glossary_id}/dictionaries", json=dictionary, headers=keys.paid))

    try:
        longest = _longest_wait_while(_timed(put, timings), http, keys.paid)
    finally:
        http.delete(f"/v3/glossaries/{glossary_id}", headers=keys.paid)
    assert answers[0].status_code == 200, answers[0].text
    assert longest < timings["seconds"] / 2


def test_the_first_translation_with_a_10_mb_glossary_does_not_stall_other_requests(live_service, http, keys):
    # Before: the stored dictionary was parsed and indexed on the event loop at its first use
    # (after every PUT), so a key could stall the service again and again.
    dictionary = {"source_lang": "en", "target_lang": "fr", "entries": _full_dictionary(), "entries_format": "tsv"}
    created = http.post(
        "/v3/glossaries", json={"name": "big", "dictionaries": [dictionary]}, headers=keys.paid, timeout=120
    )
    assert created.status_code == 201, created.text
    glossary_id = created.json()["glossary_id"]
    request = {
        "text": ["the term 0000042 of the product"],
        "source_lang": "EN",
        "target_lang": "FR",
        "glossary_id": glossary_id,
    }
    timings: dict[str, float] = {}
    answers: list[httpx.Response] = []

    def translate() -> None:
        with httpx.Client(base_url=live_service.url, timeout=120) as own:
            answers.append(own.post(TRANSLATE, json=request, headers=keys.paid))

    try:
        longest = _longest_wait_while(_timed(translate, timings), http, keys.paid)
    finally:
        http.delete(f"/v3/glossaries/{glossary_id}", headers=keys.paid)
    assert "Begriff 0000042 des Produkts" in answers[0].json()["translations"][0]["text"]
    assert longest < timings["seconds"] / 2


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_nan_and_infinity_are_400(http, keys, error, constant):
    # Before: Python's JSON reader took them, and an unknown field holding one was simply ignored.
    headers = {**keys.paid, "Content-Type": "application/json"}
    body = f'{{"text": ["Hello"], "target_lang": "DE", "threshold": {constant}}}'
    message = error(http.post(TRANSLATE, content=body, headers=headers), 400)
    assert message == f"request body is not valid JSON: {constant} is not a JSON value"
    glossary = f'{{"name": "n", "dictionaries": [], "x": {constant}}}'
    assert "not a JSON value" in error(http.post("/v3/glossaries", content=glossary, headers=headers), 400)


def test_a_huge_invalid_value_is_echoed_cut_short(http, keys, error):
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


def test_keys_dropped_from_the_configuration_stop_working_after_a_restart(launch_service, tmp_path, error):
    # Before: a free-tier or second paid-tier key removed from the environment kept working for good.
    data_dir = tmp_path / "data"
    first = launch_service(data_dir=data_dir, free_auth_key="free-old", other_paid_auth_key="other-old")
    auth = lambda key: {"Authorization": f"Service-Auth-Key {key}"}  # noqa: E731
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
