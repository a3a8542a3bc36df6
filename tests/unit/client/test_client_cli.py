"""The hand-use subcommands: configuration from flags and environment, tables, --json."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any

import httpx
import pytest
import respx

import pipeline.client.sync
from pipeline.cli import main
from tests.unit.client.client_fakes import BASE_URL, KEY

ADMIN = "admin-7c1e-secret"
LANGS = [
    {
        "lang": "de",
        "name": "German",
        "usable_as_source": True,
        "usable_as_target": True,
        "status": "stable",
        "features": {"formality": {"status": "stable"}, "glossary": {"status": "stable"}},
    },
    {
        "lang": "de-CH",
        "name": "German (Swiss)",
        "usable_as_source": False,
        "usable_as_target": True,
        "status": "beta",
        "features": {},
    },
]
DEV_KEY = {
    "key_id": "a:b",
    "label": "CI",
    "creation_time": "2026-01-01T00:00:00.000Z",
    "is_deactivated": False,
    "usage_limits": {"characters": None},
}


def run(argv: list[str]) -> int:
    """The real entry point, so the tests also cover how the subcommands are registered."""
    return main(argv)


@pytest.fixture
def service(router: respx.Router, monkeypatch: pytest.MonkeyPatch) -> respx.Router:
    """Route the CLI's client to the respx router, with keys in the environment."""
    real = pipeline.client.sync.Client

    def with_mock_transport(url: str, key: str, **kwargs: Any) -> pipeline.client.sync.Client:
        return real(url, key, transport=httpx.MockTransport(router.handler), sleep=lambda s: None, **kwargs)

    monkeypatch.setattr(pipeline.client.sync, "Client", with_mock_transport)
    monkeypatch.setenv("PIPELINE_AUTH_KEY", KEY)
    monkeypatch.setenv("PIPELINE_ADMIN_KEY", ADMIN)
    monkeypatch.setenv("PIPELINE_SERVICE_URL", BASE_URL)
    return router


