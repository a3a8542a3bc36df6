"""A service that answers without end, on 127.0.0.1: the request fails clearly and memory stays bounded."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.client.requests import ANSWER_FLOOR_BYTES
from pipeline.client.retry import NO_RETRY
from pipeline.client.sync import Client
from pipeline.errors import AnswerTooLargeError

pytestmark = pytest.mark.integration

# Answers every request with 200 and a chunked body that never ends; prints its port first.
SERVER = textwrap.dedent("""
    import asyncio

    CHUNK = b"x" * 65536
    FRAME = b"%x\\r\\n" % len(CHUNK) + CHUNK + b"\\r\\n"

    async def answer(reader, writer):
        try:
            while (await reader.readline()) not in (b"\\r\\n", b""):
                pass  # the request's headers; its body is left unread
            writer.write(b"HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\n"
                         b"Transfer-Encoding: chunked\\r\\n\\r\\n"
                         b"5\\r\\n{\\"a\\":\\r\\n")
            while True:
                writer.write(FRAME)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def main():
        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        print(server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()

    asyncio.run(main())
""")


@pytest.fixture
def endless_url() -> Iterator[str]:
    process = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        process.kill()
        process.wait()


def test_an_endless_answer_fails_the_request_and_memory_stays_bounded(endless_url: str) -> None:
    tracemalloc.start()
    try:
        with Client(endless_url, "secret-key", retry=NO_RETRY, timeout=10.0) as client:
            with pytest.raises(AnswerTooLargeError, match="POST /v2/translate passed"):
                client.translate(["Hello"], target_lang="DE")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * ANSWER_FLOOR_BYTES + 4 * 1024 * 1024  # the bound, a chunk or two, and the client itself


def test_a_run_against_an_endless_service_reports_the_error_without_a_traceback(
    endless_url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "locale" / "de" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "app.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Language: de\\n"\n\nmsgid "Hello"\nmsgstr ""\n',
        encoding="utf-8",
    )
    (tmp_path / "pipeline.toml").write_text(
        'catalogs = ["locale/*/LC_MESSAGES/*.po"]\n[service]\nmax_attempts = 1\n', encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPELINE_")}
    env["PIPELINE_AUTH_KEY"] = "secret-key"
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "translate", "--service-url", endless_url],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "more than the request can produce" in done.stdout + done.stderr
    assert 'msgstr ""' in (folder / "app.po").read_text(encoding="utf-8")
