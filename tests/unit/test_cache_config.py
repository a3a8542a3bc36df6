"""The [cache] section: url, ttl and PIPELINE_CACHE_URL, and a password that is never shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.cache import open_cache
from pipeline.config import ENV_CACHE_URL, load_settings, project_dir
from pipeline.errors import ConfigError
from pipeline.run.journal import settings_hash

SECRET = "s3cr3t-pa55"


def write(tmp_path: Path, cache: str) -> Path:
    (tmp_path / "pipeline.toml").write_text(f"[cache]\n{cache}", encoding="utf-8")
    return tmp_path / "pipeline.toml"


def test_url_and_ttl_are_read_and_the_environment_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_CACHE_URL, raising=False)
    path = write(tmp_path, 'url = "redis://cache.internal:6379/3"\nttl = 86400\n')
    settings = load_settings(path)
    assert settings.cache_url == "redis://cache.internal:6379/3" and settings.cache_ttl == 86400
    assert settings.cache_dir == project_dir(tmp_path)  # the local folder stays, as the near cache
    monkeypatch.setenv(ENV_CACHE_URL, f"rediss://:{SECRET}@other:6380/0")
    assert load_settings(path).cache_url == f"rediss://:{SECRET}@other:6380/0"


def test_no_url_no_shared_cache_and_ttl_zero_means_no_expiry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_CACHE_URL, raising=False)
    settings = load_settings(write(tmp_path, "ttl = 0\n"))
    assert settings.cache_url is None and settings.cache_ttl is None


@pytest.mark.parametrize(
    "cache", ['url = "http://u:s3cr3t-pa55@host/"\n', 'url = "s3cr3t-pa55"\n', "ttl = -1\n", 'ttl = "1"\n', "url = 5\n"]
)
def test_a_bad_value_is_a_config_error_that_never_quotes_the_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: str
) -> None:
    monkeypatch.delenv(ENV_CACHE_URL, raising=False)
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path, cache))
    assert SECRET not in str(caught.value) and "cache." in str(caught.value)


def test_a_bad_environment_url_is_refused_without_quoting_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_CACHE_URL, f"memcached://:{SECRET}@host")
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path, ""))
    assert SECRET not in str(caught.value) and ENV_CACHE_URL in str(caught.value)


def test_the_password_is_not_in_the_settings_repr_and_changes_no_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_CACHE_URL, f"redis://:{SECRET}@host:6379/0")
    settings = load_settings(write(tmp_path, "ttl = 60\n"))
    assert SECRET not in repr(settings)
    # Where results are shared does not change what a run writes: catalogs settled stay settled.
    assert settings_hash(settings) == settings_hash(settings._replace(cache_url=None, cache_ttl=None))


def test_no_cache_means_neither_the_folder_nor_the_shared_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_CACHE_URL, f"redis://:{SECRET}@127.0.0.1:1/0")
    settings = load_settings(write(tmp_path, ""))
    cache = open_cache(settings, "svc", pytest.fail, enabled=False)
    cache.set("k", "v")
    assert cache.get("k") == "v" and cache.shared_round_trips == 0
    cache.close()
    assert settings.cache_dir is not None and not settings.cache_dir.exists()