def test_no_url_fails_with_usage_exit_naming_both_options(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no pipeline.toml to name one
    monkeypatch.delenv("PIPELINE_SERVICE_URL", raising=False)
    monkeypatch.setenv("PIPELINE_AUTH_KEY", KEY)
    assert run(["usage"]) == 2
    err = capsys.readouterr().err
    assert "--service-url" in err and "PIPELINE_SERVICE_URL" in err


def test_bad_url_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PIPELINE_AUTH_KEY", KEY)
    assert run(["usage", "--service-url", "svc.test:8000"]) == 2
    assert "is not a service URL: did you mean 'https://svc.test:8000'?" in capsys.readouterr().err


def test_no_key_fails_naming_the_variable(
    service: respx.Router, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PIPELINE_ADMIN_KEY")
    assert run(["keys", "list"]) == 2
    assert "PIPELINE_ADMIN_KEY" in capsys.readouterr().err


def test_languages_table_and_json(service: respx.Router, capsys: pytest.CaptureFixture[str]) -> None:
    route = service.get("/v3/languages").respond(json=LANGS)
    assert run(["languages", "--resource", "translate_document", "--include", "beta"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["code", "name", "source", "target", "status", "features"]
    assert out[2].split(None, 2)[:2] == ["de", "German"] and out[2].endswith("formality, glossary")
    assert "German (Swiss)  no      yes     beta" in out[3]
    assert dict(route.calls.last.request.url.params.multi_items()) == {
        "resource": "translate_document",
        "include": "beta",
    }

    assert run(["languages", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0] == {
        "code": "de",
        "name": "German",
        "usable_as_source": True,
        "usable_as_target": True,
        "status": "stable",
        "features": {"formality": "stable", "glossary": "stable"},
    }


def test_service_url_flag_wins_over_environment(service: respx.Router, capsys: pytest.CaptureFixture[str]) -> None:
    other = service.get("https://other.test/v2/usage").respond(json={"character_count": 12, "character_limit": 100})
    assert run(["usage", "--service-url", "https://other.test"]) == 0
    assert other.call_count == 1
    out = capsys.readouterr().out
    assert "character_count" in out and "12" in out


def test_keys_use_the_admin_key(service: respx.Router, capsys: pytest.CaptureFixture[str]) -> None:
    listing = service.get("/v2/admin/developer-keys").respond(json=[DEV_KEY])
    limits = service.put("/v2/admin/developer-keys/limits").respond(json=DEV_KEY)
    assert run(["keys", "list"]) == 0
    assert listing.calls.last.request.headers["Authorization"] == f"Service-Auth-Key {ADMIN}"
    assert "a:b     CI     active  unlimited" in capsys.readouterr().out
    assert run(["keys", "limit", "a:b", "--unlimited", "--json"]) == 0
    assert json.loads(limits.calls.last.request.content) == {"key_id": "a:b", "characters": None}
    assert json.loads(capsys.readouterr().out)["characters_limit"] is None
    assert run(["keys", "limit", "a:b", "--characters", "5000", "--speech-ms", "0"]) == 0
    assert json.loads(limits.calls.last.request.content) == {
        "key_id": "a:b",
        "characters": 5000,
        "speech_to_text_milliseconds": 0,
    }


def test_keys_create_label_deactivate(service: respx.Router, capsys: pytest.CaptureFixture[str]) -> None:
    create = service.post("/v2/admin/developer-keys").respond(json={**DEV_KEY, "api_key": "new-secret-1"})
    label = service.put("/v2/admin/developer-keys/label").respond(json=DEV_KEY)
    deactivate = service.put("/v2/admin/developer-keys/deactivate").respond(json={**DEV_KEY, "is_deactivated": True})
    assert run(["keys", "create", "--label", "CI"]) == 0
    assert json.loads(create.calls.last.request.content) == {"label": "CI"}
    assert capsys.readouterr().out.endswith("New key (shown only now; store it safely): new-secret-1\n")
    assert run(["keys", "create", "--json"]) == 0
    assert json.loads(create.calls.last.request.content) == {}
    created = json.loads(capsys.readouterr().out)
    assert (created["key_id"], created["api_key"]) == ("a:b", "new-secret-1")
    assert run(["keys", "label", "a:b", "Nightly"]) == 0
    assert json.loads(label.calls.last.request.content) == {"key_id": "a:b", "label": "Nightly"}
    assert run(["keys", "deactivate", "a:b"]) == 0
    assert json.loads(deactivate.calls.last.request.content) == {"key_id": "a:b"}
    assert "deactivated" in capsys.readouterr().out.splitlines()[-1]


def test_document_translate_writes_next_to_input(
    service: respx.Router, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "notes.txt"
    source.write_bytes(b"Hello")
    service.post("/v2/document").respond(json={"document_id": "d1", "document_key": "dk"})
    service.post("/v2/document/d1").respond(json={"document_id": "d1", "status": "done", "billed_characters": 5})
    service.post("/v2/document/d1/result").respond(content=b"Hallo")
    assert run(["document", "translate", str(source), "--target-lang", "de", "--json"]) == 0
    assert (tmp_path / "notes.de.txt").read_bytes() == b"Hallo"
    summary = json.loads(capsys.readouterr().out)
    assert summary["billed_characters"] == 5 and summary["output"].endswith("notes.de.txt")
    out = tmp_path / "x.out"
    assert run(["document", "translate", str(source), "--target-lang", "de", "-o", str(out)]) == 0
    assert out.read_bytes() == b"Hallo"


def test_document_translate_missing_file_is_a_usage_error(
    service: respx.Router, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["document", "translate", str(tmp_path / "nope.docx"), "--target-lang", "de"]) == 2
    assert "nope.docx" in capsys.readouterr().err


def test_write_commands(service: respx.Router, capsys: pytest.CaptureFixture[str]) -> None:
    correct = service.post("/v2/write/correct").respond(json={"improvements": [{"text": "the cat"}, {"text": "a dog"}]})
    rephrase = service.post("/v2/write/rephrase").respond(
        json={"improvements": [{"text": "Hi!", "target_language": "en-US"}]}
    )
    assert run(["write", "correct", "teh cat", "a dgo", "--target-lang", "en"]) == 0
    assert capsys.readouterr().out == "the cat\na dog\n"
    assert json.loads(correct.calls.last.request.content) == {"text": ["teh cat", "a dgo"], "target_lang": "en"}
    assert run(["write", "rephrase", "hello", "--tone", "prefer_friendly", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["text"] == "Hi!"
    assert json.loads(rephrase.calls.last.request.content) == {"text": ["hello"], "tone": "prefer_friendly"}


def test_service_errors_become_exit_codes(service: respx.Router, capsys: pytest.CaptureFixture[str]) -> None:
    service.get("/v2/usage").respond(403, json={"message": "Wrong key"})
    assert run(["usage"]) == 4
    assert "403: Wrong key" in capsys.readouterr().err


def test_importing_the_cli_does_not_import_httpx() -> None:
    code = "import sys, pipeline.cli.client; print('httpx' in sys.modules)"
    root = pathlib.Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True).stdout
    assert out.strip() == "False"
