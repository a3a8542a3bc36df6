"""``pipeline serve`` at run time: the app under uvicorn on a socket bound beforehand.

Binding the socket ourselves gives the real port for ``--port 0`` before uvicorn starts. The one
stdout line ``pipeline serve: listening on http://HOST:PORT`` is printed once uvicorn accepts
connections; nothing else goes to stdout (no access log) and keys are never logged.
SIGTERM and SIGINT stop the server gracefully and the process exits 0: uvicorn's own handling
would re-raise the signal after shutdown, which ends the process with a signal status instead.
The app is opened before uvicorn starts, so that a bad ``--data-dir`` or memory file is a clear
error instead of a lifespan traceback; the lifespan then closes it at shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator

import uvicorn

from pipeline.service.app import ServiceApp
from pipeline.service.engine import detect

READY_PREFIX = "pipeline serve: listening on "
GRACEFUL_SHUTDOWN_SECONDS = 5
#: Longer than httpx's 5 s pool expiry, so an idle connection is dropped by the client first and
#: a request never races the server closing it.
KEEP_ALIVE_SECONDS = 30


class _QuietExpected(logging.Filter):
    """Drops log records of exceptions raised on purpose (dropped-connection test faults)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not getattr(exc, "silent", False)


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_ready: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_ready = on_ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._on_ready()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
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


def bind(host: str, port: int) -> socket.socket:
    """A listening-ready TCP socket on ``host:port`` (port 0: any free port)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except BaseException:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket) -> str:
    """The base URL a bound socket serves."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _configure_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("pipeline serve: %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_QuietExpected())
    for name in ("uvicorn.error", "pipeline.service"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(logging.WARNING)
        logger.propagate = False


def run(app: ServiceApp, sock: socket.socket) -> None:
    """Open ``app`` and serve it on the bound ``sock`` until SIGTERM/SIGINT, then close both.

    Raises :class:`~pipeline.service.app.ServiceStartError`, before the listening line, when the
    app cannot open.
    """
    _configure_logging()

    def ready() -> None:
        print(f"{READY_PREFIX}{url_of(sock)}", flush=True)
        # The detection model takes most of a second to load; do it while nobody waits.
        threading.Thread(target=detect.warm_up, name="langid-warm-up", daemon=True).start()

    uv_config = uvicorn.Config(
        app,
        lifespan="on",
        access_log=False,
        log_config=None,
        log_level="warning",
        server_header=False,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
    )

    async def serve() -> None:
        async with app.running():
            await _Server(uv_config, ready).serve(sockets=[sock])

    try:
        asyncio.run(serve())
    finally:
        sock.close()
