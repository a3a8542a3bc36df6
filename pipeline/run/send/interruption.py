"""SIGINT/SIGTERM during a run: stop sending, let the requests in flight finish (briefly), then cancel them."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator
from typing import Any

from pipeline.run.records import Stop, StopReason

#: Seconds the requests in flight get to finish after SIGINT/SIGTERM, so that what they are billed
#: for is kept (cached and written); a second signal cancels them at once.
GRACE_SECONDS = 5.0


class Interruption:
    """SIGINT/SIGTERM during a run: stop sending, let the requests in flight finish (briefly), then cancel them.

    The run then goes on as after any early stop: it writes every translation verified so far,
    saves the cache and state and writes its report; the exit status is 128 + the signal's number.
    A third signal finds the default handlers back and ends the process at once.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self.stop = asyncio.Event()  # set by the first signal: nothing more is sent
        self._sending: set[asyncio.Future[Any]] = set()  # the rounds sending now (overlapping parts: two)
        self._timer: asyncio.TimerHandle | None = None
        self._installed: list[int] = []

    def install(self) -> None:
        """Handle SIGINT and SIGTERM on the running loop, where it can (the main thread, not Windows)."""
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(signum, self._signalled, signum)
            except (NotImplementedError, RuntimeError, ValueError):
                continue
            self._installed.append(signum)

    @contextlib.contextmanager
    def handling(self, install: bool = True) -> Iterator[Interruption]:
        """The ``with`` block handles the signals (when ``install``); they go back to their handlers after."""
        if install:
            self.install()
        try:
            yield self
        finally:
            self.remove()

    def stopped(self) -> Stop | None:
        """The run's stop for the signal received, if one was."""
        if self.signum is None:
            return None
        reason = StopReason.INTERRUPTED if self.signum == signal.SIGINT else StopReason.TERMINATED
        name = signal.Signals(self.signum).name
        return Stop(reason, f"interrupted by {name}: stopped sending; what was translated is written and saved")

    def remove(self) -> None:
        """Give the signals back to their default handlers."""
        loop = asyncio.get_running_loop()
        for signum in self._installed:
            loop.remove_signal_handler(signum)
        self._installed.clear()
        if self._timer is not None:
            self._timer.cancel()

    def watch(self, sending: asyncio.Future[Any]) -> None:
        """``sending`` (one round of requests) is what a signal cancels once the grace period is over."""
        self._sending.add(sending)
        sending.add_done_callback(self._sending.discard)

    def _signalled(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
            self.stop.set()
            self._timer = asyncio.get_running_loop().call_later(GRACE_SECONDS, self._cancel)
        else:
            self._cancel()
            self.remove()

    def _cancel(self) -> None:
        for sending in list(self._sending):
            sending.cancel()
