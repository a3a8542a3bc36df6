"""A loopback HTTP proxy that renames the real service's authorization scheme to the contract's.

The official clients send ``Authorization: DeepL-Auth-Key <key>``; the contract names the scheme
``Service-Auth-Key`` and ``pipeline serve`` refuses the real word. Their test suites build their
clients themselves, so the rename cannot be made in the client: this proxy sits between and
rewrites that one word, leaving every other byte of the request and the answer as it was. It runs
uvicorn in a thread of the bench process and forwards with httpx (bodies are at most a few MB).
"""

from __future__ import annotations

import socket
import threading
import time

import httpx
import uvicorn

REAL_SCHEME = "DeepL-Auth-Key"
CONTRACT_SCHEME = "Service-Auth-Key"
#: Hop-by-hop or recomputed headers, never copied across.
_REQUEST_DROP = {"host", "content-length", "connection", "transfer-encoding"}
_RESPONSE_DROP = {"content-length", "content-encoding", "transfer-encoding", "connection"}


def renamed(name: str, value: str) -> str:
    """``value`` of header ``name`` with the real scheme word replaced by the contract's."""
    if name.lower() != "authorization":
        return value
    scheme, sep, rest = value.partition(" ")
    return f"{CONTRACT_SCHEME}{sep}{rest}" if scheme.lower() == REAL_SCHEME.lower() else value


class AuthProxy:
    """Forward every request to ``upstream`` with the scheme renamed; ``port`` is where it listens."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.requests = 0
        self._client: httpx.AsyncClient | None = None
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        config = uvicorn.Config(self._app, interface="asgi3", log_level="warning", lifespan="off", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    def __enter__(self) -> AuthProxy:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the authorization proxy did not start")
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
            self._client = httpx.AsyncClient(timeout=300, trust_env=False)
        headers = []
        for raw_name, raw_value in scope["headers"]:
            name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
            if name.lower() not in _REQUEST_DROP:
                headers.append((name, renamed(name, value)))
        url = self.upstream + scope["raw_path"].decode("latin-1")
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        self.requests += 1
        try:
            response = await self._client.request(scope["method"], url, headers=headers, content=bytes(body))
        except httpx.HTTPError as exc:
            await _answer(send, 502, [], f"authorization proxy: upstream failed: {type(exc).__name__}".encode())
            return
        kept = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _RESPONSE_DROP]
        await _answer(send, response.status_code, kept, response.content)


async def _answer(send, status: int, headers: list[tuple[str, str]], content: bytes) -> None:
    raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    raw.append((b"content-length", str(len(content)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": content})
