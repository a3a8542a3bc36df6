"""One v3 glossary per project, one dictionary per language pair, kept in step with the files.

The glossary is found on the service by its name, never by a local record: ``pipeline:<project>``
followed by one ``<src>-<tgt>=<hash>`` token per dictionary, the hash naming the content that
dictionary was last replaced with. So a sync lists the glossaries (one read), replaces only the
dictionaries whose hash differs (one PUT each), and renames the glossary last, as the commit: a
sync interrupted before the rename replaces that dictionary again next time, which is harmless.

Duplicates cannot survive a sync: a create whose answer was lost (and perhaps retried) is
followed by a fresh listing, and every extra glossary of the project is deleted, keeping the one
that matches the files best.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pipeline.client import limits
from pipeline.client.api_data import Glossary, GlossaryDictionary
from pipeline.errors import AuthenticationError, QuotaExceededError, ServiceError
from pipeline.resources.glossary_files import Dictionary

if TYPE_CHECKING:  # the client (httpx) is loaded by the caller, only when requests are sent
    from pipeline.client.aio import AsyncClient

PREFIX = "pipeline:"
Pair = tuple[str, str]


@dataclass
class SyncOutcome:
    """What a sync did: the id in use (None when there is no glossary), its write calls and a log."""

    glossary_id: str | None = None
    writes: int = 0
    actions: list[str] = field(default_factory=list)


def glossary_name(project: str, hashes: Mapping[Pair, str]) -> str:
    """``pipeline:<project> en-de=<hash> en-fr=<hash>``; checked against the 1024-byte limit."""
    tokens = " ".join(f"{s}-{t}={h}" for (s, t), h in sorted(hashes.items()))
    name = f"{PREFIX}{project} {tokens}".rstrip()
    limits.check_glossary_name(name)
    return name


def parse_name(name: str) -> tuple[str, dict[Pair, str]] | None:
    """``(project, pair -> hash)`` of a glossary name made by :func:`glossary_name`, or None."""
    head, *tokens = name.split(" ")
    if not head.startswith(PREFIX):
        return None
    hashes: dict[Pair, str] = {}
    for token in tokens:
        pair, _, digest = token.partition("=")
        source, _, target = pair.partition("-")
        if not (source and target and digest):
            return None
        hashes[source, target] = digest
    return head[len(PREFIX) :], hashes


def _pair(source: str, target: str) -> Pair:
    return source.lower(), target.lower()


async def find_glossaries(client: AsyncClient, project: str) -> list[Glossary]:
    """The project's glossaries on the service (normally one)."""
    return [g for g in await client.list_glossaries() if (parse_name(g.name) or ("",))[0] == project]


async def sync_glossary(
    client: AsyncClient,
    project: str,
    dictionaries: Mapping[Pair, Dictionary],
    *,
    prune: bool,
    log: Callable[[str], None],
) -> SyncOutcome:
    """Make the project's glossary hold ``dictionaries``; with ``prune``, drop every other pair."""
    outcome = SyncOutcome()
    ours = await find_glossaries(client, project)
    keep = await _dedupe(client, ours, dictionaries, outcome, log)
    if keep is None:
        if not dictionaries:
            return outcome
        keep = await _create(client, project, dictionaries, outcome, log)
    outcome.glossary_id = keep.glossary_id
    if not keep.dictionaries:  # a listing without summaries: ask for the metadata
        keep = await client.get_glossary(keep.glossary_id)
    if prune and not dictionaries:
        await client.delete_glossary(keep.glossary_id)
        outcome.writes += 1
        outcome.glossary_id = None
        _note(outcome, log, f"deleted glossary {keep.glossary_id}: no glossary is configured any more")
        return outcome
    recorded = (parse_name(keep.name) or ("", {}))[1]
    present = {_pair(d.source_lang, d.target_lang): d.entry_count for d in keep.dictionaries}
    hashes = {pair: digest for pair, digest in recorded.items() if pair in present}
    for pair, dictionary in sorted(dictionaries.items()):
        if hashes.get(pair) == dictionary.content_hash and present.get(pair) == len(dictionary.entries):
            continue
        await client.replace_glossary_dictionary(keep.glossary_id, _content(dictionary))
        outcome.writes += 1
        hashes[pair] = dictionary.content_hash
        _note(outcome, log, f"replaced the {pair[0]}->{pair[1]} dictionary ({len(dictionary.entries)} entries)")
    if prune:
        for pair in sorted(set(present) - set(dictionaries)):
            await client.delete_glossary_dictionary(keep.glossary_id, *pair)
            outcome.writes += 1
            hashes.pop(pair, None)
            _note(outcome, log, f"deleted the {pair[0]}->{pair[1]} dictionary: no longer configured")
    name = glossary_name(project, hashes)
    if name != keep.name:
        await client.update_glossary(keep.glossary_id, name=name)
        outcome.writes += 1
    return outcome


async def _create(
    client: AsyncClient,
    project: str,
    dictionaries: Mapping[Pair, Dictionary],
    outcome: SyncOutcome,
    log: Callable[[str], None],
) -> Glossary:
    name = glossary_name(project, {pair: d.content_hash for pair, d in dictionaries.items()})
    contents = [_content(d) for _, d in sorted(dictionaries.items())]
    try:
        created = await client.create_glossary(name, contents)
    except (AuthenticationError, QuotaExceededError):
        raise
    except ServiceError as exc:
        # The create may have happened with its answer lost: look before trying anything else.
        found = await find_glossaries(client, project)
        if not found:
            raise
        outcome.writes += 1
        _note(outcome, log, f"creating the glossary failed ({exc}) but it was created; using it")
        kept = await _dedupe(client, found, dictionaries, outcome, log)
        assert kept is not None  # ``found`` is not empty
        return kept
    outcome.writes += 1
    _note(outcome, log, f"created glossary {created.glossary_id} with {len(contents)} dictionaries")
    # A retried create can leave a twin behind; keep the one just made.
    for other in await find_glossaries(client, project):
        if other.glossary_id != created.glossary_id:
            await _delete_extra(client, other, outcome, log)
    return created


async def _dedupe(
    client: AsyncClient,
    ours: list[Glossary],
    dictionaries: Mapping[Pair, Dictionary],
    outcome: SyncOutcome,
    log: Callable[[str], None],
) -> Glossary | None:
    """The glossary to keep (the best match, then the oldest); every other one is deleted."""
    if not ours:
        return None

    def score(glossary: Glossary) -> tuple[int, str, str]:
        recorded = (parse_name(glossary.name) or ("", {}))[1]
        matching = sum(1 for pair, d in dictionaries.items() if recorded.get(pair) == d.content_hash)
        return -matching, glossary.creation_time or "", glossary.glossary_id

    ranked = sorted(ours, key=score)
    for extra in ranked[1:]:
        await _delete_extra(client, extra, outcome, log)
    return ranked[0]


async def _delete_extra(
    client: AsyncClient, glossary: Glossary, outcome: SyncOutcome, log: Callable[[str], None]
) -> None:
    await client.delete_glossary(glossary.glossary_id)
    outcome.writes += 1
    _note(outcome, log, f"deleted duplicate glossary {glossary.glossary_id}")


def _content(dictionary: Dictionary) -> GlossaryDictionary:
    return GlossaryDictionary(dictionary.source_lang, dictionary.target_lang, dictionary.tsv(), "tsv")


def _note(outcome: SyncOutcome, log: Callable[[str], None], message: str) -> None:
    outcome.actions.append(message)
    log(f"glossary: {message}")
