"""A loopback HTTP proxy that adds an ``X-Test-Fault`` header to every request it forwards.

``pipeline translate`` has no way to send the header itself (on purpose: it is a test hook of
``pipeline serve --test-faults``), so the bench puts this proxy between them.
"""

from __future__ import annotations

from bench.harness.proxy import LoopbackProxy

FAULT_HEADER = "X-Test-Fault"


class FaultProxy(LoopbackProxy):
    """Forward every request to ``upstream`` with ``X-Test-Fault: fault`` added; ``url`` is where it listens."""

    name = "fault proxy"

    def __init__(self, upstream: str, fault: str) -> None:
        super().__init__(upstream, timeout=120)
        self.fault = fault

    def headers(self, received: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The headers received, any fault header replaced by this proxy's."""
        return [(k, v) for k, v in received if k.lower() != FAULT_HEADER.lower()] + [(FAULT_HEADER, self.fault)]
