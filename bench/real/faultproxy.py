"""A loopback HTTP proxy that adds an ``X-Test-Fault`` header to every request it forwards.

``pipeline translate`` has no way to send the header itself (on purpose: it is a test hook of
``pipeline serve --test-faults``), so the bench puts this proxy between them. It runs uvicorn in a
thread of the bench process and forwards with httpx; bodies are small (at most 128 KiB a request).
"""

from __future__ import annotations

import socket
import threading
import time

import httpx
import uvicorn

FAULT_HEADER = "X-Test-Fault"
#: Hop-by-hop or recomputed headers, never copied across.
_REQUEST_DROP = {b"host", b"content-length", b"connection", b"x-test-fault", b"transfer-encoding"}
_RESPONSE_DROP = {"content-length", "content-encoding", "transfer-encoding", "connection"}


class FaultProxy:
    """Forward every request to ``upstream`` with ``X-Test-Fault: fault`` added; ``url`` is where it listens."""

    def __init__(self, upstream: str, fault: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.fault = fault
        self.requests = 0
        self._client: httpx.AsyncClient | None = None
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        config = uvicorn.Config(self._app, interface="asgi3", log_level="warning", lifespan="off", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the fault proxy did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=20)
        self._sock.close()

    async def _app(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if self._client is None:  # created here: it belongs to the proxy thread's event loop
            self._client = httpx.AsyncClient(timeout=120, trust_env=False)
        headers = [
            (k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"] if k.lower() not in _REQUEST_DROP
        ]
        headers.append((FAULT_HEADER, self.fault))
        url = self.upstream + scope["raw_path"].decode("latin-1")
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        self.requests += 1
        try:
            response = await self._client.request(scope["method"], url, headers=headers, content=bytes(body))
        except httpx.HTTPError as exc:
            await _answer(send, 502, [], f"fault proxy: upstream failed: {type(exc).__name__}".encode())
            return
        kept = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _RESPONSE_DROP]
        await _answer(send, response.status_code, kept, response.content)


async def _answer(send, status: int, headers: list[tuple[str, str]], content: bytes) -> None:
    raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    raw.append((b"content-length", str(len(content)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": content})
