"""uvicorn's server as both of our servers run it: ``pipeline serve`` and ``pipeline review``.

Each binds its socket before uvicorn starts (so its URL is known and printed first), and needs to
know when the server accepts connections. SIGTERM and SIGINT stop it gracefully and the process
goes on to exit as it chooses: uvicorn's own handling would re-raise the signal after shutdown,
which ends the process with a signal status instead.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Callable, Iterator

import uvicorn

__all__ = ["ReadyServer"]


class ReadyServer(uvicorn.Server):
    """uvicorn's server, calling ``on_ready`` once it accepts connections, and stopping on SIGINT and SIGTERM
    without re-raising them."""

    def __init__(self, config: uvicorn.Config, on_ready: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_ready = on_ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start as uvicorn does; then say the server is ready."""
        await super().startup(sockets)
        if self.started:
            self._on_ready()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """Stop on SIGINT and SIGTERM (in the main thread), putting the previous handlers back after."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        signals = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in signals}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
