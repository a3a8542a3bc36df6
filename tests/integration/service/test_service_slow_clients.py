"""Slow clients cannot starve the local service: a deadline on request heads, a cap on connections.

The protocol class is tested under uvicorn on a loopback socket with small figures; the attack
itself (slowloris: connections sending a header line now and then) against a real ``pipeline
serve`` under a low descriptor limit.
"""

from __future__ import annotations

import asyncio
import os
import resource
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from pipeline.service.server import BoundedH11, bounded_protocol, connection_cap
from tests.integration.service.served_in_thread import ServedInThread
from tests.virtual_time import LoopClock

pytestmark = pytest.mark.integration

PARTIAL_HEAD = b"POST /v2/translate HTTP/1.1\r\nHost: x\r\n"
WHOLE_REQUEST = b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"


class Served:
    """A uvicorn server in a thread with a bounded protocol; ``/slow`` answers once ``release`` is set.

    Its event loop runs on a :class:`LoopClock`: a head's deadline passes when the test advances the
    clock, and the protocol tells (``wait``) what it has seen of each connection.
    """

    def __init__(self, cap: int, header_seconds: float) -> None:
        self.release = threading.Event()
        self.arrived = threading.Semaphore(0)  # one release per request that reached /slow
        loop = asyncio.new_event_loop()
        self.clock = LoopClock(loop)
        loop.time = self.clock.time  # type: ignore[method-assign]  # the loop's deadlines on the test's clock
        self.received: list[int] = []  # bytes each connection sent, in the order they were made
        self._seen = threading.Condition()
        release, arrived = self.release, self.arrived

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["path"] == "/slow":
                arrived.release()
                await asyncio.get_running_loop().run_in_executor(None, release.wait)
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
            await send({"type": "http.response.body", "body": b"ok"})

        protocol = self._watched(bounded_protocol(cap, header_seconds))
        self.served = ServedInThread(app, loop, http=protocol, lifespan="off", log_level="error")
        self.port = self.served.port

    def _watched(self, protocol: type[BoundedH11]) -> type[BoundedH11]:
        """``protocol``, telling this object of each connection and of the bytes it receives."""
        served = self

        class Watched(protocol):  # type: ignore[valid-type,misc]  # subclasses the class it is given
            def connection_made(self, transport: asyncio.Transport) -> None:
                super().connection_made(transport)
                with served._seen:
                    self.number = len(served.received)
                    served.received.append(0)
                    served._seen.notify_all()

            def data_received(self, data: bytes) -> None:
                super().data_received(data)
                with served._seen:
                    served.received[self.number] += len(data)
                    served._seen.notify_all()

        return Watched

    def stop(self) -> None:
        self.release.set()
        self.served.stop(wake=self.clock.leap)  # the shutdown's waits are on the loop's clock

    def wait(self, connection: int, received: int = 0) -> None:
        """Until the ``connection``-th connection (from 0) is made and has sent ``received`` bytes."""
        with self._seen:
            assert self._seen.wait_for(
                lambda: len(self.received) > connection and self.received[connection] >= received, timeout=60
            ), f"the server saw {self.received} (a safety net)"

    def connect(self, first: bytes = b"") -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        if first:
            sock.sendall(first)
        return sock

    def get(self, path: str = "/") -> int:
        return httpx.get(f"http://127.0.0.1:{self.port}{path}", timeout=10).status_code


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    cap, header_seconds = request.param
    server = Served(cap, header_seconds)
    server.served.start()
    yield server
    server.stop()


def closed_by_server(sock: socket.socket) -> bool:
    """Wait (up to the socket's timeout) for the server to close ``sock``; True when it did."""
    try:
        while chunk := sock.recv(4096):
            if b"HTTP/1.1" in chunk:
                return False
    except TimeoutError:
        return False
    except ConnectionResetError:  # closed with our bytes unread: a reset rather than an end of stream
        return True
    finally:
        sock.close()
    return True


def still_open(sock: socket.socket) -> bool:
    """Whether the server has neither closed ``sock`` nor answered on it (looked at without waiting)."""
    timeout = sock.gettimeout()
    sock.setblocking(False)
    try:
        sock.recv(1, socket.MSG_PEEK)
    except BlockingIOError:
        return True
    except ConnectionResetError:
        return False
    finally:
        sock.settimeout(timeout)
    return False


