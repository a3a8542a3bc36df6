"""An ASGI app under uvicorn on a loopback port, in a thread of this process.

For the integration tests that reach into the server while it serves: hold one of its steps, run
its event loop on a test clock, watch its connections. ``pipeline serve`` itself runs as a process
(``tests/integration/conftest.py``).
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable
from typing import Any

import uvicorn

#: Seconds to wait for uvicorn to start or stop: a safety net, it takes milliseconds.
SAFETY_SECONDS = 60.0


class ServedInThread:
    """uvicorn serving ``app`` on 127.0.0.1 (a free port) from a thread, on ``loop`` (a new one by default)."""

    def __init__(self, app: Any, loop: asyncio.AbstractEventLoop | None = None, **config: Any) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.loop = loop or asyncio.new_event_loop()
        started = self._started = threading.Event()

        class Server(uvicorn.Server):
            async def startup(self, sockets: list[socket.socket] | None = None) -> None:
                await super().startup(sockets)
                started.set()

        self.server = Server(uvicorn.Config(app, log_config=None, **config))
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self.server.serve([self.sock]),))

    def start(self) -> None:
        """Start serving; returns once uvicorn accepts connections."""
        self.thread.start()
        assert self._started.wait(SAFETY_SECONDS), "uvicorn did not start (a safety net)"

    def stop(self, wake: Callable[[], None] = lambda: None) -> None:
        """Ask uvicorn to stop (``wake`` then moves a test clock its shutdown waits on) and wait for it."""
        self.server.should_exit = True
        wake()
        self.thread.join(SAFETY_SECONDS)
        assert not self.thread.is_alive(), "uvicorn did not stop (a safety net)"
        self.loop.close()
        self.sock.close()
