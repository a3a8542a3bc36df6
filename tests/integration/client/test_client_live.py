"""Every client method the local service implements, over a real socket on 127.0.0.1."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from pipeline.client.aio import AsyncClient
from pipeline.client.api_data import Language, TranslateResult, Translation
from pipeline.client.sync import Client
from pipeline.errors import AuthenticationError, BadRequestError, QuotaExceededError
from pipeline.service.engine.pseudo import transliterate
from tests.integration.client.client_live_support import FakeSleep

pytestmark = pytest.mark.integration


def pseudo_de(text: str) -> str:
    """What the local pseudo engine makes of plain words for a German target."""
    return transliterate(text, "DE")


def test_translate(client: Client) -> None:
    result = client.translate(["Hello world", "Good morning"], target_lang="DE", source_lang="EN")
    assert result == TranslateResult(
        (Translation(pseudo_de("Hello world"), "EN"), Translation(pseudo_de("Good morning"), "EN")),
        billed_characters=len("Hello world") + len("Good morning"),
    )


def test_translate_keeps_ignored_markup(client: Client) -> None:
    text = 'Open <x id="1"/> now'
    result = client.translate([text], target_lang="DE", source_lang="EN", tag_handling="xml", ignore_tags=["x"])
    assert result.translations[0].text == f'{pseudo_de("Open")} <x id="1"/> {pseudo_de("now")}'


def test_translate_model_type_used(client: Client) -> None:
    result = client.translate(["Hi"], target_lang="FR", source_lang="EN", model_type="prefer_quality_optimized")
    assert result.model_type_used in ("quality_optimized", "latency_optimized")


def test_translate_rule_broken_on_the_service_side_is_bad_request(client: Client) -> None:
    with pytest.raises(BadRequestError) as caught:
        client.translate(["Hi"], target_lang="ZZ")
    assert caught.value.status_code == 400 and caught.value.message


def test_languages(client: Client) -> None:
    languages = client.languages()
    by_code = {lang.code: lang for lang in languages}
    assert isinstance(by_code["de"], Language)
    assert by_code["de"].usable_as_source and by_code["de"].usable_as_target
    assert "formality" in by_code["de"].features
    assert "de-CH" not in by_code  # beta only on request
    beta = {lang.code: lang for lang in client.languages(include=["beta"])}
    assert beta["de-CH"].status == "beta"


def test_language_resources_and_v2(client: Client) -> None:
    resources = {r.name: r for r in client.language_resources()}
    glossary = {f.name: f for f in resources["translate_text"].features}["glossary"]
    assert glossary.needs_source_support and glossary.needs_target_support
    targets = {lang.language: lang for lang in client.languages_v2("target")}
    assert targets["DE"].supports_formality is True
    assert "EN-US" in targets


def test_usage_counts_translated_characters(client: Client) -> None:
    before = client.usage().character_count
    client.translate(["abcde"], target_lang="DE", source_lang="EN")
    assert client.usage().character_count == before + 5


def test_admin_keys_lifecycle(live_service: Any, admin: Client) -> None:
    key = admin.create_developer_key("integration")
    assert key.label == "integration" and not key.is_deactivated and key.characters_limit is None
    assert key.key_id in {k.key_id for k in admin.list_developer_keys()}
    assert admin.label_developer_key(key.key_id, "renamed").label == "renamed"
    assert admin.set_developer_key_limits(key.key_id, 1000).characters_limit == 1000
    assert admin.set_developer_key_limits(key.key_id, None).characters_limit is None
    gone = admin.deactivate_developer_key(key.key_id)
    assert gone.is_deactivated and gone.deactivated_time


def test_developer_key_cannot_administer(client: Client) -> None:
    with pytest.raises(AuthenticationError) as caught:
        client.list_developer_keys()
    assert caught.value.status_code == 403


def test_key_limit_answers_456_without_retry(live_service: Any, admin: Client) -> None:
    key, secret = _new_key_with_secret(admin)
    try:
        admin.set_developer_key_limits(key, 5)
        sleep = FakeSleep()
        with Client(live_service.url, secret, sleep=sleep) as limited:
            assert limited.translate(["Hello"], target_lang="DE").billed_characters == 5
            with pytest.raises(QuotaExceededError) as caught:
                limited.translate(["!"], target_lang="DE")
        assert caught.value.status_code == 456 and sleep.sleeps == []
        assert secret not in str(caught.value)
    finally:
        admin.deactivate_developer_key(key)


def test_deactivated_key_is_refused(live_service: Any, admin: Client) -> None:
    key, secret = _new_key_with_secret(admin)
    admin.deactivate_developer_key(key)
    with Client(live_service.url, secret) as gone, pytest.raises(AuthenticationError) as caught:
        gone.usage()
    assert caught.value.status_code == 403 and not caught.value.should_retry


def test_analytics_follow_next_page(live_service: Any, admin: Client) -> None:
    tags = [f"tag-{n}" for n in range(3)]
    for tag in tags:
        with Client(live_service.url, live_service.auth_key, reporting_tag=tag) as tagged:
            tagged.translate(["Hello"], target_lang="DE")
    today = date.today()
    seen = {u.custom_tag: u for u in admin.iter_custom_tag_usage(today - timedelta(days=1), today + timedelta(days=1))}
    for tag in tags:
        assert seen[tag].text_translation_characters >= 5
    first = admin.custom_tag_usage(today - timedelta(days=1), today + timedelta(days=1), aggregate_by="day")
    assert first.aggregate_by == "day"


@pytest.mark.anyio
async def test_async_client(live_service: Any) -> None:
    async with AsyncClient(live_service.url, live_service.auth_key) as c:
        result = await c.translate(["Hello world"], target_lang="DE", source_lang="EN")
        usage = await c.usage()
        languages = await c.languages("translate_text")
    assert result.translations[0].text == pseudo_de("Hello world")
    assert usage.character_count >= 11
    assert any(lang.code == "de" for lang in languages)


def _new_key_with_secret(admin: Client) -> tuple[str, str]:
    """A new developer key and its secret (shown only in the creating answer)."""
    key = admin.create_developer_key("limited")
    assert key.api_key
    return key.key_id, key.api_key
