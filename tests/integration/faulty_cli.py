"""``pipeline`` as a user runs it, with its translate requests scripted: ``python faulty_cli.py translate ...``.

The integration tests that need a real ``pipeline translate`` process caught in the middle of its
work script it through the environment; the scripting wraps httpx's transport, so nothing in the
pipeline knows about it:

- ``FAULTY_CLI_FAULT``: an ``X-Test-Fault`` header put on every translate request;
- ``FAULTY_CLI_GATE`` (a pipe's read end, inherited): translate requests after the first
  ``FAULTY_CLI_THROUGH`` (default 0) wait until that pipe is closed by the test, which holds the run
  with requests in flight for as long as the test needs, not for a guessed while;
- ``FAULTY_CLI_HELD`` (a pipe's write end, inherited): a line ``held N`` is written there when the
  Nth translate request starts waiting at the gate, so the test knows the run is there.
"""

from __future__ import annotations

import asyncio
import os
import sys

import httpx

from pipeline.protocol import TEST_FAULT_HEADER

_send = httpx.AsyncHTTPTransport.handle_async_request


class _Script:
    """What the environment asks of the translate requests of this process."""

    def __init__(self) -> None:
        self.fault = os.environ.get("FAULTY_CLI_FAULT")
        gate, held = os.environ.get("FAULTY_CLI_GATE"), os.environ.get("FAULTY_CLI_HELD")
        self.gate = int(gate) if gate else None
        self.held = int(held) if held else None
        self.through = int(os.environ.get("FAULTY_CLI_THROUGH", "0"))
        self.sent = 0

    async def handle_async_request(self, transport: httpx.AsyncHTTPTransport, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/translate":
            if self.fault:
                request.headers[TEST_FAULT_HEADER] = self.fault
            self.sent += 1
            if self.gate is not None and self.sent > self.through:
                if self.held is not None:
                    os.write(self.held, f"held {self.sent}\n".encode())
                await asyncio.to_thread(_wait_closed, self.gate)
        return await _send(transport, request)


def _wait_closed(fd: int) -> None:
    """Block until the other end of the pipe ``fd`` is closed (a read then gives no bytes)."""
    while os.read(fd, 1):
        pass


if __name__ == "__main__":
    script = _Script()

    async def handle_async_request(self: httpx.AsyncHTTPTransport, request: httpx.Request) -> httpx.Response:
        return await script.handle_async_request(self, request)

    httpx.AsyncHTTPTransport.handle_async_request = handle_async_request  # type: ignore[method-assign]  # scripted here
    from pipeline.cli import main

    sys.exit(main(sys.argv[1:]))
