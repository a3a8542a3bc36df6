"""ISO 8601 UTC timestamps as the service writes them (``2026-05-18T09:30:00.123Z``)."""

from __future__ import annotations

import datetime as dt


def iso_millis(epoch_ms: int) -> str:
    """An epoch-milliseconds time with milliseconds."""
    moment = dt.datetime.fromtimestamp(epoch_ms / 1000, dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{epoch_ms % 1000:03d}Z"


def iso_seconds(moment: dt.datetime) -> str:
    """A datetime (UTC) to the second."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
