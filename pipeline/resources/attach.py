"""What ``pipeline translate`` does with resources once it knows it will send requests (or that the
terminology files changed since the last sync: :func:`sync_terminology`).

It checks each target's features against the service, syncs the glossary dictionaries and style
lists the run's targets need (never pruning: other pairs may belong to other runs), and puts the
ids into the pending requests' options. A feature a language lacks, or a resource endpoint the
service does not have, is left out of the requests with a warning in the report; the cache key of
the affected texts is then computed without it, so nothing is cached under a claim it did not meet.
A text sent with a translation memory is keyed with what the service says the memory is now
(:func:`memory_version`), learnt here: until then its key is one nothing is stored under, so no
answer of an earlier state of the memory is ever served from the cache.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from pipeline.config.resources import StyleSpec
from pipeline.errors import ServiceError
from pipeline.model import Issue, Severity
from pipeline.resources.features import FATAL, STOP, LanguageSupport, discover
from pipeline.resources.glossary_files import Dictionary
from pipeline.resources.targets import ResourcePlan, TargetPlan, has_style_lists
from pipeline.segments import Protected, Segment, TranslationOptions

if TYPE_CHECKING:
    from dataclasses import Field

    from pipeline.client.api_data import TranslationMemory
    from pipeline.resources.glossary_sync import Pair


class PendingText(Protocol):
    """What attaching reads of the run's pending item (``pipeline.run.window.Pending``, a dataclass)."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
    options: TranslationOptions
    protected: Protected
    key: str
    refs: list[Segment]


P = TypeVar("P", bound=PendingText)


async def attach_resources(
    client: Any,
    plan: ResourcePlan,
    pending: Mapping[str, P],
    cache_key: Callable[[TranslationOptions, str], str],
    issues: list[Issue],
    log: Callable[[str], None],
    synced: Synced | None = None,
) -> tuple[dict[str, P], Synced]:
    """``pending`` with the ids of glossary, style list and memory filled in, re-keyed where a feature was dropped;
    and what the sync of their targets did, for the texts attached after them.

    ``cache_key(options, text)`` names a text sent with ``options`` (the run's key for its service).
    ``synced`` is what a sync of every pending target already did in this run (not done again).

    Raises only what stops a run (key refused, quota, service unreachable), after closing ``client``.
    """
    try:
        if synced is None:
            wanted = {item.options.target_lang for item in pending.values()}
            synced = await sync_targets(client, plan, wanted, issues, log)
    except BaseException:
        await client.aclose()
        raise
    return attached(plan, pending, cache_key, synced), synced


@dataclass
class Synced:
    """What a sync left in use: the glossary id, the style list ids, and the features left out per target."""

    glossary_id: str | None = None
    style_ids: dict[str, str] = field(default_factory=dict)
    dropped: dict[str, set[str]] = field(default_factory=dict)
    gained: dict[str, str] = field(default_factory=dict)  # target -> formality the plan left out but the service has
    memory_versions: dict[str, str] = field(default_factory=dict)  # target -> memory_version() of its memory


async def sync_terminology(
    client: Any, plan: ResourcePlan, targets: Iterable[str], issues: list[Issue], log: Callable[[str], None]
) -> Synced | None:
    """Sync the glossary and style lists of ``targets`` because their files changed, pending texts or not.

    Returns what the sync did, or None when it failed: a warning (no catalog depends on it unless
    texts are pending, and those try again on their own), and the next run tries again.
    """
    try:
        return await sync_targets(client, plan, targets, issues, log)
    except ServiceError as exc:
        issues.append(
            Issue(
                plan.where,
                f"glossary and style lists not synced ({exc}); the next run tries again",
                severity=Severity.WARNING,
            )
        )
        return None


async def sync_targets(
    client: Any, plan: ResourcePlan, wanted: Iterable[str], issues: list[Issue], log: Callable[[str], None]
) -> Synced:
    """Check the features of the ``wanted`` targets against the service and sync their glossary and style lists.

    What a target cannot have is left out with a warning in ``issues``; raises only what stops a
    run (key refused, quota, service unreachable).
    """
    wanted = set(wanted)
    synced = Synced()
    targets = [t for t in map(plan.target, sorted(wanted)) if _uses_resources(t)]
    if not targets:
        return synced
    try:
        support = await discover(client)
    except FATAL:
        raise
    except ServiceError as exc:
        issues.append(
            Issue(
                plan.where,
                f"the service's languages could not be listed ({exc}); features are assumed as the spec describes them",
                severity=Severity.WARNING,
            )
        )
        support = LanguageSupport.from_spec(plan.source, wanted)

    def drop(target: str, feature: str, reason: str) -> None:
        synced.dropped.setdefault(target, set()).add(feature)
        issues.append(Issue(plan.where, f"{feature} left out: {reason}", None, target, Severity.WARNING))
        log(f"{target}: {feature} left out: {reason}")

    pairs, styles, memories = {}, {}, {}
    for t in targets:
        if not support.offers_target(t.target):
            continue  # the run reports the target itself
        if t.dictionary is not None:
            if support.supports("glossary", plan.source, t.target):
                pairs[t.dictionary.pair] = t.dictionary
            else:
                drop(t.target, "glossary", f"the service has no glossaries for {plan.source}->{t.target}")
        if t.style is not None:
            if has_style_lists(t.target) and support.supports("style_rules", plan.source, t.target):
                styles[t.target] = t.style
            else:
                drop(t.target, "style list", f"the service has no style rules for {t.target}")
        if t.formality and not t.strict_formality:
            if not support.supports("formality", plan.source, t.target):
                drop(t.target, "formality", f"{t.target} has no formality setting on the service")
            elif t.sent_formality is None:  # the service has it where the spec does not list it
                synced.gained[t.target] = t.formality
        if t.translation_memory_id:
            memories[t.target] = t.translation_memory_id
    synced.glossary_id = await _sync_glossary(client, plan, pairs, targets, drop, log)
    synced.style_ids = await _sync_styles(client, plan, styles, drop, log)
    synced.memory_versions = await _check_memories(client, memories, drop)
    return synced


