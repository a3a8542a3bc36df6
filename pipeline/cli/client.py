"""The parsers of the service by hand: ``languages``, ``usage``, ``keys``, ``document``, ``write``.

The service URL comes from ``--service-url`` or ``PIPELINE_SERVICE_URL`` (``languages`` and
``usage`` also read the project's ``pipeline.toml``, and take ``embedded``); keys only from the
environment (``PIPELINE_AUTH_KEY``, ``PIPELINE_ADMIN_KEY`` for ``keys``), never from a flag,
since flags show in ``ps``. Output is a table for people, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import pathlib
from typing import TYPE_CHECKING

from pipeline.cli import ArgumentParser, add_config_argument
from pipeline.protocol import LANGUAGE_INCLUDES, LANGUAGE_RESOURCES

if TYPE_CHECKING:
    pass

URL_ENV = "PIPELINE_SERVICE_URL"
AUTH_KEY_ENV = "PIPELINE_AUTH_KEY"
ADMIN_KEY_ENV = "PIPELINE_ADMIN_KEY"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the client's subcommands to ``pipeline``'s parser."""
    common = ArgumentParser(add_help=False)
    common.add_argument("--service-url", metavar="URL", help=f"base URL of the service (default: ${URL_ENV})")
    common.add_argument("--json", action="store_true", help="print JSON instead of a table")

    configured = ArgumentParser(add_help=False)
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
    languages.set_defaults(handler="client:languages")

    usage = subparsers.add_parser("usage", parents=[configured], help="show the characters used this period")
    usage.set_defaults(handler="client:usage")
    _register_keys(subparsers, common)
    _register_documents_and_write(subparsers, common)


def _register_keys(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    keys = subparsers.add_parser("keys", help=f"manage developer keys (admin key from ${ADMIN_KEY_ENV})")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    create = keys_sub.add_parser("create", parents=[common], help="create a developer key")
    create.add_argument("--label")
    create.set_defaults(handler="client:keys_create")
    keys_sub.add_parser("list", parents=[common], help="list developer keys").set_defaults(handler="client:keys_list")
    label = keys_sub.add_parser("label", parents=[common], help="rename a developer key")
    label.add_argument("key_id")
    label.add_argument("label")
    label.set_defaults(handler="client:keys_label")
    limit = keys_sub.add_parser("limit", parents=[common], help="set a key's monthly character limit")
    limit.add_argument("key_id")
    amount = limit.add_mutually_exclusive_group(required=True)
    amount.add_argument("--characters", type=_non_negative, metavar="N", help="0 forbids any use")
    amount.add_argument("--unlimited", action="store_true", help="remove the character limit")
    limit.add_argument("--speech-ms", type=_non_negative, metavar="N", help="speech-to-text milliseconds limit")
    limit.set_defaults(handler="client:keys_limit")
    deactivate = keys_sub.add_parser("deactivate", parents=[common], help="deactivate a key for good")
    deactivate.add_argument("key_id")
    deactivate.set_defaults(handler="client:keys_deactivate")


def _register_documents_and_write(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
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
    translate.set_defaults(handler="client:document_translate")

    write = subparsers.add_parser("write", help="improve text (paid tier)")
    write_sub = write.add_subparsers(dest="write_command", required=True, metavar="ACTION")
    correct = write_sub.add_parser("correct", parents=[common], help="fix spelling and grammar only")
    correct.add_argument("texts", nargs="+", metavar="TEXT")
    correct.add_argument("--target-lang")
    correct.set_defaults(handler="client:write_correct")
    rephrase = write_sub.add_parser("rephrase", parents=[common], help="improve wording")
    rephrase.add_argument("texts", nargs="+", metavar="TEXT")
    rephrase.add_argument("--target-lang")
    manner = rephrase.add_mutually_exclusive_group()
    manner.add_argument("--writing-style")
    manner.add_argument("--tone")
    rephrase.set_defaults(handler="client:write_rephrase")


def _non_negative(value: str) -> int:
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return number
