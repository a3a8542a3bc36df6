"""Helpers of the client's integration tests: a fake sleep and transports that script faults.

The client itself never sends ``X-Test-Fault``; these transports add it to every request.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.client.sync import Client
from pipeline.protocol import TEST_FAULT_HEADER


class FakeSleep:
    """Records the delays the client asks for, instead of waiting."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.sleeps.append(seconds)

    async def asleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


class FaultTransport(httpx.HTTPTransport):
    """A real socket transport that adds an ``X-Test-Fault`` header to every request."""

    def __init__(self, fault: str) -> None:
        super().__init__()
        self.fault = fault

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.headers[TEST_FAULT_HEADER] = self.fault
        return super().handle_request(request)


class AsyncFaultTransport(httpx.AsyncHTTPTransport):
    """The async twin of :class:`FaultTransport`."""

    def __init__(self, fault: str) -> None:
        super().__init__()
        self.fault = fault

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers[TEST_FAULT_HEADER] = self.fault
        return await super().handle_async_request(request)


def fresh_id() -> str:
    """A fault id of its own, so counters are never shared between tests."""
    return uuid.uuid4().hex


def faulty_client(live_service: Any, fault: str, sleep: FakeSleep, retry: RetryPolicy | None = None) -> Client:
    """A client whose every request carries ``fault``."""
    return Client(
        live_service.url, live_service.auth_key, transport=FaultTransport(fault), retry=retry, sleep=sleep, timeout=10.0
    )


def faulty_async_client(live_service: Any, fault: str, sleep: FakeSleep) -> AsyncClient:
    """The async twin of :func:`faulty_client`."""
    return AsyncClient(
        live_service.url, live_service.auth_key, transport=AsyncFaultTransport(fault), sleep=sleep.asleep, timeout=10.0
    )
