"""An in-memory fake of the service's glossary, style rule, language and translate endpoints
(for httpx.MockTransport), recording every request so tests can count write calls.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy

STYLE_LANGS = {"de", "en", "es", "fr", "it", "ja", "ko", "zh"}
FORMALITY = {"DE", "FR", "PT-BR", "PL", "ZH-HANT"}  # ZH-HANT: beyond the spec's list


class LostAnswer(Exception):
    """Raised to drop an answer after the request was carried out."""


class FakeResources:
    """Glossaries v3, style rule lists, languages, translation memories and translate, in memory."""

    def __init__(
        self,
        targets: tuple[str, ...] = ("de", "fr", "pl", "pt-BR", "ja", "zh-Hant"),
        glossary_routes: bool = True,
        style_routes: bool = True,
        memories: Sequence[str] = (),
    ) -> None:
        self.targets = targets
        self.glossary_routes, self.style_routes = glossary_routes, style_routes
        self.memories = list(memories)
        self.memory_edits: dict[str, int] = {}  # memory id -> times it was edited (in the service's web UI)
        self.glossaries: dict[str, dict[str, Any]] = {}
        self.styles: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, str]] = []
        self.translations: list[dict[str, Any]] = []
        self.lose_answer: Callable[[httpx.Request], bool] = lambda request: False
        self._ids = (f"00000000-0000-4000-8000-{n:012d}" for n in itertools.count(1))
        self._clock = itertools.count(1)

    # --- what tests look at -----------------------------------------------------------------

    def writes(self) -> list[tuple[str, str]]:
        """The non-GET requests to /v3 (glossaries, style rules)."""
        return [r for r in self.requests if r[0] != "GET" and r[1].startswith("/v3/")]

    def reset_log(self) -> None:
        """Forget the requests seen so far."""
        self.requests.clear()
        self.translations.clear()

    def client(self, max_attempts: int = 1) -> AsyncClient:
        """An async client talking to this fake."""
        return AsyncClient(
            "http://fake.invalid",
            "secret-key",
            transport=httpx.MockTransport(self.handler),
            retry=RetryPolicy(max_attempts=max_attempts, base_delay=0),
        )

    def factory(self, max_attempts: int = 1) -> Callable[[], AsyncClient]:
        """A client factory for ``run_translate``."""
        return lambda: self.client(max_attempts)

    # --- the transport ----------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        """Answer one request."""
        self.requests.append((request.method, request.url.path))
        response = self._route(request)
        if self.lose_answer(request):
            raise httpx.ReadError("answer lost (test)", request=request)
        return response

    def _route(self, request: httpx.Request) -> httpx.Response:
        path, method = request.url.path, request.method
        parts = path.strip("/").split("/")
        if path == "/v3/languages":
            return self._languages(request.url.params.get("resource"))
        if path == "/v3/languages/resources":
            sides = {"formality": (False, True), "glossary": (True, True), "style_rules": (False, True)}
            return httpx.Response(
                200,
                json=[
                    {
                        "name": "translate_text",
                        "features": [
                            {"name": n, "needs_source_support": s, "needs_target_support": t}
                            for n, (s, t) in sides.items()
                        ],
                    }
                ],
            )
        if path == "/v3/translation_memories":
            return httpx.Response(200, json={"translation_memories": [self._memory(m) for m in self.memories]})
        if path == "/v2/translate":
            return self._translate(json.loads(request.content))
        if parts[:2] == ["v3", "glossaries"]:
            if not self.glossary_routes:
                return httpx.Response(404, json={"message": "no such endpoint"})
            return self._glossary(method, parts[2:], request)
        if parts[:2] == ["v3", "style_rules"]:
            if not self.style_routes:
                return httpx.Response(404, json={"message": "no such endpoint"})
            return self._style(method, parts[2:], request)
        return httpx.Response(404, json={"message": f"unknown path {path}"})

    def _languages(self, resource: str | None) -> httpx.Response:
        langs = [
            {
                "lang": "en",
                "name": "en",
                "usable_as_source": True,
                "usable_as_target": False,
                "status": "stable",
                "features": {"glossary": {"status": "stable"}},
            }
        ]
        for code in self.targets:
            features = {"glossary": {"status": "stable"}}
            if code.upper() in FORMALITY:
                features["formality"] = {"status": "stable"}
            if code.split("-")[0] in STYLE_LANGS:
                features["style_rules"] = {"status": "stable"}
            langs.append(
                {
                    "lang": code,
                    "name": code,
                    "usable_as_source": False,
                    "usable_as_target": True,
                    "status": "stable",
                    "features": features,
                }
            )
        if resource == "glossary":
            bases = sorted({c.split("-")[0].lower() for c in ("en", *self.targets)})
            langs = [
                {
                    "lang": b,
                    "name": b,
                    "usable_as_source": True,
                    "usable_as_target": True,
                    "status": "stable",
                    "features": {},
                }
                for b in bases
            ]
        return httpx.Response(200, json=langs)

    def _memory(self, memory_id: str) -> dict[str, Any]:
        """A memory as the real service lists it: an edit changes its updated_time, not its id."""
        edits = self.memory_edits.get(memory_id, 0)
        return {
            "translation_memory_id": memory_id,
            "name": "tm",
            "source_language": "en",
            "target_languages": ["de"],
            "segment_count": 10,
            "creation_time": "2026-01-01T00:00:00Z",
            "updated_time": f"2026-01-{1 + edits:02d}T00:00:00Z",
        }

    def _translate(self, body: dict[str, Any]) -> httpx.Response:
        self.translations.append(body)
        texts = []
        for text in body["text"]:
            out = text
            glossary = self.glossaries.get(body.get("glossary_id", ""))
            if glossary is not None:
                pair = (body["source_lang"].lower(), body["target_lang"].split("-")[0].lower())
                for source, target in glossary["dictionaries"].get(pair, {}).items():
                    out = out.replace(source, f"«{target}»")
            style = self.styles.get(body.get("style_id", ""))
            mark = f"|style v{style['version']}" if style else ""
            edits = self.memory_edits.get(body.get("translation_memory_id", ""), 0)
            mark += f"|tm edit {edits}" if edits else ""
            texts.append(f"[{body['target_lang']}{mark}] {out}")
        return httpx.Response(
            200,
            json={
                "translations": [{"text": t, "detected_source_language": "EN"} for t in texts],
                "billed_characters": sum(len(t) for t in body["text"]),
            },
        )

    # --- glossaries -------------------------------------------------------------------------

    def _summary(self, glossary_id: str) -> dict[str, Any]:
        g = self.glossaries[glossary_id]
        return {
            "glossary_id": glossary_id,
            "name": g["name"],
            "ready": True,
            "creation_time": g["created"],
            "dictionaries": [
                {"source_lang": s, "target_lang": t, "entry_count": len(e)}
                for (s, t), e in sorted(g["dictionaries"].items())
            ],
        }

    def _glossary(self, method: str, rest: list[str], request: httpx.Request) -> httpx.Response:
        if not rest:
            if method == "GET":
                return httpx.Response(200, json={"glossaries": [self._summary(g) for g in self.glossaries]})
            body = json.loads(request.content)
            glossary_id = next(self._ids)
            self.glossaries[glossary_id] = {
                "name": body["name"],
                "created": f"2026-01-01T00:00:{next(self._clock):02d}Z",
                "dictionaries": {},
            }
            for d in body["dictionaries"]:
                self._put(glossary_id, d)
            return httpx.Response(201, json=self._summary(glossary_id))
        glossary_id = rest[0]
        if glossary_id not in self.glossaries:
            return httpx.Response(404, json={"message": "no such glossary"})
        if rest[1:] == ["dictionaries"] and method == "PUT":
            d = json.loads(request.content)
            self._put(glossary_id, d)
            return httpx.Response(
                200,
                json={
                    "source_lang": d["source_lang"],
                    "target_lang": d["target_lang"],
                    "entry_count": len(self.glossaries[glossary_id]["dictionaries"]),
                },
            )
        if rest[1:] == ["dictionaries"] and method == "DELETE":
            pair = (request.url.params["source_lang"], request.url.params["target_lang"])
            self.glossaries[glossary_id]["dictionaries"].pop(pair)
            return httpx.Response(204)
        if rest[1:] == ["entries"]:
            pair = (request.url.params["source_lang"], request.url.params["target_lang"])
            entries = self.glossaries[glossary_id]["dictionaries"][pair]
            tsv = "".join(f"{s}\t{t}\n" for s, t in entries.items())
            return httpx.Response(
                200,
                json={
                    "dictionaries": [
                        {"source_lang": pair[0], "target_lang": pair[1], "entries": tsv, "entries_format": "tsv"}
                    ]
                },
            )
        if method == "PATCH":
            self.glossaries[glossary_id]["name"] = json.loads(request.content)["name"]
            return httpx.Response(200, json=self._summary(glossary_id))
        if method == "DELETE":
            del self.glossaries[glossary_id]
            return httpx.Response(204)
        return httpx.Response(200, json=self._summary(glossary_id))

    def _put(self, glossary_id: str, d: dict[str, Any]) -> None:
        assert d["entries_format"] == "tsv"
        entries = dict(line.split("\t") for line in d["entries"].splitlines() if line)
        self.glossaries[glossary_id]["dictionaries"][d["source_lang"].lower(), d["target_lang"].lower()] = entries

    # --- style rule lists -------------------------------------------------------------------

    def _style_view(self, style_id: str, detailed: bool = True) -> dict[str, Any]:
        s = self.styles[style_id]
        view = {
            "style_id": style_id,
            "name": s["name"],
            "language": s["language"],
            "version": s["version"],
            "creation_time": s["created"],
        }
        if detailed:
            view["configured_rules"] = s["rules"]
            view["custom_instructions"] = s["instructions"]
        return view

    def _style(self, method: str, rest: list[str], request: httpx.Request) -> httpx.Response:
        if not rest:
            if method == "GET":
                page = int(request.url.params.get("page", 0))
                size = int(request.url.params.get("page_size", 10))
                ids = list(self.styles)[page * size : (page + 1) * size]
                return httpx.Response(200, json={"style_rules": [self._style_view(i, False) for i in ids]})
            body = json.loads(request.content)
            style_id = next(self._ids)
            self.styles[style_id] = {
                "name": body["name"],
                "language": body["language"],
                "version": 1,
                "created": f"2026-01-01T00:00:{next(self._clock):02d}Z",
                "rules": body.get("configured_rules", {}),
                "instructions": [{**i, "id": next(self._ids)} for i in body.get("custom_instructions", [])],
            }
            return httpx.Response(201, json=self._style_view(style_id))
        style_id = rest[0]
        if style_id not in self.styles:
            return httpx.Response(404, json={"message": "no such style list"})
        s = self.styles[style_id]
        if method == "GET" and len(rest) == 1:
            return httpx.Response(200, json=self._style_view(style_id))
        if method == "DELETE" and len(rest) == 1:
            del self.styles[style_id]
            return httpx.Response(204)
        s["version"] += 1
        if method == "PATCH":
            s["name"] = json.loads(request.content)["name"]
        elif rest[1:] == ["configured_rules"]:
            s["rules"] = json.loads(request.content)
        elif rest[1:] == ["custom_instructions"]:
            s["instructions"].append({**json.loads(request.content), "id": next(self._ids)})
        elif rest[1] == "custom_instructions" and method == "DELETE":
            s["instructions"] = [i for i in s["instructions"] if i["id"] != rest[2]]
            return httpx.Response(204)
        return httpx.Response(200, json=self._style_view(style_id))
