"""``pipeline`` as a user runs it, with an ``X-Test-Fault`` header on every translate request.

Used as a script by the integration tests that need a slow (or failing) service under a real
``pipeline translate`` process: ``python faulty_cli.py FAULT translate --config ...``. The header
is added by wrapping httpx's transport, so nothing in the pipeline knows about it.
"""

from __future__ import annotations

import sys

import httpx

from pipeline.protocol import TEST_FAULT_HEADER

_send = httpx.AsyncHTTPTransport.handle_async_request


def _with_fault(fault: str):
    async def handle_async_request(self: httpx.AsyncHTTPTransport, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/translate":
            request.headers[TEST_FAULT_HEADER] = fault
        return await _send(self, request)

    return handle_async_request


if __name__ == "__main__":
    httpx.AsyncHTTPTransport.handle_async_request = _with_fault(sys.argv[1])  # type: ignore[method-assign]
    from pipeline.cli import main

    sys.exit(main(sys.argv[2:]))
