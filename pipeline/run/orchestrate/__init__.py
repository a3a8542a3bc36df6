"""A translation run, stage by stage: the only package that knows the stages and their order.

Every run goes

    settled (skip unchanged) -> scan -> plan (protect, dedupe, cache keys) -> reuse (reviewed
    translations elsewhere) -> resolve (cache -> attach -> send -> judge -> record, round by
    round) -> gate (admit, assemble plurals) -> write -> report

one module of :mod:`pipeline.run` each. Stages never import each other: each takes what it needs
and returns a record (:mod:`pipeline.run.window`); the run's :class:`~pipeline.run.ledger.Ledger`
takes the records and is the only writer of the report.

This module is the run's front door: it reads what the run is asked (:class:`~pipeline.run.records.RunInputs`:
the settings, the options, the catalogs found and not settled by an earlier run) and decides
whether there is work. A run with nothing new (the pre-commit hook's usual case) ends here: it
loads neither asyncio nor the catalog parsers nor the cache nor the client, and costs little more
than starting Python (bench/noop.py). A run with work loads :mod:`.work` (the stages, and the
:class:`~.connections.Connections` it opens once: cache, limiter, budget, glossary plan, the
account's reads; the client, and with it the embedded service, only when a request is needed).

Per-segment problems become :class:`~pipeline.model.Issue` records and the run goes on. Only a few
things stop it early, each saving what was already translated: the service refusing the key or
being unreachable (exit 4), the quota running out (456) or the run's character budget
(``max_characters``) being reached (exit 3), SIGINT or SIGTERM (exit 130 or 143,
:class:`~pipeline.run.send.interruption.Interruption`), another run holding catalogs longer than
``lock_wait`` (exit 6), and anything unexpected while translating (exit 1: what was verified
before it is written all the same).

Order of safety: a translation is cached only after the gate verified it, and a catalog is
written (atomically) only with verified translations, so a run stopped at any moment leaves every
file whole and a re-run pays only for what was not yet cached. Every translation written is
recorded with its provenance (:mod:`pipeline.run.provenance`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from pipeline.config import Settings
from pipeline.connect import ClientFactory
from pipeline.run.orchestrate.start import begin, finish
from pipeline.run.records import CatalogReport, RunOptions, RunReport

if TYPE_CHECKING:
    from pipeline.run.report.progress import Progress

__all__ = ["CatalogReport", "RunOptions", "RunReport", "run_translate", "translate_catalogs"]


def run_translate(
    settings: Settings,
    options: RunOptions,
    log: Callable[[str], None] | None = None,
    client_factory: ClientFactory | None = None,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> RunReport:
    """Run a whole translation job synchronously; see :func:`translate_catalogs`.

    SIGINT and SIGTERM stop it in order (:class:`~pipeline.run.send.interruption.Interruption`):
    what was done is written and saved, and the report says so (exit 130 or 143).
    """
    inputs, ledger, journal = begin(settings, options, log or _stderr, clock)
    if not inputs.has_work:  # no event loop, nothing parsed, nothing loaded
        return finish(inputs, ledger)
    from pipeline.run.orchestrate import work  # the front door: the stages, once there is work

    return work.run(inputs, ledger, journal, client_factory, progress)


async def translate_catalogs(
    settings: Settings,
    options: RunOptions,
    log: Callable[[str], None],
    client_factory: ClientFactory | None = None,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> RunReport:
    """Translate every catalog of the run and write the results back; never raises for per-segment trouble.

    ``client_factory`` replaces the client the settings describe (tests inject a transport this way),
    ``clock`` the seconds the report's timings are read from. The caller's event loop keeps its own
    signal handling.
    """
    inputs, ledger, journal = begin(settings, options, log, clock)
    if not inputs.has_work:
        return finish(inputs, ledger)
    from pipeline.run.orchestrate import work  # the front door: the stages, once there is work

    return await work.translate(inputs, ledger, journal, client_factory, progress, handle_signals=False)


def _stderr(message: str) -> None:
    print(f"pipeline: {message}", file=sys.stderr)
