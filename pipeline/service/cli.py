"""The ``pipeline serve`` subcommand: run the local service over HTTP.

Cheap to import: Starlette, uvicorn and the app are imported only when the command runs.
"""

from __future__ import annotations

import argparse
import pathlib
from collections.abc import Iterable, Mapping
from typing import Any

from pipeline.errors import UsageError
from pipeline.service.config import (
    DEFAULT_DOCUMENT_RETENTION_HOURS,
    MAX_DOCUMENT_RETENTION_HOURS,
    AccountSpec,
    MemorySpec,
)

ENV_AUTH_KEYS = "PIPELINE_SERVE_AUTH_KEYS"
ENV_ADMIN_KEYS = "PIPELINE_SERVE_ADMIN_KEYS"
ENV_FREE_AUTH_KEYS = "PIPELINE_SERVE_FREE_AUTH_KEYS"
ENV_OTHER_PAID_AUTH_KEYS = "PIPELINE_SERVE_OTHER_PAID_AUTH_KEYS"
DEFAULT_PORT = 8000

_EPILOG = f"""\
keys:
  --auth-key and --admin-key belong to one paid-tier account, --free-auth-key to one free-tier
  account, --other-paid-auth-key to a second paid-tier account (developer keys only; for trying
  that accounts do not see each other's resources); each flag may be repeated. Keys are also read,
  comma-separated, from the environment variables {ENV_AUTH_KEYS}, {ENV_ADMIN_KEYS},
  {ENV_FREE_AUTH_KEYS} and {ENV_OTHER_PAID_AUTH_KEYS} (added to those given as flags).
  Prefer the environment: keys on the command line are visible to every user of the machine
  through `ps`.

The first line on stdout is `pipeline serve: listening on http://HOST:PORT` once the service
accepts connections. SIGTERM or Ctrl-C stops it (exit status 0). With --data-dir, accounts,
developer keys, limits and usage survive a restart; without it everything lives in memory.
Translation memories are read from their files at every start (ids stay the same).
A translated document that nobody downloads is deleted --document-retention-hours after its
job finished (an upload whose job never finished: after its upload).
"""


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {value!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("port must be between 0 and 65535")
    return port


def _hours(value: str) -> float:
    try:
        hours = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of hours: {value!r}") from None
    if not 0 < hours <= MAX_DOCUMENT_RETENTION_HOURS:
        raise argparse.ArgumentTypeError(
            f"the retention must be above 0 and at most {MAX_DOCUMENT_RETENTION_HOURS} hours"
        )
    return hours


def _memory(value: str) -> MemorySpec:
    name, sep, path = value.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=FILE, got {value!r}")
    return MemorySpec(name.strip(), pathlib.Path(path.strip()))


def register(subparsers: Any) -> None:
    """Add the ``serve`` subcommand to ``pipeline``'s subparsers."""
    parser = subparsers.add_parser(
        "serve",
        help="run the local translation service (pseudo-translation engine) over HTTP",
        description="Run the local implementation of the translation service on HOST:PORT.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    parser.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help="port to listen on; 0 picks a free one (default: %(default)s)"
    )
    for flag, owner, variable in (
        ("--auth-key", "developer key of the paid-tier account", ENV_AUTH_KEYS),
        ("--admin-key", "admin key of the paid-tier account", ENV_ADMIN_KEYS),
        ("--free-auth-key", "developer key of the free-tier account", ENV_FREE_AUTH_KEYS),
        ("--other-paid-auth-key", "developer key of a second paid-tier account", ENV_OTHER_PAID_AUTH_KEYS),
    ):
        help_text = f"{owner} (repeatable; also ${variable})"
        parser.add_argument(flag, action="append", default=[], metavar="KEY", help=help_text)
    parser.add_argument(
        "--data-dir",
        type=pathlib.Path,
        metavar="DIR",
        help="keep state in DIR/service.sqlite3 across restarts (default: in memory)",
    )
    for flag, owner in (
        ("--translation-memory", "translation memory of the paid-tier account from a .tmx file or .po compendium"),
        ("--free-translation-memory", "translation memory of the free-tier account"),
    ):
        parser.add_argument(
            flag, action="append", default=[], type=_memory, metavar="NAME=FILE", help=f"{owner} (repeatable)"
        )
    parser.add_argument(
        "--document-retention-hours",
        type=_hours,
        default=DEFAULT_DOCUMENT_RETENTION_HOURS,
        metavar="HOURS",
        help="delete a document job and its files this long after it finished if nobody downloaded it "
        "(default: %(default)g)",
    )
    parser.add_argument(
        "--test-faults",
        action="store_true",
        help="honour the X-Test-Fault request header "
        "(scripted failures for tests; see pipeline/service/testing/faults.py)",
    )
    parser.set_defaults(handler="pipeline.service.serve:run_serve")


def _keys(flags: Iterable[str], environ: Mapping[str, str], variable: str) -> tuple[str, ...]:
    values = [*flags, *environ.get(variable, "").split(",")]
    return tuple(dict.fromkeys(v.strip() for v in values if v.strip()))


def accounts_from(args: argparse.Namespace, environ: Mapping[str, str]) -> tuple[AccountSpec, ...]:
    """The accounts the flags and environment describe; UsageError when there is none or they clash."""
    paid = _keys(args.auth_key, environ, ENV_AUTH_KEYS)
    admin = _keys(args.admin_key, environ, ENV_ADMIN_KEYS)
    free = _keys(args.free_auth_key, environ, ENV_FREE_AUTH_KEYS)
    other = _keys(args.other_paid_auth_key, environ, ENV_OTHER_PAID_AUTH_KEYS)
    if not (paid or admin or free or other):
        raise UsageError(
            f"no keys: give --auth-key/--admin-key/--free-auth-key/--other-paid-auth-key or set {ENV_AUTH_KEYS}, "
            f"{ENV_ADMIN_KEYS}, {ENV_FREE_AUTH_KEYS} or {ENV_OTHER_PAID_AUTH_KEYS}"
        )
    if set(paid) & set(admin):
        raise UsageError("a key cannot be both a developer key and an admin key")
    if set(free) & (set(paid) | set(admin)):
        raise UsageError("a key cannot belong to both the paid-tier and the free-tier account")
    if set(other) & (set(paid) | set(admin) | set(free)):
        raise UsageError("a key of the second paid-tier account cannot belong to another account too")
    paid_memories = tuple(args.translation_memory)
    free_memories = tuple(args.free_translation_memory)
    if paid_memories and not (paid or admin):
        raise UsageError("--translation-memory belongs to the paid-tier account: give --auth-key too")
    if free_memories and not free:
        raise UsageError("--free-translation-memory belongs to the free-tier account: give --free-auth-key too")
    specs = []
    if paid or admin:
        specs.append(AccountSpec("paid", paid, admin, paid_memories))
    if free:
        specs.append(AccountSpec("free", free, (), free_memories))
    if other:
        specs.append(AccountSpec("paid", other))
    return tuple(specs)
