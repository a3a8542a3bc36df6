"""The app in-process: the embedded mode, clocked usage periods, engine and lookup seams."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable
from typing import Any

import httpx

from pipeline.service.app import create_app
from pipeline.service.config import AccountSpec, ServiceConfig
from pipeline.service.embedded import embedded_transport
from pipeline.service.engine.base import EngineRequest, Translation
from pipeline.service.engine.pseudo import transliterate
from pipeline.service.store.resources import GlossaryInfo, NoResources, StyleInfo
from tests.unit.service.conftest import Clock, Headers, InProcess

UTC = dt.UTC


def test_embedded_mode_without_lifespan() -> None:
    """Exactly what the pipeline's embedded default does; closing the client closes the service."""

    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        transport = embedded_transport(ServiceConfig(accounts=(AccountSpec("paid", ("embedded-key",)),)))
        headers = {"Authorization": "Service-Auth-Key embedded-key"}
        async with httpx.AsyncClient(transport=transport, base_url="http://embedded.invalid") as client:
            body = {
                "source_lang": "EN",
                "target_lang": "DE",
                "text": ['Delete <x id="1"/> files?', "Quit"],
                "tag_handling": "xml",
                "ignore_tags": ["x"],
                "context": "file manager",
                "show_billed_characters": True,
            }
            translated = (await client.post("/v2/translate", json=body, headers=headers)).json()
            languages = (await client.get("/v3/languages?resource=translate_text", headers=headers)).json()
            assert transport.service.is_open
        assert not transport.service.is_open
        return translated, languages

    translated, languages = asyncio.run(scenario())
    assert [t["text"] for t in translated["translations"]] == [
        f'{transliterate("Delete", "DE")} <x id="1"/> {transliterate("files?", "DE")}',
        transliterate("Quit", "DE"),
    ]
    assert translated["billed_characters"] == 29
    assert any(entry["lang"] == "de" for entry in languages)


def test_usage_resets_with_the_month(
    make_client: Callable[..., InProcess], headers: type[Headers], clock: Clock
) -> None:
    client = make_client(clock=clock)
    created = client.post("/v2/admin/developer-keys", json={"label": "monthly"}, headers=headers.admin).json()
    key = {"Authorization": f"Service-Auth-Key {created['api_key']}"}
    client.put(
        "/v2/admin/developer-keys/limits", json={"key_id": created["key_id"], "characters": 5}, headers=headers.admin
    )
    body = {"text": ["Hello"], "source_lang": "EN", "target_lang": "DE"}
    assert client.post("/v2/translate", json=body, headers=key).status_code == 200
    assert client.post("/v2/translate", json=body, headers=key).status_code == 456
    usage = client.get("/v2/usage", headers=key).json()
    assert (usage["start_time"], usage["end_time"]) == ("2026-05-01T00:00:00Z", "2026-06-01T00:00:00Z")
    clock.now += dt.timedelta(hours=2)
    assert client.get("/v2/usage", headers=key).json()["api_key_character_count"] == 0
    assert client.post("/v2/translate", json=body, headers=key).status_code == 200


def test_analytics_days_follow_the_clock(
    make_client: Callable[..., InProcess], headers: type[Headers], clock: Clock
) -> None:
    client = make_client(clock=clock, analytics_page_size=1)
    body = {"text": ["Hello"], "source_lang": "EN", "target_lang": "DE"}
    for tag in ("alpha", "beta"):
        client.post("/v2/translate", json=body, headers={**headers.paid, "X-Service-Reporting-Tag": tag})
    clock.now += dt.timedelta(days=1)
    client.post("/v2/translate", json=body, headers={**headers.paid, "X-Service-Reporting-Tag": "alpha"})
    query = "start_date=2026-05-31&end_date=2026-06-01&aggregate_by=day"
    pages, page = [], 0
    while page is not None:
        report = client.get(f"/v2/admin/analytics/custom-tags?{query}&page={page}", headers=headers.admin).json()
        report = report["custom_tag_usage_report"]
        pages.append([(u["custom_tag"], u["usage_date"]) for u in report["usage"]])
        page = report["next_page"]
    assert pages == [
        [("alpha", "2026-05-31T00:00:00Z")],
        [("beta", "2026-05-31T00:00:00Z")],
        [("alpha", "2026-06-01T00:00:00Z")],
    ]


class EchoEngine:
    """An engine that upper-cases, to show the seam."""

    def __init__(self) -> None:
        self.requests: list[EngineRequest] = []

    async def translate(self, request: EngineRequest) -> list[Translation]:
        self.requests.append(request)
        return [Translation(t.upper(), request.source_lang or "EN") for t in request.texts]


def test_engine_is_injectable(make_client: Callable[..., InProcess], headers: type[Headers]) -> None:
    engine = EchoEngine()
    client = make_client(engine=engine)
    body = {
        "text": ["hello"],
        "target_lang": "pt-br",
        "formality": "prefer_less",
        "tag_handling": "html",
        "context": "greeting",
    }
    assert client.post("/v2/translate", json=body, headers=headers.paid).json()["translations"][0]["text"] == "HELLO"
    [request] = engine.requests
    assert (request.source_lang, request.target_lang, request.formality) == (None, "PT-BR", "less")
    assert (request.model_type, request.split_sentences, request.context) == (
        "quality_optimized",
        "nonewlines",
        "greeting",
    )
    assert request.markup is not None and request.markup.mode == "html"


