"""Waiting for what a real process or server does, never for a while.

A test does not sleep to let something happen, nor time how long it took: it waits for the thing
itself. A child process says what it does on a pipe (:class:`Lines`: a readiness line, a progress
line, a line it writes when it holds a request), so the test blocks until that line arrives. The
timeouts here are safety nets that turn a hang into a failure with what was seen so far; they are
never what a test asserts, and they are generous so that a loaded machine only runs slower.

:func:`poll` is the last resort, for a real server's state that nothing announces (the document
API of a ``pipeline serve`` process has no notification, only a status to ask for): it asks until
the answer comes. How often it asks decides nothing but the number of requests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import IO, TypeVar

T = TypeVar("T")

#: Seconds before a wait gives up: far beyond what any awaited event takes, even on a loaded machine.
SAFETY_SECONDS = 60.0
#: Seconds between two questions of :func:`poll`.
POLL_INTERVAL = 0.02


class Lines:
    """Every line a child process writes to one pipe, read by a thread of its own as it comes."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lines: list[str] = []
        self._ended = False
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, name="lines-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for raw in iter(self._stream.readline, b""):
                with self._changed:
                    self._lines.append(raw.decode("utf-8", errors="replace"))
                    self._changed.notify_all()
        finally:
            with self._changed:
                self._ended = True
                self._changed.notify_all()

    def wait_for(self, wanted: str | Callable[[str], bool], timeout: float = SAFETY_SECONDS) -> str:
        """The first line holding ``wanted`` (or for which it is true); fails when the pipe ends first."""
        matches = wanted if callable(wanted) else lambda line: wanted in line
        with self._changed:
            found = self._changed.wait_for(
                lambda: any(matches(line) for line in self._lines) or self._ended, timeout=timeout
            )
            seen = "".join(self._lines)
            line = next((line for line in self._lines if matches(line)), None)
        if line is None:
            why = "the pipe was closed" if found else f"nothing came within {timeout:g} s (a safety net)"
            raise AssertionError(f"waited for {wanted!r}, but {why}; the process wrote:\n{seen}")
        return line

    def first(self, timeout: float = SAFETY_SECONDS) -> str:
        """The first line (fails when the pipe ends without one)."""
        return self.wait_for(lambda _line: True, timeout)

    def text(self) -> str:
        """What was read so far; all of it once the pipe is closed and :meth:`join` returned."""
        with self._changed:
            return "".join(self._lines)

    def join(self, timeout: float = SAFETY_SECONDS) -> str:
        """Wait for the end of the pipe (the process exited or closed it); everything it wrote."""
        self._reader.join(timeout)
        assert not self._reader.is_alive(), f"the pipe was still open after {timeout:g} s (a safety net)"
        return self.text()


def poll(probe: Callable[[], T | None], what: str, timeout: float = SAFETY_SECONDS) -> T:
    """Ask ``probe`` until it returns something other than None, and return that; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while (found := probe()) is None:
        assert time.monotonic() < deadline, f"{what}: not within {timeout:g} s (a safety net)"
        time.sleep(POLL_INTERVAL)
    return found
