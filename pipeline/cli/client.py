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
        "languages",
        parents=[configured],
        help="list the languages and features of a resource",
        description="List the languages the service offers for one resource (text translation by "
        "default): code, name, whether each is usable as source and as target, its status and the "
        "features it supports. Stable languages only unless --include beta; a run uses both.",
    )
    languages.add_argument(
        "--resource",
        default="translate_text",
        choices=LANGUAGE_RESOURCES,
        help="the resource whose languages to list (default: translate_text)",
    )
    languages.add_argument(
        "--include",
        action="append",
        default=[],
        choices=LANGUAGE_INCLUDES,
        help="also list beta languages and features, or features of third-party providers (repeatable)",
    )
    languages.set_defaults(handler="client:languages")

    usage = subparsers.add_parser(
        "usage",
        parents=[configured],
        help="show the characters used this period",
        description="Show the account's usage this billing period as the service reports it: the "
        "characters of translation and Write together, and the limits where the account has them.",
    )
    usage.set_defaults(handler="client:usage")
    _register_keys(subparsers, common)
    _register_documents(subparsers, common)
    _register_write(subparsers, common)


def _register_keys(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    keys = subparsers.add_parser(
        "keys",
        help=f"manage developer keys (admin key from ${ADMIN_KEY_ENV})",
        description="Create, list, rename, limit and deactivate the account's developer keys through the "
        f"admin interface (paid tier). The admin key is read from ${ADMIN_KEY_ENV}, never from a flag.",
    )
    keys_sub = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    create = keys_sub.add_parser(
        "create",
        parents=[common],
        help="create a developer key",
        description="Create a developer key and print it: it is shown this once only.",
    )
    create.add_argument("--label", help="the key's label (default: the service's)")
    create.set_defaults(handler="client:keys_create")
    keys_sub.add_parser(
        "list",
        parents=[common],
        help="list developer keys",
        description="List the account's developer keys, active and deactivated, with their limits.",
    ).set_defaults(handler="client:keys_list")
    label = keys_sub.add_parser(
        "label", parents=[common], help="rename a developer key", description="Give a developer key a new label."
    )
    label.add_argument("key_id", help="the key's id (from `pipeline keys list`)")
    label.add_argument("label", help="the new label")
    label.set_defaults(handler="client:keys_label")
    limit = keys_sub.add_parser(
        "limit",
        parents=[common],
        help="set a key's monthly character limit",
        description="Set how many characters (translation, documents and Write together) a developer key "
        "may use in one monthly period, or remove the limit.",
    )
    limit.add_argument("key_id", help="the key's id (from `pipeline keys list`)")
    amount = limit.add_mutually_exclusive_group(required=True)
    amount.add_argument("--characters", type=_non_negative, metavar="N", help="0 forbids any use")
    amount.add_argument("--unlimited", action="store_true", help="remove the character limit")
    limit.add_argument("--speech-ms", type=_non_negative, metavar="N", help="speech-to-text milliseconds limit")
    limit.set_defaults(handler="client:keys_limit")
    deactivate = keys_sub.add_parser(
        "deactivate",
        parents=[common],
        help="deactivate a key for good",
        description="Deactivate a developer key: it stops working at once and can never be reactivated.",
    )
    deactivate.add_argument("key_id", help="the key's id (from `pipeline keys list`)")
    deactivate.set_defaults(handler="client:keys_deactivate")


def _register_documents(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    document = subparsers.add_parser(
        "document",
        help="translate documents",
        description=f"Translate whole documents (docx, pptx, xlsx, pdf, html, txt, xliff, srt...) through "
        f"the service's document translation. The key is read from ${AUTH_KEY_ENV}.",
    )
    document_sub = document.add_subparsers(dest="document_command", required=True, metavar="ACTION")
    translate = document_sub.add_parser(
        "translate",
        parents=[common],
        help="upload, wait, download",
        description="Upload FILE, wait until the service has translated it, and download the result "
        "(the service keeps it for one download only).",
    )
    translate.add_argument("file", type=pathlib.Path, help="the document to translate")
    translate.add_argument("--target-lang", required=True, help="the service's target language code (DE, PT-BR)")
    translate.add_argument("--source-lang", help="the source language (default: detected)")
    translate.add_argument("--formality", help="default, more, less, prefer_more or prefer_less")
    translate.add_argument("--glossary-id", help="a glossary of the account (needs --source-lang)")
    translate.add_argument(
        "--output-format", metavar="EXT", help="the output's type where the input allows another (pdf to docx)"
    )
    translate.add_argument(
        "-o", "--output", type=pathlib.Path, help="default: FILE with the language before its suffix"
    )
    translate.set_defaults(handler="client:document_translate")


def _register_write(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    write = subparsers.add_parser(
        "write",
        help="improve text (paid tier)",
        description=f"Improve texts in their own language with the service's Write (paid tier); each "
        f"improved text is printed on its own line. The key is read from ${AUTH_KEY_ENV}.",
    )
    write_sub = write.add_subparsers(dest="write_command", required=True, metavar="ACTION")
    target_help = "the texts' language (default: detected); a variant converts (en-GB to en-US)"
    correct = write_sub.add_parser(
        "correct",
        parents=[common],
        help="fix spelling and grammar only",
        description="Correct spelling and grammar, changing the wording as little as possible.",
    )
    correct.add_argument("texts", nargs="+", metavar="TEXT", help="a text to correct")
    correct.add_argument("--target-lang", help=target_help)
    correct.set_defaults(handler="client:write_correct")
    rephrase = write_sub.add_parser(
        "rephrase",
        parents=[common],
        help="improve wording",
        description="Improve spelling, grammar and wording, in a writing style or a tone if asked.",
    )
    rephrase.add_argument("texts", nargs="+", metavar="TEXT", help="a text to improve")
    rephrase.add_argument("--target-lang", help=target_help)
    manner = rephrase.add_mutually_exclusive_group()
    manner.add_argument(
        "--writing-style", help="simple, business, academic or casual (prefer_ to fall back where unsupported)"
    )
    manner.add_argument(
        "--tone", help="enthusiastic, friendly, confident or diplomatic (prefer_ to fall back where unsupported)"
    )
    rephrase.set_defaults(handler="client:write_rephrase")


def _non_negative(value: str) -> int:
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return number
