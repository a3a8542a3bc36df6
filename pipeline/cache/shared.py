"""The shared store: Redis (or Valkey), reached by every machine that translates the same texts.

Keys are ``pipeline:<entry version>:<protection scheme>:<service hash>:<cache key>``: the cache key
already covers the service and the scheme, the namespace keeps two services' or two incompatible
versions' entries apart for ``pipeline cache stats|clear`` too. Other applications may keep keys
that merely start with ``pipeline:`` in the same database, so stats and clear count and delete
only string keys of exactly this shape (16 and 64 lower-case hex digits). Values are the same plain JSON
entries as the local store's (:mod:`pipeline.cache.entry`).

Round trips, not commands, are what a remote store costs: reads are one pipelined batch of calls
of a small Lua script per request group, writes one pipelined batch of SETs (the caller buffers
them). Timeouts are short and nothing is retried: a shared cache that does not answer at once is
skipped for the rest of the run by the caller, never waited for.

Whoever can write the store can put a value of any size under an entry's key, and a client reads
a reply whole before anything can look at it: forty 20 MB values cost a runner 1.7 GB with MGET.
So the server measures before it sends (:data:`_READ`): a value longer than any entry can be
(:data:`~pipeline.cache.entry.MAX_ENTRY_BYTES`) is a miss and never sent, and one round trip
returns at most :data:`READ_BYTES` of values; what did not fit is asked for in the next one.

The URL may carry a password: it is kept in the client only, and
:func:`~pipeline.errors.redact_url` and
``RedisStore._scrub`` keep it out of every message. :class:`~pipeline.cache.entry.SharedStoreError`
never leaves the cache package: the tiered cache and the maintenance commands turn it into a
warning or a field. Loaded only where a shared cache is configured (:func:`pipeline.cache.open_shared`):
redis is an extra.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.connection import AbstractConnection, Connection, SSLConnection, UnixDomainSocketConnection
from redis.exceptions import RedisError
from redis.retry import Retry

from pipeline.cache.entry import MAX_ENTRY_BYTES, SharedStoreError, decode, encode
from pipeline.errors import redact, redact_url, url_secrets

CONNECT_TIMEOUT_SECONDS = 1.0
SOCKET_TIMEOUT_SECONDS = 2.0
#: Seconds a whole answer may take, from sending the command to its last byte. redis-py's timeouts
#: are per read: a store sending a byte every 1.5 s held a run for minutes. READ_BYTES in this
#: time is 13 Mbit/s.
ANSWER_SECONDS = 10.0
_READ_CHUNK = 1000  # keys per script call, several calls pipelined in one round trip
_SCAN_COUNT = 1000
#: Bytes of values one round trip returns at most (a value of MAX_ENTRY_BYTES always fits).
READ_BYTES = 8 * MAX_ENTRY_BYTES
#: Each key's value when it is a string of 1 to ARGV[1] bytes and fits in the ARGV[2] bytes left;
#: false (nil) when absent, of another type or too long; 0 when it did not fit (asked again).
_READ = """
local most, room = tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {}
for i, key in ipairs(KEYS) do
  local size = redis.pcall('STRLEN', key)
  if type(size) ~= 'number' or size == 0 or size > most then
    out[i] = false
  elseif size > room then
    out[i] = 0
  else
    room = room - size
    out[i] = redis.call('GET', key)
  end
