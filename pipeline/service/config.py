"""The settings of one local service instance: accounts, storage place, test faults, engine.

Light on purpose (standard library only) so that ``pipeline.service.cli`` and code that merely
builds a configuration never import Starlette.
"""

from __future__ import annotations

import datetime as dt
import pathlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pipeline.service.engine.base import Engine

Tier = Literal["paid", "free"]

#: Hours a document job nobody downloads is kept (``pipeline serve --document-retention-hours``).
DEFAULT_DOCUMENT_RETENTION_HOURS = 24.0
#: A century: longer would overflow SQLite's integers of milliseconds.
MAX_DOCUMENT_RETENTION_HOURS = 876_000


class MemoryLoadError(ValueError):
    """A memory file cannot be read; the message names the memory, the file and, when known, the line."""


@dataclass(frozen=True)
class MemorySpec:
    """A translation memory to provision: its name and its file (``.tmx`` or ``.po`` compendium)."""

    name: str
    path: pathlib.Path

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("a translation memory needs a non-empty name")


@dataclass(frozen=True)
class AccountSpec:
    """One account of the service: its tier, developer keys, admin keys (secrets) and memories."""

    tier: Tier
    auth_keys: tuple[str, ...]
    admin_keys: tuple[str, ...] = ()
    #: Translation memories of the account, read from their files at every start.
    translation_memories: tuple[MemorySpec, ...] = ()

    def __post_init__(self) -> None:
        if self.tier not in ("paid", "free"):
            raise ValueError(f"tier must be 'paid' or 'free', not {self.tier!r}")
        keys = (*self.auth_keys, *self.admin_keys)
        if any(not isinstance(k, str) or not k.strip() for k in keys):
            raise ValueError("keys must be non-empty strings")
        if len(set(keys)) != len(keys):
            raise ValueError("a key may appear only once per account")


@dataclass(frozen=True)
class ServiceConfig:
    """Everything ``create_app`` needs; built by ``pipeline serve`` or by the embedded default."""

    accounts: tuple[AccountSpec, ...]
    #: SQLite file lives here when given; otherwise all state is in memory and dies with the app.
    data_dir: pathlib.Path | None = None
    #: Honour the ``X-Test-Fault`` request header (see ``pipeline.service.testing.faults``).
    test_faults: bool = False
    #: Translation engine; None means the deterministic pseudo-translation engine, with the custom
    #: instructions followed on top of it (``engine.instructions``).
    engine: Engine | None = None
    #: Source of "now" in UTC (usage periods, timestamps); None means the system clock.
    clock: Callable[[], dt.datetime] | None = None
    #: Entries per page of the custom-tag analytics report.
    analytics_page_size: int = 100
    #: Hours a finished document job (and an unfinished upload) is kept if nobody downloads it.
    document_retention_hours: float = DEFAULT_DOCUMENT_RETENTION_HOURS
    #: Told each document job's id once the worker is done with it (done, error, or gone), from the
    #: worker's thread: tests wait for it instead of polling the job's status.
    on_document_ended: Callable[[str], None] | None = None

    def __post_init__(self) -> None:
        hours = self.document_retention_hours
        if (
            isinstance(hours, bool)
            or not isinstance(hours, int | float)
            or not 0 < hours <= MAX_DOCUMENT_RETENTION_HOURS
        ):
            raise ValueError(
                f"document_retention_hours must be a number of hours above 0 and at most "
                f"{MAX_DOCUMENT_RETENTION_HOURS}, not {hours!r}"
            )
