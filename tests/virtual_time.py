"""Virtual time for asyncio code under test: it passes only when every task is waiting on it.

A fake service's latency and the run's own waits (a limiter's Retry-After, its clock) use one
:class:`VirtualTime`; it moves to the next wake-up once the event loop has nothing else to do,
so a test of timing behaviour gives the same answer on an idle machine and on a loaded one,
and takes no wall time for the seconds it simulates.

A server under test runs its own event loop in a thread of its own: :class:`LoopClock` is that
loop's clock, moved by the test, so a deadline the server keeps passes exactly when the test says.
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


class LoopClock:
    """The clock of an event loop run by another thread (a server under test): it moves when the test moves it.

    The loop reads it (``loop.time = clock.time``), so its timers (``call_later``, ``asyncio.sleep``)
    fire when :meth:`advance` brings their time, never on their own. :meth:`advance` returns once the
    loop has run what came due and what that scheduled, so the test looks at settled effects. The
    loop idles meanwhile: a timer in the future costs a wake-up now and then, nothing more.
    """

    #: Seconds :meth:`settle` waits for the loop: a safety net, the loop takes microseconds.
    SAFETY_SECONDS = 60.0

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.now = 0.0
        self._leaping = False

    def time(self) -> float:
        """The loop's time: seconds since the start, in virtual time."""
        if self._leaping:
            self.now += 1.0
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` on and wait until the loop has run what came due."""
        self.now += seconds
        self.settle()

    def settle(self) -> None:
        """Wait until the loop has taken :data:`SETTLE_TURNS` turns (with whatever was ready before)."""

        async def turns() -> None:
            for _ in range(SETTLE_TURNS):
                await asyncio.sleep(0)

        asyncio.run_coroutine_threadsafe(turns(), self.loop).result(self.SAFETY_SECONDS)

    def leap(self) -> None:
        """From now on every reading moves the clock a second on: a shutdown's waits end at once."""
        self._leaping = True
        self.loop.call_soon_threadsafe(lambda: None)  # a loop waiting for a timer reads the clock again
