"""Shared test doubles of the client's unit tests (imported by tests and conftest)."""

from __future__ import annotations

BASE_URL = "https://svc.test"
KEY = "k-3f9a1c77-secret"


class FakeTime:
    """An injected clock and sleep: sleeping advances the clock, nothing waits for real."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)
