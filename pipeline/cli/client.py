"""Subcommands for using the service by hand: ``languages``, ``usage``, ``keys``, ``document``, ``write``.

The service URL comes from ``--service-url`` or ``PIPELINE_SERVICE_URL`` (``languages`` and
``usage`` also read the project's ``pipeline.toml``, and take ``embedded``); keys only from the
environment (``PIPELINE_AUTH_KEY``, ``PIPELINE_ADMIN_KEY`` for ``keys``), never from a flag,
since flags show in ``ps``. Output is a table for people, or JSON with ``--json``.
Cheap to import: the client (and httpx) are loaded when a command runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pipeline.cli.common import add_config_argument
from pipeline.errors import ExitCode, UsageError
from pipeline.protocol import LANGUAGE_INCLUDES, LANGUAGE_RESOURCES

if TYPE_CHECKING:
    from pipeline.client import AsyncClient
    from pipeline.client.sync import Client

T = TypeVar("T")

URL_ENV = "PIPELINE_SERVICE_URL"
AUTH_KEY_ENV = "PIPELINE_AUTH_KEY"
ADMIN_KEY_ENV = "PIPELINE_ADMIN_KEY"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the client's subcommands to ``pipeline``'s parser."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--service-url", metavar="URL", help=f"base URL of the service (default: ${URL_ENV})")
    common.add_argument("--json", action="store_true", help="print JSON instead of a table")

    configured = argparse.ArgumentParser(add_help=False)
    configured.add_argument(
        "--service-url",
        metavar="URL",
        help=f"base URL of the service, or 'embedded' (default: ${URL_ENV}, else the config's [service] url)",
    )
    configured.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_config_argument(configured)
    languages = subparsers.add_parser(
        "languages", parents=[configured], help="list the languages and features of a resource"
    )
    languages.add_argument("--resource", default="translate_text", choices=LANGUAGE_RESOURCES)
    languages.add_argument("--include", action="append", default=[], choices=LANGUAGE_INCLUDES)
    languages.set_defaults(func=_languages)

    usage = subparsers.add_parser("usage", parents=[configured], help="show the characters used this period")
    usage.set_defaults(func=_usage)
    _register_keys(subparsers, common)
    _register_documents_and_write(subparsers, common)


def _register_keys(subparsers: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    keys = subparsers.add_parser("keys", help=f"manage developer keys (admin key from ${ADMIN_KEY_ENV})")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    create = keys_sub.add_parser("create", parents=[common], help="create a developer key")
    create.add_argument("--label")
    create.set_defaults(func=_keys_create)
    keys_sub.add_parser("list", parents=[common], help="list developer keys").set_defaults(func=_keys_list)
    label = keys_sub.add_parser("label", parents=[common], help="rename a developer key")
    label.add_argument("key_id")
    label.add_argument("label")
    label.set_defaults(func=_keys_label)
    limit = keys_sub.add_parser("limit", parents=[common], help="set a key's monthly character limit")
    limit.add_argument("key_id")
    amount = limit.add_mutually_exclusive_group(required=True)
    amount.add_argument("--characters", type=_non_negative, metavar="N", help="0 forbids any use")
    amount.add_argument("--unlimited", action="store_true", help="remove the character limit")
    limit.add_argument("--speech-ms", type=_non_negative, metavar="N", help="speech-to-text milliseconds limit")
    limit.set_defaults(func=_keys_limit)
    deactivate = keys_sub.add_parser("deactivate", parents=[common], help="deactivate a key for good")
    deactivate.add_argument("key_id")
    deactivate.set_defaults(func=_keys_deactivate)


def _register_documents_and_write(subparsers: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    document = subparsers.add_parser("document", help="translate documents")
    document_sub = document.add_subparsers(dest="document_command", required=True, metavar="ACTION")
    translate = document_sub.add_parser("translate", parents=[common], help="upload, wait, download")
    translate.add_argument("file", type=pathlib.Path)
    translate.add_argument("--target-lang", required=True)
    translate.add_argument("--source-lang")
    translate.add_argument("--formality")
    translate.add_argument("--glossary-id")
    translate.add_argument("--output-format", metavar="EXT")
    translate.add_argument(
        "-o", "--output", type=pathlib.Path, help="default: FILE with the language before its suffix"
    )
    translate.set_defaults(func=_document_translate)

    write = subparsers.add_parser("write", help="improve text (paid tier)")
    write_sub = write.add_subparsers(dest="write_command", required=True, metavar="ACTION")
    correct = write_sub.add_parser("correct", parents=[common], help="fix spelling and grammar only")
    correct.add_argument("texts", nargs="+", metavar="TEXT")
    correct.add_argument("--target-lang")
    correct.set_defaults(func=_write_correct)
    rephrase = write_sub.add_parser("rephrase", parents=[common], help="improve wording")
    rephrase.add_argument("texts", nargs="+", metavar="TEXT")
    rephrase.add_argument("--target-lang")
    manner = rephrase.add_mutually_exclusive_group()
    manner.add_argument("--writing-style")
    manner.add_argument("--tone")
    rephrase.set_defaults(func=_write_rephrase)


def _non_negative(value: str) -> int:
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return number


def open_client(args: argparse.Namespace, key_env: str = AUTH_KEY_ENV) -> Client:
    """A client for the URL and key the command line and environment name."""
    url = args.service_url or os.environ.get(URL_ENV)
    if not url:
        raise UsageError(f"no service URL: pass --service-url or set {URL_ENV}")
    key = os.environ.get(key_env, "").strip()
    if not key:
        raise UsageError(f"no key: set {key_env} (keys are never taken from the command line)")
    from pipeline.client.sync import Client

    try:
        return Client(url, key)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


# --- Commands -------------------------------------------------------------------------------


def _configured(
    args: argparse.Namespace, call: Callable[[AsyncClient], Awaitable[T]], remote: Callable[[Client], T]
) -> T:
    """The answer of the service ``--service-url``, the environment or the project's config names: ``call``
    for the in-process local service (``embedded``, which needs no key), ``remote`` for any other."""
    import asyncio
    from dataclasses import replace

    from pipeline.config import check_service_url, load_settings
    from pipeline.connect import check_service
    from pipeline.connect import open_client as open_async

    settings = load_settings(args.config)
    if args.service_url:
        url = check_service_url(args.service_url, "--service-url")
        settings = replace(settings, service=replace(settings.service, url=url))
    check_service(settings)
    if not settings.service.embedded:
        args.service_url = settings.service.url
        with open_client(args) as client:
            return remote(client)

    async def ask() -> T:
        client = open_async(settings, lambda message: None)
        try:
            return await call(client)
        finally:
            await client.aclose()

    return asyncio.run(ask())


def _languages(args: argparse.Namespace) -> int:
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


def _usage(args: argparse.Namespace) -> int:
    usage = _configured(args, lambda client: client.usage(), lambda client: client.usage())
    rows = [(name, _cell(value)) for name, value in _plain(usage).items() if name != "extra"]
    rows += [(name, _cell(value)) for name, value in usage.extra.items()]
    return _emit(args, usage, ("figure", "value"), rows)


def _keys_create(args: argparse.Namespace) -> int:
    with open_client(args, ADMIN_KEY_ENV) as client:
        key = client.create_developer_key(args.label)
    if args.json:
        # The secret is left out of records' repr and of _plain; this is the one place to show it.
        return _emit(args, {**_plain(key), "api_key": key.api_key}, (), [])
    _emit_keys(args, key)
    if key.api_key:
        print(f"\nNew key (shown only now; store it safely): {key.api_key}")
    return ExitCode.OK


def _keys_list(args: argparse.Namespace) -> int:
    with open_client(args, ADMIN_KEY_ENV) as client:
        keys = client.list_developer_keys()
    return _emit_keys(args, keys)


def _keys_label(args: argparse.Namespace) -> int:
    with open_client(args, ADMIN_KEY_ENV) as client:
        key = client.label_developer_key(args.key_id, args.label)
    return _emit_keys(args, key)


def _keys_limit(args: argparse.Namespace) -> int:
    options = {} if args.speech_ms is None else {"speech_to_text_milliseconds": args.speech_ms}
    with open_client(args, ADMIN_KEY_ENV) as client:
        key = client.set_developer_key_limits(args.key_id, None if args.unlimited else args.characters, **options)
    return _emit_keys(args, key)


def _keys_deactivate(args: argparse.Namespace) -> int:
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


def _document_translate(args: argparse.Namespace) -> int:
    source: pathlib.Path = args.file
    from pipeline.client.requests import DOCUMENT_ANSWER_BYTES
    from pipeline.untrusted import read_regular

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


def _write_correct(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        improvements = client.correct(args.texts, target_lang=args.target_lang)
    return _emit_improvements(args, improvements)


def _write_rephrase(args: argparse.Namespace) -> int:
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


# --- Output ---------------------------------------------------------------------------------


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
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