@pytest.mark.parametrize("served", [(100, 0.3)], indirect=True)
@pytest.mark.parametrize("first", [PARTIAL_HEAD, b""], ids=["slow head", "nothing sent"])
def test_a_head_not_whole_within_the_deadline_is_dropped_and_others_are_served(served: Served, first: bytes) -> None:
    slow = served.connect(first)
    served.wait(0, len(first))
    assert served.get() == 200
    served.clock.advance(0.299)
    assert still_open(slow)  # not before its deadline
    served.clock.advance(0.001)
    assert closed_by_server(slow)  # at it


@pytest.mark.parametrize("served", [(100, 0.3)], indirect=True)
def test_a_head_trickled_byte_by_byte_is_dropped_at_its_deadline_not_kept_alive(served: Served) -> None:
    slow = served.connect()
    served.wait(0)
    for sent, byte in enumerate(PARTIAL_HEAD[:15], 1):  # a byte every 0.02 s: each well within the deadline
        slow.sendall(bytes([byte]))
        served.wait(0, sent)
        served.clock.advance(0.0199 if sent == 15 else 0.02)
    assert still_open(slow)  # 0.2999 s after the connection, the last byte 0.0199 s ago
    served.clock.advance(0.0001)
    assert closed_by_server(slow)  # 0.3 s after the connection, whatever came since
    with pytest.raises(OSError):  # broken pipe or reset: the server closed it
        for _ in range(100):
            slow.sendall(b"X")


@pytest.mark.parametrize("served", [(8, 60.0)], indirect=True)
def test_past_the_cap_the_connection_waiting_longest_makes_room_and_a_real_request_is_served(served: Served) -> None:
    slow = []
    for number in range(8):  # one after another, 1 ms apart on the server's clock
        slow.append(served.connect(PARTIAL_HEAD))
        served.wait(number, len(PARTIAL_HEAD))
        served.clock.advance(0.001)
    assert served.get() == 200  # needed a place: the oldest slow connection gave it
    assert closed_by_server(slow[0])
    for sock in slow[1:]:
        sock.close()


@pytest.mark.parametrize("served", [(4, 60.0)], indirect=True)
def test_connections_whose_request_arrived_whole_are_never_dropped(served: Served) -> None:
    busy = [served.connect(WHOLE_REQUEST) for _ in range(4)]
    for _ in busy:
        assert served.arrived.acquire(timeout=10)  # each request is in the app
    extra = served.connect(PARTIAL_HEAD)
    assert closed_by_server(extra)  # no one else waits for a request: the newcomer goes
    served.release.set()
    for sock in busy:
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        sock.close()


def test_the_cap_keeps_descriptors_for_the_service_and_the_accept_bursts() -> None:
    assert connection_cap(512) == 256 and connection_cap(1024) == 768 and connection_cap(100_000) == 1000
    assert connection_cap(100) == 8


def test_slowloris_against_pipeline_serve_under_ulimit_512_leaves_real_requests_served(tmp_path: Path) -> None:
    stderr = tmp_path / "stderr"
    env = {**os.environ, "PIPELINE_SERVE_AUTH_KEYS": "slow-test-key"}
    with stderr.open("wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "pipeline", "serve", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=err,
            env=env,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512)),
        )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().decode().split("listening on ")[1].strip()
        host, port = url.removeprefix("http://").split(":")
        attackers = []
        for _ in range(600):
            sock = socket.create_connection((host, int(port)), timeout=10)
            sock.sendall(PARTIAL_HEAD)
            attackers.append(sock)
        for sock in attackers:  # a header line each, as slowloris keeps its connections busy
            sock.sendall(b"X-Slow: 1\r\n")
        answer = httpx.post(
            f"{url}/v2/translate",
            headers={"Authorization": "Service-Auth-Key slow-test-key"},
            json={"text": ["Hello"], "target_lang": "DE"},
            timeout=10,
        )
        assert answer.status_code == 200
        for sock in attackers:
            sock.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert "out of system resource" not in stderr.read_text(errors="replace")
