"""What a run is asked to do, fixed when it starts: the settings, the options, the catalogs it found."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.config import Settings
from pipeline.run.records import RunOptions

__all__ = ["RunInputs"]


@dataclass(frozen=True)
class RunInputs:
    """A run's inputs, none of which changes while it runs."""

    settings: Settings
    options: RunOptions
    service: str  # the service's identity (pipeline.connect.service_identity): in cache keys and the report
    fingerprint: str  # settings_hash of the settings: recorded with every catalog settled
    paths: tuple[Path, ...]  # the catalogs found that an earlier run did not settle, in order
    terminology: str | None  # fingerprint of glossary and style files not synced to this service yet
    started: float  # time.monotonic() when the run began

    @property
    def has_work(self) -> bool:
        """Whether there is anything to read, estimate or sync; otherwise the run ends after skipping."""
        return bool(self.paths) or self.options.dry_run or self.terminology is not None
