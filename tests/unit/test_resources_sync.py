"""Glossary and style list sync against an in-memory fake (httpx.MockTransport): idempotent, no duplicates."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from pipeline.config.resources import Instruction, StyleSpec
from pipeline.errors import TransportError
from pipeline.resources.glossary_files import Dictionary
from pipeline.resources.glossary_sync import SyncOutcome, glossary_name, parse_name, sync_glossary
from pipeline.resources.style_sync import StyleOutcome, parse_marker, service_name, sync_styles
from tests.resources_fake import FakeResources

DE = Dictionary("en", "de", (("file", "Datei"), ("folder", "Ordner")))
FR = Dictionary("en", "fr", (("file", "fichier"),))


def glossary(
    fake: FakeResources, dictionaries: list[Dictionary], prune: bool = False, max_attempts: int = 1
) -> SyncOutcome:
    async def go() -> SyncOutcome:
        client = fake.client(max_attempts)
        try:
            return await sync_glossary(
                client, "demo", {d.pair: d for d in dictionaries}, prune=prune, log=lambda m: None
            )
        finally:
            await client.aclose()

    return asyncio.run(go())


def made(outcome: SyncOutcome) -> str:
    """The id of the glossary a sync made or kept."""
    assert outcome.glossary_id is not None, "the sync kept no glossary"
    return outcome.glossary_id


def styles(fake: FakeResources, desired: dict[str, StyleSpec], prune: bool = False) -> StyleOutcome:
    async def go() -> StyleOutcome:
        client = fake.client()
        try:
            return await sync_styles(client, "demo", desired, prune=prune, log=lambda m: None)
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_glossary_name_round_trip() -> None:
    name = glossary_name("demo", {("en", "fr"): "b" * 12, ("en", "de"): "a" * 12})
    assert name == f"pipeline:demo en-de={'a' * 12} en-fr={'b' * 12}"
    assert parse_name(name) == ("demo", {("en", "de"): "a" * 12, ("en", "fr"): "b" * 12})
    assert parse_name("My glossary") is None and parse_name("pipeline:demo broken") is None


def test_first_sync_creates_one_glossary_and_the_second_writes_nothing() -> None:
    fake = FakeResources()
    first = glossary(fake, [DE, FR])
    assert len(fake.glossaries) == 1 and first.writes == 1
    assert fake.writes() == [("POST", "/v3/glossaries")]
    assert fake.glossaries[made(first)]["dictionaries"] == {
        ("en", "de"): dict(DE.entries),
        ("en", "fr"): dict(FR.entries),
    }
    fake.reset_log()
    second = glossary(fake, [DE, FR])
    assert second.glossary_id == first.glossary_id and second.writes == 0
    assert fake.writes() == [] and fake.requests == [("GET", "/v3/glossaries")]


def test_editing_one_pair_replaces_that_dictionary_alone() -> None:
    fake = FakeResources()
    gid = made(glossary(fake, [DE, FR]))
    fake.reset_log()
    edited = Dictionary("en", "de", (("file", "Akte"), ("folder", "Ordner")))
    outcome = glossary(fake, [edited, FR])
    assert fake.writes() == [("PUT", f"/v3/glossaries/{gid}/dictionaries"), ("PATCH", f"/v3/glossaries/{gid}")]
    assert outcome.writes == 2 and fake.glossaries[gid]["dictionaries"][("en", "de")]["file"] == "Akte"
    fake.reset_log()
    assert glossary(fake, [edited, FR]).writes == 0


def test_an_answer_lost_after_create_and_retried_leaves_one_glossary() -> None:
    fake = FakeResources()
    fake.lose_answer = lambda request: request.method == "POST" and len(fake.glossaries) == 1
    outcome = glossary(fake, [DE], max_attempts=2)  # the client's retry creates a twin
    assert list(fake.glossaries) == [outcome.glossary_id]


def test_an_interrupted_sync_then_a_rerun_leaves_one_glossary(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeResources()
    fake.lose_answer = lambda request: request.method == "POST"
    fake_list_fails = {"on": True}

    original = fake._glossary

    # The listing after the failed create fails too: the run dies.
    def failing(method: str, rest: list[str], request: httpx.Request) -> httpx.Response:
        if method == "GET" and not rest and fake.glossaries and fake_list_fails["on"]:
            raise TransportError("connection reset")
        return original(method, rest, request)

    monkeypatch.setattr(fake, "_glossary", failing)
    with pytest.raises(TransportError):
        glossary(fake, [DE])
    assert len(fake.glossaries) == 1
    fake.lose_answer = lambda request: False
    fake_list_fails["on"] = False
    fake.reset_log()
    outcome = glossary(fake, [DE, FR])
    assert list(fake.glossaries) == [outcome.glossary_id]
    assert [w[0] for w in fake.writes()] == ["PUT", "PATCH"]  # fr added, nothing created


def test_duplicates_already_on_the_service_are_deleted_keeping_the_best_match() -> None:
    fake = FakeResources()
    good = made(glossary(fake, [DE]))
    fake.glossaries["stale-twin"] = {
        "name": "pipeline:demo en-de=000000000000",
        "created": "2025-01-01T00:00:00Z",
        "dictionaries": {},
    }
    fake.glossaries["other-project"] = {"name": "pipeline:other en-de=000000000000", "created": "x", "dictionaries": {}}
    fake.glossaries["hand-made"] = {"name": "Team terms", "created": "x", "dictionaries": {}}
    fake.reset_log()
    outcome = glossary(fake, [DE])
    assert outcome.glossary_id == good
    assert sorted(fake.glossaries) == sorted([good, "other-project", "hand-made"])
    assert fake.writes() == [("DELETE", "/v3/glossaries/stale-twin")]


def test_prune_deletes_pairs_no_longer_configured_and_only_then() -> None:
    fake = FakeResources()
    gid = made(glossary(fake, [DE, FR]))
    fake.reset_log()
    assert glossary(fake, [DE]).writes == 0  # a partial sync (translate --target-lang de) keeps fr
    outcome = glossary(fake, [DE], prune=True)
    assert outcome.writes == 2 and list(fake.glossaries[gid]["dictionaries"]) == [("en", "de")]
    assert glossary(fake, [], prune=True).glossary_id is None and fake.glossaries == {}


GERMAN = StyleSpec(
    "German",
    (("punctuation", (("apostrophe", "use_curly_apostrophes"),)),),
    (Instruction("Tone", "Use du."), Instruction("Brand", "Never translate Driftwood.")),
)


def test_style_list_created_once_then_left_alone() -> None:
    fake = FakeResources()
    first = styles(fake, {"DE": GERMAN})
    (style_id,) = fake.styles
    assert first.ids == {"DE": style_id} and first.writes == 1
    assert parse_marker(fake.styles[style_id]["name"]) == ("demo", "DE")
    assert fake.styles[style_id]["language"] == "de"
    fake.reset_log()
    assert styles(fake, {"DE": GERMAN}).writes == 0 and fake.writes() == []


def test_style_changes_write_only_what_differs() -> None:
    fake = FakeResources()
    style_id = styles(fake, {"DE": GERMAN}).ids["DE"]
    fake.reset_log()
    changed = StyleSpec(
        "German",
        GERMAN.rules,
        (Instruction("Brand", "Never translate Driftwood."), Instruction("Dates", "Use ISO dates.")),
    )
    outcome = styles(fake, {"DE": changed})
    methods = [(m, p.rsplit("/", 2)[-2] if p.count("/") > 4 else p.rsplit("/", 1)[-1]) for m, p in fake.writes()]
    assert [m for m, _ in methods] == ["DELETE", "POST", "PATCH"] and outcome.writes == 3
    s = fake.styles[style_id]
    assert [i["label"] for i in s["instructions"]] == ["Brand", "Dates"] and s["version"] == 4
    assert s["name"] == service_name(changed, "demo", "DE")
    fake.reset_log()
    rules_only = StyleSpec(
        "German", (("style_and_tone", (("abbreviations", "use_abbreviations_and_symbols"),)),), changed.instructions
    )
    styles(fake, {"DE": rules_only})
    assert [w[0] for w in fake.writes()] == ["PUT", "PATCH"]
    assert fake.styles[style_id]["rules"] == {"style_and_tone": {"abbreviations": "use_abbreviations_and_symbols"}}


def test_style_lists_are_found_across_pages_and_pruned() -> None:
    fake = FakeResources()
    for n in range(30):  # other lists of the account fill the first page
        fake.styles[f"other-{n}"] = {
            "name": f"Someone else's list {n}",
            "language": "fr",
            "version": 1,
            "created": "x",
            "rules": {},
            "instructions": [],
        }
    ids = styles(fake, {"DE": GERMAN, "FR": StyleSpec("French")}).ids
    fake.reset_log()
    assert styles(fake, {"DE": GERMAN, "FR": StyleSpec("French")}).writes == 0
    assert fake.requests == [("GET", "/v3/style_rules")] * 2
    styles(fake, {"DE": GERMAN}, prune=True)
    assert ids["FR"] not in fake.styles and ids["DE"] in fake.styles and len(fake.styles) == 31