def attached(
    plan: ResourcePlan,
    pending: Mapping[str, P],
    cache_key: Callable[[TranslationOptions, str], str],
    synced: Synced,
) -> dict[str, P]:
    """``pending`` with the ids ``synced`` found put into its options, re-keyed where a feature was dropped."""
    dropped, gained, versions = synced.dropped, synced.gained, synced.memory_versions

    made: dict[TranslationOptions, TranslationOptions] = {}  # a few distinct options, thousands of texts

    def options(opts: TranslationOptions) -> TranslationOptions:
        if opts not in made:
            made[opts] = resynced(opts)
        return made[opts]

    def resynced(opts: TranslationOptions) -> TranslationOptions:
        gone = dropped.get(opts.target_lang, set())
        return opts._replace(
            glossary_id=synced.glossary_id if opts.glossary_hash and "glossary" not in gone else None,
            glossary_hash=None if "glossary" in gone else opts.glossary_hash,
            style_id=synced.style_ids.get(opts.target_lang) if "style list" not in gone else None,
            style_version=None if "style list" in gone else opts.style_version,
            formality=None if "formality" in gone else gained.get(opts.target_lang, opts.formality),
            translation_memory_id=None if "translation memory" in gone else opts.translation_memory_id,
            translation_memory_threshold=None if "translation memory" in gone else opts.translation_memory_threshold,
            translation_memory_version=None if "translation memory" in gone else versions.get(opts.target_lang),
        )

    out: dict[str, P] = {}
    for key, item in pending.items():
        opts = options(item.options)
        if opts.target_lang in dropped or opts.target_lang in gained or opts.translation_memory_version:
            text = item.protected.text
            key = cache_key(plan.key_options(opts, text), text)
        if key in out:  # two texts became one once a feature was dropped (a new record: the inputs stay as they were)
            out[key] = replace(out[key], refs=[*out[key].refs, *item.refs])
        elif opts == item.options and key == item.key:
            out[key] = item  # unchanged: the usual case, thousands of texts
        else:
            out[key] = replace(item, options=opts, key=key)
    return out


def _uses_resources(t: TargetPlan) -> bool:
    return bool(t.dictionary or t.style or t.formality or t.translation_memory_id)


async def _sync_glossary(
    client: Any,
    plan: ResourcePlan,
    pairs: dict[Pair, Dictionary],
    targets: list[TargetPlan],
    drop: Callable[[str, str, str], None],
    log: Callable[[str], None],
) -> str | None:
    if not pairs:
        return None
    # The front door: the glossary's sync, once a target has a glossary to sync.
    from pipeline.resources.glossary_sync import sync_glossary

    try:
        outcome = await sync_glossary(client, plan.project, pairs, prune=False, log=log)
    except FATAL:
        raise
    except ServiceError as exc:
        for t in targets:
            if t.dictionary is not None and t.dictionary.pair in pairs:
                drop(t.target, "glossary", f"the glossary could not be synced ({exc})")
        return None
    log(f"glossary {outcome.glossary_id}: {len(pairs)} dictionaries in use, {outcome.writes} write calls")
    return outcome.glossary_id


async def _sync_styles(
    client: Any,
    plan: ResourcePlan,
    styles: dict[str, StyleSpec],
    drop: Callable[[str, str, str], None],
    log: Callable[[str], None],
) -> dict[str, str]:
    if not styles:
        return {}
    # The front door: the style lists' sync, once a target has style rules to sync.
    from pipeline.resources.style_sync import sync_styles

    try:
        outcome = await sync_styles(client, plan.project, styles, prune=False, log=log)
    except STOP:
        raise
    except ServiceError as exc:
        for target in styles:
            drop(target, "style list", f"the style lists could not be synced ({exc})")
        return {}
    log(f"style lists: {len(outcome.ids)} in use, {outcome.writes} write calls")
    return outcome.ids


async def _check_memories(
    client: Any, memories: dict[str, str], drop: Callable[[str, str, str], None]
) -> dict[str, str]:
    """Per target whose memory the account has, the memory's version; the others are dropped."""
    if not memories:
        return {}
    try:
        known = {m.translation_memory_id: memory_version(m) for m in await client.translation_memories()}
    except STOP:
        raise
    except ServiceError as exc:
        for target in memories:
            drop(target, "translation memory", f"the translation memories could not be listed ({exc})")
        return {}
    for target, memory in memories.items():
        if memory not in known:
            drop(target, "translation memory", f"the account has no translation memory {memory}")
    return {target: known[memory] for target, memory in memories.items() if memory in known}


def memory_version(memory: TranslationMemory) -> str:
    """What the service says a memory is now, hashed: every listed field but its id and name.

    The spec shows nothing of a memory but its id; the service lists its languages, segment count
    and times (``updated_time`` changes with every edit), the local service its languages and
    segment count. Whatever it lists, a change in it is a change of what requests with the memory
    may answer, so the cache keys change with it.
    """
    fields = json.dumps(dict(memory.extra), sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(fields.encode("utf-8")).hexdigest()[:16]
