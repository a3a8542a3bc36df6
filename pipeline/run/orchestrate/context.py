"""What a run's windows share, made once before the first and never filled in later: the :class:`RunContext`."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.run.inputs import RunInputs
from pipeline.run.ledger import Ledger
from pipeline.run.orchestrate.connections import Connections
from pipeline.run.report.progress import Progress
from pipeline.run.reuse import Index
from pipeline.run.send.interruption import Interruption
from pipeline.run.state.journal import Journal
from pipeline.run.state.locks import CatalogLocks
from pipeline.run.state.provenance import Provenance

__all__ = ["RunContext"]


@dataclass(frozen=True)
class RunContext:
    """A run with work, as its windows and rounds see it: what it was asked (inputs), what it decided (ledger),
    what runs remember, and what it opened (connections, locks, the signal handling, the progress display).

    Made all at once before the first window; no field is filled in later.
    """

    inputs: RunInputs
    ledger: Ledger
    journal: Journal  # what runs remember; read again after waiting for another run's catalogs
    provenance: Provenance
    locks: CatalogLocks  # held on a window's catalogs until it is written and saved
    connections: Connections
    interruption: Interruption  # SIGINT/SIGTERM while sending
    progress: Progress
    reuse: Index | None  # reviewed translations by language, built on first need; None: [translate] reuse off
