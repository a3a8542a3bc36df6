"""``pipeline glossary ...`` and ``pipeline style ...``: what they do with the service.

``sync`` works on every target the project has (the ``[locales.<code>]`` tables, the catalogs found
by the config's globs, and the multilingual tables' languages) and prunes what is no longer
configured; ``pipeline translate`` syncs only what its run needs and never prunes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pipeline import locales, protocol
from pipeline.catalog_paths import discover
from pipeline.cli.commands import load_cli_settings, stderr_log
from pipeline.config import Settings
from pipeline.connect import open_client
from pipeline.errors import UsageError
from pipeline.resources.glossary_sync import find_glossaries, sync_glossary
from pipeline.resources.style_sync import find_styles, list_all, parse_marker, sync_styles
from pipeline.resources.targets import ResourcePlan, configured_targets, has_style_lists
from pipeline.run.scan import scan

if TYPE_CHECKING:
    from pipeline.client.aio import AsyncClient

_log = stderr_log()
T = TypeVar("T")


def _with_client(settings: Settings, work: Callable[[AsyncClient], Awaitable[T]]) -> T:
    if not settings.service.url:
        raise UsageError("no translation service configured: pass --service-url URL or set [service] url")

    async def main() -> T:
        client = open_client(settings.service, _log)
        try:
            return await work(client)
        finally:
            await client.aclose()

    return asyncio.run(main())


def _print_lines(lines: list[str], none: str) -> int:
    """Print ``lines`` on stdout, or ``none`` on stderr when there are none; the exit code."""
    for line in lines:
        print(line)
    if not lines:
        print(none, file=sys.stderr)
    return 0


def _pairs(glossary: Any) -> str:
    return ", ".join(f"{d.source_lang}->{d.target_lang} ({d.entry_count})" for d in glossary.dictionaries)


def _all_targets(settings: Settings) -> list[str]:
    scanned, _, _ = scan(settings, discover(settings))
    return sorted({*configured_targets(settings), *(s.target_lang for s in scanned)})


def _target_code(settings: Settings, lang: str) -> str:
    target = locales.service_target(lang, dict(settings.locale_map))
    if target is None:
        raise UsageError(f"{lang!r} is not a language code the service has")
    return target


def glossary_sync(args: argparse.Namespace) -> int:
    settings = load_cli_settings(args)
    plan = ResourcePlan(settings)
    dictionaries = plan.dictionaries(_all_targets(settings))
    for (source, target), d in sorted(dictionaries.items()):
        print(f"{source}->{target}: {len(d.entries)} entries (content {d.content_hash})")
    if args.check:
        print(f"glossary files are valid: {len(dictionaries)} dictionaries")
        return 0

    async def work(client: Any) -> int:
        supported = {lang.code.lower() for lang in await client.languages("glossary")}
        usable = {}
        for pair, d in dictionaries.items():
            if supported and not set(pair) <= supported:
                _log(f"glossary: {pair[0]}->{pair[1]} skipped: the service has no glossaries for that pair")
            else:
                usable[pair] = d
        outcome = await sync_glossary(client, plan.project, usable, prune=True, log=_log)
        print(f"glossary {outcome.glossary_id or '(none)'}: {len(usable)} dictionaries, {outcome.writes} write calls")
        return 0

    return _with_client(settings, work)


def glossary_list(args: argparse.Namespace) -> int:
    settings = load_cli_settings(args)

    async def work(client: Any) -> int:
        glossaries = (
            await client.list_glossaries() if args.all else await find_glossaries(client, settings.resources.project)
        )
        return _print_lines([f"{g.glossary_id}\t{g.name}\t{_pairs(g) or '-'}" for g in glossaries], "no glossary")

    return _with_client(settings, work)


def glossary_show(args: argparse.Namespace) -> int:
    settings = load_cli_settings(args)
    source = locales.base_language(settings.source_lang)

    async def work(client: Any) -> int:
        found = await find_glossaries(client, settings.resources.project)
        if not found:
            raise UsageError(
                f"project {settings.resources.project!r} has no glossary on the service: run `pipeline glossary sync`"
            )
        glossary = found[0]
        if args.target is None:
            print(f"{glossary.glossary_id}\t{glossary.name}")
            for d in glossary.dictionaries:
                print(f"{d.source_lang}->{d.target_lang}\t{d.entry_count} entries")
            return 0
        target = locales.base_language(_target_code(settings, args.target))
        dictionary = await client.glossary_entries(glossary.glossary_id, source, target)
        sys.stdout.write(
            dictionary.entries
            if dictionary.entries.endswith("\n") or not dictionary.entries
            else dictionary.entries + "\n"
        )
        return 0

    return _with_client(settings, work)


def glossary_delete(args: argparse.Namespace) -> int:
    settings = load_cli_settings(args)

    async def work(client: Any) -> int:
        deleted = []
        for g in await find_glossaries(client, settings.resources.project):
            await client.delete_glossary(g.glossary_id)
            deleted.append(f"deleted glossary {g.glossary_id}")
        return _print_lines(deleted, "no glossary to delete")

    return _with_client(settings, work)


def style_sync(args: argparse.Namespace) -> int:
    settings = load_cli_settings(args)
    plan = ResourcePlan(settings)
    desired = {}
    for target in _all_targets(settings):
        style = plan.target(target).style
        if style is None:
            continue
        if not has_style_lists(target):
            _log(f"style: {target} skipped: style rule lists exist for {', '.join(protocol.STYLE_LANGUAGES)} only")
            continue
        desired[target] = style

    async def work(client: Any) -> int:
        outcome = await sync_styles(client, plan.project, desired, prune=True, log=_log)
        for target, style_id in sorted(outcome.ids.items()):
            print(f"{target}\t{style_id}")
        print(f"{len(outcome.ids)} style lists, {outcome.writes} write calls")
        return 0

    return _with_client(settings, work)


def style_list(args: argparse.Namespace) -> int:
    settings = load_cli_settings(args)

    async def work(client: Any) -> int:
        lists = await list_all(client)
        if not args.all:
            lists = [s for s in lists if (parse_marker(s.name) or ("",))[0] == settings.resources.project]
        return _print_lines(
            [f"{s.style_id}\t{s.language}\tversion {s.version}\t{s.name}" for s in lists], "no style list"
        )

    return _with_client(settings, work)


def style_show(args: argparse.Namespace) -> int:
    settings = load_cli_settings(args)
    target = _target_code(settings, args.target)

    async def work(client: Any) -> int:
        found = (await find_styles(client, settings.resources.project)).get(target)
        if not found:
            raise UsageError(f"project {settings.resources.project!r} has no style list for {target} on the service")
        full = await client.get_style_rule_list(found[0].style_id)
        print(
            json.dumps(
                {
                    "style_id": full.style_id,
                    "name": full.name,
                    "language": full.language,
                    "version": full.version,
                    "configured_rules": {k: dict(v) for k, v in (full.configured_rules or {}).items()},
                    "custom_instructions": [
                        {"id": i.id, "label": i.label, "prompt": i.prompt, "source_language": i.source_language}
                        for i in full.custom_instructions or ()
                    ],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return 0

    return _with_client(settings, work)
