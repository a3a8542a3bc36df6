"""One style rule list per target language of a project, kept in step with the configuration.

A list is found on the service by the marker its name ends with,
``<name> [pipeline:<project>:<TARGET>:<hash>]``, the hash covering the configured name, rules and
instructions. A sync lists the style lists (a read per page of 25); when the marker's hash
matches, nothing is written. Otherwise it reads the list in full and writes only what differs:
the configured rules replaced, instructions removed or added, and the rename last, as the commit,
so an interrupted sync finishes the job next time. Extra lists with the same marker are deleted.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pipeline import protocol
from pipeline.client.api_data import CustomInstruction, StyleRuleList
from pipeline.config.resources import StyleSpec
from pipeline.errors import AuthenticationError, QuotaExceededError, ServiceError
from pipeline.patterns import lazy_regex
from pipeline.resources.targets import style_language, style_material

if TYPE_CHECKING:  # the client (httpx) is loaded by the caller, only when requests are sent
    from pipeline.client.aio import AsyncClient

_MARKER = lazy_regex(r" \[pipeline:(?P<project>[A-Za-z0-9._-]+):(?P<target>[A-Za-z0-9-]+):(?P<hash>[0-9a-f]+)\]$")
MAX_PAGES = 400  # 10,000 lists: far beyond any plan, and a bound on a service that never ends a listing


@dataclass
class StyleOutcome:
    """Style list id per target code, the write calls made, and a log of them."""

    ids: dict[str, str] = field(default_factory=dict)
    writes: int = 0
    actions: list[str] = field(default_factory=list)


def service_name(spec: StyleSpec, project: str, target: str) -> str:
    """The configured name plus the marker that finds the list again."""
    material = {"name": spec.name, **style_material(spec, style_language(target))}
    digest = hashlib.sha256(json.dumps(material, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()
    return f"{spec.name} [pipeline:{project}:{target}:{digest[:12]}]"


def parse_marker(name: str) -> tuple[str, str] | None:
    """``(project, target)`` of a list made by this module, or None."""
    found = _MARKER().search(name)
    return (found["project"], found["target"]) if found else None


async def list_all(client: AsyncClient) -> list[StyleRuleList]:
    """Every style rule list of the account (summaries), page by page."""
    out: list[StyleRuleList] = []
    for page in range(MAX_PAGES):
        batch = await client.list_style_rule_lists(page=page, page_size=protocol.STYLE_PAGE_SIZE_MAX)
        out.extend(batch)
        if len(batch) < protocol.STYLE_PAGE_SIZE_MAX:
            break
    return out


async def find_styles(client: AsyncClient, project: str) -> dict[str, list[StyleRuleList]]:
    """Target code -> the project's style lists for it (normally one)."""
    found: dict[str, list[StyleRuleList]] = {}
    for item in await list_all(client):
        marker = parse_marker(item.name)
        if marker is not None and marker[0] == project:
            found.setdefault(marker[1], []).append(item)
    return found


async def sync_styles(
    client: AsyncClient, project: str, desired: Mapping[str, StyleSpec], *, prune: bool, log: Callable[[str], None]
) -> StyleOutcome:
    """Make the project's style lists match ``desired`` (target code -> spec); with ``prune``, delete the rest."""
    outcome = StyleOutcome()
    existing = await find_styles(client, project)
    for target, spec in sorted(desired.items()):
        name = service_name(spec, project, target)
        lists = sorted(existing.get(target, []), key=lambda s: (s.name != name, s.creation_time or "", s.style_id))
        for extra in lists[1:]:
            await client.delete_style_rule_list(extra.style_id)
            outcome.writes += 1
            _note(outcome, log, f"deleted duplicate style list {extra.style_id} for {target}")
        if not lists:
            outcome.ids[target] = await _create(client, project, target, spec, name, outcome, log)
        elif lists[0].name != name:
            outcome.ids[target] = await _update(client, lists[0].style_id, target, spec, name, outcome, log)
        else:
            outcome.ids[target] = lists[0].style_id
    if prune:
        for target in sorted(set(existing) - set(desired)):
            for item in existing[target]:
                await client.delete_style_rule_list(item.style_id)
                outcome.writes += 1
                _note(outcome, log, f"deleted style list {item.style_id} for {target}: no longer configured")
    return outcome


async def _create(
    client: AsyncClient,
    project: str,
    target: str,
    spec: StyleSpec,
    name: str,
    outcome: StyleOutcome,
    log: Callable[[str], None],
) -> str:
    instructions = [CustomInstruction(i.label, i.prompt, i.source_language) for i in spec.instructions]
    try:
        created = await client.create_style_rule_list(
            name, style_language(target), configured_rules=spec.rules_dict() or None, custom_instructions=instructions
        )
    except (AuthenticationError, QuotaExceededError):
        raise
    except ServiceError:
        # The create may have happened with its answer lost: adopt it rather than make a twin.
        again = (await find_styles(client, project)).get(target, [])
        if not again:
            raise
        outcome.writes += 1
        return await _update(client, again[0].style_id, target, spec, name, outcome, log)
    outcome.writes += 1
    _note(outcome, log, f"created style list {created.style_id} for {target}")
    for other in (await find_styles(client, project)).get(target, []):
        if other.style_id != created.style_id:  # a retried create left a twin
            await client.delete_style_rule_list(other.style_id)
            outcome.writes += 1
    return created.style_id


async def _update(
    client: AsyncClient,
    style_id: str,
    target: str,
    spec: StyleSpec,
    name: str,
    outcome: StyleOutcome,
    log: Callable[[str], None],
) -> str:
    current = await client.get_style_rule_list(style_id)
    rules = spec.rules_dict()
    have = {category: dict(chosen) for category, chosen in (current.configured_rules or {}).items()}
    if have != rules:
        await client.replace_configured_rules(style_id, rules)
        outcome.writes += 1
        _note(outcome, log, f"replaced the configured rules of the {target} style list")
    wanted = Counter((i.label, i.prompt, i.source_language or None) for i in spec.instructions)
    for instruction in current.custom_instructions or ():
        key = (instruction.label, instruction.prompt, instruction.source_language or None)
        if wanted[key] > 0:
            wanted[key] -= 1
        elif instruction.id is not None:
            await client.delete_custom_instruction(style_id, instruction.id)
            outcome.writes += 1
            _note(outcome, log, f"removed instruction {instruction.label!r} from the {target} style list")
    for (label, prompt, source_language), count in wanted.items():
        for _ in range(count):
            await client.add_custom_instruction(style_id, label, prompt, source_language)
            outcome.writes += 1
            _note(outcome, log, f"added instruction {label!r} to the {target} style list")
    if current.name != name:
        await client.rename_style_rule_list(style_id, name)
        outcome.writes += 1
    return style_id


def _note(outcome: StyleOutcome, log: Callable[[str], None], message: str) -> None:
    outcome.actions.append(message)
    log(f"style: {message}")
