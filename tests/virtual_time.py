"""Virtual time for asyncio code under test: it passes only when every task is waiting on it.

A fake service's latency and the run's own waits (a limiter's Retry-After, its clock) use one
:class:`VirtualTime`; it moves to the next wake-up once the event loop has nothing else to do,
so a test of timing behaviour gives the same answer on an idle machine and on a loaded one,
and takes no wall time for the seconds it simulates.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools

#: Loop turns without a ready task before the clock moves on: more than any chain of awaits
#: between two waits on the clock in the code under test (client, transport, limiter).
SETTLE_TURNS = 50


class VirtualTime:
    """A clock and a sleep for one event loop; the clock starts at 0."""

    def __init__(self) -> None:
        self.now = 0.0
        self._wakeups: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._driver: asyncio.Task[None] | None = None

    def clock(self) -> float:
        """Seconds since the start, in virtual time."""
        return self.now

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of virtual time."""
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self._wakeups, (self.now + max(0.0, seconds), next(self._order), future))
        if self._driver is None or self._driver.done():
            self._driver = asyncio.ensure_future(self._drive())
        await future

    async def _drive(self) -> None:
        while self._wakeups:
            for _ in range(SETTLE_TURNS):
                await asyncio.sleep(0)
            when, _, future = heapq.heappop(self._wakeups)
            self.now = max(self.now, when)
            if not future.done():
                future.set_result(None)
