"""``pipeline review`` at run time: the review app under uvicorn on 127.0.0.1, until the reviewer is done.

The socket is bound before uvicorn starts, on the loopback address only, so the URL (with its
token) is known and printed first; the browser is opened once the server accepts connections.
Ctrl-C, SIGTERM or the page's "Done" button stop it; the caller then prints the summary.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
import sys
from collections.abc import Callable

import uvicorn

from pipeline.review.app import create_app
from pipeline.review.session import Session
from pipeline.service.http.serving import ReadyServer

HOST = "127.0.0.1"
TOKEN_BYTES = 24  # 192 bits, URL-safe: 32 characters


def bind(port: int) -> socket.socket:
    """A TCP socket bound to ``127.0.0.1:port`` (0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
    except BaseException:
        sock.close()
        raise
    return sock


def page_url(sock: socket.socket, token: str) -> str:
    """The page's address, token included."""
    return f"http://{HOST}:{sock.getsockname()[1]}/?token={token}"


def serve(session: Session, sock: socket.socket, on_ready: Callable[[str], None], token: str | None = None) -> None:
    """Serve the review of ``session`` on the bound ``sock`` until it is stopped; ``on_ready(url)`` once it listens."""
    token = token or secrets.token_urlsafe(TOKEN_BYTES)
    url = page_url(sock, token)
    server: ReadyServer | None = None

    def quit_review() -> None:
        if server is not None:
            server.should_exit = True

    app = create_app(session, token, sock.getsockname()[1], quit_review)
    logger = logging.getLogger("uvicorn.error")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("pipeline review: %(message)s"))
    logger.handlers[:] = [handler]
    logger.propagate = False
    config = uvicorn.Config(
        app, lifespan="off", access_log=False, log_config=None, log_level="warning", server_header=False
    )
    server = ReadyServer(config, lambda: on_ready(url))
    try:
        asyncio.run(server.serve(sockets=[sock]))
    finally:
        sock.close()
