"""``pipeline serve`` at run time: the app under uvicorn on a socket bound beforehand.

Binding the socket ourselves gives the real port for ``--port 0`` before uvicorn starts. The one
stdout line ``pipeline serve: listening on http://HOST:PORT`` is printed once uvicorn accepts
connections; nothing else goes to stdout (no access log) and keys are never logged.
SIGTERM and SIGINT stop the server gracefully and the process exits 0: uvicorn's own handling
would re-raise the signal after shutdown, which ends the process with a signal status instead.
The app is opened before uvicorn starts, so that a bad ``--data-dir`` or memory file is a clear
error instead of a lifespan traceback; the lifespan then closes it at shutdown.

Slow clients cannot starve the others (:class:`BoundedH11`): a request head must arrive whole
within :data:`HEADER_SECONDS` of its first byte (or of the connection), and at most
:func:`connection_cap` connections are served at once, kept below the descriptor limit. A
connection past the cap takes the place of the one that has waited longest for its request to
arrive (a slow head or body, or an idle keep-alive connection); connections whose request has
arrived whole are never dropped. Without these, 600 connections sending a header line now and
then held every descriptor of a server under ``ulimit -n 512``, and real requests timed out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import sys
import threading

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from pipeline.files.descriptors import soft_limit
from pipeline.service.app import ServiceApp
from pipeline.service.engine import detect
from pipeline.service.http.serving import ReadyServer

READY_PREFIX = "pipeline serve: listening on "
GRACEFUL_SHUTDOWN_SECONDS = 5
#: Longer than httpx's 5 s pool expiry, so an idle connection is dropped by the client first and
#: a request never races the server closing it.
KEEP_ALIVE_SECONDS = 30
#: Seconds a client has to send a whole request head (request line and headers), counted from
#: its first byte, or from the connection when nothing came yet.
HEADER_SECONDS = 10.0
#: The most connections served at once (fewer under a lower descriptor limit: connection_cap()).
MAX_CONNECTIONS = 1000
#: Descriptors kept for the database, documents and logs whatever the clients do.
RESERVED_DESCRIPTORS = 64
#: The listen backlog, which is also how many connections asyncio accepts in one loop tick, before
#: any of them reaches connection_made: the cap leaves room for three such bursts in flight, so
#: the server never runs out of descriptors (asyncio would log every failed accept, thousands).
ACCEPT_BURST = 64
#: States of a client whose request has not arrived whole: it may wait forever (see BoundedH11).
_RECEIVING = (h11.IDLE, h11.SEND_BODY)


class _QuietExpected(logging.Filter):
    """Drops log records of exceptions raised on purpose (dropped-connection test faults)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not getattr(exc, "silent", False)


def connection_cap(limit: int | None = None) -> int:
    """Connections served at once: MAX_CONNECTIONS, or fewer to keep RESERVED_DESCRIPTORS under ``limit``.

    ``limit`` defaults to this process's soft descriptor limit (none known: MAX_CONNECTIONS).
    """
    if limit is None:
        limit = soft_limit()
        if limit is None:
            return MAX_CONNECTIONS
    return max(8, min(MAX_CONNECTIONS, limit - RESERVED_DESCRIPTORS - 3 * ACCEPT_BURST))


class BoundedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline on request heads and a cap on connections.

    ``cap`` and ``header_seconds`` are class attributes: :func:`bounded_protocol` makes a class
    per server with its own figures.
    """

    cap = MAX_CONNECTIONS
    header_seconds = HEADER_SECONDS
    _head_timer: asyncio.TimerHandle | None = None
    _receiving_since = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # uvicorn's H11Protocol narrows it alike
        """Start the head's deadline; past the cap, drop the connection that has waited longest."""
        super().connection_made(transport)
        self._await_head()
        if len(self.connections) > self.cap:
            waiting = [c for c in self.connections if isinstance(c, BoundedH11) and c.receiving()]
            oldest = min(waiting, key=lambda c: c._receiving_since, default=self)
            oldest.drop()

    def data_received(self, data: bytes) -> None:
        """Read as uvicorn does; a head's first bytes start its deadline, a whole head ends it."""
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._cancel_head_timer()
        elif self._head_timer is None:
            self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the deadline with the connection."""
        self._cancel_head_timer()
        super().connection_lost(exc)

    def receiving(self) -> bool:
        """Whether this connection's request has not arrived whole (a head or body on its way, or none)."""
        return self.conn.their_state in _RECEIVING and not self.transport.is_closing()

    def drop(self) -> None:
        """Close the connection, as uvicorn closes an idle keep-alive one."""
        if not self.transport.is_closing():
            with contextlib.suppress(h11.LocalProtocolError):
                self.conn.send(h11.ConnectionClosed())
            self.transport.close()

    def _await_head(self) -> None:
        self._receiving_since = self.loop.time()
        self._head_timer = self.loop.call_later(self.header_seconds, self._head_too_slow)

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE:
            self.drop()

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None


def bounded_protocol(cap: int | None = None, header_seconds: float = HEADER_SECONDS) -> type[BoundedH11]:
    """A :class:`BoundedH11` of its own for one server (``cap`` None: :func:`connection_cap`)."""
    figures = {"cap": connection_cap() if cap is None else cap, "header_seconds": header_seconds}
    return type("BoundedH11", (BoundedH11,), figures)


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
        http=bounded_protocol(),
        backlog=ACCEPT_BURST,
    )

    async def serve() -> None:
        async with app.running():
            await ReadyServer(uv_config, ready).serve(sockets=[sock])

    try:
        asyncio.run(serve())
    finally:
        sock.close()
