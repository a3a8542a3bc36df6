"""A request body is bounded in fields and values, not only in bytes: one body must not cost the server gigabytes.

``a&a&a...`` within a glossary's body limit (tens of megabytes) was millions of fields, each a
Python object: one request grew ``pipeline serve`` by 1.7 GiB. Forms hold at most 1000 fields, as
Starlette's, Django's and PHP's parsers allow by default; counted before anything is split. A JSON
body's arrays, objects and elements are bounded the same way (``[[],[],...]``: 530 MiB for 20 MiB).
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable
from pathlib import Path

import httpx

from pipeline.service.http.params import MAX_FORM_FIELDS, MAX_JSON_VALUES
from tests.integration.conftest import LiveService

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def _peak_bytes(pid: int) -> int:
    """The most memory the process has held (VmHWM), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def test_a_form_of_millions_of_fields_is_refused_without_growing_the_server(
    launch_service: Callable[..., LiveService],
) -> None:
    service = launch_service()
    headers = {"Authorization": f"Service-Auth-Key {service.auth_key}", **FORM}
    body = b"a&" * (12 * 1024 * 1024 // 2)  # 12 MiB: 6 million fields, within the glossary body limit
    with httpx.Client(base_url=service.url, timeout=60) as http:
        http.get("/v2/usage", headers=headers)  # everything a request loads is loaded
        before = _peak_bytes(service.process.pid)
        for path in ("/v3/glossaries", "/v2/glossaries"):
            answer = http.post(path, content=body, headers=headers)
            assert answer.status_code == 400, answer.text
            assert f"at most {MAX_FORM_FIELDS} fields" in answer.json()["message"]
        translate = http.post("/v2/translate", content=b"target_lang=DE&" + b"text=a&" * 2000, headers=headers)
        assert translate.status_code == 400 and "fields" in translate.json()["message"]
        grown = _peak_bytes(service.process.pid) - before
    assert grown < 150 * 1024 * 1024, f"the server's peak grew by {grown / 2**20:.0f} MiB"


def test_a_form_of_hundreds_of_fields_within_the_bound_is_read_as_before(
    launch_service: Callable[..., LiveService],
) -> None:
    service = launch_service()
    headers = {"Authorization": f"Service-Auth-Key {service.auth_key}", **FORM}
    languages = ["en", "de", "fr", "es", "it", "nl", "pl", "pt", "ja", "zh"]
    pairs = [(s, t) for s in languages for t in languages if s != t]  # 90 dictionaries: 362 fields
    fields = [("name", "forms")]
    for n, (source, target) in enumerate(pairs):
        fields += [
            (f"dictionaries[{n}].source_lang", source),
            (f"dictionaries[{n}].target_lang", target),
            (f"dictionaries[{n}].entries", f"term {n}\tBegriff {n}"),
            (f"dictionaries[{n}].entries_format", "tsv"),
        ]
    with httpx.Client(base_url=service.url, timeout=60) as http:
        answer = http.post("/v3/glossaries", content=urllib.parse.urlencode(fields).encode(), headers=headers)
    assert answer.status_code == 201, answer.text
    assert len(answer.json()["dictionaries"]) == len(pairs)


def test_a_json_body_of_millions_of_values_is_refused_without_growing_the_server(
    launch_service: Callable[..., LiveService],
) -> None:
    service = launch_service()
    headers = {"Authorization": f"Service-Auth-Key {service.auth_key}", "Content-Type": "application/json"}
    containers = b'{"name":"x","dictionaries":[' + b"[]," * (4 * 1024 * 1024) + b"[]]}"
    strings = (
        b'{"name":"x","dictionaries":[{"source_lang":"en","target_lang":"de","entries":["'
        + b'a","' * (3 * 1024 * 1024)
        + b'a"]}]}'
    )
    with httpx.Client(base_url=service.url, timeout=60) as http:
        http.get("/v2/usage", headers=headers)
        before = _peak_bytes(service.process.pid)
        for body in (containers, strings):
            answer = http.post("/v3/glossaries", content=body, headers=headers)
            assert answer.status_code == 400, answer.text
            assert f"at most {MAX_JSON_VALUES} are allowed" in answer.json()["message"]
        grown = _peak_bytes(service.process.pid) - before
        # 150,000 commas, all in a string: they count for nothing, and the CSV dictionary is read.
        entries = "\n".join(f"term {n},Begriff {n}" for n in range(150_000))
        dictionary = {"source_lang": "en", "target_lang": "de", "entries_format": "csv", "entries": entries}
        csv_body = {"name": "csv", "dictionaries": [dictionary]}
        created = http.post("/v3/glossaries", json=csv_body, headers={"Authorization": headers["Authorization"]})
    assert created.status_code == 201, created.text
    assert grown < 150 * 1024 * 1024, f"the server's peak grew by {grown / 2**20:.0f} MiB"
