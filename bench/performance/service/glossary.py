"""Glossary figures of the local service, printed as JSON.

In-process (``httpx.ASGITransport``, the embedded mode), so HTTP framing is left out and the
figures are those of the service itself:

- ``create_seconds``: ``POST /v3/glossaries`` with one dictionary of just under 10 MB (the limit)
  in TSV, parsed and checked against every content rule, then stored;
- ``first_translate_seconds``: the first 50-text translate request using that glossary (loads
  and indexes the dictionary);
- ``create_stall`` and ``first_translate_stall``: the longest the event loop was held while that
  request ran, as a share of the request's time: what any other request would have waited, near
  0 when the work runs in worker threads, near 1 when it stalls every other request (the tests
  hold each step instead: ``tests/integration/service/test_service_hostile_input.py``);
- ``translate_seconds_median``: later requests of the same kind (the index is cached);
- ``merge_seconds``: ``PATCH`` merging 1,000 entries into the full dictionary;
- ``memory`` figures: fuzzy matching 50 texts against a translation memory of ``--memory-segments``
  segments.

Usage: ``python -m bench.performance.service.glossary [--repeat N] [--memory-segments N]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path

import httpx

from pipeline.protocol import MAX_GLOSSARY_DICTIONARY_BYTES
from pipeline.service.config import AccountSpec, MemorySpec, ServiceConfig
from pipeline.service.embedded import embedded_transport
from pipeline.service.store.memories import memory_id_for

KEY = "bench-key"
HEADERS = {"Authorization": f"Service-Auth-Key {KEY}"}
WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda omicron sigma tau upsilon omega".split()


def phrase(rng: random.Random, n: int) -> str:
    """A unique source phrase: two or three words and a number."""
    return f"{' '.join(rng.choices(WORDS, k=rng.randint(1, 2)))} term{n}"


def big_dictionary(limit: int) -> tuple[str, int]:
    """TSV entries just under ``limit`` bytes, and their count."""
    rng = random.Random(7)
    lines: list[str] = []
    size = n = 0
    while True:
        line = f"{phrase(rng, n)}\tZiel {n} {rng.choice(WORDS)}\n"
        if size + len(line.encode()) > limit:
            return "".join(lines), n
        lines.append(line)
        size += len(line.encode())
        n += 1


def texts(rng: random.Random, entries: int) -> list[str]:
    """50 texts, each naming a glossary term among ordinary words."""
    return [
        f"Open {phrase(random.Random(k), k)} and {' '.join(rng.choices(WORDS, k=12))} today."
        for k in (rng.randrange(entries) for _ in range(50))
    ]


async def timed(call: Awaitable[httpx.Response]) -> tuple[float, httpx.Response]:
    started = time.perf_counter()
    response = await call
    return time.perf_counter() - started, response


async def probed(call: Awaitable[httpx.Response]) -> tuple[float, httpx.Response, float]:
    """``call``'s seconds and answer, and the longest the event loop was held meanwhile.

    A task that takes its turn again and again sees every stretch the loop spent on one thing: a
    request to the service waits as long as that, whatever else it does.
    """
    started = time.perf_counter()

    async def answered() -> tuple[httpx.Response, float]:
        return await call, time.perf_counter()

    task = asyncio.ensure_future(answered())
    longest, last = 0.0, started
    while not task.done():
        await asyncio.sleep(0)
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    response, ended = task.result()
    return ended - started, response, longest


async def glossary_figures(client: httpx.AsyncClient, repeat: int) -> dict[str, object]:
    entries, count = big_dictionary(MAX_GLOSSARY_DICTIONARY_BYTES - 50_000)  # room for the merge
    body = {
        "name": "bench",
        "dictionaries": [{"source_lang": "en", "target_lang": "de", "entries": entries, "entries_format": "tsv"}],
    }
    create_s, created, create_wait = await probed(client.post("/v3/glossaries", json=body, headers=HEADERS))
    assert created.status_code == 201, created.text
    glossary_id = created.json()["glossary_id"]
    rng = random.Random(1)
    request = {"source_lang": "EN", "target_lang": "DE", "glossary_id": glossary_id}
    first_s, first, first_wait = await probed(
        client.post("/v2/translate", json={**request, "text": texts(rng, count)}, headers=HEADERS)
    )
    assert first.status_code == 200, first.text
    later = []
    for _ in range(repeat):
        seconds, answer = await timed(
            client.post("/v2/translate", json={**request, "text": texts(rng, count)}, headers=HEADERS)
        )
        assert answer.status_code == 200
        later.append(seconds)
    merge = "".join(f"merged {i}\tneu {i}\n" for i in range(1000))
    patch = {"dictionaries": [{"source_lang": "en", "target_lang": "de", "entries": merge, "entries_format": "tsv"}]}
    merge_s, merged = await timed(client.patch(f"/v3/glossaries/{glossary_id}", json=patch, headers=HEADERS))
    assert merged.status_code == 200, merged.text
    return {
        "dictionary_bytes": len(entries.encode()),
        "entries": count,
        "create_seconds": round(create_s, 3),
        "first_translate_seconds": round(first_s, 3),
        "create_stall": round(create_wait / create_s, 3),
        "first_translate_stall": round(first_wait / first_s, 3),
        "translate_seconds_median": round(statistics.median(later), 4),
        "merge_seconds": round(merge_s, 3),
    }


async def memory_figures(client: httpx.AsyncClient, memory_id: str, segments: int, repeat: int) -> dict[str, object]:
    rng = random.Random(3)
    request = {"source_lang": "EN", "target_lang": "DE", "translation_memory_id": memory_id}
    runs = []
    for _ in range(repeat):
        batch = [f"Segment {rng.randrange(segments)} says {' '.join(rng.choices(WORDS, k=6))}" for _ in range(50)]
        seconds, answer = await timed(client.post("/v2/translate", json={**request, "text": batch}, headers=HEADERS))
        assert answer.status_code == 200, answer.text
        runs.append(seconds)
    return {
        "segments": segments,
        "texts_per_request": 50,
        "translate_seconds_median": round(statistics.median(runs), 4),
    }


def write_memory(path: Path, segments: int) -> None:
    rng = random.Random(5)
    units = "".join(
        f'<tu><tuv xml:lang="en"><seg>Segment {n} says {" ".join(rng.choices(WORDS, k=6))}</seg></tuv>'
        f'<tuv xml:lang="de"><seg>Segment {n} sagt etwas</seg></tuv></tu>\n'
        for n in range(segments)
    )
    path.write_text(f'<tmx version="1.4"><header srclang="en"/><body>{units}</body></tmx>', encoding="utf-8")


async def main(repeat: int, segments: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        tmx = Path(tmp) / "bench.tmx"
        write_memory(tmx, segments)
        started = time.perf_counter()
        account = AccountSpec("paid", (KEY,), (), (MemorySpec("bench", tmx),))
        transport = embedded_transport(ServiceConfig(accounts=(account,)))
        await transport.service.open()  # reads the memory file
        load_s = time.perf_counter() - started
        async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=300) as client:
            glossary = await glossary_figures(client, repeat)
            memory = await memory_figures(client, memory_id_for("paid", "bench"), segments, repeat)
    memory["load_seconds"] = round(load_s, 3)
    return {
        "python": platform.python_version(),
        "mode": "in-process",
        "glossary": glossary,
        "translation_memory": memory,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--memory-segments", type=int, default=20_000)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.repeat, args.memory_segments)), indent=2))
