"""The shared cache against a real ``redis-server`` on 127.0.0.1 (a free port), started by these tests.

Each working tree is a separate copy of the sample project with its own local cache folder, as two
CI runners or two clones would be; they share only the Redis URL (with a password, which must
never show). Skipped when ``redis-server`` is not installed.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import redis

from pipeline.cache.maintenance import Figures
from tests.sample_project import copy_sample_project
from tests.waiting import Lines

pytestmark = pytest.mark.integration

PASSWORD = "redis-test-pa55word"
INSTALL_HINT = (
    "redis-server is not installed: `apt-get install redis-server` (Debian/Ubuntu; `make test` does it "
    "when run as root), or put any redis-server on PATH"
)


def stored(client: redis.Redis, key: bytes) -> bytes:
    """The value at ``key`` (the test fails if there is none)."""
    value = client.get(key)
    assert isinstance(value, bytes), key
    return value


def figures(result: Mapping[str, Figures | None], store: str) -> Figures:
    """The figures of ``store`` in a stats or clear result (the test fails when it is not configured)."""
    found = result[store]
    assert found is not None, f"no {store} store"
    return found


class RedisServer:
    """A throw-away redis-server on a free loopback port, with a password."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        """The URL with its password, as a user would put it in PIPELINE_CACHE_URL."""
        return f"redis://:{PASSWORD}@127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        """Start and wait for its log line saying it accepts connections.

        The port is free when chosen but another process (a second test session) may take it
        before redis-server binds it: then it is chosen again.
        """
        for _ in range(5):
            self.port = _free_port()
            config = self.workdir / "redis.conf"
            config.write_text(
                f'port {self.port}\nbind 127.0.0.1\nrequirepass {PASSWORD}\nsave ""\nappendonly no\n'
                f"dir {self.workdir}\nloglevel notice\n",
                encoding="utf-8",
            )
            self.process = subprocess.Popen(
                ["redis-server", str(config)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
            assert self.process.stdout is not None
            log = Lines(self.process.stdout)
            try:
                # "Ready to accept connections tcp" (7.x), "... ready to accept connections on port N" (older).
                log.wait_for(lambda line: "ready to accept connections" in line.lower())
                return
            except AssertionError:
                if "already in use" not in log.join():
                    raise
        raise AssertionError("no free port redis-server could bind, five times over")

    def client(self, db: int = 0) -> redis.Redis:
        """A redis-py client to look inside."""
        return redis.Redis.from_url(self.url(db), socket_connect_timeout=1, socket_timeout=2)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Listener:
    """A loopback port that takes connections and never answers: it holds each one open silently, or
    (``close``) shuts it at once, as a server gone wrong behind its port does. Counts the connections."""

    def __init__(self, port: int = 0, close: bool = False) -> None:
        self.sock = socket.create_server(("127.0.0.1", port), backlog=16)
        self.port = self.sock.getsockname()[1]
        self.close_at_once = close
        self.accepted: list[socket.socket] = []
        self._stop_read, self._stop_write = socket.socketpair()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self.sock, selectors.EVENT_READ)
            selector.register(self._stop_read, selectors.EVENT_READ)
            while True:
                for key, _ in selector.select():
                    if key.fileobj is self._stop_read:
                        return
                    self._take()

    def _take(self) -> None:
        conn, _ = self.sock.accept()
        self.accepted.append(conn)
        if self.close_at_once:
            conn.close()

    def connections(self) -> int:
        """Stop taking connections; how many were made, counting those still waiting to be accepted.

        Call it once the client's process has ended: every connection it opened is then accepted or
        in the listen queue, so the count is exact, however late this thread ran.
        """
        self._stop_write.send(b"x")
        self._thread.join(10)
        self.sock.setblocking(False)
        while True:
            try:
                self._take()
            except BlockingIOError:
                return len(self.accepted)

    def close(self) -> None:
        """Close the port and every connection still held."""
        if self._thread.is_alive():
            self.connections()
        for sock in (self.sock, self._stop_read, self._stop_write, *self.accepted):
            sock.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        result: int = probe.getsockname()[1]
        return result


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip(INSTALL_HINT)
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def tree(tmp_path: Path, name: str) -> Path:
    """One working tree: a copy of the sample project with its own local cache folder."""
    return copy_sample_project(tmp_path / name, "embedded")


def translate(root: Path, cache_url: str, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    env["PIPELINE_CACHE_URL"] = cache_url
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "translate", "--config", str(root / "pipeline.toml"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    report_text = (root / "report" / "report.json").read_text(encoding="utf-8")
    assert PASSWORD not in done.stdout + done.stderr + report_text
    assert PASSWORD not in "".join(
        p.read_text(encoding="utf-8", errors="replace") for p in (root / ".cache").rglob("*") if p.is_file()
    )
    return done, json.loads(report_text)


def catalogs(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "sample_locales").rglob("*.po"))}


def warnings(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if "shared translation cache" in line]


def test_a_second_working_tree_pays_nothing_and_writes_the_same_catalogs(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    first, second = tree(tmp_path, "a"), tree(tmp_path, "b")
    done, report = translate(first, redis_server.url())
    assert done.returncode == 0, done.stderr
    assert report["totals"]["requests"] > 0 and report["totals"]["billed_characters"] > 0 and not warnings(done)
    paid = report["totals"]["segments_translated"]
    assert redis_server.client().dbsize() > 0

    done, report = translate(second, redis_server.url())
    assert done.returncode == 0, done.stderr
    assert report["totals"]["requests"] == 0 and report["totals"]["billed_characters"] == 0
    assert report["totals"]["segments_from_cache"] == paid and report["totals"]["segments_translated"] == 0
    assert catalogs(second) == catalogs(first)
    assert (second / ".cache" / "state.json").is_file()  # the run state stays with its own working tree


def test_parallel_runs_of_different_languages_pay_nothing_twice(redis_server: RedisServer, tmp_path: Path) -> None:
    reference, report = translate(tree(tmp_path, "ref"), redis_server.url(db=2))
    assert reference.returncode == 0, reference.stderr
    billed_alone = report["totals"]["billed_characters"]

    languages = ("de", "fr", "pl", "ja")
    roots = [tree(tmp_path, f"job-{lang}") for lang in languages]
    with ThreadPoolExecutor(len(roots)) as pool:
        results = list(
            pool.map(
                lambda job: translate(job[0], redis_server.url(db=1), "--target-lang", job[1]),
                zip(roots, languages, strict=True),
            )
        )
    assert all(done.returncode == 0 for done, _ in results), [done.stderr for done, _ in results]
    billed_per_job = [report["totals"]["billed_characters"] for _, report in results]
    assert all(billed_per_job)

    done, report = translate(tree(tmp_path, "all"), redis_server.url(db=1))
    assert done.returncode == 0, done.stderr
    rest = report["totals"]["billed_characters"]
    assert rest > 0  # the languages no job ran (ar, pt_BR, zh_Hant) are paid now, once
    # What the parallel jobs paid plus what the last run paid for the other languages is what one
    # run of everything pays: no text was paid twice.
    assert sum(billed_per_job) + rest == billed_alone
    done, report = translate(tree(tmp_path, "again"), redis_server.url(db=1))
    assert report["totals"]["requests"] == 0 and report["totals"]["billed_characters"] == 0


def test_with_redis_stopped_the_run_works_from_the_local_cache_with_one_warning(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    root = tree(tmp_path, "a")
    pristine = catalogs(root)
    done, first = translate(root, redis_server.url())
    assert done.returncode == 0 and not warnings(done), done.stderr
    translated = catalogs(root)
    redis_server.stop()
    for name, data in pristine.items():  # the same untranslated catalogs again
        (root / name).write_bytes(data)
    done, report = translate(root, redis_server.url())
    assert done.returncode == 0, done.stderr
    assert report["totals"]["requests"] == 0 and catalogs(root) == translated
    assert not warnings(done)  # everything was in the local cache: the shared one was not even asked

    for name, data in pristine.items():  # now with one text no cache has: the shared one is asked, and is down
        (root / name).write_bytes(data)
    de = root / "sample_locales/de/LC_MESSAGES/messages.po"
    de.write_bytes(de.read_bytes() + b'\nmsgid "A sentence no cache has seen"\nmsgstr ""\n')
    done, report = translate(root, redis_server.url())
    assert done.returncode == 0, done.stderr
    assert report["totals"]["segments_from_cache"] == first["totals"]["segments_translated"]
    assert report["totals"]["segments_translated"] == 1 and report["totals"]["requests"] == 1
    (warning,) = warnings(done)
    assert f"127.0.0.1:{redis_server.port}" in warning and "local cache only" in warning

    # The same behind a port that takes a connection and drops it: nothing asked of it when the local
    # cache has all, and one attempt when it has not, with no retry (a retrying client waits out its
    # back-off each time).
    for unknown, attempts in ((None, 0), (b"Another sentence no cache has seen", 1)):
        if unknown is not None:
            de.write_bytes(de.read_bytes() + b'\nmsgid "' + unknown + b'"\nmsgstr ""\n')
        dropping = Listener(redis_server.port, close=True)
        try:
            done, report = translate(root, redis_server.url())
            assert dropping.connections() == attempts
        finally:
            dropping.close()
        assert done.returncode == 0 and len(warnings(done)) == attempts, done.stderr
        assert report["totals"]["segments_translated"] == report["totals"]["requests"] == attempts

    fresh = tree(tmp_path, "fresh")  # nothing local either: it pays, and still says so once
    done, report = translate(fresh, redis_server.url())
    assert done.returncode == 0 and len(warnings(done)) == 1, done.stderr
    assert report["totals"]["requests"] > 0 and catalogs(fresh) == translated


def test_a_wrong_password_is_one_warning_that_names_no_password(redis_server: RedisServer, tmp_path: Path) -> None:
    wrong = f"redis://:not-{PASSWORD}@127.0.0.1:{redis_server.port}/0"
    done, report = translate(tree(tmp_path, "a"), wrong)
    assert done.returncode == 0, done.stderr
    assert f"not-{PASSWORD}" not in done.stdout + done.stderr
    assert len(warnings(done)) == 1 and report["totals"]["requests"] > 0


def test_a_redis_that_never_answers_costs_a_timeout_once_not_a_failed_run(tmp_path: Path) -> None:
    silent = Listener()  # accepts connections and never says a word
    try:
        done, report = translate(tree(tmp_path, "a"), f"redis://:{PASSWORD}@127.0.0.1:{silent.port}/0")
        assert done.returncode == 0, done.stderr
        assert len(warnings(done)) == 1 and report["totals"]["requests"] > 0
        assert silent.connections() == 1  # asked once, timed out once: never again in the run
    finally:
        silent.close()


def test_entries_in_redis_are_plain_json_under_a_namespace_with_the_ttl(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    root = tree(tmp_path, "a")
    config = root / "pipeline.toml"
    config.write_text(config.read_text().replace("[cache]\n", "[cache]\nttl = 3600\n"), encoding="utf-8")
    done, _ = translate(root, redis_server.url())
    assert done.returncode == 0, done.stderr
    client = redis_server.client()
    keys = list(client.scan_iter(count=1000))
    assert keys and all(key.startswith(b"pipeline:1:") for key in keys)
    for key in keys[:20]:
        entry = json.loads(stored(client, key))
        assert set(entry) == {"v", "translation"} and isinstance(entry["translation"], str)
        assert 0 < client.ttl(key) <= 3600


def test_a_tampered_redis_entry_is_a_miss_and_the_run_pays_for_it_again(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    import pickle

    done, first = translate(tree(tmp_path, "a"), redis_server.url())
    assert done.returncode == 0, done.stderr
    client = redis_server.client()
    keys = list(client.scan_iter(count=1000))
    for key in keys:
        client.set(key, pickle.dumps({"translation": "x"}))
    done, report = translate(tree(tmp_path, "b"), redis_server.url())
    assert done.returncode == 0 and report["totals"]["segments_from_cache"] == 0, done.stderr
    assert report["totals"]["segments_translated"] == first["totals"]["segments_translated"]
    assert json.loads(stored(client, keys[0]))["v"] == 1  # and stored again as plain JSON


def test_a_lone_surrogate_in_redis_is_a_miss_for_a_fresh_machine_not_a_crash(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    paid = tree(tmp_path, "a")
    done, first = translate(paid, redis_server.url())
    assert done.returncode == 0, done.stderr
    client = redis_server.client()
    keys = list(client.scan_iter(count=1000))
    for key in keys:
        client.set(key, '{"v":1,"translation":"\\ud800"}')
    fresh = tree(tmp_path, "b")
    done, report = translate(fresh, redis_server.url())
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert report["totals"]["segments_from_cache"] == 0
    assert report["totals"]["segments_translated"] == first["totals"]["segments_translated"]
    assert catalogs(fresh) == catalogs(paid)
    assert all(json.loads(stored(client, key))["translation"] != "\ud800" for key in keys)  # replaced


def test_huge_values_in_redis_are_misses_never_read(redis_server: RedisServer, tmp_path: Path) -> None:
    from pipeline.cache.entry import MAX_ENTRY_BYTES

    done, first = translate(tree(tmp_path, "a"), redis_server.url())
    assert done.returncode == 0, done.stderr
    client = redis_server.client()
    keys = sorted(client.scan_iter(count=1000))[:10]
    for key in keys:
        client.set(key, b"x" * (MAX_ENTRY_BYTES + 1))
    sent = client.info("stats")["total_net_output_bytes"]
    done, report = translate(tree(tmp_path, "b"), redis_server.url())
    read = client.info("stats")["total_net_output_bytes"] - sent
    assert done.returncode == 0 and "shared translation cache" not in done.stderr, done.stderr
    assert read < 1_000_000  # every other entry, but none of the 10 huge values
    assert report["totals"]["segments_from_cache"] == first["totals"]["segments_translated"] - len(keys)
    assert all(client.strlen(key) < 10_000 for key in keys)  # paid again and replaced


def test_a_round_trip_reads_a_bounded_number_of_bytes_and_asks_again_for_the_rest(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.cache import shared
    from pipeline.cache.entry import encode, namespace

    monkeypatch.setattr(shared, "READ_BYTES", 10_000)
    monkeypatch.setattr(shared, "MAX_ENTRY_BYTES", 2_000)
    store = shared.RedisStore(redis_server.url(), namespace("svc"))
    values = {f"{n:064x}": f"{n:04d}" * 250 for n in range(100)}  # 1,000 characters each
    store.set_many(values)
    client = redis_server.client()
    client.set(store._prefix + "e" * 64, encode("x" * 2_000))  # longer than an entry can be: a miss
    client.hset(store._prefix + "f" * 64, mapping={"not": "a string"})  # a miss, not an error
    store.round_trips = 0
    assert store.get_many([*values, "e" * 64, "f" * 64, "0" * 63 + "z"]) == values
    assert 10 <= store.round_trips <= 12  # 10 KB a round trip: about ten entries each
    assert len(encode(values[f"{0:064x}"])) > 1_000
    store.close()


def test_stats_and_clear_work_on_the_shared_store_and_clear_only_what_is_asked(
    redis_server: RedisServer, tmp_path: Path
) -> None:

    from pipeline.cache import open_cache
    from pipeline.cache.maintenance import cache_stats, clear_cache
    from pipeline.config import Settings

    settings = Settings(root=tmp_path, cache_dir=tmp_path / "cache", cache_url=redis_server.url())
    for service, count in (("svc-a", 3), ("svc-b", 2)):
        cache = open_cache(settings, service, pytest.fail)
        cache.set_many({f"{n:064x}": "v" for n in range(count)})  # keys as cache_key() makes them
        cache.close()
    stats = cache_stats(settings, "svc-a")
    assert figures(stats, "local")["entries"] == 3  # same keys: svc-b's overwrote locally
    assert figures(stats, "shared")["entries"] == 3 and figures(stats, "shared")["entries_all_namespaces"] == 5
    assert PASSWORD not in json.dumps(stats)
    assert "shared" not in clear_cache(settings, "svc-a")  # the shared store only when asked
    assert redis_server.client().dbsize() == 5
    assert figures(clear_cache(settings, "svc-a", shared=True), "shared")["cleared"] == 3
    assert redis_server.client().dbsize() == 2
    assert figures(clear_cache(settings, "svc-a", shared=True, every_service=True), "shared")["cleared"] == 2
    assert redis_server.client().dbsize() == 0

    redis_server.stop()
    stats = cache_stats(settings, "svc-a")
    assert "error" in figures(stats, "shared") and figures(stats, "local")["entries"] == 0
    assert PASSWORD not in json.dumps(stats)
    down = cache_stats(settings._replace(cache_url=f"redis://:{PASSWORD}@127.0.0.1:{redis_server.port}/0"), "x")
    assert PASSWORD not in json.dumps(down)


def test_clearing_every_service_deletes_only_keys_of_the_entry_format(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    from pipeline.cache import open_cache
    from pipeline.cache.maintenance import cache_stats, clear_cache
    from pipeline.config import Settings

    settings = Settings(root=tmp_path, cache_dir=tmp_path / "cache", cache_url=redis_server.url())
    cache = open_cache(settings, "svc-a", pytest.fail)
    cache.set_many({"a" * 64: "A", "b" * 64: "B"})
    cache.close()
    client = redis_server.client()
    older = f"pipeline:0:x-tags/2:{'0' * 16}:{'c' * 64}"  # an earlier version's entry: ours, cleared too
    client.set(older, '{"v":0,"translation":"C"}')
    foreign = {
        "pipeline:build:4711:status": "running",
        f"pipeline:1:x-tags/3:{'0' * 16}:not-a-hash": "x",
        f"pipeline:1:x-tags/3:{'0' * 16}:{'d' * 64}:extra": "x",
        f"pipeline:1:x-tags/3:{'0' * 16}:{'E' * 64}": "x",
        "pipeline:": "x",
        "other:1:x-tags/3:0:0": "x",
    }
    for key, value in foreign.items():
        client.set(key, value)
    client.hset("pipeline:runners", mapping={"r1": "busy"})
    client.hset(f"pipeline:1:x-tags/3:{'0' * 16}:{'f' * 64}", mapping={"shape": "of ours, type not"})
    stats = figures(cache_stats(settings, "svc-a"), "shared")
    assert stats["entries"] == 2 and stats["entries_all_namespaces"] == 3
    cleared = figures(clear_cache(settings, "svc-a", shared=True, every_service=True), "shared")
    assert cleared["cleared"] == 3
    left = {key.decode() for key in client.scan_iter(count=1000)}
    assert left == {*foreign, "pipeline:runners", f"pipeline:1:x-tags/3:{'0' * 16}:{'f' * 64}"}
    assert client.hgetall("pipeline:runners") == {b"r1": b"busy"}


def test_pipeline_cache_stats_and_clear_on_the_command_line(redis_server: RedisServer, tmp_path: Path) -> None:
    root = tree(tmp_path, "a")
    done, _ = translate(root, redis_server.url())
    assert done.returncode == 0, done.stderr
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")},
        "PIPELINE_CACHE_URL": redis_server.url(),
    }

    def cache(*args: str) -> subprocess.CompletedProcess[str]:
        ran = subprocess.run(
            [sys.executable, "-m", "pipeline", "cache", *args, "--config", str(root / "pipeline.toml")],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert PASSWORD not in ran.stdout + ran.stderr
        return ran

    stats = cache("stats", "--json")
    assert stats.returncode == 0, stats.stderr
    figures = json.loads(stats.stdout)
    entries = redis_server.client().dbsize()
    assert figures["shared"]["entries"] == entries > 0 and figures["local"]["entries"] == entries
    assert f"127.0.0.1:{redis_server.port}" in cache("stats").stdout
    cleared = cache("clear", "--shared")
    assert cleared.returncode == 0 and f"{entries} entries removed" in cleared.stdout, cleared.stderr
    assert redis_server.client().dbsize() == 0
    redis_server.stop()
    down = cache("stats")
    assert down.returncode == 1 and "unavailable" in down.stdout and "Traceback" not in down.stderr


class TrickleProxy:
    """Between the client and redis: requests pass at once, answers come back one byte every ``pause`` seconds."""

    def __init__(self, upstream: int, pause: float) -> None:
        self.upstream, self.pause = upstream, pause
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = [self.listener]
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.upstream))
            self.sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, 0.0), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, self.pause), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, pause: float) -> None:
        try:
            while not self.stopped.is_set() and (data := source.recv(65536)):
                if not pause:
                    target.sendall(data)
                    continue
                for byte in data:
                    if self.stopped.wait(pause):
                        return
                    target.sendall(bytes([byte]))
        except OSError:
            return

    def close(self) -> None:
        self.stopped.set()
        for sock in self.sockets:
            sock.close()


def test_a_shared_cache_that_trickles_its_answers_is_dropped_after_one_answer_time(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """One byte every 0.4 s: each read waits less than redis-py's socket timeout (2 s), so only a deadline
    on the whole answer ends it; before, the run took minutes (a byte every 1.5 s: past 60 s)."""
    proxy = TrickleProxy(redis_server.port, pause=0.4)
    try:
        url = f"redis://:{PASSWORD}@127.0.0.1:{proxy.port}/0"
        root = tree(tmp_path, "a")
        done, report = translate(root, url)  # at most 120 s, or the test fails
    finally:
        proxy.close()
    assert done.returncode == 0, done.stderr
    [warning] = warnings(done)
    assert "is unavailable (no whole answer within 10 s)" in warning, warning
    assert report["totals"]["segments_translated"] > 0  # the run went on with the local cache
