"""A loopback HTTP proxy that forwards every request to an upstream with its headers rewritten.

The benches put one between a client and ``pipeline serve`` where the client cannot be told what to
send (a fault header, the contract's authorization scheme). It runs uvicorn in a thread of the bench
process and forwards with httpx, each body read whole (bodies are at most a few MB).
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Self

import httpx
import uvicorn
from starlette.types import Receive, Scope, Send

#: Hop-by-hop or recomputed headers, never copied across.
REQUEST_DROP = {"host", "content-length", "connection", "transfer-encoding"}
_RESPONSE_DROP = {"content-length", "content-encoding", "transfer-encoding", "connection"}


class LoopbackProxy:
    """Forward every request to ``upstream`` with :meth:`headers` applied; ``url``/``port`` say where it listens."""

    name = "proxy"  # in its error answers

    def __init__(self, upstream: str, timeout: float = 300) -> None:
        self.upstream = upstream.rstrip("/")
        self.requests = 0
        self._timeout = timeout
        self._client: httpx.AsyncClient | None = None
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(self._app, interface="asgi3", log_level="warning", lifespan="off", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    def headers(self, received: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The headers to forward, from those received (hop-by-hop ones already left out)."""
        return received

    def __enter__(self) -> Self:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the {self.name} did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=20)
        self._sock.close()

    async def _app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if self._client is None:  # created here: it belongs to the proxy thread's event loop
            self._client = httpx.AsyncClient(timeout=self._timeout, trust_env=False)
        received = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        headers = self.headers([(k, v) for k, v in received if k.lower() not in REQUEST_DROP])
        url = self.upstream + scope["raw_path"].decode("latin-1")
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        self.requests += 1
        try:
            response = await self._client.request(scope["method"], url, headers=headers, content=bytes(body))
        except httpx.HTTPError as exc:
            await _answer(send, 502, [], f"{self.name}: upstream failed: {type(exc).__name__}".encode())
            return
        kept = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _RESPONSE_DROP]
        await _answer(send, response.status_code, kept, response.content)


async def _answer(send: Send, status: int, headers: list[tuple[str, str]], content: bytes) -> None:
    raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    raw.append((b"content-length", str(len(content)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": content})
