"""``pipeline glossary sync|list|show|delete`` and ``pipeline style sync|list|show``: their parsers."""

from __future__ import annotations

import argparse

from pipeline.cli import add_config_argument


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``glossary`` and ``style`` commands."""
    _register_glossary(sub)
    _register_style(sub)


def _register_glossary(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    glossary = sub.add_parser(
        "glossary",
        help="sync and inspect the project's glossary on the service",
        description="The project's glossary: one v3 glossary holding one dictionary per "
        "language pair, built from the glossary files the config names.",
    )
    gsub = glossary.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = gsub.add_parser(
        "sync",
        help="upload the dictionaries that changed; delete the ones no longer configured",
        description="Read the glossary files the config names, upload the dictionaries whose entries "
        "changed, and delete from the service the ones no longer configured. Unchanged ones cost nothing.",
    )
    p.add_argument("--check", action="store_true", help="only read and check the glossary files; send nothing")
    _common(p, "resources:glossary_sync")
    p = gsub.add_parser(
        "list",
        help="the project's glossary (with --all, every glossary of the account)",
        description="Show the project's glossary on the service and its dictionaries (with --all, every "
        "glossary of the account).",
    )
    p.add_argument("--all", action="store_true", help="every glossary of the account")
    _common(p, "resources:glossary_list")
    p = gsub.add_parser(
        "show",
        help="the dictionaries of the project's glossary, or one dictionary's entries",
        description="Show the dictionaries of the project's glossary, or, given LANG, print the entries of "
        "the dictionary for that target language as TSV.",
    )
    p.add_argument("target", nargs="?", metavar="LANG", help="print this target language's entries (TSV)")
    _common(p, "resources:glossary_show")
    p = gsub.add_parser(
        "delete",
        help="delete the project's glossary from the service",
        description="Delete the project's glossary from the service; the glossary files stay.",
    )
    _common(p, "resources:glossary_delete")


def _register_style(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    style = sub.add_parser(
        "style",
        help="sync and inspect the project's style rule lists on the service",
        description="The project's style rule lists: one per target language that has a style table in the config.",
    )
    ssub = style.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = ssub.add_parser(
        "sync",
        help="create or update the style lists; delete the ones no longer configured",
        description="Create or update one style rule list per target language that has a style table "
        "in the config, and delete from the service the project's lists no longer configured.",
    )
    _common(p, "resources:style_sync")
    p = ssub.add_parser(
        "list",
        help="the project's style lists (with --all, every list of the account)",
        description="Show the project's style rule lists on the service (with --all, every list of the account).",
    )
    p.add_argument("--all", action="store_true", help="every style list of the account")
    _common(p, "resources:style_list")
    p = ssub.add_parser(
        "show",
        help="one style list in full",
        description="Show the style rule list of one target language in full: its configured rules and "
        "custom instructions.",
    )
    p.add_argument("target", metavar="LANG", help="the target language (gettext or service code: de, PT-BR)")
    _common(p, "resources:style_show")


def _common(p: argparse.ArgumentParser, handler: str) -> None:
    add_config_argument(p)
    p.add_argument("--service-url", metavar="URL", help="service base URL (default: the config's [service] url)")
    p.set_defaults(handler=handler)