class BrokenEngine:
    async def translate(self, request: EngineRequest) -> list[Translation]:
        raise RuntimeError("engine exploded: secret internals")


def test_engine_failure_is_a_clean_500_and_not_billed() -> None:
    app = create_app(ServiceConfig(accounts=(AccountSpec("paid", ("k",)),), engine=BrokenEngine()))

    async def scenario() -> tuple[httpx.Response, dict[str, Any]]:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with app.running(), httpx.AsyncClient(transport=transport, base_url="http://embedded.invalid") as client:
            headers = {"Authorization": "Service-Auth-Key k"}
            failed = await client.post("/v2/translate", json={"text": ["x"], "target_lang": "DE"}, headers=headers)
            usage = (await client.get("/v2/usage", headers=headers)).json()
        return failed, usage

    failed, usage = asyncio.run(scenario())
    assert failed.status_code == 500
    assert failed.json() == {"message": "internal error of the local service"}
    assert usage["api_key_character_count"] == 0


class Resources(NoResources):
    """Part-2 lookups stand-in: one glossary and one style rule list."""

    def glossary(self, account_id: str, glossary_id: str) -> GlossaryInfo | None:
        if glossary_id != "g1":
            return None
        return GlossaryInfo({("en", "de"): (("file", "Datei"), ("save", "Sichern"))})

    def style_list(self, account_id: str, style_id: str) -> StyleInfo | None:
        return StyleInfo("de", ("Use the informal you.",)) if style_id == "s1" else None


def test_lookup_seam_applies_glossaries_and_checks_style_language(client: InProcess, headers: type[Headers]) -> None:
    state = client.app.state.service
    client.app.state.service = state._replace(lookups=Resources())
    body = {"text": ["Save the File"], "source_lang": "EN", "target_lang": "DE-CH", "glossary_id": "g1"}
    out = client.post("/v2/translate", json=body, headers=headers.paid)
    assert out.json()["translations"][0]["text"] == f"Sichern {transliterate('the', 'DE-CH')} Datei"
    wrong_pair = client.post("/v2/translate", json={**body, "source_lang": "FR"}, headers=headers.paid)
    assert wrong_pair.status_code == 400
    assert wrong_pair.json() == {"message": "No dictionary found for language pair fr->de in glossary 'g1'"}
    styled = {"text": ["Hi"], "source_lang": "EN", "target_lang": "DE", "style_id": "s1"}
    assert client.post("/v2/translate", json=styled, headers=headers.paid).status_code == 200
    mismatch = client.post("/v2/translate", json={**styled, "target_lang": "FR"}, headers=headers.paid)
    assert mismatch.status_code == 400
    assert mismatch.json() == {"message": "style rule list 's1' is for 'de', but the target language is 'FR'"}


def test_free_tier_admin_spec_is_refused(make_client: Callable[..., InProcess]) -> None:
    client = make_client(accounts=(AccountSpec("free", ("f",), ("fa",)),))
    response = client.get("/v2/admin/developer-keys", headers={"Authorization": "Service-Auth-Key fa"})
    assert response.status_code == 403
    assert response.json() == {"message": "the admin interface is available to paid-tier accounts only"}


def test_each_route_group_declares_the_first_segment_of_every_path_it_answers() -> None:
    """A group is loaded at the first request under its declared segments: a path it answers under
    another segment would be a 404 until some other request loaded it."""
    import importlib
    import pkgutil

    import pipeline.service.api as api
    from pipeline.service.app import V2_GROUPS, V3_GROUPS

    grouped = set(V2_GROUPS) | set(V3_GROUPS)
    modules = {
        info.name: importlib.import_module(f"{api.__name__}.{info.name}") for info in pkgutil.iter_modules(api.__path__)
    }
    with_routes = {name for name, module in modules.items() if hasattr(module, "routes")}
    assert with_routes == grouped
    for groups in (V2_GROUPS, V3_GROUPS):
        segments = [segment for declared in groups.values() for segment in declared]
        assert len(segments) == len(set(segments))  # one group per segment of a version
        for module, declared in groups.items():
            paths = [route.path for route in importlib.import_module(f"{api.__name__}.{module}").routes]
            assert {path.lstrip("/").partition("/")[0] for path in paths} == set(declared), module


def test_a_route_group_is_loaded_at_the_first_request_under_its_paths_and_answers_as_before() -> None:
    import sys

    from pipeline.service.app import RouteGroup

    async def scenario() -> list[int]:
        transport = embedded_transport(ServiceConfig(accounts=(AccountSpec("paid", ("k",)),)))
        headers = {"Authorization": "Service-Auth-Key k"}
        async with httpx.AsyncClient(transport=transport, base_url="http://embedded.invalid") as client:
            codes = [(await client.get("/v2/usage", headers=headers)).status_code]
            groups = [group for mount in transport.service.router.routes for group in getattr(mount, "routes", [])]
            loaded = [group.module for group in groups if isinstance(group, RouteGroup) and group._router is not None]
            assert loaded == ["usage"]
            codes.append((await client.get("/v2/translate", headers=headers)).status_code)  # POST only
            codes.append((await client.post("/v2/translate/", headers=headers)).status_code)  # no redirect
            codes.append((await client.get("/v2/nothing", headers=headers)).status_code)
            codes.append((await client.get("/v3/style_rules", headers=headers)).status_code)
        return codes

    assert asyncio.run(scenario()) == [200, 405, 404, 404, 200]
    assert "pipeline.service.api.usage" in sys.modules
