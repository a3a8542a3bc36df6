"""Waiting for the document worker's thread without polling: an engine that holds, a record of jobs ended."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Sequence

from pipeline.service.engine.base import EngineRequest, Translation
from pipeline.service.engine.pseudo import PseudoEngine

#: Seconds before a wait gives up: a safety net, the worker takes milliseconds.
SAFETY_SECONDS = 60.0


class HeldEngine(PseudoEngine):
    """The pseudo engine, holding its engine requests after the first ``through`` until :meth:`release`.

    :meth:`reached` waits until the worker has made that many requests; a request held is
    cancelled like any other when the app closes.
    """

    def __init__(self, through: int = 0) -> None:
        self.through = through
        self._requests = 0
        self._released = False
        self._held: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        self._changed = threading.Condition()

    async def translate(self, request: EngineRequest) -> Sequence[Translation]:
        gate = asyncio.Event()
        with self._changed:
            self._requests += 1
            if self._released or self._requests <= self.through:
                gate.set()
            else:
                self._held.append((asyncio.get_running_loop(), gate))
            self._changed.notify_all()
        await gate.wait()
        return await super().translate(request)

    def reached(self, requests: int = 1) -> None:
        """Wait until the worker has made ``requests`` engine requests (the last one maybe held)."""
        with self._changed:
            assert self._changed.wait_for(lambda: self._requests >= requests, SAFETY_SECONDS), (
                f"the worker made {self._requests} engine request(s), not {requests} (a safety net)"
            )

    def release(self) -> None:
        """Let every request through, those held and those to come."""
        with self._changed:
            self._released = True
            held, self._held = self._held, []
        for loop, gate in held:
            with contextlib.suppress(RuntimeError):  # its app was closed meanwhile
                loop.call_soon_threadsafe(gate.set)


class JobsEnded:
    """The ids of the document jobs the worker is done with (``ServiceConfig.on_document_ended``)."""

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._changed = threading.Condition()

    def __call__(self, document_id: str) -> None:
        with self._changed:
            self._ids.add(document_id)
            self._changed.notify_all()

    def wait(self, *document_ids: str) -> None:
        """Until every one of ``document_ids`` has ended."""
        with self._changed:
            assert self._changed.wait_for(lambda: self._ids.issuperset(document_ids), SAFETY_SECONDS), (
                f"jobs {set(document_ids) - self._ids} did not end (a safety net)"
            )