end
return out
"""
#: The name of an entry of any version, scheme and service: what stats and clear may touch.
_ENTRY_KEY = re.compile(rb"pipeline:[0-9]+:[^:]+:[0-9a-f]{16}:[0-9a-f]{64}")


@functools.cache
def _no_client_info() -> dict[str, None]:
    """The arguments that skip CLIENT SETINFO.

    ``driver_info`` in newer redis-py, ``lib_name``/``lib_version`` before.
    """
    if "driver_info" in inspect.signature(AbstractConnection.__init__).parameters:
        return {"driver_info": None}
    return {"lib_name": None, "lib_version": None}


class RedisStore:
    """Entries of one namespace in one Redis database."""

    def __init__(self, url: str, prefix: str, ttl: int | None = None) -> None:
        self.where = redact_url(url)
        self._secrets = url_secrets(url)
        self._prefix = prefix
        self._ttl = ttl
        self.round_trips = 0
        self._late = _Late()
        try:
            # No retries (the client's default backs off for seconds): one failure and the run moves on.
            # RESP2 and no client-name calls: a new connection costs no handshake round trips but AUTH/SELECT.
            self._client = redis.Redis.from_url(
                url,
                socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
                socket_timeout=SOCKET_TIMEOUT_SECONDS,
                retry=Retry(NoBackoff(), 0),
                health_check_interval=0,
                protocol=2,
                connection_class=_answered_in_time(url, self._late),
                **_no_client_info(),
            )
        except (ValueError, TypeError) as exc:
            raise SharedStoreError(self._scrub(exc)) from None

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        """The well-formed entries found among ``keys``: one round trip, more only past READ_BYTES."""
        wanted = list(keys)
        found: dict[str, str] = {}
        while wanted:
            wanted = self._read(wanted, found)
        return found

    def _read(self, wanted: list[str], found: dict[str, str]) -> list[str]:
        """One round trip: put what it reads of ``wanted`` in ``found``; returns the keys left for the next."""
        most = max(1, READ_BYTES // MAX_ENTRY_BYTES)  # calls whose share of READ_BYTES still fits any entry
        asked = wanted[: _READ_CHUNK * most]
        chunks = [asked[i : i + _READ_CHUNK] for i in range(0, len(asked), _READ_CHUNK)]
        room = max(MAX_ENTRY_BYTES, READ_BYTES // len(chunks))
        with self._errors():
            pipe = self._client.pipeline(transaction=False)
            for chunk in chunks:
                pipe.eval(_READ, len(chunk), *(self._prefix + key for key in chunk), MAX_ENTRY_BYTES, room)
            replies = pipe.execute()
        self.round_trips += 1
        left = wanted[len(asked) :]
        for chunk, values in zip(chunks, replies, strict=False):
            if not isinstance(values, list):
                continue
            for key, value in zip(chunk, values, strict=False):
                if isinstance(value, bytes):
                    translation = decode(value)
                    if translation is not None:
                        found[key] = translation
                elif value == 0:
                    left.append(key)  # did not fit in this round trip: the first of each call always does
        return left

    def set_many(self, items: Mapping[str, str]) -> None:
        """Store ``items`` (key -> protected translation) in one round trip."""
        if not items:
            return
        with self._errors():
            pipe = self._client.pipeline(transaction=False)
            for key, value in items.items():
                pipe.set(self._prefix + key, encode(value), ex=self._ttl)
            pipe.execute()
        self.round_trips += 1

    def stats(self) -> dict[str, object]:
        """Entries of this namespace and of every pipeline namespace in the database."""
        with self._errors():
            mine = sum(1 for _ in self._scan(self._prefix))
            every = sum(1 for _ in self._scan(_root(self._prefix)))
        return {"entries": mine, "entries_all_namespaces": every}

    def clear(self, every_namespace: bool = False) -> int:
        """Delete this namespace's entries (or every pipeline namespace's); returns how many."""
        deleted = 0
        with self._errors():
            batch: list[bytes] = []
            for key in self._scan(_root(self._prefix) if every_namespace else self._prefix):
                batch.append(key)
                if len(batch) >= _SCAN_COUNT:
                    deleted += self._client.unlink(*batch)
                    batch = []
            if batch:
                deleted += self._client.unlink(*batch)
        return int(deleted)

    def close(self) -> None:
        """Drop the connections."""
        try:
            self._client.close()
        except Exception:  # noqa: BLE001 - closing a dead connection must not fail a finished run
            pass

    def _scan(self, prefix: str) -> Iterator[bytes]:
        """Names of the entries under ``prefix``: string keys of the entry shape only (TYPE needs Redis 6)."""
        # The prefix comes from our own namespace(): only glob characters of the scheme need escaping.
        pattern = "".join(f"\\{c}" if c in "*?[]\\" else c for c in prefix) + "*"
        for key in self._client.scan_iter(match=pattern, count=_SCAN_COUNT, _type="string"):
            if _ENTRY_KEY.fullmatch(key):
                yield key

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """The one place the client's exceptions (and OSError) become SharedStoreError, scrubbed."""
        try:
            yield
        except (RedisError, OSError) as exc:
            if self._late.happened:
                self._late.happened = False
                raise SharedStoreError(f"no whole answer within {ANSWER_SECONDS:g} s") from None
            raise SharedStoreError(self._scrub(exc)) from None

    def _scrub(self, exc: BaseException) -> str:
        return redact(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__, self._secrets)


def _root(prefix: str) -> str:
    return prefix.split(":", 1)[0] + ":"


class _Late:
    """Whether an answer of a store's connections took longer than :data:`ANSWER_SECONDS`."""

    happened = False


def _answered_in_time(url: str, late: _Late) -> type:
    """The redis-py connection class of ``url``'s scheme, whose every answer is whole within ANSWER_SECONDS.

    Each command sent sets the time its answer must be in by; each read of its answer may wait only
    for what is left of it (a socket timeout is per read: the only bound redis-py has). Past it the
    read times out, redis-py drops the connection and the caller drops the store.
    """
    scheme = url.partition("://")[0].lower()
    base: type[Connection] = {"rediss": SSLConnection, "unix": UnixDomainSocketConnection}.get(scheme, Connection)

    class AnsweredInTime(base):  # type: ignore[valid-type,misc]  # a base chosen at run time by the URL's scheme
        answer_by: float | None = None

        def send_packed_command(self, command: Any, check_health: bool = True) -> None:
            self.answer_by = time.monotonic() + ANSWER_SECONDS
            super().send_packed_command(command, check_health)

        def _connect(self) -> Any:
            return _DeadlineSocket(super()._connect(), self, late)

    return AnsweredInTime


class _DeadlineSocket:
    """A connected socket whose reads and writes wait at most until its connection's ``answer_by``."""

    def __init__(self, sock: Any, connection: Any, late: _Late) -> None:
        self._sock, self._connection, self._late = sock, connection, late
        self._timeout: float | None = sock.gettimeout()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def settimeout(self, timeout: float | None) -> None:
        self._timeout = timeout
        self._sock.settimeout(timeout)

    def recv(self, *args: Any) -> Any:
        return self._within(self._sock.recv, args)

    def recv_into(self, *args: Any) -> Any:
        return self._within(self._sock.recv_into, args)

    def sendall(self, *args: Any) -> Any:
        return self._within(self._sock.sendall, args)

    def _within(self, call: Any, args: tuple[Any, ...]) -> Any:
        answer_by = self._connection.answer_by
        if answer_by is None:
            return call(*args)
        left = answer_by - time.monotonic()
        if left > 0:
            self._sock.settimeout(left if self._timeout is None else min(left, self._timeout))
            try:
                return call(*args)
            except TimeoutError:
                if time.monotonic() < answer_by:
                    raise  # the read's own timeout, not the answer's
        self._late.happened = True
        raise TimeoutError(f"no whole answer within {ANSWER_SECONDS:g} s")
