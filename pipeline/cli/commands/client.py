"""The service by hand: ``languages``, ``usage``, ``keys``, ``document``, ``write``, through the sync client."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import pathlib
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from pipeline.cli.client import ADMIN_KEY_ENV, AUTH_KEY_ENV, URL_ENV
from pipeline.client import sync
from pipeline.client.aio import AsyncClient
from pipeline.client.requests import DOCUMENT_ANSWER_BYTES
from pipeline.client.sync import Client
from pipeline.config import check_service_url, load_settings
from pipeline.connect import check_service
from pipeline.connect import open_client as open_async
from pipeline.errors import ExitCode, UsageError
from pipeline.files.untrusted import read_regular
from pipeline.protocol import key_problem

T = TypeVar("T")


def open_client(args: argparse.Namespace, key_env: str = AUTH_KEY_ENV) -> Client:
    """A client for the URL and key the command line and environment name."""
    url = args.service_url or os.environ.get(URL_ENV)
    if not url:
        raise UsageError(f"no service URL: pass --service-url or set {URL_ENV}")
    key = os.environ.get(key_env, "").strip()
    if not key:
        raise UsageError(f"no key: set {key_env} (keys are never taken from the command line)")
    if problem := key_problem(key):
        raise UsageError(f"{key_env} {problem}")

    try:
        return sync.Client(url, key)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _configured(
    args: argparse.Namespace, call: Callable[[AsyncClient], Awaitable[T]], remote: Callable[[Client], T]
) -> T:
    """The answer of the service ``--service-url``, the environment or the project's config names: ``call``
    for the in-process local service (``embedded``, which needs no key), ``remote`` for any other."""

    settings = load_settings(args.config)
    if args.service_url:
        url = check_service_url(args.service_url, "--service-url")
        settings = settings._replace(service=replace(settings.service, url=url))
    check_service(settings.service)
    if not settings.service.embedded:
        args.service_url = settings.service.url
        with open_client(args) as client:
            return remote(client)

    async def ask() -> T:
        client = open_async(settings.service, lambda message: None)
        try:
            return await call(client)
        finally:
            await client.aclose()

    return asyncio.run(ask())


def languages(args: argparse.Namespace) -> int:
    resource, include = args.resource, tuple(args.include)
    languages = _configured(
        args,
        lambda client: client.languages(resource, include=include),
        lambda client: client.languages(resource, include=include),
    )
    if "beta" not in include and not args.json:
        print(
            "pipeline: stable languages only; --include beta lists the beta ones too (a run uses both)", file=sys.stderr
        )
    rows = [
        (
            lang.code,
            lang.name,
            _yes(lang.usable_as_source),
            _yes(lang.usable_as_target),
            lang.status,
            ", ".join(name if status == "stable" else f"{name} ({status})" for name, status in lang.features.items()),
        )
        for lang in languages
    ]
    return _emit(args, languages, ("code", "name", "source", "target", "status", "features"), rows)


def usage(args: argparse.Namespace) -> int:
    usage = _configured(args, lambda client: client.usage(), lambda client: client.usage())
    rows = [(name, _cell(value)) for name, value in _plain(usage).items() if name != "extra"]
    rows += [(name, _cell(value)) for name, value in usage.extra.items()]
    return _emit(args, usage, ("figure", "value"), rows)


def keys_create(args: argparse.Namespace) -> int:
    with open_client(args, ADMIN_KEY_ENV) as client:
        key = client.create_developer_key(args.label)
    if args.json:
        # The secret is left out of records' repr and of _plain; this is the one place to show it.
        return _emit(args, {**_plain(key), "api_key": key.api_key}, (), [])
    _emit_keys(args, key)
    if key.api_key:
        print(f"\nNew key (shown only now; store it safely): {key.api_key}")
    return ExitCode.OK


def keys_list(args: argparse.Namespace) -> int:
    with open_client(args, ADMIN_KEY_ENV) as client:
        keys = client.list_developer_keys()
    return _emit_keys(args, keys)


def keys_label(args: argparse.Namespace) -> int:
    with open_client(args, ADMIN_KEY_ENV) as client:
        key = client.label_developer_key(args.key_id, args.label)
    return _emit_keys(args, key)


def keys_limit(args: argparse.Namespace) -> int:
    options = {} if args.speech_ms is None else {"speech_to_text_milliseconds": args.speech_ms}
    with open_client(args, ADMIN_KEY_ENV) as client:
        key = client.set_developer_key_limits(args.key_id, None if args.unlimited else args.characters, **options)
    return _emit_keys(args, key)


def keys_deactivate(args: argparse.Namespace) -> int:
    with open_client(args, ADMIN_KEY_ENV) as client:
        key = client.deactivate_developer_key(args.key_id)
    return _emit_keys(args, key)


def _emit_keys(args: argparse.Namespace, keys: Any) -> int:
    many = keys if isinstance(keys, tuple) else (keys,)
    rows = [
        (
            key.key_id,
            key.label,
            "deactivated" if key.is_deactivated else "active",
            "unlimited" if key.characters_limit is None else str(key.characters_limit),
            key.creation_time or "",
        )
        for key in many
    ]
    return _emit(args, keys, ("key_id", "label", "state", "character limit", "created"), rows)


def document_translate(args: argparse.Namespace) -> int:
    source: pathlib.Path = args.file

    try:  # a regular file only (not /dev/zero, a FIFO), no larger than the largest answer the client reads
        content = read_regular(source, DOCUMENT_ANSWER_BYTES)
    except OSError as exc:
        raise UsageError(f"{source}: {exc.strerror or exc}") from None
    output = args.output or default_output_path(source, args.target_lang, args.output_format)
    if output.resolve() == source.resolve():
        raise UsageError(f"{output}: the output would overwrite the input; pass -o")
    with open_client(args) as client:
        result = client.translate_document(
            content,
            source.name,
            target_lang=args.target_lang,
            source_lang=args.source_lang,
            formality=args.formality,
            glossary_id=args.glossary_id,
            output_format=args.output_format,
        )
    output.write_bytes(result.content)
    summary = {
        "input": str(source),
        "output": str(output),
        "document_id": result.status.document_id,
        "billed_characters": result.status.billed_characters,
        "bytes": len(result.content),
    }
    return _emit(args, summary, ("figure", "value"), [(k, _cell(v)) for k, v in summary.items()])


def default_output_path(source: pathlib.Path, target_lang: str, output_format: str | None) -> pathlib.Path:
    """``report.docx`` -> ``report.de.docx`` (or ``report.de.<output_format>``)."""
    suffix = f".{output_format.lstrip('.')}" if output_format else source.suffix
    return source.with_name(f"{source.stem}.{target_lang}{suffix}")


def write_correct(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        improvements = client.correct(args.texts, target_lang=args.target_lang)
    return _emit_improvements(args, improvements)


def write_rephrase(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        improvements = client.rephrase(
            args.texts, target_lang=args.target_lang, writing_style=args.writing_style, tone=args.tone
        )
    return _emit_improvements(args, improvements)


def _emit_improvements(args: argparse.Namespace, improvements: Sequence[Any]) -> int:
    if args.json:
        return _emit(args, improvements, (), [])
    for improvement in improvements:
        print(improvement.text)
    return ExitCode.OK


def _emit(args: argparse.Namespace, value: object, header: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    if args.json:
        json.dump(_plain(value), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_table(header, rows))
    return ExitCode.OK


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns separated by two spaces, with a header line and a rule under it."""
    lines = [list(header), ["-" * len(h) for h in header], *(list(row) for row in rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip() + "\n" for line in lines
    )


def _plain(value: Any) -> Any:
    """Records, mappings and tuples as JSON-ready dicts and lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.repr}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple record: an object, not a list
        return {name: _plain(item) for name, item in zip(value._fields, value, strict=True)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
