"""A user or password in the service URL is refused (exit 2), wherever the URL comes from, never quoted.

httpx turns ``https://user:pw@host`` into Basic auth that replaces the key's Authorization header,
so such a URL can never reach the service; before, its password also landed in report.json and in
the "using the translation service at ..." line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.client.aio import AsyncClient
from pipeline.client.sync import Client
from pipeline.config import ENV_SERVICE_URL, ServiceSettings, load_settings
from pipeline.errors import ConfigError, ExitCode
from tests.sample_project import copy_sample_project

SECRET = "pa55-w0rd-q7"
WITH_USERINFO = [
    f"https://user:{SECRET}@api.example/",
    f"https://{SECRET}@api.example",  # a token as the user name
    f"https://user:{SECRET.replace('-', '%2D')}@api.example:8443/v2",
    f"http://:{SECRET}@127.0.0.1:8080",
]


@pytest.mark.parametrize("url", WITH_USERINFO)
def test_the_configured_service_url_with_userinfo_is_a_config_error_naming_the_file_not_the_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.delenv(ENV_SERVICE_URL, raising=False)
    config = tmp_path / "pipeline.toml"
    config.write_text(f'[service]\nurl = "{url}"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_settings(config)
    message = str(caught.value)
    assert str(config) in message and "service.url" in message and "PIPELINE_AUTH_KEY" in message
    assert SECRET not in message and "user" not in message.replace("a user", "")
    assert caught.value.exit_code == ExitCode.USAGE


def test_the_environment_url_with_userinfo_is_refused_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_SERVICE_URL, WITH_USERINFO[0])
    with pytest.raises(ConfigError) as caught:
        load_settings(None, cwd=tmp_path)
    assert ENV_SERVICE_URL in str(caught.value) and SECRET not in str(caught.value)


@pytest.mark.parametrize("command", ["translate", "refresh"])
def test_the_command_line_url_with_userinfo_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.setenv("PIPELINE_AUTH_KEY", "the-key")
    root = copy_sample_project(tmp_path, "embedded")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    code = main([command, "--config", str(root / "pipeline.toml"), "--service-url", WITH_USERINFO[0]])
    captured = capsys.readouterr()
    assert code == ExitCode.USAGE and "--service-url" in captured.err, captured.err
    assert SECRET not in captured.out + captured.err
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before  # no report, no catalog


def test_library_users_get_the_same_refusal_from_the_settings_and_the_client() -> None:
    with pytest.raises(ConfigError) as caught:
        ServiceSettings(url=WITH_USERINFO[0])
    assert SECRET not in str(caught.value)
    for shell in (Client, AsyncClient):
        with pytest.raises(ValueError) as refused:
            shell(WITH_USERINFO[0], "the-key")
        assert SECRET not in str(refused.value) and "Basic" in str(refused.value)
    with pytest.raises(ValueError) as wrong_scheme:
        Client(f"ftp://user:{SECRET}@api.example", "the-key")
    assert SECRET not in str(wrong_scheme.value) and "ftp://api.example" in str(wrong_scheme.value)


@pytest.mark.parametrize("url", ["https://api.example/v2@stable", "https://api.example/?q=a@b", "embedded"])
def test_an_at_sign_outside_the_authority_is_no_userinfo(url: str) -> None:
    assert ServiceSettings(url=url).url == url
